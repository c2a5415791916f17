#include <stdint.h>

#include "../../src/core/strvec.h"
#include "../../src/sources/treeneeds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same bytes as a CMakeLists.txt and a Python file (pyproject.toml is tomllib's). */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strvec out = STRVEC_INIT;
	unsigned line = 0;

	cmake_minimum_text((const char *)data, size, &line);
	py_imports_text((const char *)data, size, &out);
	strvec_clear(&out);
	return 0;
}
