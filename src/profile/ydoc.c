/*
 * Profiles: YAML -> a tree of located nodes -> merged along `extends:` ->
 * validated into struct profile. This file is the YAML reader (ydoc.h),
 * the only file that includes <yaml.h>: YAML into the node tree of pnode.h
 * (bounded depth and size, duplicate keys refused), the node tree's
 * operations, and the ynode_* reader other files use (patch indexes).
 * profload.c finds and merges the files (extends, --set), profcheck.c
 * validates the result against the key table.
 * May include: core/, formats/, host/, profile/.
 *
 * Merge rule: a child's mapping is merged key by key into its parent's;
 * any other value (scalar, list) replaces the parent's value whole.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "core/buf.h"
#include "core/diag.h"
#include "profile/profile.h"
#include "core/strvec.h"
#include "core/util.h"
#include "profile/pnode.h"
#include "profile/ydoc.h"

void
pnode_free(struct pnode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++) {
		pnode_free(n->items[i]);
		if (n->keys)
			free(n->keys[i]);
	}
	free(n->items);
	free(n->keys);
	free(n->keylocs);
	free(n->str);
	free(n);
}

static struct loc
mark_loc(const char *file, yaml_mark_t m)
{
	struct loc l = { file, (int)m.line + 1, (int)m.column + 1 };

	return l;
}

const char *
profile_echo(struct buf *b, const char *s)
{
	return text_cut(b, s, PROFILE_ECHO_MAX);
}

/* profile_echo into one of a few static buffers: for the arguments of one message. */
const char *
profile_shown(const char *s)
{
	static struct buf ring[4] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT };
	static unsigned next;

	return profile_echo(&ring[next++ % ARRAY_SIZE(ring)], s);
}

/*
 * Bounds on what a file may become: aliases are expanded into a tree
 * here, so a 563-byte "billion laughs" file would grow to billions of
 * nodes. The tree may hold twice the values the file really has (libyaml
 * counts them: memory proportional to its size, so a 200,000-key
 * runtime.env is no bomb), or YAML_MIN_VALUES if that is more; a real
 * profile has a few hundred and expands few aliases if any.
 */
#define YAML_MAX_DEPTH 64
#define YAML_MIN_VALUES 10000

struct ybudget {
	size_t left;   /* values the tree may still take */
	size_t max;    /* ...of this many */
};

/* A scalar as libyaml gives it (with its length): -1 after reporting one holding a NUL. */
static int
scalar_nul(const yaml_node_t *yn, const char *file)
{
	struct loc l;

	if (!memchr(yn->data.scalar.value, '\0', yn->data.scalar.length))
		return 0;
	l = mark_loc(file, yn->start_mark);
	return error_at(&l, "a NUL character ('\\0') in '%.*s...'; bwbuild would read only the "
			"part before it, so remove it", (int)strnlen((const char *)yn->data.scalar.value,
								     PROFILE_ECHO_MAX),
			(const char *)yn->data.scalar.value);
}

struct keyidx {
	const char *key;
	size_t i;
};

static int
keyidx_cmp(const void *a, const void *b)
{
	const struct keyidx *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int
keyidx_find(const void *key, const void *e)
{
	return strcmp(key, ((const struct keyidx *)e)->key);
}

/*
 * A map's keys sorted (by key, then place), so duplicates sit side by side
 * and lookups take log n: a 200,000-key map is checked and merged in
 * well under a second, not compared pair by pair.
 */
static struct keyidx *
keyidx_make(char *const *keys, size_t n)
{
	struct keyidx *k = xcalloc(n ? n : 1, sizeof(*k));

	for (size_t i = 0; i < n; i++) {
		k[i].key = keys[i];
		k[i].i = i;
	}
	qsort(k, n, sizeof(*k), keyidx_cmp);
	return k;
}

/* pnode.text_col of a scalar starting at column `col`: its text as the file shows it, or 0. */
static int
scalar_text_col(const yaml_node_t *yn, int col)
{
	size_t len = yn->data.scalar.length;
	size_t span = yn->end_mark.index - yn->start_mark.index;

	if (yn->start_mark.line != yn->end_mark.line)
		return 0;
	switch (yn->data.scalar.style) {
	case YAML_PLAIN_SCALAR_STYLE:
		return span == len ? col : 0;
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		/* No escape inside: the text is the file's between the quotes. */
		return span == len + 2 ? col + 1 : 0;
	default:
		return 0;
	}
}

static struct pnode *
convert(yaml_document_t *doc, yaml_node_t *yn, const char *file, int depth, struct ybudget *budget)
{
	struct pnode *n;

	if (!yn || depth > YAML_MAX_DEPTH)
		return NULL;
	if (!budget->left) {
		struct loc l = mark_loc(file, yn->start_mark);

		error_at(&l, "more than %zu values once aliases are expanded; a profile needs no "
			 "more (is this an alias bomb?)", budget->max);
		return NULL;
	}
	budget->left--;
	n = xcalloc(1, sizeof(*n));
	n->loc = mark_loc(file, yn->start_mark);
	switch (yn->type) {
	case YAML_SCALAR_NODE:
		n->kind = PN_SCALAR;
		if (scalar_nul(yn, file) < 0)
			goto fail;
		n->str = xstrndup((const char *)yn->data.scalar.value, yn->data.scalar.length);
		n->text_col = scalar_text_col(yn, n->loc.col);
		break;
	case YAML_SEQUENCE_NODE: {
		yaml_node_item_t *it;

		n->kind = PN_SEQ;
		for (it = yn->data.sequence.items.start; it < yn->data.sequence.items.top; it++) {
			struct pnode *c = convert(doc, yaml_document_get_node(doc, *it), file, depth + 1,
						  budget);

			if (!c)
				goto fail;
			ALLOC_GROW(n->items, n->n + 1, n->cap);
			n->items[n->n++] = c;
		}
		break;
	}
	case YAML_MAPPING_NODE: {
		yaml_node_pair_t *pr;
		size_t cap = 0, dup = 0, first = 0;
		struct keyidx *k;

		n->kind = PN_MAP;
		for (pr = yn->data.mapping.pairs.start; pr < yn->data.mapping.pairs.top; pr++) {
			yaml_node_t *kn = yaml_document_get_node(doc, pr->key);
			struct pnode *v;
			struct loc kl;

			if (!kn)
				goto fail;
			kl = mark_loc(file, kn->start_mark);
			if (kn->type != YAML_SCALAR_NODE) {
				error_at(&kl, "a mapping key must be a plain name");
				goto fail;
			}
			if (scalar_nul(kn, file) < 0)
				goto fail;
			v = convert(doc, yaml_document_get_node(doc, pr->value), file, depth + 1, budget);
			if (!v)
				goto fail;
			if (n->n + 1 > cap) {
				cap = cap ? cap * 2 : 8;
				n->items = xreallocarray(n->items, cap, sizeof(*n->items));
				n->keys = xreallocarray(n->keys, cap, sizeof(*n->keys));
				n->keylocs = xreallocarray(n->keylocs, cap, sizeof(*n->keylocs));
			}
			n->keys[n->n] = xstrndup((const char *)kn->data.scalar.value,
						 kn->data.scalar.length);
			n->keylocs[n->n] = kl;
			n->items[n->n++] = v;
			n->cap = cap;
		}
		/* The first key, in file order, that repeats an earlier one. */
		k = keyidx_make(n->keys, n->n);
		for (size_t i = 1; i < n->n; i++) {
			if (!strcmp(k[i].key, k[i - 1].key) && k[i - 1].i < k[i].i &&
			    (!dup || k[i].i < dup) && (i < 2 || strcmp(k[i - 2].key, k[i].key))) {
				dup = k[i].i;
				first = k[i - 1].i;
			}
		}
		free(k);
		if (dup) {
			error_at(&n->keylocs[dup], "duplicate key '%s'", profile_shown(n->keys[dup]));
			note_at(&n->keylocs[first], "first set here");
			goto fail;
		}
		break;
	}
	default:
		goto fail;
	}
	return n;
fail:
	pnode_free(n);
	return NULL;
}

/*
 * Nesting and the number of documents checked on the event stream before
 * the document is loaded: libyaml slows down with every open level (a
 * 100,000-deep file took 39 s to load), and the walk stops at the first
 * level too deep or the start of a second document. Syntax errors are
 * left to the load, which reports them.
 */
static int
check_depth(const char *file, const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, rc = 0, done = 0, docs = 0;

	if (!yaml_parser_initialize(&parser))
		die("cannot initialise the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	while (!done && yaml_parser_parse(&parser, &ev)) {
		if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			struct loc l = mark_loc(file, ev.start_mark);

			/* yaml_parser_load reads only the first: the rest would be ignored */
			rc = error_at(&l, "a second YAML document ('---'); a profile is one document, "
				      "so merge the two or use 'extends:'");
			done = 1;
		} else if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > YAML_MAX_DEPTH) {
				struct loc l = mark_loc(file, ev.start_mark);

				rc = error_at(&l, "nested deeper than %d levels; a profile needs no more",
					      YAML_MAX_DEPTH);
				done = 1;
			}
		} else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		done |= ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* Parse one YAML file's text; NULL after reporting. An empty file is an empty map. */
struct pnode *
pnode_parse(const char *file, const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	struct pnode *n = NULL;
	struct ybudget budget;

	if (check_depth(file, data, len) < 0)
		return NULL;
	if (!yaml_parser_initialize(&parser))
		die("cannot initialise the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	if (!yaml_parser_load(&parser, &doc)) {
		struct loc l = mark_loc(file, parser.problem_mark);

		if (parser.context)
			error_at(&l, "invalid YAML: %s %s", parser.problem ? parser.problem : "",
				 parser.context);
		else
			error_at(&l, "invalid YAML: %s", parser.problem ? parser.problem : "syntax error");
		yaml_parser_delete(&parser);
		return NULL;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		n = xcalloc(1, sizeof(*n));
		n->kind = PN_MAP;
		n->loc.file = file;
		n->loc.line = 1;
		n->loc.col = 1;
	} else {
		budget.max = 2 * (size_t)(doc.nodes.top - doc.nodes.start);
		if (budget.max < YAML_MIN_VALUES)
			budget.max = YAML_MIN_VALUES;
		budget.left = budget.max;
		n = convert(&doc, root, file, 0, &budget);
		if (n && n->kind != PN_MAP) {
			error_at(&n->loc, "a profile must be a mapping of keys (name:, cuda:, features:, ...)");
			pnode_free(n);
			n = NULL;
		} else if (!n && !diag_errors) {
			struct loc l = mark_loc(file, root->start_mark);

			error_at(&l, "unsupported YAML construct (anchors or nesting too deep)");
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return n;
}

int
ydoc_parse_buffer(const char *name, const char *data, size_t len)
{
	struct pnode *n = pnode_parse(name, data, len);

	pnode_free(n);
	return n ? 0 : -1;
}

const struct pnode *
pnode_map_get(const struct pnode *m, const char *key, size_t *idx)
{
	size_t i;

	if (!m || m->kind != PN_MAP)
		return NULL;
	for (i = 0; i < m->n; i++) {
		if (!strcmp(m->keys[i], key)) {
			if (idx)
				*idx = i;
			return m->items[i];
		}
	}
	return NULL;
}

void
pnode_map_remove(struct pnode *m, size_t i)
{
	pnode_free(m->items[i]);
	free(m->keys[i]);
	memmove(&m->items[i], &m->items[i + 1], (m->n - i - 1) * sizeof(*m->items));
	memmove(&m->keys[i], &m->keys[i + 1], (m->n - i - 1) * sizeof(*m->keys));
	memmove(&m->keylocs[i], &m->keylocs[i + 1], (m->n - i - 1) * sizeof(*m->keylocs));
	m->n--;
}

/* Merge `child` into `base`, consuming child. */
void
pnode_merge(struct pnode *base, struct pnode *child)
{
	/* base's own keys (child's are appended after them, each once) */
	size_t nbase = base->n;
	struct keyidx *idx = keyidx_make(base->keys, nbase);

	for (size_t i = 0; i < child->n; i++) {
		struct pnode *cv = child->items[i];
		const struct keyidx *hit = bsearch(child->keys[i], idx, nbase, sizeof(*idx),
						   keyidx_find);
		size_t j = hit ? hit->i : 0;
		struct pnode *bv = hit ? base->items[j] : NULL;

		if (bv && bv->kind == PN_MAP && cv->kind == PN_MAP) {
			pnode_merge(bv, cv);
			free(child->keys[i]);
			continue;
		}
		if (bv) {
			/* base's key string stays: the index points at it */
			pnode_free(bv);
			base->items[j] = cv;
			base->keylocs[j] = child->keylocs[i];
			free(child->keys[i]);
			continue;
		}
		if (base->n + 1 > base->cap) {
			base->cap = base->cap ? base->cap * 2 : 8;
			base->items = xreallocarray(base->items, base->cap, sizeof(*base->items));
			base->keys = xreallocarray(base->keys, base->cap, sizeof(*base->keys));
			base->keylocs = xreallocarray(base->keylocs, base->cap, sizeof(*base->keylocs));
		}
		base->items[base->n] = cv;
		base->keys[base->n] = child->keys[i];
		base->keylocs[base->n++] = child->keylocs[i];
	}
	free(idx);
	free(child->items);
	free(child->keys);
	free(child->keylocs);
	free(child->str);
	free(child);
}

/* ---- the YAML reader for other files (patch indexes) ---- */

struct pnode *
ydoc_load(const char *path)
{
	struct buf text = BUF_INIT;
	struct pnode *n;
	char *file;

	if (read_file(&text, path) < 0)
		return NULL;
	file = xstrdup(path);
	n = pnode_parse(file, text.s, text.len);
	buf_release(&text);
	if (!n) {
		free(file);
		return NULL;
	}
	/* The root map's unused string keeps the file name its locations point at. */
	free(n->str);
	n->str = file;
	return n;
}

void
ydoc_free(struct pnode *n)
{
	if (n)
		pnode_free(n);
}

const struct pnode *
ynode_get(const struct pnode *map, const char *key)
{
	return pnode_map_get(map, key, NULL);
}

size_t
ynode_len(const struct pnode *n)
{
	return n && n->kind != PN_SCALAR ? n->n : 0;
}

const struct pnode *
ynode_at(const struct pnode *n, size_t i)
{
	return n && n->kind != PN_SCALAR && i < n->n ? n->items[i] : NULL;
}

const char *
ynode_key_at(const struct pnode *map, size_t i)
{
	return map && map->kind == PN_MAP && i < map->n ? map->keys[i] : NULL;
}

const char *
ynode_str(const struct pnode *n)
{
	return n && n->kind == PN_SCALAR ? n->str : NULL;
}

int
ynode_is_list(const struct pnode *n)
{
	return n && n->kind == PN_SEQ;
}

const struct loc *
ynode_loc(const struct pnode *n)
{
	return &n->loc;
}

const struct loc *
ynode_key_loc(const struct pnode *map, size_t i)
{
	return &map->keylocs[i];
}
