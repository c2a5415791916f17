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

/*
 * The directory `name` (one level) in the directory `root`, made when
 * `create` and missing, else checked: a directory, never a symbolic link
 * (a planted <work>/logs -> elsewhere would have bwbuild truncate files
 * there). 0; 1 when it is absent and not made; -1 after reporting.
 */
int mkdir_in(const char *root, const char *name, int create);

/* `path` with "." and ".." resolved lexically (no symlinks, no file system). */
struct buf;
void path_normalize(struct buf *out, const char *path);

/*
 * Write all `len` bytes to `fd`, again after EINTR and short writes. -1
 * with errno set (EIO for a write that wrote nothing) after a failure.
 */
int write_all(int fd, const void *data, size_t len);

/*
 * File-system safety (docs/design/filesystem.md): every file bwbuild
 * creates is created new, O_CREAT|O_EXCL|O_NOFOLLOW, so a planted file or
 * symlink at its name is refused, never followed or truncated.
 */

/* 16 random hex digits (getrandom): the token in a temporary's name. */
void random_token(struct buf *out);
/* open() that never follows a symlink in the last component; -1 with errno (ELOOP). */
int open_nofollow(const char *path, int flags, unsigned mode);
/*
 * Open a file bwbuild keeps under a fixed name in a directory others may
 * write into (a step's log, a launcher ledger, a lock, a state file):
 * never through a link, never blocking (O_NONBLOCK: a FIFO there is
 * refused, not waited on for a reader), and only when what is there is a
 * regular file (fstat after the open). O_TRUNC is done after that check,
 * so nothing but a regular file is ever truncated. The fd, or -1 with
 * errno: ELOOP for a link, EFTYPE_NOT_REGULAR for anything else there.
 */
#define EFTYPE_NOT_REGULAR ENODEV
int open_regular(const char *path, int flags, unsigned mode);
/* Report open_regular's failure: what is at `path` and what to do. -1. */
int open_regular_error(const char *path);

/*
 * Below a directory bwbuild owns (the work dir): the first `n` bytes of
 * `rel` ("logs", "launch/bin") opened one component at a time from
 * `root`, never following a link (root itself is the user's, followed):
 * a directory replaced by a link while a build runs is refused at the
 * next open, not written through (filesystem.md rule 1). An O_DIRECTORY
 * fd, or -1 after reporting the component and what to do.
 */
int open_dir_beneath(const char *root, const char *rel, size_t n);
/* open_regular of `rel` below `root`, its directories opened so; -1 after reporting. */
int open_regular_beneath(const char *root, const char *rel, int flags, unsigned mode);
/* write_file_atomic of `rel` below `root`: temporary and rename inside the directory opened so. */
int write_file_atomic_beneath(const char *root, const char *rel, const void *data, size_t len);

/* A new file at `path` for writing (O_EXCL|O_NOFOLLOW), reported on failure; the fd or -1. */
int create_new(const char *path, unsigned mode);

/*
 * Write `len` bytes to `path` through `path.tmp.<pid>.<token>` (created
 * new): written, flushed, fsynced, then renamed, so a reader never sees
 * half a file.
 */
int write_file_atomic(const char *path, const void *data, size_t len);
/* Copy the file `from` to the new file `to` (O_EXCL|O_NOFOLLOW), in bounded memory, synced. */
int copy_file(const char *from, const char *to);
/* Copy the file `from` to `to` in the directory `dirfd` (created new), synced. */
int copy_file_at(const char *from, int dirfd, const char *to, const char *to_shown);

/*
 * Whether `name` is the name of a temporary as write_file_atomic makes
 * them: "<base>.tmp.<pid>" (older bwbuilds) or "<base>.tmp.<pid>.<16 hex>",
 * base not empty. The pid into *pid, the length of base into *base_len.
 */
int tmp_name_parse(const char *name, long *pid, size_t *base_len);
/*
 * In `dir`, a directory bwbuild owns and holds locked, remove the
 * temporaries (tmp_name_parse) of processes that are gone: only regular
 * files owned by this user, never through a link. The number removed.
 */
int remove_stale_temporaries(const char *dir);

/* 1 if `path` is `dir` or below it, both absolute and normalized (lexically). */
int path_within(const char *path, const char *dir);
/*
 * Why the absolute directory `dir` may not be given to bwbuild to write
 * into (the root, the home directory `home` or a directory above it), or
 * NULL when it may. Pure: the file system is not asked.
 */
const char *dir_unsafe_reason(const char *dir, const char *home);

/*
 * The cache directory `dir` made (never HOME itself: a HOME that does not
 * exist is refused) and trusted at every level bwbuild uses: the
 * directory, its git/ and each entry of git/ (a mirror, a lock) must be
 * this user's, not writable by group or others, and no symlink below the
 * top. Someone else's (or a world-writable) level could hand us any
 * source. 0, or -1 after reporting what to do.
 */
int cache_dir_check(const char *dir);

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

/* Remove a file tree (like rm -rf); 0 if it is gone afterwards. */
int remove_tree(const char *path);

/* Absolute form of `path` (need not exist), relative to the working dir. */
char *path_absolute(const char *path);

/* Monotonic seconds. */
double now_seconds(void);

/* Parse "24G", "512M", "1.5GiB", "1073741824": bytes, or -1. */
int parse_size(const char *s, uint64_t *out);

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

#endif
