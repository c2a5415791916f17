#ifndef BWBUILD_ZIP_H
#define BWBUILD_ZIP_H

#include <stddef.h>
#include <stdint.h>

struct buf;

/*
 * A read-only zip (and zip64) reader over a memory mapping; the central
 * directory is the authority, local headers are used only to find data.
 * Format at the top of zip.c.
 */
struct zip_entry {
	char *name;          /* as stored (UTF-8 when flag bit 11) */
	size_t name_len;
	uint16_t flags;      /* general purpose bits */
	uint16_t method;     /* 0 stored, 8 deflate */
	uint16_t made_by;
	uint32_t crc;
	uint32_t ext_attr;
	uint64_t csize;
	uint64_t usize;
	uint64_t lho;        /* local header offset */
	uint64_t data_off;   /* start of the data */
	int local_name_differs;
};

struct zip {
	const uint8_t *data;
	size_t len;
	int mapped;
	char *path;          /* zip_open's file, to tell a change while it is read */
	uint64_t dev, ino;   /* as opened */
	int64_t mtime_ns, ctime_ns;
	struct zip_entry *entries;
	size_t n;
	uint64_t cd_offset;
	uint64_t cd_end;     /* end of the central directory records */
	uint64_t eocd_offset;
};

/*
 * Bounds (docs/design/bounds.md): the directory is parsed in time and
 * memory linear in its real size; a member's claimed size is believed only
 * as far as its compressed bytes can produce it (a deflate stream yields at
 * most 1032 bytes a byte, a stored one exactly its bytes), and members
 * whose data overlap are refused, so reading every member costs at most
 * 1032 x the file's size in time and one chunk in memory.
 */
#define ZIP_DEFLATE_MAX_RATIO 1032u

/* Map and parse a file. -1 after reporting. */
int zip_open(struct zip *z, const char *path);
/* Parse bytes owned by the caller. -1 with a reason in `why`. */
int zip_parse(struct zip *z, const uint8_t *data, size_t len, struct buf *why);
void zip_close(struct zip *z);

/*
 * Stream an entry's uncompressed bytes to `sink` in chunks, checking the
 * CRC-32 and the size against the central directory. -1 with a reason.
 */
int zip_read(const struct zip *z, const struct zip_entry *e,
	     int (*sink)(void *ctx, const void *data, size_t n), void *ctx, struct buf *why);
/*
 * Read a whole entry into `out` (at most `max` bytes); memory grows with
 * the bytes that really come out, never to the claimed size up front.
 */
int zip_read_all(const struct zip *z, const struct zip_entry *e, struct buf *out, uint64_t max,
		 struct buf *why);
/*
 * The first `n` bytes of an entry (inflating no more than they need) into
 * `out`: how many came, fewer for a shorter or unreadable entry.
 */
size_t zip_peek(const struct zip *z, const struct zip_entry *e, uint8_t *out, size_t n);
/*
 * A member inflated into an unlinked temporary file (in $TMPDIR) and
 * mapped read-only: for readers that need random access to a library
 * (ELF section tables, dynamic symbols) without holding it in memory.
 * The resident set is what the reader touches; a full disk is an error
 * that says so.
 */
struct zip_spill {
	const uint8_t *p;
	size_t n;
};

int zip_spill(const struct zip *z, const struct zip_entry *e, struct zip_spill *out,
	      struct buf *why);
void zip_spill_release(struct zip_spill *s);

/*
 * 1 if the file zip_open mapped is no longer the one it opened (size,
 * inode, modification or change time differ); its reason in `why`.
 */
int zip_changed(const struct zip *z, struct buf *why);
const struct zip_entry *zip_find(const struct zip *z, const char *name);

#endif
