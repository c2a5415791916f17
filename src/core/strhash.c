/* A string set by open addressing (core/strhash.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strhash.h"
#include "core/util.h"

static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The slot of `s`, or the empty one where it would go. */
static size_t
find(const struct strhash *h, const char *s)
{
	size_t i = (size_t)fnv1a(s) & (h->cap - 1);

	while (h->slot[i] && strcmp(h->slot[i], s))
		i = (i + 1) & (h->cap - 1);
	return i;
}

static void
grow(struct strhash *h)
{
	struct strhash bigger = { NULL, h->cap ? h->cap * 2 : 16, h->n };

	bigger.slot = xcalloc(bigger.cap, sizeof(*bigger.slot));
	for (size_t i = 0; i < h->cap; i++)
		if (h->slot[i])
			bigger.slot[find(&bigger, h->slot[i])] = h->slot[i];
	free(h->slot);
	*h = bigger;
}

int
strhash_add(struct strhash *h, const char *s)
{
	size_t i;

	/* At most half full: probes stay short. */
	if (2 * (h->n + 1) > h->cap)
		grow(h);
	i = find(h, s);
	if (h->slot[i])
		return 0;
	h->slot[i] = s;
	h->n++;
	return 1;
}

int
strhash_has(const struct strhash *h, const char *s)
{
	return h->cap && h->slot[find(h, s)] != NULL;
}

void
strhash_release(struct strhash *h)
{
	free(h->slot);
	h->slot = NULL;
	h->cap = h->n = 0;
}
