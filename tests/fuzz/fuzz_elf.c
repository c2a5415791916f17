#include <stdint.h>
#include <string.h>

#include "../../src/wheel/archs.h"
#include "../../src/core/buf.h"
#include "../../src/formats/elf.h"
#include "../../src/formats/elfscan.h"
#include "../../src/formats/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole per-library scan: sections, fatbin walk with deep checks, dynamic section, versions. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strvec errors = STRVEC_INIT;
	struct wheel_lib lib;

	struct archs_lib al;

	struct fatbin_budget budget;

	fatbin_budget_init(&budget, size);
	elfscan(&lib, "fuzz.so", data, size, ELFSCAN_DEEP, &budget, &errors);
	wheel_lib_release(&lib);
	/* The arch lister's reading of the same bytes (headers only). */
	memset(&al, 0, sizeof(al));
	archs_scan_bytes(&al, data, size, 0);
	archs_lib_release(&al);
	/* The dynamic symbol table, as verify --against reads it. */
	{
		struct elf e;
		struct buf why = BUF_INIT;
		struct strvec def = STRVEC_INIT, undef = STRVEC_INIT;

		if (elf_open(&e, data, size, &why) == 0) {
			elf_dynsym_read(&e, &def, &undef, &why);
			elf_release(&e);
		}
		strvec_clear(&def);
		strvec_clear(&undef);
		buf_release(&why);
	}
	strvec_clear(&errors);
	return 0;
}
