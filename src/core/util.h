#ifndef BWBUILD_UTIL_H
#define BWBUILD_UTIL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Allocation helpers that die on out-of-memory: callers never check them.
 */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grow *arr (element size `size`) so that it holds at least `need` elements. */
#define ALLOC_GROW(arr, need, cap)                                              \
	do {                                                                    \
		if ((need) > (cap)) {                                           \
			(cap) = (cap) ? (cap) * 2 : 8;                          \
			if ((cap) < (need))                                     \
				(cap) = (need);                                 \
			(arr) = xreallocarray((arr), (cap), sizeof(*(arr)));    \
		}                                                               \
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Create a directory and its parents; 0 on success, -1 after reporting. */
int mkdir_p(const char *path);
/* The same for the directory that will hold `path`. */
int mkdir_p_parent(const char *path);

/* `path` with "." and ".." resolved lexically (no symlinks, no file system). */
struct buf;
void path_normalize(struct buf *out, const char *path);

/*
 * Write all `len` bytes to `fd`, again after EINTR and short writes. -1
 * with errno set (EIO for a write that wrote nothing) after a failure.
 */
int write_all(int fd, const void *data, size_t len);

/* Read a whole file; the result is NUL-terminated. -1 after reporting. */
int read_file(struct buf *out, const char *path);
/* What read_file takes at most: profiles, manifests, caches, patches are far smaller. */
#define READ_FILE_MAX ((uint64_t)256 << 20)

/* Hex SHA-256 of a regular file (not through a link), streamed; -1 with errno. */
int sha256_file(const char *path, struct buf *hex);

/*
 * `s` for a message, into `b` (reset first): as it is when at most `most`
 * bytes, else its first `most` (not splitting a UTF-8 character) and
 * "…(N bytes)", so a 100 KB value from outside is no 100 KB line; b->s.
 */
const char *text_cut(struct buf *b, const char *s, size_t most);

/* 1 if the path exists (any type). */
int path_exists(const char *path);
int is_dir(const char *path);
int is_regular(const char *path);
/* "size mtime_ns inode" of a file, "" when it is not there; caller frees. */
char *file_identity(const char *path);


/* Absolute form of `path` (need not exist), relative to the working dir. */
char *path_absolute(const char *path);

/* Monotonic seconds. */
double now_seconds(void);

/* Parse "24G", "512M", "1.5GiB", "1073741824": bytes, or -1. */
int parse_size(const char *s, uint64_t *out);

/*
 * SOURCE_DATE_EPOCH (reproducible-builds.org), read in one place: 1 and
 * the seconds in *epoch when it holds a decimal number of seconds up to
 * year 9999, 0 with *epoch untouched when it is unset or empty, -1 after
 * an error naming the value otherwise. The spec asks for a stop on a
 * malformed value; strtoll took "1e9" as 1 and "junk" as 0 (1980 in a
 * zip) without a word.
 */
int source_date_epoch(long long *epoch);

/* Human-readable "12.3 GiB" into buf. */
void format_size(struct buf *b, uint64_t bytes);

/* The last component of a path: "x.so" for "torch/lib/x.so" (the whole path without a '/'). */
const char *path_tail(const char *path);
int starts_with(const char *s, const char *prefix);
int ends_with(const char *s, const char *suffix);

/* The path of a program on $PATH (or `name` itself if it has a '/'), or NULL. Caller frees. */
char *find_program(const char *name);

/*
 * Where bwbuild looks for its data (profiles, patches): SUBDIR here, then
 * beside its binary (../SUBDIR, ../share/bwbuild/SUBDIR), then each
 * directory of $ENV_NAME.
 */
struct strvec;
void data_search_path(const char *subdir, const char *env_name, struct strvec *dirs);
/*
 * The file NAME in the first of those directories that has it (the last,
 * with last_wins: where $ENV_NAME is to override what bwbuild ships), into
 * `out`; 0. -1 when none has it, `out` then "SUBDIR/NAME" for messages.
 */
int data_find(const char *subdir, const char *env_name, const char *name, int last_wins,
	      struct buf *out);

#endif
