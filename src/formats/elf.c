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
 *
 * SHT_DYNAMIC (6): 16-byte records { i64 d_tag, u64 d_val } up to DT_NULL;
 * sh_link is the string table. DT_NEEDED 1, DT_SONAME 14, DT_RPATH 15,
 * DT_RUNPATH 29 hold string offsets.
 *
 * SHT_GNU_verneed (0x6ffffffe, .gnu.version_r): sh_link is the string
 * table, sh_info the number of Verneed records.
 *	Verneed (16 bytes): u16 vn_version (1), u16 vn_cnt, u32 vn_file,
 *	  u32 vn_aux (offset of the first Vernaux from this record),
 *	  u32 vn_next (offset of the next Verneed; 0 ends the list)
 *	Vernaux (16 bytes): u32 vna_hash, u16 vna_flags, u16 vna_other,
 *	  u32 vna_name, u32 vna_next (0 ends the list)
 * Walks are bounded by the record counts and by the section size, so a
 * cycle of offsets cannot loop forever; and since every record is 16
 * bytes of its own, more Verneed + Vernaux visits than size / 16 means
 * records repeat (offsets pointing back into each other), which is refused.
 *
 * Bounds (docs/design/bounds.md): the loader reads one dynamic section
 * and one version-needs section, so a second SHT_DYNAMIC, SHT_GNU_verneed
 * or SHT_DYNSYM is refused (2,000 headers on one .dynamic would read it
 * 2,000 times); the strings copied out of a file never total more than
 * the file's size (STRING_BUDGET), and a section name is looked for in
 * the first SECTION_NAME_MAX bytes only, so the time and memory of every
 * walk here is linear in the file.
 *
 * SHT_DYNSYM (11, .dynsym): 24-byte Elf64_Sym records { u32 st_name,
 * u8 st_info (binding << 4 | type), u8 st_other (visibility in the low 2
 * bits), u16 st_shndx (0: undefined), u64 st_value, u64 st_size };
 * sh_link is the string table. Record 0 is the null symbol.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/strhash.h"
#include "formats/elf.h"
#include "core/span.h"
#include "core/util.h"

#define SECTION_NAME_MAX 4096

const char *
elf_machine_name(unsigned machine, char *spare, size_t size)
{
	static const struct { unsigned machine; const char *name; } names[] = {
		{ EM_386_, "i386" }, { EM_ARM_, "arm" }, { EM_PPC64_, "ppc64" },
		{ EM_S390_, "s390x" }, { EM_X86_64_, "x86-64" }, { EM_AARCH64_, "aarch64" },
		{ EM_CUDA_, "CUDA" }, { EM_RISCV_, "riscv" }, { EM_LOONGARCH_, "loongarch" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].machine == machine)
			return names[i].name;
	snprintf(spare, size, "ELF machine %u", machine);
	return spare;
}

int
elf_is_elf(const uint8_t *data, size_t len)
{
	return len >= 4 && !memcmp(data, "\x7f" "ELF", 4);
}

/* The section table: `shnum` 64-byte headers at `shoff` (inside the file), names still offsets. */
static int
read_sections(struct elf *e, struct span s, uint64_t shoff, uint64_t shnum, struct buf *why)
{
	e->sections = xcalloc(shnum ? shnum : 1, sizeof(*e->sections));
	e->nsections = shnum;
	for (size_t i = 0; i < shnum; i++) {
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
		sec->name = (const char *)(uintptr_t)name; /* resolved by name_sections */
		if (!i) {
			/* Section 0 only carries the extended counts; its offset means nothing. */
			sec->type = 0;
			sec->size = 0;
			sec->offset = 0;
			sec->name = NULL;
			continue;
		}
		if (sec->type != SHT_NOBITS_ && !span_has(e->len, sec->offset, sec->size)) {
			buf_addf(why, "section %zu (0x%llx bytes at 0x%llx) lies outside the file", i,
				 (unsigned long long)sec->size, (unsigned long long)sec->offset);
			return -1;
		}
	}
	return 0;
}

/*
 * Each section's name offset resolved in the section-name table `strtab`
 * (NULL: none, every section nameless); a name longer than any looked for
 * is left nameless, one that runs off the table's end is an error.
 */
static int
name_sections(struct elf *e, const struct elf_section *strtab, struct buf *why)
{
	for (size_t i = 0; i < e->nsections; i++) {
		uint64_t name = (uint64_t)(uintptr_t)e->sections[i].name, room;

		e->sections[i].name = "";
		if (!strtab || strtab->type == SHT_NOBITS_ || name >= strtab->size)
			continue;
		room = strtab->size - name;
		if (!memchr(e->data + strtab->offset + name, '\0',
			    room < SECTION_NAME_MAX ? (size_t)room : SECTION_NAME_MAX)) {
			if (room < SECTION_NAME_MAX) {
				buf_addf(why, "name of section %zu is not terminated", i);
				return -1;
			}
			continue; /* longer than any name looked for: nameless */
		}
		e->sections[i].name = (const char *)e->data + strtab->offset + name;
	}
	return 0;
}

int
elf_open(struct elf *e, const uint8_t *data, size_t len, struct buf *why)
{
	struct span s = { data, len };
	uint64_t shoff, tbl_end;
	uint16_t shentsize, shnum16, shstrndx16;
	uint64_t shnum, shstrndx;

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
	if (read_sections(e, s, shoff, shnum, why) < 0 ||
	    name_sections(e, shstrndx && shstrndx < shnum ? &e->sections[shstrndx] : NULL, why) < 0) {
		elf_release(e);
		return -1;
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

/* The NUL-terminated string at `off` of string-table section `link`. */
static const char *
strtab_at(const struct elf *e, uint32_t link, uint64_t off)
{
	const struct elf_section *t;

	if (link == 0 || link >= e->nsections)
		return NULL;
	t = &e->sections[link];
	if (t->type == SHT_NOBITS_ || off >= t->size)
		return NULL;
	if (!memchr(e->data + t->offset + off, '\0', t->size - off))
		return NULL;
	return (const char *)e->data + t->offset + off;
}

/*
 * The bytes of strings copied out of one file: at most its size, which a
 * real library never comes near (each string is copied a few times at
 * most) and repeated offsets into one long string would pass by far.
 */
struct budget {
	uint64_t left;
};

static int
charge(struct budget *b, const char *str, struct buf *why)
{
	size_t n = strlen(str) + 1;

	if (n > b->left) {
		buf_addstr(why, "its string references repeat beyond the file's size (crafted: "
			   "entries point at the same strings over and over)");
		return -1;
	}
	b->left -= n;
	return 0;
}

static int
read_dynamic(const struct elf *e, const struct elf_section *sec, struct elf_dynamic *d,
	     struct budget *bud, struct buf *why)
{
	struct span s = { e->data + sec->offset, sec->size };
	struct strhash seen = STRHASH_INIT;
	uint64_t off;
	int rc = -1;

	for (off = 0; off + 16 <= sec->size; off += 16) {
		uint64_t tag = 0, val = 0;
		const char *str;
		char **slot = NULL;

		rd_u64(s, off, &tag);
		rd_u64(s, off + 8, &val);
		if (tag == 0)
			break;
		if (tag != 1 && tag != 14 && tag != 15 && tag != 29)
			continue;
		str = strtab_at(e, sec->link, val);
		if (!str) {
			buf_addf(why, "dynamic entry %llu names a string outside its table",
				 (unsigned long long)(off / 16));
			goto out;
		}
		/*
		 * A repeated DT_NEEDED is one library to the loader: kept once, so
		 * no reader of `needed` works per repeat (one name 2 M times cost
		 * manifest 2.8 GB).
		 */
		if (tag == 1 && !strhash_add(&seen, str))
			continue;
		if (tag == 1 && seen.n > ELF_NEEDED_MAX) {
			buf_addf(why, "more than %d distinct DT_NEEDED entries (a crafted library?)",
				 ELF_NEEDED_MAX);
			goto out;
		}
		if (charge(bud, str, why) < 0)
			goto out;
		if (tag == 1) {
			strvec_push(&d->needed, str);
			continue;
		}
		slot = tag == 14 ? &d->soname : tag == 15 ? &d->rpath : &d->runpath;
		free(*slot);
		*slot = xstrdup(str);
	}
	rc = 0;
out:
	strhash_release(&seen);
	return rc;
}

static int
read_verneed(const struct elf *e, const struct elf_section *sec, struct elf_dynamic *d,
	     struct budget *bud, struct buf *why)
{
	struct span s = { e->data + sec->offset, sec->size };
	uint64_t vn = 0, visits = 0, most = sec->size / 16;
	uint32_t i;

	for (i = 0; i < sec->info; i++) {
		uint16_t ver = 0, cnt = 0;
		uint32_t file = 0, aux = 0, next = 0, j;
		uint64_t va;
		const char *fname;

		if (rd_u16(s, vn, &ver) < 0 || rd_u16(s, vn + 2, &cnt) < 0 ||
		    rd_u32(s, vn + 4, &file) < 0 || rd_u32(s, vn + 8, &aux) < 0 ||
		    rd_u32(s, vn + 12, &next) < 0) {
			buf_addf(why, ".gnu.version_r record %u lies outside the section", i);
			return -1;
		}
		if (ver != 1) {
			buf_addf(why, ".gnu.version_r record %u has version %u (expected 1)", i, ver);
			return -1;
		}
		if (++visits > most)
			goto repeats;
		fname = strtab_at(e, sec->link, file);
		if (!fname) {
			buf_addf(why, ".gnu.version_r record %u names a file outside its string table", i);
			return -1;
		}
		va = vn + aux;
		for (j = 0; j < cnt; j++) {
			uint32_t name = 0, anext = 0;
			const char *vname;

			if (rd_u32(s, va + 8, &name) < 0 || rd_u32(s, va + 12, &anext) < 0) {
				buf_addf(why, ".gnu.version_r entry %u of '%s' lies outside the section",
					 j, fname);
				return -1;
			}
			if (++visits > most)
				goto repeats;
			vname = strtab_at(e, sec->link, name);
			if (!vname) {
				buf_addf(why, ".gnu.version_r entry %u of '%s' names a string outside "
					 "its table", j, fname);
				return -1;
			}
			if (charge(bud, fname, why) < 0 || charge(bud, vname, why) < 0)
				return -1;
			strvec_push(&d->vfile, fname);
			strvec_push(&d->vname, vname);
			if (!anext)
				break;
			va += anext;
		}
		if (!next)
			break;
		vn += next;
	}
	return 0;
repeats:
	buf_addf(why, ".gnu.version_r has more records than its %llu bytes hold (records "
		 "overlap or repeat)", (unsigned long long)sec->size);
	return -1;
}

/* The one section of `type`; -1 with a reason when there are more. */
static int
only_section(const struct elf *e, uint32_t type, const char *what,
	     const struct elf_section **out, struct buf *why)
{
	*out = NULL;
	for (size_t i = 0; i < e->nsections; i++) {
		if (e->sections[i].type != type)
			continue;
		if (*out) {
			buf_addf(why, "more than one %s section (sections %zu and %zu)", what,
				 (size_t)(*out - e->sections), i);
			return -1;
		}
		*out = &e->sections[i];
	}
	return 0;
}

int
elf_dynamic_read(const struct elf *e, struct elf_dynamic *d, struct buf *why)
{
	memset(d, 0, sizeof(*d));
	strvec_init(&d->needed);
	strvec_init(&d->vfile);
	strvec_init(&d->vname);
	const struct elf_section *dyn, *ver;
	struct budget bud = { e->len };

	if (only_section(e, SHT_DYNAMIC_, "SHT_DYNAMIC", &dyn, why) < 0 ||
	    only_section(e, SHT_GNU_VERNEED_, "SHT_GNU_verneed", &ver, why) < 0)
		return -1;
	if (dyn && read_dynamic(e, dyn, d, &bud, why) < 0)
		return -1;
	if (ver && read_verneed(e, ver, d, &bud, why) < 0)
		return -1;
	return 0;
}

size_t
elf_origin_len(const char *p, size_t n)
{
	size_t k = n >= 9 && !strncmp(p, "${ORIGIN}", 9) ? 9 : n >= 7 && !strncmp(p, "$ORIGIN", 7) ? 7 : 0;

	return k && (k == n || p[k] == '/') ? k : 0;
}

int
elf_dynsym_read(const struct elf *e, struct strvec *defined, struct strvec *undefined,
		struct buf *why)
{
	const struct elf_section *sec;
	struct budget bud = { e->len };

	if (only_section(e, SHT_DYNSYM_, "SHT_DYNSYM", &sec, why) < 0)
		return -1;
	if (sec) {
		struct span s = { e->data + sec->offset, sec->size };

		for (uint64_t off = 24; off + 24 <= sec->size; off += 24) {
			uint32_t name = 0;
			uint8_t info = 0, other = 0;
			uint16_t shndx = 0;
			unsigned bind, vis;
			const char *str;

			rd_u32(s, off, &name);
			rd_u8(s, off + 4, &info);
			rd_u8(s, off + 5, &other);
			rd_u16(s, off + 6, &shndx);
			if (!name)
				continue;
			if (!(str = strtab_at(e, sec->link, name))) {
				buf_addf(why, "dynamic symbol %llu names a string outside its table",
					 (unsigned long long)(off / 24));
				return -1;
			}
			if (charge(&bud, str, why) < 0)
				return -1;
			bind = info >> 4;
			vis = other & 3;
			/* GLOBAL 1, WEAK 2, GNU_UNIQUE 10; hidden (2) and internal (1) are not exported. */
			if (shndx && (bind == 1 || bind == 2 || bind == 10) && (vis == 0 || vis == 3)) {
				if (defined)
					strvec_push(defined, str);
			} else if (!shndx && bind == 1 && undefined) {
				strvec_push(undefined, str); /* weak undefined ones may stay missing */
			}
		}
	}
	return 0;
}

void
elf_dynamic_release(struct elf_dynamic *d)
{
	strvec_clear(&d->needed);
	strvec_clear(&d->vfile);
	strvec_clear(&d->vname);
	free(d->soname);
	free(d->runpath);
	free(d->rpath);
	d->soname = d->runpath = d->rpath = NULL;
}
