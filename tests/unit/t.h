#ifndef BWBUILD_T_H
#define BWBUILD_T_H

#include <stdio.h>
#include <string.h>

/* A tiny test harness: each CHECK failure is printed and counted. */
extern int t_failures;
extern int t_checks;
extern int t_skips;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		t_checks++;                                                           \
		if (!(cond)) {                                                        \
			t_failures++;                                                 \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
				#cond);                                               \
		}                                                                     \
	} while (0)

#define CHECK_STR(a, b)                                                               \
	do {                                                                          \
		const char *a_ = (a), *b_ = (b);                                      \
		t_checks++;                                                           \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                   \
			t_failures++;                                                 \
			fprintf(stderr, "%s:%d: CHECK_STR failed: '%s' != '%s'\n",   \
				__FILE__, __LINE__, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
		}                                                                     \
	} while (0)

/*
 * One suite per tests/unit/t_NAME.c, which defines t_NAME(); the Makefile
 * lists the files in unit-suites.h as SUITE(NAME) lines.
 */
#define SUITE(name) void t_##name(void);
#include "unit-suites.h"
#undef SUITE

/* NAME in the scratch directory TESTTMP/unit (a static buffer, one of 64 in turn; TESTTMP defaults to tests/tmp). */
const char *t_path(const char *name);
/* Write `text` to a fresh file NAME in the scratch directory and return its path. */
const char *t_write(const char *name, const char *text);
/*
 * A fresh, empty directory TESTTMP/unit/NAME (an old one removed first);
 * the suite removes it with remove_tree when done. Static path.
 */
const char *t_tmpdir(const char *name);
/*
 * What the code under test writes to standard error between the two
 * calls (reports, notes), kept out of the test's output; the text is
 * valid until the next t_stderr_end. Not nested.
 */
void t_stderr_begin(void);
const char *t_stderr_end(void);
/* The test wheels of tests/fixtures/wheels, made on first use: "TESTTMP/wheels". */
const char *t_wheels(void);
/* NAME in t_wheels() ("good/tiny-1.0-py3-none-any.whl"; a static buffer, one of 16 in turn). */
const char *t_wheel(const char *name);
/* Whether `text` contains the string of printf's `fmt`, e.g. a message naming a t_path. */
int t_has(const char *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A check not made here, and why (a tool not installed): counted and printed. */
void t_skip(const char *why);

/* Shared fixture code (tests/unit/fixtures.c). */
struct buf;
struct wheel_report;
struct wheel_expect;
struct repo_checkout_opts;
struct repo_tree_info;
/* Write `text` to DIR/REL (its parents made, an old file removed first), mode 0755 if `exec`; exits on failure. */
void t_put(const char *dir, const char *rel, const char *text, int exec);
/* Run `script` with sh in DIR, git's identity and config pinned (HOME=DIR), output dropped: system()'s status. */
int t_git_sh(const char *dir, const char *script);
/*
 * repo_checkout of `o` into DIR/work with the mirrors in DIR/cache, from
 * DIR/UP (or o->url where UP is NULL); its report in *err, the tree into
 * `ti` (dropped where NULL).
 */
int t_repo_checkout(const char *dir, const char *up, struct repo_checkout_opts *o, struct repo_tree_info *ti,
		    const char **err);
/* A copy of environment variable NAME's value, or NULL where it is not set: for t_env_restore. */
char *t_env_save(const char *name);
/* Put back environment variable NAME as it was (`old`, a copy or NULL, freed). */
void t_env_restore(const char *name, char *old);
/* Whether one of the report's errors contains `what`. */
int t_has_error(const struct wheel_report *r, const char *what);
/* The (last) .whl file in `dir`, into `out`: 1 if there was one. */
int t_wheel_in(const char *dir, struct buf *out);
/* The hostile wheel of make_wheels.py's case `name` (TESTTMP/wheels/bad), verified: rejected by `rule`. */
int t_rejected(const char *name, const char *rule, const struct wheel_expect *ex);

#endif
