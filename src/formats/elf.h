#ifndef BWBUILD_ELF_H
#define BWBUILD_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "core/strvec.h"

struct buf;

/*
 * A read-only view of a 64-bit little-endian ELF file's section table, as
 * x86-64 and aarch64 shared libraries have. Format at the top of elf.c.
 */
struct elf_section {
	const char *name;  /* points into the file's string table; "" if none */
	uint32_t type;
	uint64_t flags;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
};

struct elf {
	const uint8_t *data;
	size_t len;
	uint16_t type;     /* e_type */
	uint16_t machine;  /* e_machine */
	struct elf_section *sections;
	size_t nsections;
};

#define SHT_NOBITS_ 8
#define SHT_DYNAMIC_ 6
#define SHT_DYNSYM_ 11
#define SHT_GNU_VERNEED_ 0x6ffffffe
#define EM_386_ 3
#define EM_ARM_ 40
#define EM_PPC64_ 21
#define EM_S390_ 22
#define EM_X86_64_ 62
#define EM_AARCH64_ 183
#define EM_CUDA_ 190
#define EM_RISCV_ 243
#define EM_LOONGARCH_ 258

/*
 * e_machine in words, as people and `file` say it: "x86-64", "aarch64";
 * "ELF machine 99" for one bwbuild has no name for. Static or `spare`.
 */
const char *elf_machine_name(unsigned machine, char *spare, size_t size);

/*
 * What the dynamic loader reads: DT_NEEDED, DT_SONAME, DT_RUNPATH and
 * DT_RPATH from the SHT_DYNAMIC section, and every version each needed
 * library must provide from SHT_GNU_verneed (.gnu.version_r).
 */
/* Distinct DT_NEEDED entries a library may have (libtorch_cpu.so has 20-odd); repeats are dropped. */
#define ELF_NEEDED_MAX 1024

struct elf_dynamic {
	struct strvec needed;
	char *soname;            /* NULL when absent */
	char *runpath;
	char *rpath;
	struct strvec vfile;     /* "libc.so.6" ... */
	struct strvec vname;     /* "GLIBC_2.34" ... (parallel to vfile) */
};

/* 1 if the bytes start with the ELF magic. */
int elf_is_elf(const uint8_t *data, size_t len);

/* Parse the header and section table; -1 with a reason in `why`. */
int elf_open(struct elf *e, const uint8_t *data, size_t len, struct buf *why);
void elf_release(struct elf *e);
const struct elf_section *elf_section_by_name(const struct elf *e, const char *name);

/* Read the dynamic section and version needs; -1 with a reason in `why`. */
int elf_dynamic_read(const struct elf *e, struct elf_dynamic *d, struct buf *why);
void elf_dynamic_release(struct elf_dynamic *d);

/*
 * The dynamic symbols: those it exports (defined; global, weak or unique
 * binding; default or protected visibility) into `defined`, those it needs
 * from other libraries (undefined, global binding) into `undefined`; either
 * may be NULL. Names as in .dynstr, without versions. -1 with a reason.
 */
int elf_dynsym_read(const struct elf *e, struct strvec *defined, struct strvec *undefined,
		    struct buf *why);

/*
 * The length of the $ORIGIN (or ${ORIGIN}) that begins the RUNPATH entry
 * `p` of `n` bytes, 0 when it begins otherwise. As ld.so reads it, the
 * name ends where the entry or a '/' does: "$ORIGINAL/lib" is not it.
 */
size_t elf_origin_len(const char *p, size_t n);

#endif
