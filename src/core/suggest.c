/*
 * "Did you mean" (suggest.h): the nearest name of a table to a mistyped
 * one, for commands, options, profile keys and profile names.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/suggest.h"
#include "core/util.h"

size_t
edit_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b), i, j, d;
	/* Three rows of the matrix: two back for the swap. */
	size_t *r0 = xcalloc(m + 1, sizeof(*r0)), *r1 = xcalloc(m + 1, sizeof(*r1));
	size_t *r2 = xcalloc(m + 1, sizeof(*r2)), *t;

	for (j = 0; j <= m; j++)
		r1[j] = j;
	for (i = 1; i <= n; i++) {
		r2[0] = i;
		for (j = 1; j <= m; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t best = r1[j - 1] + (ca != cb);

			if (r1[j] + 1 < best)
				best = r1[j] + 1;
			if (r2[j - 1] + 1 < best)
				best = r2[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && r0[j - 2] + 1 < best)
				best = r0[j - 2] + 1;
			r2[j] = best;
		}
		t = r0;
		r0 = r1;
		r1 = r2;
		r2 = t;
	}
	d = r1[m];
	free(r0);
	free(r1);
	free(r2);
	return d;
}

void
suggest_init(struct suggest *s, const char *word)
{
	memset(s, 0, sizeof(*s));
	s->word = word;
}

void
suggest_add(struct suggest *s, const char *candidate)
{
	size_t len = strlen(s->word), reach = len / 3, d;

	/* Only the word itself is no suggestion: SM120 is nearest to sm120. */
	if (!candidate || !strcmp(candidate, s->word))
		return;
	if (reach < 1)
		reach = 1;
	if (reach > 2)
		reach = 2;
	if (len >= 3 && !strncasecmp(candidate, s->word, len) &&
	    (!s->prefix || strcmp(s->prefix, candidate))) {
		s->prefix = candidate;
		s->nprefix++;
	}
	/* A word of one character is one edit from every short name. */
	if (len < 2)
		return;
	d = edit_distance(s->word, candidate);
	if (d <= reach && d < len && (!s->best || d < s->best_dist)) {
		s->best = candidate;
		s->best_dist = d;
	}
}

const char *
suggest_best(const struct suggest *s)
{
	if (s->best)
		return s->best;
	return s->nprefix == 1 ? s->prefix : NULL;
}
