/*
 * Profiles: YAML -> a tree of located nodes -> merged along `extends:` ->
 * validated into struct profile. The only file that includes <yaml.h>.
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

const struct feature_info feature_table[FEAT__COUNT] = {
#define FEATURE_INFO(e, key, option) [e] = { key, option },
	PROFILE_FEATURES(FEATURE_INFO)
#undef FEATURE_INFO
};

/*
 * Names that PyTorch's environment forwarding passes to CMake besides the
 * BUILD_/USE_/CMAKE_ prefixes (tools/setup_helpers/cmake.py and
 * cmake/EnvVarForwarding.cmake).
 */
static const char *const forwarded_names[] = {
	"UBSAN_FLAGS", "BLAS", "WITH_BLAS", "CUDA_HOST_COMPILER", "CUDA_NVCC_EXECUTABLE",
	"CUDA_SEPARABLE_COMPILATION", "CUDNN_LIBRARY", "CUDNN_INCLUDE_DIR", "CUDNN_ROOT",
	"EXPERIMENTAL_SINGLE_THREAD_POOL", "INSTALL_TEST", "INTEL_MKL_DIR", "INTEL_OMP_DIR",
	"MKL_THREADING", "MKLDNN_CPU_RUNTIME", "MSVC_Z7_OVERRIDE", "CAFFE2_USE_MSVC_STATIC_RUNTIME",
	"Numa_INCLUDE_DIR", "Numa_LIBRARIES", "ONNX_ML", "ONNX_NAMESPACE", "ATEN_THREADING",
	"WERROR", "OPENSSL_ROOT_DIR", "STATIC_DISPATCH_BACKEND", "SELECTED_OP_LIST",
	"TORCH_XPU_ARCH_LIST", "TRACING_BASED", "NCCL_INCLUDE_DIR", "TORCH_CUDA_ARCH_LIST",
};

int
cmake_name_forwarded(const char *name)
{
	size_t i;

	if (starts_with(name, "USE_") || starts_with(name, "BUILD_") || starts_with(name, "CMAKE_"))
		return 1;
	for (i = 0; i < ARRAY_SIZE(forwarded_names); i++)
		if (!strcmp(name, forwarded_names[i]))
			return 1;
	return 0;
}

enum pkind { PN_SCALAR, PN_SEQ, PN_MAP };

struct pnode {
	enum pkind kind;
	char *str;
	struct loc loc;
	size_t n, cap;
	struct pnode **items; /* sequence items, or mapping values */
	char **keys;          /* mapping keys */
	struct loc *keylocs;
};

/*
 * A bound, not a design limit: real chains are 2-4 deep (base, family,
 * machine); 64 covers any hand-made one and stops a generated one (each
 * file extending the next) before it reads thousands of files.
 */
#define MAX_EXTENDS_DEPTH 64

static void
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
	size_t len = strlen(s), n = len;

	buf_reset(b);
	if (len <= PROFILE_ECHO_MAX) {
		buf_add(b, s, len);
		return b->s;
	}
	n = PROFILE_ECHO_MAX;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--; /* not inside a UTF-8 character */
	buf_add(b, s, n);
	buf_addf(b, "\u2026(%zu bytes)", len);
	return b->s;
}

/* profile_echo into one of a few static buffers: for the arguments of one message. */
static const char *
shown(const char *s)
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
			error_at(&n->keylocs[dup], "duplicate key '%s'", shown(n->keys[dup]));
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
static struct pnode *
parse_yaml(const char *file, const char *data, size_t len)
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
profile_parse_buffer(const char *name, const char *data, size_t len)
{
	struct pnode *n = parse_yaml(name, data, len);

	pnode_free(n);
	return n ? 0 : -1;
}

static const struct pnode *
map_get(const struct pnode *m, const char *key, size_t *idx)
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

static void
map_remove(struct pnode *m, size_t i)
{
	pnode_free(m->items[i]);
	free(m->keys[i]);
	memmove(&m->items[i], &m->items[i + 1], (m->n - i - 1) * sizeof(*m->items));
	memmove(&m->keys[i], &m->keys[i + 1], (m->n - i - 1) * sizeof(*m->keys));
	memmove(&m->keylocs[i], &m->keylocs[i + 1], (m->n - i - 1) * sizeof(*m->keylocs));
	m->n--;
}

/* Merge `child` into `base`, consuming child. */
static void
merge(struct pnode *base, struct pnode *child)
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
			merge(bv, cv);
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

static const char *
keep_str(struct profile *p, const char *s)
{
	ALLOC_GROW(p->files, p->nfiles + 1, p->files_cap);
	p->files[p->nfiles] = xstrdup(s);
	return p->files[p->nfiles++];
}

static int
try_dir(char **out, const char *dir, const char *name)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%s.yaml", dir, name);
	if (access(b.s, R_OK) == 0) {
		*out = buf_detach(&b);
		return 1;
	}
	buf_release(&b);
	return 0;
}

static int
is_path_spec(const char *spec)
{
	return strchr(spec, '/') || ends_with(spec, ".yaml") || ends_with(spec, ".yml");
}

void
profile_search_path(struct strvec *dirs)
{
	data_search_path("profiles", "BWBUILD_PROFILE_PATH", dirs);
}

int
profile_find(char **out, const char *spec)
{
	struct buf tried = BUF_INIT;
	const char *env;
	int found = 0;

	*out = NULL;
	if (!*spec)
		return error("empty profile name");
	if (is_path_spec(spec)) {
		if (access(spec, R_OK) < 0)
			return error("cannot read profile '%s':", shown(spec));
		*out = xstrdup(spec);
		return 0;
	}
	for (const char *c = spec; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("-_.", *c))
			return error("'%s' is not a profile name (letters, digits, '-', '_' and '.')",
				     shown(spec));

	{
		struct strvec dirs = STRVEC_INIT;
		size_t i;

		profile_search_path(&dirs);
		for (i = 0; i < dirs.n && !found; i++) {
			found = try_dir(out, dirs.v[i], spec);
			buf_addf(&tried, "%s%s", i ? ", " : "", dirs.v[i]);
		}
		strvec_clear(&dirs);
	}
	env = getenv("BWBUILD_PROFILE_PATH");
	if (!found) {
		error("no profile named '%s' (looked in %s%s); "
		      "pass a name from there or a path to a .yaml file", shown(spec), tried.s,
		      env && *env ? "" : " and $BWBUILD_PROFILE_PATH, which is unset");
		buf_release(&tried);
		return -1;
	}
	buf_release(&tried);
	return 0;
}

static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* -1 after reporting if `real` is already on the chain or the chain is too deep. */
static int
chain_check(char **chain, const char **names, int depth, const char *real, const char *path,
	    const struct loc *from)
{
	for (int i = 0; i < depth; i++) {
		if (!strcmp(chain[i], real)) {
			struct buf cyc = BUF_INIT;

			for (int k = i; k < depth; k++)
				buf_addf(&cyc, "%s -> ", names[k]);
			buf_addstr(&cyc, path);
			error_at(from, "'extends' makes a cycle: %s", cyc.s);
			buf_release(&cyc);
			return -1;
		}
	}
	if (depth >= MAX_EXTENDS_DEPTH) {
		struct buf c = BUF_INIT;

		for (int i = 0; i < depth; i++) {
			if (i == 3 && depth > 6) {
				buf_addf(&c, "(%d more) -> ", depth - 6);
				i = depth - 3;
			}
			buf_addf(&c, "%s -> ", names[i]);
		}
		buf_addstr(&c, path);
		error_at(from, "'extends' chain is deeper than %d profiles: %s; flatten it (real "
			 "chains are 2-4 deep)", MAX_EXTENDS_DEPTH, c.s);
		buf_release(&c);
		return -1;
	}
	return 0;
}

/*
 * The file that `extends: SPEC` in `path` names: a path relative to `path`,
 * an absolute path, or a name looked up beside `path` and then on the
 * search path. -1 after reporting.
 */
static int
parent_path(char **out, const char *path, const struct pnode *ext)
{
	char *d;

	if (is_path_spec(ext->str) && ext->str[0] != '/') {
		struct buf b = BUF_INIT;

		d = dir_of(path);
		buf_addf(&b, "%s/%s", d, ext->str);
		free(d);
		*out = buf_detach(&b);
		return 0;
	}
	if (is_path_spec(ext->str)) {
		*out = xstrdup(ext->str);
		return 0;
	}
	d = dir_of(path);
	if (try_dir(out, d, ext->str)) {
		free(d);
		return 0;
	}
	free(d);
	if (profile_find(out, ext->str) < 0) {
		note_at(&ext->loc, "extended here");
		return -1;
	}
	return 0;
}

/*
 * Load `path` and everything it extends; `chain` holds the real paths on
 * the way down, to detect cycles. Returns the merged tree or NULL.
 */
static struct pnode *
load_chain(struct profile *p, const char *path, char **chain, const char **names, int depth,
	   const struct loc *from)
{
	struct buf text = BUF_INIT;
	struct pnode *n, *parent = NULL;
	const struct pnode *ext;
	const char *file;
	char *real, *ppath;
	size_t idx;

	real = realpath(path, NULL);
	if (!real) {
		if (from)
			error_at(from, "cannot read profile '%s': %s", shown(path), strerror(errno));
		else
			error("cannot read profile '%s':", path);
		return NULL;
	}
	if (chain_check(chain, names, depth, real, path, from) < 0 || read_file(&text, path) < 0) {
		free(real);
		return NULL;
	}
	chain[depth] = real;
	file = keep_str(p, path);
	names[depth] = file;
	n = parse_yaml(file, text.s, text.len);
	buf_release(&text);
	if (!n || !(ext = map_get(n, "extends", &idx))) {
		free(real);
		return n;
	}
	if (ext->kind != PN_SCALAR || !*ext->str) {
		error_at(&ext->loc, "'extends' takes one profile name or path");
	} else if (parent_path(&ppath, path, ext) == 0) {
		parent = load_chain(p, ppath, chain, names, depth + 1, &ext->loc);
		free(ppath);
	}
	if (parent) {
		map_remove(n, idx);
		merge(parent, n);
	} else {
		pnode_free(n);
	}
	free(real);
	return parent;
}

/* ---- validation ---- */

static int
want_scalar(const struct pnode *v, const char *what)
{
	if (v->kind != PN_SCALAR)
		return error_at(&v->loc, "'%s' must be a single value", what);
	return 0;
}

static void
set_value(struct pvalue *out, const struct pnode *v, const char *what)
{
	if (want_scalar(v, what) < 0)
		return;
	out->str = v->str;
	out->loc = v->loc;
}

static int
want_map(const struct pnode *v, const char *what)
{
	if (v->kind != PN_MAP)
		return error_at(&v->loc, "'%s' must be a mapping of keys", what);
	return 0;
}

static int
parse_bool(const char *s, enum tri *out)
{
	static const char *on[] = { "on", "true", "yes", "1", "y" };
	static const char *off[] = { "off", "false", "no", "0", "n" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(on); i++) {
		if (!strcasecmp(s, on[i])) {
			*out = TRI_ON;
			return 0;
		}
		if (!strcasecmp(s, off[i])) {
			*out = TRI_OFF;
			return 0;
		}
	}
	return -1;
}

static void
add_arch(struct profile *p, size_t *cap, const char *text, const struct loc *loc)
{
	struct buf why = BUF_INIT;
	struct arch a;
	size_t i;

	if (strlen(text) > PROFILE_ECHO_MAX) {
		error_at(loc, "'%s' is not a TORCH_CUDA_ARCH_LIST entry (expected X.Y, such as "
			 "'12.0')", shown(text));
		return;
	}
	if (arch_parse(&a, text, &why) < 0) {
		error_at(loc, "%s", why.s);
		buf_release(&why);
		return;
	}
	for (i = 0; i < p->narchs; i++) {
		if (!arch_cmp(&p->archs[i].arch, &a)) {
			/* "12.0" and "12.0+PTX" together mean one entry with PTX. */
			p->archs[i].arch.ptx |= a.ptx;
			return;
		}
	}
	ALLOC_GROW(p->archs, p->narchs + 1, *cap);
	p->archs[p->narchs].arch = a;
	p->archs[p->narchs].text = text;
	p->archs[p->narchs].loc = *loc;
	p->narchs++;
}

static int
cmp_parch(const void *a, const void *b)
{
	return arch_cmp(&((const struct parch *)a)->arch, &((const struct parch *)b)->arch);
}

static void
validate_archs(struct profile *p, const struct pnode *v)
{
	size_t cap = 0, i;
	int errors_before = diag_errors;

	if (v->kind == PN_SCALAR) {
		/* One string, separated as TORCH_CUDA_ARCH_LIST is: ';' or blanks. */
		char *copy = xstrdup(v->str), *save = NULL, *tok;

		for (tok = strtok_r(copy, "; \t", &save); tok; tok = strtok_r(NULL, "; \t", &save))
			add_arch(p, &cap, keep_str(p, tok), &v->loc);
		free(copy);
	} else if (v->kind == PN_SEQ) {
		for (i = 0; i < v->n; i++) {
			if (want_scalar(v->items[i], "cuda.archs entry") < 0)
				continue;
			add_arch(p, &cap, v->items[i]->str, &v->items[i]->loc);
		}
	} else {
		error_at(&v->loc, "'cuda.archs' must be a list such as [\"10.0\", \"12.0+PTX\"]");
		return;
	}
	p->archs_given = 1;
	if (!p->narchs && diag_errors == errors_before)
		error_at(&v->loc, "'cuda.archs' is empty; an empty TORCH_CUDA_ARCH_LIST makes PyTorch "
			 "guess from the build machine's GPU (list the targets, e.g. [\"12.0\"])");
	if (p->narchs)
		qsort(p->archs, p->narchs, sizeof(*p->archs), cmp_parch);
}

static void
validate_kv_map(const struct pnode *v, const char *what, struct pkv **out, size_t *n)
{
	size_t i;

	if (want_map(v, what) < 0)
		return;
	*out = xcalloc(v->n, sizeof(**out));
	for (i = 0; i < v->n; i++) {
		if (want_scalar(v->items[i], what) < 0)
			continue;
		(*out)[*n].key = v->keys[i];
		(*out)[*n].val = v->items[i]->str;
		(*out)[*n].loc = v->keylocs[i];
		(*n)++;
	}
}

static int
is_url(const char *s)
{
	const char *colon = strchr(s, ':');

	if (strstr(s, "://"))
		return 1;
	/* scp-like "host:path", not "C:" nor a path containing ':' after '/'. */
	return colon && colon - s > 1 && !memchr(s, '/', (size_t)(colon - s));
}

static int
is_cache_kind(const char *s)
{
	return !strcmp(s, "ccache") || !strcmp(s, "none");
}

static int
is_redis_url(const char *s)
{
	return starts_with(s, "redis://");
}

static int
is_local_label(const char *s)
{
	return *s == '+' && s[1] &&
	       strspn(s + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.") ==
		       strlen(s + 1);
}

int
profile_platform_glibc(const char *s)
{
	char *end;
	unsigned long minor;

	if (!strcmp(s, "auto") || !strcmp(s, "linux"))
		return 0;
	if (!strcmp(s, "manylinux2014"))
		return 17;
	if (strncmp(s, "manylinux_2_", 12))
		return -1;
	minor = strtoul(s + 12, &end, 10);
	return *end || end == s + 12 || minor < 17 || minor > 99 ? -1 : (int)minor;
}

static int
is_platform_policy(const char *s)
{
	return profile_platform_glibc(s) >= 0;
}

static int
is_kind(const char *s)
{
	return !strcmp(s, "torch") || !strcmp(s, "extension");
}

void
profile_inherit_archs(struct profile *dst, const struct profile *src)
{
	free(dst->archs);
	dst->archs = xcalloc(src->narchs ? src->narchs : 1, sizeof(*dst->archs));
	for (size_t i = 0; i < src->narchs; i++) {
		dst->archs[i] = src->archs[i];
		dst->archs[i].text = keep_str(dst, src->archs[i].text);
		if (src->archs[i].loc.file)
			dst->archs[i].loc.file = keep_str(dst, src->archs[i].loc.file);
	}
	dst->narchs = src->narchs;
	dst->archs_given = src->archs_given;
}

int
profile_torch_is_profile(const struct profile *p)
{
	const char *t = p->torch.str;

	return t && (ends_with(t, ".yaml") || ends_with(t, ".yml") ||
		     (!strchr(t, '/') && !ends_with(t, ".whl")));
}

int
profile_is_extension(const struct profile *p)
{
	return p->kind.str && !strcmp(p->kind.str, "extension");
}

static int
is_ptx_policy(const char *s)
{
	return !strcmp(s, "newest") || !strcmp(s, "none");
}

/*
 * build.env: variables PyTorch's build reads that no other key sets. The
 * ones bwbuild derives (archs, features, jobs, launchers, CUDA_HOME) have
 * their own keys, so a profile cannot make the plan say one thing and the
 * build do another.
 */
static const char *const build_env_allowed[] = {
	"TORCH_NVCC_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_PREPEND_FLAGS", "CC", "CXX",
	"CUDAHOSTCXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "CUDAFLAGS", "DEBUG",
	"REL_WITH_DEB_INFO", "BUILD_BUNDLE_PTXAS", "USE_PRIORITIZED_TEXT_FOR_LD",
};

const char *
build_env_refusal(const char *name)
{
	static const struct {
		const char *prefix, *why;
	} own[] = {
		{ "TORCH_CUDA_ARCH_LIST", "bwbuild sets it from cuda.archs" },
		{ "USE_", "bwbuild sets the USE_* switches from features: (or cmake: for others)" },
		{ "BUILD_", "set BUILD_* switches under cmake:" },
		{ "MAX_JOBS", "bwbuild sets it from build.jobs and the memory budget" },
		{ "FLASH_ATTENTION_MAX_JOBS", "bwbuild sets it from the memory budget" },
		{ "CMAKE_", "CMake settings go under cmake:" },
		{ "CUDA_HOME", "bwbuild sets it from cuda.home" },
		{ "CUDACXX", "bwbuild sets it from cuda.home" },
		{ "TMPDIR", "bwbuild puts temporaries under the work directory" },
		{ "CCACHE_", "bwbuild sets ccache's settings from build.cache" },
		{ "PYTORCH_BUILD_", "bwbuild sets it from the tree's version and "
				    "wheel.version_suffix" },
		{ "BWBUILD_", "bwbuild's own settings are not build settings" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(build_env_allowed); i++)
		if (!strcmp(name, build_env_allowed[i]))
			return NULL;
	for (i = 0; i < ARRAY_SIZE(own); i++)
		if (starts_with(name, own[i].prefix))
			return own[i].why;
	return "not a variable bwbuild passes to the build (allowed: TORCH_NVCC_FLAGS, "
	       "NVCC_APPEND_FLAGS, NVCC_PREPEND_FLAGS, CC, CXX, CUDAHOSTCXX, CFLAGS, CXXFLAGS, "
	       "CPPFLAGS, LDFLAGS, CUDAFLAGS, DEBUG, REL_WITH_DEB_INFO, BUILD_BUNDLE_PTXAS, "
	       "USE_PRIORITIZED_TEXT_FOR_LD)";
}

/* A target name as verify reports it: sm_75, sm_100a, compute_120. */
static int
is_target_name(const char *s)
{
	const char *d = starts_with(s, "sm_") ? s + 3 : starts_with(s, "compute_") ? s + 8 : NULL;
	size_t n = d ? strspn(d, "0123456789") : 0;

	return n >= 2 && n <= 3 && (!d[n] || ((d[n] == 'a' || d[n] == 'f') && !d[n + 1]));
}

/* source.submodules: {exclude: [paths]}; each a path inside the tree, nested ones from the top. */
static void
validate_submodules(struct profile *p, const struct pnode *v)
{
	if (want_map(v, "source.submodules") < 0)
		return;
	for (size_t i = 0; i < v->n; i++) {
		const struct pnode *x = v->items[i];
		size_t n = x->kind == PN_SEQ ? x->n : 1;

		if (strcmp(v->keys[i], "exclude")) {
			error_at(&v->keylocs[i], "unknown key '%s' in source.submodules (known keys: "
				 "exclude)", v->keys[i]);
			continue;
		}
		free(p->submodules_exclude);
		p->submodules_exclude = xcalloc(n ? n : 1, sizeof(*p->submodules_exclude));
		p->nsubmodules_exclude = 0;
		for (size_t j = 0; j < n; j++) {
			const struct pnode *e = x->kind == PN_SEQ ? x->items[j] : x;
			const char *s;

			if (want_scalar(e, "source.submodules.exclude entry") < 0)
				continue;
			s = e->str;
			if (!*s || *s == '/' || !strcmp(s, "..") || starts_with(s, "../") ||
			    strstr(s, "/../") || ends_with(s, "/.."))
				error_at(&e->loc, "'%s' is not a submodule path inside the tree, such as "
					 "third_party/fbgemm/third_party/hipify_torch", s);
			else
				p->submodules_exclude[p->nsubmodules_exclude++] = s;
		}
	}
}

static void
validate_exceptions(struct profile *p, const struct pnode *v)
{
	size_t i, j;

	if (v->kind != PN_SEQ) {
		error_at(&v->loc, "'verify.exceptions' must be a list of {library, missing, reason}");
		return;
	}
	p->exceptions = xcalloc(v->n ? v->n : 1, sizeof(*p->exceptions));
	for (i = 0; i < v->n; i++) {
		const struct pnode *m = v->items[i];
		struct pexception *e = &p->exceptions[p->nexceptions];
		const struct pnode *missing = NULL;

		if (want_map(m, "verify.exceptions entry") < 0)
			continue;
		e->loc = m->loc;
		for (j = 0; j < m->n; j++) {
			const char *k = m->keys[j];

			if (!strcmp(k, "library") && !want_scalar(m->items[j], "library"))
				e->library = m->items[j]->str;
			else if (!strcmp(k, "reason") && !want_scalar(m->items[j], "reason"))
				e->reason = m->items[j]->str;
			else if (!strcmp(k, "missing"))
				missing = m->items[j];
			else if (strcmp(k, "library") && strcmp(k, "reason"))
				error_at(&m->keylocs[j], "unknown key '%s' in verify.exceptions (known "
					 "keys: library, missing, reason)", shown(k));
		}
		if (!e->library || !*e->library || !missing || !e->reason || !*e->reason) {
			error_at(&m->loc, "a verify.exceptions entry needs 'library' (e.g. "
				 "libtorch_cuda_linalg.so), 'missing' (e.g. [sm_75]) and 'reason'");
			continue;
		}
		if (missing->kind == PN_SCALAR) {
			e->missing = xcalloc(1, sizeof(*e->missing));
			if (is_target_name(missing->str))
				e->missing[e->nmissing++] = missing->str;
			else
				error_at(&missing->loc, "'%s' is not a target such as sm_75 or "
					 "compute_120", shown(missing->str));
		} else if (missing->kind == PN_SEQ && missing->n) {
			e->missing = xcalloc(missing->n, sizeof(*e->missing));
			for (j = 0; j < missing->n; j++) {
				const struct pnode *t = missing->items[j];

				if (want_scalar(t, "missing entry") < 0)
					continue;
				if (is_target_name(t->str))
					e->missing[e->nmissing++] = t->str;
				else
					error_at(&t->loc, "'%s' is not a target such as sm_75 or "
						 "compute_120", shown(t->str));
			}
		} else {
			error_at(&missing->loc, "'missing' must list targets, e.g. [sm_75]");
		}
		p->nexceptions++;
	}
}

#define AT(field) offsetof(struct profile, field)
#define FEATURE_KEY(e, key, option) { "features", key, KEY_FEATURE, e, 0, NULL, NULL, option },

const struct profile_key profile_keys[] = {
	{ NULL, "name", KEY_STRING, AT(name), 0, NULL, NULL, "the profile's name" },
	{ NULL, "description", KEY_STRING, AT(description), 0, NULL, NULL,
	  "one line, shown by bwbuild profiles" },
	{ NULL, "extends", KEY_EXTENDS, 0, 0, NULL, NULL, "the parent profile" },
	{ NULL, "kind", KEY_STRING, AT(kind), 0, is_kind, "is torch or extension",
	  "what it builds: torch (default), or an extension on a torch" },
	{ NULL, "torch", KEY_STRING, AT(torch), 0, NULL, NULL,
	  "kind: extension: the torch profile, torch wheel or site-packages/torch to build on" },
	{ "source", "repo", KEY_STRING, AT(source_repo), 0, NULL, NULL, "the git repository" },
	{ "source", "ref", KEY_STRING, AT(source_ref), 0, NULL, NULL, "a tag, branch or commit" },
	{ "source", "patches", KEY_STRING, AT(source_patches), 0, NULL, NULL,
	  "the patch series patches/<project>/" },
	{ "source", "mirrors", KEY_STRING, AT(source_mirrors), 0, NULL, NULL,
	  "a directory of bare mirrors searched before the cache" },
	{ "source", "submodules", KEY_SUBMODULES, 0, 0, NULL, NULL,
	  "submodules left out (exclude: [paths])" },
	{ "cuda", "archs", KEY_ARCHS, 0, 0, NULL, NULL, "TORCH_CUDA_ARCH_LIST entries" },
	{ "cuda", "home", KEY_STRING, AT(cuda_home), 0, NULL, NULL, "the toolkit to build with" },
	{ "cuda", "version", KEY_STRING, AT(cuda_version), 0, NULL, NULL,
	  "the CUDA toolkit the profile is meant for" },
	{ "cuda", "ptx", KEY_STRING, AT(cuda_ptx), 0, is_ptx_policy, "is newest or none",
	  "newest: PTX expected on the newest arch; none: no PTX at all" },
	PROFILE_FEATURES(FEATURE_KEY)
	{ NULL, "cmake", KEY_MAP, AT(cmake), AT(ncmake), NULL, NULL,
	  "extra settings passed through the environment" },
	{ "build", "jobs", KEY_JOBS, AT(jobs), AT(jobs_loc), NULL,
	  "must be 'auto' or a number from 1 to 4096", "MAX_JOBS" },
	{ "build", "mem_budget", KEY_SIZE, AT(mem_budget), AT(mem_budget_loc), NULL,
	  "must be 'auto' or a size such as '24G'", "memory the compile may use" },
	{ "build", "python", KEY_STRING, AT(python), 0, NULL, NULL, "the build interpreter" },
	{ "build", "launcher", KEY_SWITCH, AT(launcher), AT(launcher_loc), NULL, "is on or off",
	  "admission control by bwbuild launch" },
	{ "build", "cache", KEY_STRING, AT(cache), 0, is_cache_kind, "is ccache or none",
	  "compile through ccache" },
	{ "build", "cache_remote", KEY_STRING, AT(cache_remote), 0, is_redis_url,
	  "must be a redis://HOST:PORT URL", "ccache's remote storage" },
	{ "build", "env", KEY_ENV, AT(build_env), AT(nbuild_env), NULL, NULL,
	  "allowed build variables (TORCH_NVCC_FLAGS, CC, CXX, ...)" },
	{ "build", "cxx11_abi", KEY_SWITCH, AT(cxx11_abi), AT(cxx11_abi_loc), NULL, "is on or off",
	  "_GLIBCXX_USE_CXX11_ABI the libraries must agree with" },
	{ "wheel", "platform", KEY_STRING, AT(platform), 0, is_platform_policy,
	  "must be auto, linux or a manylinux tag such as manylinux_2_28",
	  "the platform tag: auto (what the libraries earn), linux, manylinux_2_X" },
	{ "wheel", "version_suffix", KEY_STRING, AT(version_suffix), 0, is_local_label,
	  "must be a PEP 440 local label such as '+cu130'", "appended to version.txt" },
	{ "runtime", "env", KEY_MAP, AT(runtime_env), AT(nruntime_env), NULL, NULL,
	  "settings for whoever runs the wheel" },
	{ "verify", "exceptions", KEY_EXCEPTIONS, 0, 0, NULL, NULL,
	  "libraries allowed to lack targets, each with its reason" },
};
const size_t profile_nkeys = ARRAY_SIZE(profile_keys);

#undef FEATURE_KEY
#undef AT

static const struct profile_key *
key_find(const char *section, const char *key)
{
	for (size_t i = 0; i < profile_nkeys; i++) {
		const struct profile_key *k = &profile_keys[i];

		if (!strcmp(k->key, key) &&
		    (section ? k->section && !strcmp(k->section, section) : !k->section))
			return k;
	}
	return NULL;
}

static int
is_section(const char *name)
{
	for (size_t i = 0; i < profile_nkeys; i++)
		if (profile_keys[i].section && !strcmp(profile_keys[i].section, name))
			return 1;
	return 0;
}

static void
unknown_key(const struct pnode *m, size_t i, const char *section)
{
	struct buf known = BUF_INIT;
	const char *last = NULL;

	for (size_t k = 0; k < profile_nkeys; k++) {
		const struct profile_key *r = &profile_keys[k];
		const char *name;

		if (section)
			name = r->section && !strcmp(r->section, section) ? r->key : NULL;
		else
			name = r->section ? r->section : r->key;
		/* A section's rows are adjacent: its name is listed once. */
		if (!name || (last && !strcmp(name, last)))
			continue;
		buf_addf(&known, "%s%s", known.len ? ", " : "", name);
		last = name;
	}
	if (section)
		error_at(&m->keylocs[i], "unknown key '%s' in '%s' (known keys: %s)", shown(m->keys[i]),
			 section, known.s);
	else
		error_at(&m->keylocs[i], "unknown key '%s' (known keys: %s)", shown(m->keys[i]),
			 known.s);
	buf_release(&known);
}

/* The value of a KEY_SWITCH, KEY_JOBS or KEY_SIZE row into its field; -1 if refused. */
static int
parse_scalar(const struct profile_key *k, void *field, const char *s)
{
	char *end;
	long n;

	switch (k->kind) {
	case KEY_SWITCH:
		return parse_bool(s, field);
	case KEY_JOBS:
		if (!strcmp(s, "auto"))
			return 0;
		errno = 0;
		n = strtol(s, &end, 10);
		if (errno || *end || n < 1 || n > 4096)
			return -1;
		*(long *)field = n;
		return 0;
	case KEY_SIZE:
		if (!strcmp(s, "auto"))
			return 0;
		return parse_size(s, field) < 0 || !*(uint64_t *)field ? -1 : 0;
	default:
		return -1;
	}
}

static void
validate_feature(struct profile *p, enum feature f, const char *key, const struct pnode *v)
{
	if (want_scalar(v, key) < 0)
		return;
	if (parse_bool(v->str, &p->features[f]) < 0) {
		error_at(&v->loc, "'%s' for '%s' is not on or off", shown(v->str), key);
		return;
	}
	p->feature_loc[f] = v->loc;
}

/*
 * Flags and compilers reach the command lines that CMake writes into
 * build.ninja, which ninja runs through /bin/sh: a backtick or '$(' there
 * runs as shell, ';' '|' '&' '<' '>' end or redirect the compile. Values
 * from profiles never reach a shell, so these are refused (quotes and
 * blanks are left: CMake splits flags at blanks as a shell would).
 */
#define SHELL_CHARS "`$;|&<>\n\r"

static void
check_shell_chars(const struct pkv *kv, const char *section)
{
	size_t at = strcspn(kv->val, SHELL_CHARS);
	char c = kv->val[at], what[16];

	if (!c)
		return;
	if (c == '\n' || c == '\r')
		snprintf(what, sizeof(what), "a newline");
	else
		snprintf(what, sizeof(what), "'%c'", c);
	error_at(&kv->loc, "'%s.%s' has %s at byte %zu: flags and compilers go into the command "
		 "lines ninja runs through /bin/sh, where the shell would act on it, so bwbuild refuses "
		 "`$;|&<> and newlines there; pass the value without it (a define's value through "
		 "a header, a path without shell characters)", section, shown(kv->key), what,
		 at + 1);
}

static void
validate_key(struct profile *p, const struct profile_key *k, const struct pnode *v)
{
	struct buf name = BUF_INIT;
	char *field = (char *)p + k->off, *aux = (char *)p + k->aux;
	struct pvalue *pv = (struct pvalue *)field;

	if (k->section)
		buf_addf(&name, "%s.%s", k->section, k->key);
	else
		buf_addstr(&name, k->key);
	switch (k->kind) {
	case KEY_STRING:
		set_value(pv, v, name.s);
		if (pv->str && k->valid && !k->valid(pv->str))
			error_at(&v->loc, "'%s' %s, not '%s'", name.s, k->expect, shown(pv->str));
		break;
	case KEY_ARCHS:
		validate_archs(p, v);
		break;
	case KEY_FEATURE:
		validate_feature(p, (enum feature)k->off, k->key, v);
		break;
	case KEY_MAP:
	case KEY_ENV:
		validate_kv_map(v, name.s, (struct pkv **)field, (size_t *)aux);
		for (size_t i = 0; k->kind == KEY_ENV && i < *(size_t *)aux; i++) {
			const struct pkv *kv = &(*(struct pkv **)field)[i];
			const char *why = build_env_refusal(kv->key);

			if (why)
				error_at(&kv->loc, "'%s' cannot be set under %s: %s", shown(kv->key),
					 name.s, why);
			else
				check_shell_chars(kv, name.s);
		}
		break;
	case KEY_EXCEPTIONS:
		validate_exceptions(p, v);
		break;
	case KEY_SUBMODULES:
		validate_submodules(p, v);
		break;
	case KEY_SWITCH:
	case KEY_JOBS:
	case KEY_SIZE:
		if (want_scalar(v, name.s) < 0)
			break;
		*(struct loc *)aux = v->loc;
		if (parse_scalar(k, field, v->str) < 0)
			error_at(&v->loc, "'%s' %s, not '%s'", name.s, k->expect, shown(v->str));
		break;
	case KEY_EXTENDS:
		break;
	}
	buf_release(&name);
}

/* Validate the keys of `m`: the top level (section NULL) or one section. */
static void
validate_map(struct profile *p, const struct pnode *m, const char *section)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct profile_key *k = key_find(section, m->keys[i]);

		/*
		 * The loader took 'extends' out; one still here came from --set,
		 * which cannot change the parent.
		 */
		if (k && k->kind != KEY_EXTENDS) {
			validate_key(p, k, m->items[i]);
		} else if (!section && !k && is_section(m->keys[i])) {
			if (want_map(m->items[i], m->keys[i]) == 0)
				validate_map(p, m->items[i], m->keys[i]);
		} else {
			unknown_key(m, i, section);
		}
	}
}

/* cmake.NAME entries: not bwbuild's own settings, not features, and forwarded. */
static void
check_cmake_names(const struct profile *p)
{
	for (size_t i = 0; i < p->ncmake; i++) {
		const char *k = p->cmake[i].key;

		if (!strcmp(k, "CMAKE_INSTALL_PREFIX") || !strcmp(k, "TORCH_CUDA_ARCH_LIST"))
			error_at(&p->cmake[i].loc, "'cmake.%s' is set by bwbuild itself%s", shown(k),
				 !strcmp(k, "TORCH_CUDA_ARCH_LIST") ? "; use 'cuda.archs'" : "");
		for (size_t f = 0; f < FEAT__COUNT; f++)
			if (!strcmp(k, feature_table[f].option))
				error_at(&p->cmake[i].loc, "'cmake.%s' duplicates a feature; use "
					 "'features.%s: on|off'", k, feature_table[f].key);
		if (strstr(k, "FLAGS") || strstr(k, "COMPILER") || strstr(k, "LAUNCHER") ||
		    strstr(k, "LINKER"))
			check_shell_chars(&p->cmake[i], "cmake");
		if (!cmake_name_forwarded(k))
			error_at(&p->cmake[i].loc, "'cmake.%s' would not reach CMake: PyTorch forwards "
				 "only USE_*, BUILD_*, CMAKE_* and a fixed list of names from the "
				 "environment", shown(k));
	}
}

static void
check_required(const struct profile *p)
{
	const struct loc *at = &p->root->loc;

	if (!p->source_repo.str)
		error_at(at, "the profile has no 'source.repo' (the git repository to build)");
	if (!p->source_ref.str)
		error_at(at, "the profile has no 'source.ref' (a tag, branch or commit)");
	if (!p->archs_given && p->features[FEAT_CUDA] != TRI_OFF && !profile_is_extension(p))
		error_at(at, "the profile has no 'cuda.archs'; list the GPU targets "
			 "(e.g. archs: [\"12.0\"]) or set 'features.cuda: off'");
	if (profile_is_extension(p) && !p->torch.str)
		error_at(&p->kind.loc, "a 'kind: extension' profile needs 'torch:' (the torch profile "
			 "it builds on, e.g. sm120; a torch wheel; or site-packages/torch)");
}

static void
validate(struct profile *p)
{
	validate_map(p, p->root, NULL);
	check_cmake_names(p);
	check_required(p);
}

/*
 * Apply one --set KEY=VALUE (dotted key) on top of the merged profile, as
 * one more file would be merged: maps merged, anything else replaced.
 */
static int
apply_set(struct profile *p, const char *spec)
{
	const char *eq = strchr(spec, '=');
	struct buf b = BUF_INIT;
	struct loc loc;
	struct pnode *node;
	char *key, *dot;

	buf_addf(&b, "--set %s", spec);
	loc.file = keep_str(p, b.s);
	loc.line = 1;
	loc.col = 1;
	buf_release(&b);
	/* Only the key is checked: the value is anything (-I../inc, a=b). */
	if (!eq || eq == spec || eq[-1] == '.' || spec[0] == '.' ||
	    memmem(spec, (size_t)(eq - spec), "..", 2)) {
		error("--set '%s' is not KEY=VALUE with a dotted key (e.g. "
		      "--set features.flash_attention=off)", spec);
		return -1;
	}
	node = xcalloc(1, sizeof(*node));
	node->kind = PN_SCALAR;
	node->str = xstrdup(eq + 1);
	node->loc = loc;
	key = xstrndup(spec, (size_t)(eq - spec));
	/* Wrap the value in one map per key component, innermost first. */
	for (;;) {
		struct pnode *m = xcalloc(1, sizeof(*m));

		dot = strrchr(key, '.');
		m->kind = PN_MAP;
		m->loc = loc;
		m->n = m->cap = 1;
		m->items = xcalloc(1, sizeof(*m->items));
		m->keys = xcalloc(1, sizeof(*m->keys));
		m->keylocs = xcalloc(1, sizeof(*m->keylocs));
		m->items[0] = node;
		m->keys[0] = xstrdup(dot ? dot + 1 : key);
		m->keylocs[0] = loc;
		node = m;
		if (!dot)
			break;
		*dot = '\0';
	}
	free(key);
	merge(p->root, node);
	return 0;
}

int
profile_load(struct profile *p, const char *spec)
{
	return profile_load_set(p, spec, NULL);
}

int
profile_load_set(struct profile *p, const char *spec, const struct strvec *sets)
{
	char *chain[MAX_EXTENDS_DEPTH + 1] = { 0 };
	const char *names[MAX_EXTENDS_DEPTH + 1] = { 0 };
	int before = diag_errors;
	char *path;

	memset(p, 0, sizeof(*p));
	if (profile_find(&path, spec) < 0)
		return -1;
	p->path = keep_str(p, path);
	free(path);
	p->root = load_chain(p, p->path, chain, names, 0, NULL);
	if (!p->root)
		return -1;
	for (size_t i = 0; sets && i < sets->n; i++)
		if (apply_set(p, sets->v[i]) < 0)
			return -1;
	validate(p);
	if (!p->name.str) {
		const char *base = strrchr(p->path, '/');
		char *name = xstrdup(base ? base + 1 : p->path);
		char *dot = strrchr(name, '.');

		if (dot)
			*dot = '\0';
		p->name.str = keep_str(p, name);
		free(name);
	}
	/* A torch given as a path (not a profile name): relative to the file that set it. */
	if (p->torch.str && p->torch.str[0] != '/' &&
	    (strchr(p->torch.str, '/') || ends_with(p->torch.str, ".yaml") ||
	     ends_with(p->torch.str, ".yml") || ends_with(p->torch.str, ".whl"))) {
		char *d = dir_of(p->torch.loc.file);
		struct buf b = BUF_INIT;
		char *abs;

		buf_addf(&b, "%s/%s", d, p->torch.str);
		abs = path_absolute(b.s);
		p->torch.str = keep_str(p, abs);
		free(abs);
		free(d);
		buf_release(&b);
	}
	if (p->source_repo.str && !is_url(p->source_repo.str) && p->source_repo.str[0] != '/') {
		/* Relative to the file that set it, like an #include. */
		char *d = dir_of(p->source_repo.loc.file);
		struct buf b = BUF_INIT;
		char *abs;

		buf_addf(&b, "%s/%s", d, p->source_repo.str);
		free(d);
		abs = path_absolute(b.s);
		buf_release(&b);
		p->repo_abs = realpath(abs, NULL);
		if (!p->repo_abs)
			p->repo_abs = abs;
		else
			free(abs);
		p->source_repo.str = p->repo_abs;
	}
	if (p->source_mirrors.str && *p->source_mirrors.str && p->source_mirrors.str[0] != '/') {
		/* relative to the file that set it, like source.repo */
		char *d = dir_of(p->source_mirrors.loc.file);
		struct buf b = BUF_INIT;
		char *abs;

		buf_addf(&b, "%s/%s", d, p->source_mirrors.str);
		abs = path_absolute(b.s);
		p->source_mirrors.str = keep_str(p, abs);
		free(abs);
		free(d);
		buf_release(&b);
	}
	return diag_errors > before ? -1 : 0;
}

void
profile_release(struct profile *p)
{
	size_t i;

	pnode_free(p->root);
	for (i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
	free(p->archs);
	free(p->cmake);
	free(p->runtime_env);
	free(p->build_env);
	for (i = 0; i < p->nexceptions; i++)
		free(p->exceptions[i].missing);
	free(p->exceptions);
	free(p->submodules_exclude);
	free(p->repo_abs);
	memset(p, 0, sizeof(*p));
}

void
profile_arch_list(const struct profile *p, struct buf *out)
{
	size_t i;

	for (i = 0; i < p->narchs; i++) {
		if (i)
			buf_addch(out, ';');
		arch_format(&p->archs[i].arch, out);
	}
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
	n = parse_yaml(file, text.s, text.len);
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
	return map_get(map, key, NULL);
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
