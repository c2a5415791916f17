#ifndef BWBUILD_PYREQS_H
#define BWBUILD_PYREQS_H

#include <stddef.h>

struct buf;
struct strvec;

/*
 * What a Python source tree asks of the interpreter that builds it, read
 * by that interpreter (pyreqs.c runs data/helpers/bwreqs.py): the
 * [build-system] table of pyproject.toml through tomllib (or tomli),
 * requirements-build.txt and requirements.txt lines through packaging,
 * markers evaluated for that interpreter, and PEP 440 specifiers matched
 * by packaging.
 */

/* One requirement: "setuptools>=70.1.0,<80.0" at some line of its file. */
struct pyreq {
	char *name;    /* canonicalized (PEP 503): lower case, "-" for runs of "-_." */
	char *spec;    /* the specifiers without blanks: ">=70.1.0,<80.0"; "" for any */
	char *text;    /* the string as written (trimmed) */
	unsigned line; /* 1-based, in its file; 0 when not found */
	int url;       /* "name @ URL": no version to check */
	int applies;   /* no marker, or one that is true for the interpreter */
};

struct pyreqs {
	struct pyreq *v;
	size_t n, alloc;
};

/* A tree's build requirements, each file's (n 0 when the file is not there). */
struct pytree {
	int has_pyproject;  /* pyproject.toml is there */
	int has_table;      /* with a [build-system] table */
	char *backend;      /* build-backend; NULL when absent */
	int backend_path;   /* backend-path is set: the backend is in the tree */
	struct pyreqs requires;  /* [build-system] requires */
	struct pyreqs build;     /* requirements-build.txt */
	struct pyreqs all;       /* requirements.txt */
};

/*
 * Ask `py` about the tree at `src`. 0; -1 with a line in `why`: a file
 * that is not what it says ("pyproject.toml: Cannot declare ..."), or
 * `py` without packaging or tomllib/tomli, naming `py` and the fix.
 */
int pytree_read(struct pytree *t, const char *py, const char *src, struct buf *why);
void pytree_release(struct pytree *t);
/* The first requirement of `name` (canonicalized), or NULL. */
const struct pyreq *pyreqs_find(const struct pyreqs *r, const char *name);

/*
 * Whether each version meets its specifier, as packaging says for an
 * installed version (pre-releases admitted): `pairs` holds SPEC, VERSION,
 * SPEC, VERSION...; into `ok` (one per pair) 1 or 0, -1 when either
 * cannot be read. 0; -1 with why as pytree_read.
 */
int pyreqs_match(const char *py, const struct strvec *pairs, int *ok, struct buf *why);

/* The helper script's path into `out`: -1 when bwbuild's data has none. */
int pyreqs_helper(struct buf *out);

#endif
