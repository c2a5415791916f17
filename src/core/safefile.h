#ifndef BWBUILD_SAFEFILE_H
#define BWBUILD_SAFEFILE_H

#include <stddef.h>

struct buf;

/*
 * File-system safety (docs/design/filesystem.md; src/core/safefile.c):
 * every file bwbuild creates is created new, O_CREAT|O_EXCL|O_NOFOLLOW, so
 * a planted file or symlink at its name is refused, never followed or
 * truncated.
 */

/*
 * The directory `name` (one level) in the directory `root`, made when
 * `create` and missing, else checked: a directory, never a symbolic link
 * (a planted <work>/logs -> elsewhere would have bwbuild truncate files
 * there). 0; 1 when it is absent and not made; -1 after reporting.
 */
int mkdir_in(const char *root, const char *name, int create);

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
/*
 * write_file_atomic without the fsync: for state a crash makes worthless
 * anyway (the launcher's ledger, rewritten several times a compile).
 */
int write_file_replace(const char *path, const void *data, size_t len);
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

/* Remove a file tree (like rm -rf); 0 if it is gone afterwards. */
int remove_tree(const char *path);

#endif
