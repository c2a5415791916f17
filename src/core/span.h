#ifndef BWBUILD_SPAN_H
#define BWBUILD_SPAN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Bounds-checked little-endian reads over a byte span. Every reader of
 * outside bytes (zip, ELF, fatbin) goes through these: a read past the end
 * returns -1 instead of touching memory, and offsets are checked for
 * overflow before they are added.
 */
struct span {
	const uint8_t *p;
	size_t n;
};

/* 1 if [off, off+len) lies inside a span of n bytes. */
static inline int
span_has(size_t n, uint64_t off, uint64_t len)
{
	return off <= n && len <= n - off;
}

static inline int
rd_u8(struct span s, uint64_t off, uint8_t *out)
{
	if (!span_has(s.n, off, 1))
		return -1;
	*out = s.p[off];
	return 0;
}

static inline int
rd_u16(struct span s, uint64_t off, uint16_t *out)
{
	if (!span_has(s.n, off, 2))
		return -1;
	*out = (uint16_t)(s.p[off] | (s.p[off + 1] << 8));
	return 0;
}

static inline int
rd_u32(struct span s, uint64_t off, uint32_t *out)
{
	if (!span_has(s.n, off, 4))
		return -1;
	*out = (uint32_t)s.p[off] | ((uint32_t)s.p[off + 1] << 8) | ((uint32_t)s.p[off + 2] << 16) |
	       ((uint32_t)s.p[off + 3] << 24);
	return 0;
}

static inline int
rd_u64(struct span s, uint64_t off, uint64_t *out)
{
	uint32_t lo, hi;

	if (rd_u32(s, off, &lo) < 0 || rd_u32(s, off + 4, &hi) < 0)
		return -1;
	*out = (uint64_t)lo | ((uint64_t)hi << 32);
	return 0;
}

/* a + b without wrapping; -1 on overflow. */
static inline int
add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a > UINT64_MAX - b)
		return -1;
	*out = a + b;
	return 0;
}

#endif
