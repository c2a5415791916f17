#ifndef BWBUILD_PNODE_H
#define BWBUILD_PNODE_H

/*
 * Inside profile/: the tree of located nodes that ydoc.c (the only
 * file that includes <yaml.h>) reads a YAML file into, and what
 * profload.c and profcheck.c do with it. Not for other layers: they use
 * the ynode_* reader of profile.h.
 */

#include <stddef.h>

#include "core/diag.h"

struct profile;

enum pkind { PN_SCALAR, PN_SEQ, PN_MAP };

struct pnode {
	enum pkind kind;
	char *str;
	struct loc loc;
	/*
	 * A scalar's column where its text starts, so a part of it can be
	 * pointed at (one entry of "10.0;12.1a"): the column after a quote,
	 * that of a plain scalar, of a --set value; 0 when the text is not
	 * what the file shows character for character (escapes, block or
	 * multi-line scalars).
	 */
	int text_col;
	size_t n, cap;
	struct pnode **items; /* sequence items, or mapping values */
	char **keys;          /* mapping keys */
	struct loc *keylocs;
};

/* A YAML file (or buffer) as a node tree; NULL after reporting. */
struct pnode *pnode_parse(const char *file, const char *data, size_t len);
void pnode_free(struct pnode *n);
/* Mapping `m`'s value at `key` (its index into `idx`, may be NULL); NULL when absent. */
const struct pnode *pnode_map_get(const struct pnode *m, const char *key, size_t *idx);
void pnode_map_remove(struct pnode *m, size_t i);
/* `child` merged into `base` and freed: maps key by key, anything else replaced. */
void pnode_merge(struct pnode *base, struct pnode *child);
/* A value as an error shows it: quoted, control characters escaped (a static buffer). */
const char *profile_shown(const char *s);

/* A string that lives as long as the profile. */
const char *profile_keep_str(struct profile *p, const char *s);
/* Check the merged tree and fill the profile's fields; errors are counted in diag_errors. */
void profile_validate(struct profile *p);

#endif
