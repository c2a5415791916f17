#include <stdint.h>

#include "../../src/formats/cmakeopts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmake_options o;

	cmakeopts_init(&o);
	cmakeopts_scan_buffer(&o, "CMakeLists.txt", (const char *)data, size);
	cmakeopts_mentions(&o, (const char *)data, size);
	cmakeopts_find(&o, "USE_CUDA");
	cmakeopts_release(&o);
	return 0;
}
