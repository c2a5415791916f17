#ifndef BWBUILD_TARZST_H
#define BWBUILD_TARZST_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/*
 * A POSIX tar stream (ustar headers, pax 'x' records for long names),
 * compressed as one zstd stream: the container of a source bundle
 * (src/formats/tarzst.c says the format and its bounds). Only regular
 * files, symbolic links and directories; names relative, normalized.
 */

enum tar_type { TAR_FILE, TAR_SYMLINK, TAR_DIR };

struct tar_member {
	const char *name;   /* validated: relative, no "." or ".." component, no control byte */
	enum tar_type type;
	unsigned mode;      /* permission bits only */
	long long mtime;
	const char *link;   /* TAR_SYMLINK: the target as stored (checked by the caller) */
	const uint8_t *data;
	uint64_t size;
};

/* What one stream may hold; a stream over any of them is refused, never read on. */
struct tar_limits {
	uint64_t total;       /* bytes of member data, added up */
	uint64_t member;      /* bytes of one member (it is handed over whole) */
	size_t members;
	unsigned window_log;  /* zstd: the largest window accepted (memory) */
};
extern const struct tar_limits tar_limits_default;

/* Each member in stream order; a non-zero return stops the read and is returned. */
typedef int (*tar_member_fn)(void *ctx, const struct tar_member *m);

struct tar_reader;
struct tar_reader *tar_reader_new(const struct tar_limits *lim, tar_member_fn fn, void *ctx);
/* Push the next bytes of the (uncompressed) tar stream: 0, the callback's value, or -1 with `why`. */
int tar_reader_feed(struct tar_reader *r, const uint8_t *p, size_t n, struct buf *why);
/* The stream ended: 0 when it ended with its end-of-archive blocks, else -1 with `why`. */
int tar_reader_end(struct tar_reader *r, struct buf *why);
void tar_reader_free(struct tar_reader *r);

/* A whole uncompressed tar in memory (fuzzing, tests). */
int tar_read_mem(const uint8_t *p, size_t n, const struct tar_limits *lim, tar_member_fn fn,
		 void *ctx, struct buf *why);
/* A zstd-compressed tar from `fd`, streamed. */
int tarzst_read_fd(int fd, const struct tar_limits *lim, tar_member_fn fn, void *ctx,
		   struct buf *why);
/* The same from bytes in memory. */
int tarzst_read_mem(const uint8_t *p, size_t n, const struct tar_limits *lim, tar_member_fn fn,
		    void *ctx, struct buf *why);

/*
 * The writer: deterministic bytes for the same members in the same order
 * (owner 0, no user names, the mtime given). `level` is zstd's (19: the
 * bundle's); 0 writes an uncompressed tar.
 */
struct tar_writer;
struct tar_writer *tar_writer_new(int fd, int level, struct buf *why);
int tar_writer_file(struct tar_writer *w, const char *name, unsigned mode, long long mtime,
		    const void *data, size_t len);
int tar_writer_symlink(struct tar_writer *w, const char *name, const char *target,
		       long long mtime);
/* The end blocks and the end of the zstd frame, written. -1 with the writer's `why`. */
int tar_writer_finish(struct tar_writer *w);
/* Bytes written to the fd so far. */
uint64_t tar_writer_bytes(const struct tar_writer *w);
void tar_writer_free(struct tar_writer *w);

/* 1 when `name` is a member name the reader accepts (relative, normalized, printable). */
int tar_name_ok(const char *name, size_t len);

#endif
