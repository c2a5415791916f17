#ifndef BWBUILD_ELF_H
#define BWBUILD_ELF_H

#include <stddef.h>
#include <stdint.h>

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

/* 1 if the bytes start with the ELF magic. */
int elf_is_elf(const uint8_t *data, size_t len);

/* Parse the header and section table; -1 with a reason in `why`. */
int elf_open(struct elf *e, const uint8_t *data, size_t len, struct buf *why);
void elf_release(struct elf *e);
const struct elf_section *elf_section_by_name(const struct elf *e, const char *name);

#endif
