/*
 * ELF64 little-endian section table reader (System V gABI):
 *
 * File header (64 bytes):
 *	0x00 "\x7fELF", 0x04 EI_CLASS (2 = 64-bit), 0x05 EI_DATA (1 = LSB)
 *	0x10 u16 e_type, 0x12 u16 e_machine
 *	0x28 u64 e_shoff, 0x3A u16 e_shentsize (64), 0x3C u16 e_shnum, 0x3E u16 e_shstrndx
 *	e_shnum == 0 with e_shoff != 0: the count is section 0's sh_size (>= 0xff00 sections)
 *	e_shstrndx == 0xFFFF: the index is section 0's sh_link
 *
 * Section header (64 bytes each, at e_shoff):
 *	0x00 u32 sh_name (offset in the section-name table), 0x04 u32 sh_type,
 *	0x08 u64 sh_flags, 0x18 u64 sh_offset, 0x20 u64 sh_size,
 *	0x28 u32 sh_link, 0x2C u32 sh_info
 *
 * Every section's bytes (unless SHT_NOBITS) must lie inside the file, and
 * every name must be NUL-terminated inside the name table.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "elf.h"
#include "span.h"
#include "util.h"

int
elf_is_elf(const uint8_t *data, size_t len)
{
	return len >= 4 && !memcmp(data, "\x7f" "ELF", 4);
}

int
elf_open(struct elf *e, const uint8_t *data, size_t len, struct buf *why)
{
	struct span s = { data, len };
	uint64_t shoff, tbl_end;
	uint16_t shentsize, shnum16, shstrndx16;
	uint64_t shnum, shstrndx;
	const struct elf_section *strtab;
	size_t i;

	memset(e, 0, sizeof(*e));
	e->data = data;
	e->len = len;
	if (!elf_is_elf(data, len) || len < 64) {
		buf_addstr(why, "not an ELF file");
		return -1;
	}
	if (data[4] != 2 || data[5] != 1) {
		buf_addf(why, "not a 64-bit little-endian ELF file (class %u, data %u)", data[4], data[5]);
		return -1;
	}
	rd_u16(s, 0x10, &e->type);
	rd_u16(s, 0x12, &e->machine);
	rd_u64(s, 0x28, &shoff);
	rd_u16(s, 0x3A, &shentsize);
	rd_u16(s, 0x3C, &shnum16);
	rd_u16(s, 0x3E, &shstrndx16);
	if (!shoff)
		return 0; /* no section table: nothing to find */
	if (shentsize != 64) {
		buf_addf(why, "section header size is %u (expected 64)", shentsize);
		return -1;
	}
	shnum = shnum16;
	shstrndx = shstrndx16;
	if (shnum == 0 || shstrndx == 0xFFFF) {
		uint64_t size0;
		uint32_t link0;

		if (rd_u64(s, shoff + 0x20, &size0) < 0 || rd_u32(s, shoff + 0x28, &link0) < 0) {
			buf_addstr(why, "section table lies outside the file");
			return -1;
		}
		if (shnum == 0)
			shnum = size0;
		if (shstrndx == 0xFFFF)
			shstrndx = link0;
	}
	if (shnum > len / 64 || add_u64(shoff, shnum * 64, &tbl_end) < 0 || tbl_end > len) {
		buf_addf(why, "section table (%llu entries at 0x%llx) lies outside the file",
			 (unsigned long long)shnum, (unsigned long long)shoff);
		return -1;
	}
	e->sections = xcalloc(shnum ? shnum : 1, sizeof(*e->sections));
	e->nsections = shnum;
	for (i = 0; i < shnum; i++) {
		struct elf_section *sec = &e->sections[i];
		uint64_t h = shoff + i * 64;
		uint32_t name = 0;

		rd_u32(s, h, &name);
		rd_u32(s, h + 4, &sec->type);
		rd_u64(s, h + 8, &sec->flags);
		rd_u64(s, h + 0x18, &sec->offset);
		rd_u64(s, h + 0x20, &sec->size);
		rd_u32(s, h + 0x28, &sec->link);
		rd_u32(s, h + 0x2C, &sec->info);
		sec->name = (const char *)(uintptr_t)name; /* resolved below */
		if (sec->type != SHT_NOBITS_ && i && !span_has(len, sec->offset, sec->size)) {
			buf_addf(why, "section %zu (0x%llx bytes at 0x%llx) lies outside the file", i,
				 (unsigned long long)sec->size, (unsigned long long)sec->offset);
			elf_release(e);
			return -1;
		}
	}
	strtab = shstrndx && shstrndx < shnum ? &e->sections[shstrndx] : NULL;
	for (i = 0; i < shnum; i++) {
		uint64_t name = (uint64_t)(uintptr_t)e->sections[i].name;

		e->sections[i].name = "";
		if (!strtab || strtab->type == SHT_NOBITS_ || name >= strtab->size)
			continue;
		if (!memchr(data + strtab->offset + name, '\0', strtab->size - name)) {
			buf_addf(why, "name of section %zu is not terminated", i);
			elf_release(e);
			return -1;
		}
		e->sections[i].name = (const char *)data + strtab->offset + name;
	}
	return 0;
}

void
elf_release(struct elf *e)
{
	free(e->sections);
	e->sections = NULL;
	e->nsections = 0;
}

const struct elf_section *
elf_section_by_name(const struct elf *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->nsections; i++)
		if (!strcmp(e->sections[i].name, name))
			return &e->sections[i];
	return NULL;
}
