#include <stdint.h>

#include "../../src/buf.h"
#include "../../src/elf.h"
#include "../../src/elfscan.h"
#include "../../src/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole per-library scan: sections, fatbin walk with deep checks, dynamic section, versions. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strvec errors = STRVEC_INIT;
	struct wheel_lib lib;

	elfscan(&lib, "fuzz.so", data, size, 1, &errors);
	wheel_lib_release(&lib);
	strvec_clear(&errors);
	return 0;
}
