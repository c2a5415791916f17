#ifndef BWBUILD_SUGGEST_H
#define BWBUILD_SUGGEST_H

#include <stddef.h>

/*
 * "Did you mean": the candidate nearest to a mistyped word. Nearness is
 * the optimal-string-alignment distance (insert, delete, replace, swap
 * two neighbours), case-blind; a candidate counts when it is at most
 * max(1, len/3) edits away (2 at most) or, failing that, when the word
 * (3 characters or more) is the start of exactly one candidate.
 *
 *	struct suggest s;
 *	suggest_init(&s, "archz");
 *	for (...) suggest_add(&s, name);
 *	if (suggest_best(&s)) hint("did you mean '%s'?", suggest_best(&s));
 */
struct suggest {
	const char *word;
	const char *best;   /* nearest candidate within reach so far */
	size_t best_dist;
	const char *prefix; /* the one candidate that starts with word */
	int nprefix;
};

/* Edits (insert, delete, replace, swap of neighbours) from a to b, case-blind. */
size_t edit_distance(const char *a, const char *b);
void suggest_init(struct suggest *s, const char *word);
void suggest_add(struct suggest *s, const char *candidate);
/*
 * The suggestion, or NULL when no candidate is near (or it is the word
 * itself; one differing only in case is the nearest of all).
 */
const char *suggest_best(const struct suggest *s);

#endif
