#include <stdint.h>
#include <string.h>

#include "../../src/archs.h"
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

	struct archs_lib al;

	elfscan(&lib, "fuzz.so", data, size, 1, &errors);
	wheel_lib_release(&lib);
	/* The arch lister's reading of the same bytes (headers only). */
	memset(&al, 0, sizeof(al));
	archs_scan_bytes(&al, data, size, 0);
	archs_lib_release(&al);
	strvec_clear(&errors);
	return 0;
}
