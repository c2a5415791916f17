#include <stdint.h>

#include "../../src/buf.h"
#include "../../src/elf.h"
#include "../../src/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf why = BUF_INIT;
	struct elf e;

	if (elf_open(&e, data, size, &why) == 0) {
		const struct elf_section *s = elf_section_by_name(&e, ".nv_fatbin");

		if (s && s->type != SHT_NOBITS_)
			fatbin_walk(data + s->offset, (size_t)s->size, NULL, NULL, &why);
	}
	elf_release(&e);
	buf_release(&why);
	return 0;
}
