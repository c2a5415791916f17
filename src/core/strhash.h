#ifndef BWBUILD_STRHASH_H
#define BWBUILD_STRHASH_H

#include <stddef.h>

/*
 * A set of strings the caller keeps alive (keys are not copied), by open
 * addressing: adding and looking up cost the string's length, whatever
 * the set's size, so a reader of n names spends O(n) and not O(n^2)
 * (docs/design/bounds.md rule 2: a repeat is found at its repeat).
 */
struct strhash {
	const char **slot;
	size_t cap;   /* a power of two, or 0 */
	size_t n;
};

#define STRHASH_INIT { NULL, 0, 0 }

/* 1 when `s` was added, 0 when an equal string was there already. */
int strhash_add(struct strhash *h, const char *s);
int strhash_has(const struct strhash *h, const char *s);
void strhash_release(struct strhash *h);

#endif
