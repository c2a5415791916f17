#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/formats/elf.h"
#include "../../src/core/util.h"
#include "t.h"

/* tests/fixtures/bin/k.so: nvcc -shared for x86-64 (see its README.md). */
void
t_elf(void)
{
	struct buf data = BUF_INIT, why = BUF_INIT;
	const struct elf_section *s;
	struct elf_dynamic d;
	struct elf e;
	size_t i;
	int glibc = 0;

	/* One reading of $ORIGIN for the repair, its CUDA forms and verify's runpath check. */
	CHECK(elf_origin_len("$ORIGIN", 7) == 7);
	CHECK(elf_origin_len("$ORIGIN/../lib:/usr/lib", 14) == 7);
	CHECK(elf_origin_len("${ORIGIN}/x", 11) == 9);
	CHECK(elf_origin_len("$ORIGINAL/lib", 13) == 0);
	CHECK(elf_origin_len("$ORIGIN:/usr/lib", 7) == 7);
	CHECK(elf_origin_len("$ORIG", 5) == 0);
	CHECK(elf_origin_len("/usr/lib", 8) == 0);
	CHECK(read_file(&data, "tests/fixtures/bin/k.so") == 0);
	CHECK(elf_is_elf((const uint8_t *)data.s, data.len));
	CHECK(!elf_is_elf((const uint8_t *)"\177EL", 3));
	CHECK(!elf_is_elf((const uint8_t *)"PK\3\4 not an ELF", 16));

	CHECK(elf_open(&e, (const uint8_t *)data.s, data.len, &why) == 0);
	CHECK(e.machine == EM_X86_64_);
	s = elf_section_by_name(&e, ".nv_fatbin");
	/* readelf -S: [15] .nv_fatbin PROGBITS, offset 0x2008, size 0x2fa8 */
	CHECK(s && s->offset == 0x2008 && s->size == 0x2fa8);
	CHECK(elf_section_by_name(&e, ".no_such_section") == NULL);

	memset(&d, 0, sizeof(d));
	CHECK(elf_dynamic_read(&e, &d, &why) == 0);
	CHECK(d.needed.n == 4 && strset_has(&d.needed, "libcudart.so.13") &&
	      strset_has(&d.needed, "libc.so.6"));
	CHECK(d.soname == NULL && d.runpath == NULL && d.rpath == NULL);
	CHECK(d.vfile.n == d.vname.n);
	for (i = 0; i < d.vname.n; i++)
		glibc |= !strcmp(d.vfile.v[i], "libc.so.6") && !strcmp(d.vname.v[i], "GLIBC_2.2.5");
	CHECK(glibc);
	elf_dynamic_release(&d);

	/* Bounds: records repeating through each other, and a second .dynamic, are refused. */
	{
		struct buf crafted = BUF_INIT, w = BUF_INIT;
		struct elf ce;

		CHECK(read_file(&crafted, "tests/fuzz/corpus/elf/verneed-repeats.so") == 0);
		CHECK(elf_open(&ce, (const uint8_t *)crafted.s, crafted.len, &w) == 0);
		CHECK(elf_dynamic_read(&ce, &d, &w) < 0);
		CHECK(strstr(w.s, "repeat") != NULL);
		CHECK(d.vname.n <= crafted.len / 16);
		elf_dynamic_release(&d);
		elf_release(&ce);
		buf_reset(&crafted);
		buf_reset(&w);
		CHECK(read_file(&crafted, "tests/fuzz/corpus/elf/dynamic-repeated.so") == 0);
		CHECK(elf_open(&ce, (const uint8_t *)crafted.s, crafted.len, &w) == 0);
		CHECK(elf_dynamic_read(&ce, &d, &w) < 0);
		CHECK(strstr(w.s, "more than one SHT_DYNAMIC section (sections 2 and 4)") != NULL);
		elf_dynamic_release(&d);
		elf_release(&ce);
		buf_release(&crafted);
		buf_release(&w);
	}
	elf_release(&e);

	/* A section table beyond the end of the file. */
	buf_reset(&why);
	CHECK(elf_open(&e, (const uint8_t *)data.s, 4096, &why) < 0);
	CHECK(why.s && strstr(why.s, "outside the file") != NULL);
	elf_release(&e);
	/* Not an ELF file at all. */
	buf_reset(&why);
	CHECK(elf_open(&e, (const uint8_t *)"PK\3\4", 4, &why) < 0);
	elf_release(&e);
	buf_release(&data);
	buf_release(&why);
}
