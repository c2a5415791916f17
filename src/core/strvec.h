#ifndef BWBUILD_STRVEC_H
#define BWBUILD_STRVEC_H

#include <stddef.h>

/*
 * A NULL-terminated vector of owned strings (argv, envp), as git's strvec.
 * `v` is never NULL once initialised; v[n] is always NULL.
 */
struct strvec {
	char **v;
	size_t n;
	size_t cap;
};

extern char *strvec_empty[];
#define STRVEC_INIT { strvec_empty, 0, 0 }

void strvec_init(struct strvec *sv);
void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Push each argument up to a NULL, as git's strvec_pushl. */
void strvec_pushl(struct strvec *sv, ...) __attribute__((sentinel));
/* Push an owned string without copying. */
void strvec_push_nodup(struct strvec *sv, char *s);
void strvec_clear(struct strvec *sv);
/* Sort the entries bytewise (strcmp). */
void strvec_sort(struct strvec *sv);
/* Append the entries joined by `sep` to `out`. */
struct buf;
void strvec_join(const struct strvec *sv, const char *sep, struct buf *out);
/* Index of the "NAME=" entry in an environment vector, or -1. */
long strvec_env_find(const struct strvec *sv, const char *name, size_t namelen);
/* Set NAME=VALUE in an environment vector, replacing an earlier one. */
void strvec_env_set(struct strvec *sv, const char *name, const char *value);
/* The same with the value formatted: strvec_env_setf(env, "MAX_JOBS", "%u", jobs). */
void strvec_env_setf(struct strvec *sv, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Set NAME=DIR:<NAME of this process's environment>, DIR alone when that is unset or empty. */
void strvec_env_prepend_path(struct strvec *sv, const char *name, const char *dir);
/* Value of NAME in an environment vector, or NULL. */
const char *strvec_env_get(const struct strvec *sv, const char *name);

/* Natural order, so sm_90 sorts before sm_100. */
int natcmp(const char *a, const char *b);

/* A sorted (natural order: sm_90 before sm_100), unique string set over a strvec. */
void strset_add(struct strvec *set, const char *s);
int strset_has(const struct strvec *set, const char *s);

#endif
