#ifndef BWBUILD_PYREQ_H
#define BWBUILD_PYREQ_H

#include <stddef.h>

struct buf;
struct strvec;

/*
 * What a Python source tree asks of the interpreter that builds it, read
 * from its own files (formats at the top of pyreq.c): the [build-system]
 * table of pyproject.toml, requirements*.txt lines, PEP 508 requirement
 * strings and PEP 440 versions against their specifiers.
 */

/* One requirement: "setuptools>=70.1.0,<80.0" at some line of its file. */
struct pyreq {
	char *name;    /* normalized as PEP 503 says: lower case, "-" for runs of "-_." */
	char *spec;    /* the specifiers without blanks: ">=70.1.0,<80.0"; "" for any */
	char *marker;  /* what follows ';', trimmed; NULL when none */
	char *text;    /* the string as written (trimmed) */
	unsigned line; /* 1-based, in its file */
	int url;       /* "name @ URL": no version to check */
};

struct pyreqs {
	struct pyreq *v;
	size_t n, alloc;
};

/* The [build-system] table of a pyproject.toml. */
struct pyproject_build {
	int has_table;        /* [build-system] (or a build-system.* key) is there */
	struct pyreqs requires;
	char *backend;        /* build-backend; NULL when absent */
	unsigned backend_line;
	int backend_path;     /* backend-path is set: the backend is in the tree */
};

/*
 * One PEP 508 requirement string (`n` bytes at `s`) appended to `out`,
 * found at `line`. -1 with the reason in `why` when it names no
 * distribution.
 */
int pyreq_parse(const char *s, size_t n, unsigned line, struct pyreqs *out, struct buf *why);

/*
 * The [build-system] table of a pyproject.toml text: requires, build-backend
 * and whether backend-path is set; every other table and key is skipped.
 * 0 (has_table 0 when the file has none); -1 with "line N: ..." in `why`
 * when the text is not TOML this reader can follow, or requires is not an
 * array of requirement strings.
 */
int pyproject_build_parse(const char *text, size_t len, struct pyproject_build *out, struct buf *why);
void pyproject_build_release(struct pyproject_build *b);

/*
 * A requirements.txt text: each requirement line into `out`, the files of
 * its "-r FILE" lines into `includes` (as written); other options ("-c",
 * "--index-url", "-e", "--hash") are not requirements. -1 with "line N:
 * ..." in `why` for a line that is none of these.
 */
int requirements_txt_parse(const char *text, size_t len, struct pyreqs *out,
			   struct strvec *includes, struct buf *why);

void pyreqs_release(struct pyreqs *r);
/* The first requirement of `name` (normalized), or NULL. */
const struct pyreq *pyreqs_find(const struct pyreqs *r, const char *name);

/* PEP 503's normalized name of the `n` bytes at `s` into `out`. */
void pyname_normalize(const char *s, size_t n, struct buf *out);

/*
 * PEP 440 versions compared, local labels too ("1.0+cu130" is newer than
 * "1.0"): <0, 0, >0 as a is older, the same or newer; PYVER_UNKNOWN
 * when either is not a version this reader knows.
 */
#define PYVER_UNKNOWN (-2)
int pyver_cmp(const char *a, const char *b);

/*
 * Whether `version` meets every clause of `spec` (">=70.1.0,<80.0"; "" is
 * any) as PEP 440 and packaging say for an installed version (so a
 * pre-release is admitted when its clauses are): 1 or 0; -1 when the spec
 * or the version cannot be read.
 */
int pyspec_match(const char *spec, const char *version);

/*
 * 0 when every clause of `spec` is one PEP 440 has; -1 with "'~=1' is no
 * version specifier: ..." in `why` (may be NULL) for the first that is not.
 */
int pyspec_check(const char *spec, struct buf *why);

#endif
