/*
 * Zip reader (APPNOTE 6.3; docs/design/formats.md §2). All fields little-endian.
 *
 * End of central directory (EOCD), found by scanning back from the end over
 * at most 22 + 65535 bytes:
 *	0 u32 0x06054b50, 10 u16 total entries, 12 u32 CD size, 16 u32 CD offset,
 *	20 u16 comment length (the comment must end exactly at the end of file)
 * ZIP64 locator, 20 bytes immediately before the EOCD:
 *	0 u32 0x07064b50, 8 u64 offset of the ZIP64 EOCD record
 * ZIP64 EOCD record:
 *	0 u32 0x06064b50, 32 u64 total entries, 40 u64 CD size, 48 u64 CD offset
 * Central directory header (46 bytes + name + extra + comment):
 *	0 u32 0x02014b50, 4 u16 made by, 8 u16 flags (bit 0 encrypted, bit 3
 *	data descriptor, bit 11 UTF-8), 10 u16 method, 16 u32 crc, 20 u32 csize,
 *	24 u32 usize, 28 u16 name len, 30 u16 extra len, 32 u16 comment len,
 *	34 u16 disk, 38 u32 external attributes, 42 u32 local header offset
 * ZIP64 extra (id 0x0001): u64 usize, u64 csize, u64 local header offset,
 *	u32 disk: only the fields whose 32-bit counterpart is 0xFFFFFFFF, in
 *	that order
 * Local file header (30 bytes + name + extra):
 *	0 u32 0x04034b50, 26 u16 name len, 28 u16 extra len; data follows
 *
 * Claims are checked against the bytes that back them: a deflated member
 * cannot inflate to more than 1032 bytes per compressed byte, and no two
 * members' [local header, end of data) ranges may overlap (64 directory
 * entries on one 256 MiB member would otherwise cost 64 x 256 MiB).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/fault.h"
#include "formats/inflate.h"
#include "core/span.h"
#include "core/util.h"
#include "formats/zip.h"

#define SIG_EOCD 0x06054b50u
#define SIG_Z64_LOC 0x07064b50u
#define SIG_Z64_EOCD 0x06064b50u
#define SIG_CDH 0x02014b50u
#define SIG_LFH 0x04034b50u

static int
find_eocd(struct span s, uint64_t *at)
{
	uint64_t start = s.n > 22 + 65535 ? s.n - 22 - 65535 : 0;
	uint64_t off;

	if (s.n < 22)
		return -1;
	for (off = s.n - 22 + 1; off-- > start;) {
		uint32_t sig = 0;
		uint16_t clen = 0;

		rd_u32(s, off, &sig);
		if (sig != SIG_EOCD)
			continue;
		rd_u16(s, off + 20, &clen);
		if (off + 22 + clen == s.n) {
			*at = off;
			return 0;
		}
	}
	return -1;
}

static int
parse_extra(struct span s, uint64_t off, uint16_t len, struct zip_entry *e, uint32_t csize32,
	    uint32_t usize32, uint32_t lho32, struct buf *why)
{
	uint64_t end = off + len, p = off;

	while (p + 4 <= end) {
		uint16_t id = 0, sz = 0;
		uint64_t q;

		rd_u16(s, p, &id);
		rd_u16(s, p + 2, &sz);
		if (p + 4 + sz > end) {
			buf_addf(why, "extra field of '%s' runs past its end", e->name);
			return -1;
		}
		q = p + 4;
		if (id == 0x0001) {
			if (usize32 == 0xFFFFFFFFu) {
				if (q + 8 > p + 4 + sz || rd_u64(s, q, &e->usize) < 0)
					goto short64;
				q += 8;
			}
			if (csize32 == 0xFFFFFFFFu) {
				if (q + 8 > p + 4 + sz || rd_u64(s, q, &e->csize) < 0)
					goto short64;
				q += 8;
			}
			if (lho32 == 0xFFFFFFFFu) {
				if (q + 8 > p + 4 + sz || rd_u64(s, q, &e->lho) < 0)
					goto short64;
			}
		}
		p += 4 + sz;
	}
	return 0;
short64:
	buf_addf(why, "zip64 extra field of '%s' is too short for its saturated fields", e->name);
	return -1;
}

/* Where the central directory is and how many entries it claims (EOCD, or zip64). */
static int
read_directory_end(struct span s, uint64_t eocd, uint64_t *entries, uint64_t *cd_size,
		   uint64_t *cd_off, struct buf *why)
{
	uint16_t n16 = 0;
	uint32_t size32 = 0, off32 = 0, sig = 0;
	uint64_t z64 = 0;

	rd_u16(s, eocd + 10, &n16);
	rd_u32(s, eocd + 12, &size32);
	rd_u32(s, eocd + 16, &off32);
	*entries = n16;
	*cd_size = size32;
	*cd_off = off32;
	if (eocd < 20)
		return 0;
	rd_u32(s, eocd - 20, &sig);
	if (sig != SIG_Z64_LOC)
		return 0;
	rd_u64(s, eocd - 20 + 8, &z64);
	if (rd_u32(s, z64, &sig) < 0 || sig != SIG_Z64_EOCD || !span_has(s.n, z64, 56)) {
		buf_addstr(why, "zip64 locator points at no zip64 end record");
		return -1;
	}
	rd_u64(s, z64 + 32, entries);
	rd_u64(s, z64 + 40, cd_size);
	rd_u64(s, z64 + 48, cd_off);
	return 0;
}

/*
 * Central directory entry `i` at *p, which must end by cd_end, into e;
 * *p moves past it.
 */
static int
parse_central_header(struct span s, uint64_t *p, uint64_t cd_end, size_t i, struct zip_entry *e,
		     struct buf *why)
{
	uint32_t c32 = 0, u32 = 0, l32 = 0;
	uint16_t nlen = 0, xlen = 0, clen = 0;
	uint64_t at = *p;

	rd_u16(s, at + 4, &e->made_by);
	rd_u16(s, at + 8, &e->flags);
	rd_u16(s, at + 10, &e->method);
	rd_u32(s, at + 16, &e->crc);
	rd_u32(s, at + 20, &c32);
	rd_u32(s, at + 24, &u32);
	rd_u16(s, at + 28, &nlen);
	rd_u16(s, at + 30, &xlen);
	rd_u16(s, at + 32, &clen);
	rd_u32(s, at + 38, &e->ext_attr);
	rd_u32(s, at + 42, &l32);
	if (at + 46 + (uint64_t)nlen + xlen + clen > cd_end) {
		buf_addf(why, "central directory entry %zu runs past the directory", i);
		return -1;
	}
	e->name = xstrndup((const char *)s.p + at + 46, nlen);
	e->name_len = nlen;
	e->csize = c32;
	e->usize = u32;
	e->lho = l32;
	if (parse_extra(s, at + 46 + nlen, xlen, e, c32, u32, l32, why) < 0)
		return -1;
	*p = at + 46 + (uint64_t)nlen + xlen + clen;
	return 0;
}

/* The entry's local header, and hence where its data starts, before the directory. */
static int
locate_data(struct span s, struct zip_entry *e, uint64_t cd_off, struct buf *why)
{
	uint32_t sig = 0;
	uint16_t lnlen = 0, lxlen = 0;

	if (rd_u32(s, e->lho, &sig) < 0 || sig != SIG_LFH || !span_has(s.n, e->lho, 30)) {
		buf_addf(why, "'%s': no local header at offset %llu", e->name,
			 (unsigned long long)e->lho);
		return -1;
	}
	rd_u16(s, e->lho + 26, &lnlen);
	rd_u16(s, e->lho + 28, &lxlen);
	e->data_off = e->lho + 30 + lnlen + lxlen;
	if (!span_has(s.n, e->lho + 30, lnlen) || lnlen != e->name_len ||
	    memcmp(s.p + e->lho + 30, e->name, lnlen))
		e->local_name_differs = 1;
	if (!span_has(s.n, e->data_off, e->csize) || e->data_off + e->csize > cd_off) {
		buf_addf(why, "'%s': data (%llu bytes at %llu) lies outside the archive's "
			 "data area", e->name, (unsigned long long)e->csize,
			 (unsigned long long)e->data_off);
		return -1;
	}
	return 0;
}

/* A size the compressed bytes cannot produce is a lie (a 908-byte file claiming 1 TiB). */
static int
check_claim(const struct zip_entry *e, struct buf *why)
{
	if (e->method == 8 && e->usize / ZIP_DEFLATE_MAX_RATIO > e->csize) {
		buf_addf(why, "'%s' claims %llu bytes from %llu compressed, more than deflate can "
			 "produce", e->name, (unsigned long long)e->usize,
			 (unsigned long long)e->csize);
		return -1;
	}
	return 0;
}

struct extent {
	uint64_t from, to;
	size_t i;
};

static int
by_from(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* Each member's bytes belong to it alone: sort by local header, then no range may reach the next. */
static int
check_overlaps(const struct zip *z, struct buf *why)
{
	struct extent *v;
	size_t i;
	int rc = 0;

	if (z->n < 2)
		return 0;
	v = xcalloc(z->n, sizeof(*v));
	for (i = 0; i < z->n; i++) {
		v[i].from = z->entries[i].lho;
		v[i].to = z->entries[i].data_off + z->entries[i].csize;
		v[i].i = i;
	}
	qsort(v, z->n, sizeof(*v), by_from);
	for (i = 1; i < z->n; i++) {
		if (v[i].from < v[i - 1].to) {
			buf_addf(why, "members '%s' and '%s' share bytes (overlapping entries, "
				 "as zip bombs have)", z->entries[v[i - 1].i].name,
				 z->entries[v[i].i].name);
			rc = -1;
			break;
		}
	}
	free(v);
	return rc;
}

int
zip_parse(struct zip *z, const uint8_t *data, size_t len, struct buf *why)
{
	struct span s = { data, len };
	uint64_t eocd, entries, cd_size, cd_off, p;
	size_t i;

	memset(z, 0, sizeof(*z));
	z->data = data;
	z->len = len;
	if (find_eocd(s, &eocd) < 0) {
		buf_addstr(why, "no end-of-central-directory record (not a zip file, or truncated)");
		return -1;
	}
	z->eocd_offset = eocd;
	if (read_directory_end(s, eocd, &entries, &cd_size, &cd_off, why) < 0)
		return -1;
	if (!span_has(len, cd_off, cd_size)) {
		buf_addstr(why, "central directory lies outside the file");
		return -1;
	}
	/* Each header takes at least 46 bytes: a count beyond that is a lie. */
	if (entries > cd_size / 46) {
		buf_addf(why, "central directory of %llu bytes cannot hold %llu entries",
			 (unsigned long long)cd_size, (unsigned long long)entries);
		return -1;
	}
	z->cd_offset = cd_off;
	z->entries = xcalloc(entries ? entries : 1, sizeof(*z->entries));
	p = cd_off;
	for (i = 0; i < entries; i++) {
		uint32_t sig = 0;

		if (rd_u32(s, p, &sig) < 0 || sig != SIG_CDH || !span_has(len, p, 46) ||
		    p + 46 > cd_off + cd_size) {
			buf_addf(why, "central directory entry %zu is missing or damaged", i);
			goto fail;
		}
		z->n = i + 1;
		if (parse_central_header(s, &p, cd_off + cd_size, i, &z->entries[i], why) < 0 ||
		    locate_data(s, &z->entries[i], cd_off, why) < 0 ||
		    check_claim(&z->entries[i], why) < 0)
			goto fail;
	}
	z->cd_end = p;
	if (check_overlaps(z, why) < 0)
		goto fail;
	return 0;
fail:
	zip_close(z);
	return -1;
}

/*
 * A mapped wheel that is truncated or rewritten while it is read raises
 * SIGBUS on the next page touched. The reader cannot go on, but it must
 * say what happened instead of dying with 135: the handler (async-signal
 * safe: write, stat, _exit) names the file, its size then and now, and
 * exits 1 (the wheel failed: it is not the wheel it was).
 */
static const char *mapped_path;
static unsigned long long mapped_size;

static void
put(const char *s)
{
	ssize_t n = write(2, s, strlen(s));

	(void)n;
}

static void
put_u64(unsigned long long v)
{
	char d[24];
	int i = (int)sizeof(d) - 1;

	d[i] = '\0';
	do
		d[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i > 0);
	put(d + i);
}

static void
on_sigbus(int sig)
{
	struct stat st;

	(void)sig;
	put("error: '");
	put(mapped_path ? mapped_path : "the wheel");
	put("' changed while being read (it is ");
	if (mapped_path && stat(mapped_path, &st) == 0)
		put_u64((unsigned long long)st.st_size);
	else
		put("gone");
	put(" bytes now, was ");
	put_u64(mapped_size);
	put("); run verify again when it is complete\n");
	_exit(EXIT_FAIL);
}

static void
guard_mapping(const char *path, unsigned long long size)
{
	struct sigaction sa;

	mapped_path = path;
	mapped_size = size;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

int
zip_open(struct zip *z, const char *path)
{
	struct buf why = BUF_INIT;
	struct stat st;
	void *map;
	/* O_NONBLOCK: a FIFO given as a wheel must be refused, not waited on. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	memset(z, 0, sizeof(*z));
	if (fd < 0)
		return error("cannot open '%s':", path);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return error("cannot stat '%s':", path);
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return error("'%s' is not a zip file (empty or not a regular file)", path);
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return error("cannot map '%s':", path);
	guard_mapping(path, (unsigned long long)st.st_size);
	fault_truncate("zip-mapped", path);
	if (zip_parse(z, map, (size_t)st.st_size, &why) < 0) {
		munmap(map, (size_t)st.st_size);
		error("'%s' is not a valid zip file: %s", path, why.s);
		buf_release(&why);
		return -1;
	}
	z->mapped = 1;
	z->path = xstrdup(path);
	z->dev = (uint64_t)st.st_dev;
	z->ino = (uint64_t)st.st_ino;
	z->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	z->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	buf_release(&why);
	return 0;
}

int
zip_changed(const struct zip *z, struct buf *why)
{
	struct stat st;

	if (!z->path)
		return 0;
	if (stat(z->path, &st) < 0) {
		buf_addf(why, "'%s' changed while being read (it is gone now); run again when it is "
			 "complete", z->path);
		return 1;
	}
	if ((uint64_t)st.st_size == z->len && (uint64_t)st.st_dev == z->dev &&
	    (uint64_t)st.st_ino == z->ino &&
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec == z->mtime_ns &&
	    (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec == z->ctime_ns)
		return 0;
	buf_addf(why, "'%s' changed while being read (it is %llu bytes now, was %llu; modified "
		 "since it was opened); run again when it is complete", z->path,
		 (unsigned long long)st.st_size, (unsigned long long)z->len);
	return 1;
}

void
zip_close(struct zip *z)
{
	size_t i;

	for (i = 0; i < z->n; i++)
		free(z->entries[i].name);
	free(z->entries);
	free(z->path);
	if (z->mapped)
		munmap((void *)z->data, z->len);
	memset(z, 0, sizeof(*z));
}

/* Compressed input is fed in chunks of this size. */
#define ZIP_IN_CHUNK ((size_t)8 << 20)

/*
 * Drop the whole pages of [from, to) from a mapped archive once inflated:
 * clean file pages, so this only keeps the resident set near one chunk per
 * reader on a multi-gigabyte wheel; a later touch reads them again.
 */
static void
drop_pages(const struct zip *z, const uint8_t *from, const uint8_t *to)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t a, b;

	if (!z->mapped || !from || page <= 0 || from < z->data)
		return;
	a = ((uintptr_t)from + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	b = (uintptr_t)to & ~((uintptr_t)page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

typedef int (*zip_sink)(void *ctx, const void *data, size_t n);

static int
read_stored(const struct zip_entry *e, const uint8_t *src, zip_sink sink, void *ctx, uLong *crc,
	    uint64_t *total, struct buf *why)
{
	uint64_t left = e->csize;

	if (e->csize != e->usize) {
		buf_addf(why, "'%s' is stored with different sizes (%llu, %llu)", e->name,
			 (unsigned long long)e->csize, (unsigned long long)e->usize);
		return -1;
	}
	while (left) {
		size_t n = left > (1u << 20) ? (1u << 20) : (size_t)left;

		*crc = crc32(*crc, src, (uInt)n);
		if (sink && sink(ctx, src, n) < 0)
			return -1;
		src += n;
		left -= n;
	}
	*total = e->csize;
	return 0;
}

/*
 * Inflate (src/formats/inflate.c: ISA-L), never past the recorded size; the
 * compressed input is fed in chunks and the CRC-32 comes from the inflater.
 */
static int
read_deflated(const struct zip *z, const struct zip_entry *e, zip_sink sink, void *ctx,
	      uLong *crc, uint64_t *total, struct buf *why)
{
	static const size_t out_cap = 256 << 10;
	const uint8_t *src = z->data + e->data_off, *fed = NULL;
	struct raw_inflate *ri = raw_inflate_new();
	uint8_t *out = xmalloc(out_cap);
	uint64_t left = e->csize;
	int rc = 0, ret = -1;

	while (rc != 1) {
		const char *err = "no progress";
		size_t got;

		if (!raw_inflate_pending(ri) && left) {
			size_t n = left > ZIP_IN_CHUNK ? ZIP_IN_CHUNK : (size_t)left;

			drop_pages(z, fed, src);
			fed = src;
			raw_inflate_input(ri, src, n);
			src += n;
			left -= n;
		}
		rc = raw_inflate_step(ri, out, out_cap, &got, &err);
		if (rc < 0) {
			buf_addf(why, "'%s': corrupt deflate data (%s)", e->name, err);
			goto out;
		}
		if (!rc && !raw_inflate_pending(ri) && !left && got < out_cap) {
			buf_addf(why, "'%s': deflate data ends early", e->name);
			goto out;
		}
		*total += got;
		if (*total > e->usize) {
			buf_addf(why, "'%s' inflates to more than its recorded %llu bytes", e->name,
				 (unsigned long long)e->usize);
			goto out;
		}
		if (got && sink && sink(ctx, out, got) < 0)
			goto out;
	}
	*crc = raw_inflate_crc(ri);
	ret = 0;
out:
	free(out);
	raw_inflate_free(ri);
	return ret;
}

static int
read_entry(const struct zip *z, const struct zip_entry *e,
	   int (*sink)(void *ctx, const void *data, size_t n), void *ctx, struct buf *why)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	uint64_t total = 0;
	int rc;

	if (e->flags & 1) {
		buf_addf(why, "'%s' is encrypted", e->name);
		return -1;
	}
	if (e->method == 0) {
		rc = read_stored(e, z->data + e->data_off, sink, ctx, &crc, &total, why);
	} else if (e->method == 8) {
		rc = read_deflated(z, e, sink, ctx, &crc, &total, why);
	} else {
		buf_addf(why, "'%s' uses compression method %u (only stored and deflate are allowed)",
			 e->name, e->method);
		return -1;
	}
	if (rc < 0)
		return -1;
	if (total != e->usize) {
		buf_addf(why, "'%s' is %llu bytes, the central directory says %llu", e->name,
			 (unsigned long long)total, (unsigned long long)e->usize);
		return -1;
	}
	if ((uint32_t)crc != e->crc) {
		buf_addf(why, "'%s' fails its CRC-32 check", e->name);
		return -1;
	}
	return 0;
}

struct read_all_ctx {
	struct buf *out;
	uint64_t max;
	struct buf *why;
	const char *name;
};

static int
read_all_sink(void *vctx, const void *data, size_t n)
{
	struct read_all_ctx *c = vctx;

	if (c->out->len + n > c->max) {
		buf_addf(c->why, "'%s' is larger than %llu bytes", c->name, (unsigned long long)c->max);
		return -1;
	}
	buf_add(c->out, data, n);
	return 0;
}

int
zip_read_all(const struct zip *z, const struct zip_entry *e, struct buf *out, uint64_t max,
	     struct buf *why)
{
	struct read_all_ctx c = { out, max, why, e->name };

	if (e->usize > max) {
		buf_addf(why, "'%s' is larger than %llu bytes", e->name, (unsigned long long)max);
		return -1;
	}
	/* What fits one inflate round at most: the rest as it really comes. */
	buf_grow(out, (size_t)(e->usize < (1u << 20) ? e->usize : (1u << 20)));
	return zip_read(z, e, read_all_sink, &c, why);
}

/*
 * Bad data in a member of a file that was rewritten meanwhile is the
 * rewrite, not the wheel: say that instead (a sink's own failure stands).
 */
struct sink_guard {
	int (*sink)(void *ctx, const void *data, size_t n);
	void *ctx;
	int failed;
};

static int
guarded_sink(void *vctx, const void *data, size_t n)
{
	struct sink_guard *g = vctx;

	if (g->sink && g->sink(g->ctx, data, n) < 0) {
		g->failed = 1;
		return -1;
	}
	return 0;
}

int
zip_read(const struct zip *z, const struct zip_entry *e,
	 int (*sink)(void *ctx, const void *data, size_t n), void *ctx, struct buf *why)
{
	struct sink_guard g = { sink, ctx, 0 };
	size_t at = why->len;
	struct buf changed = BUF_INIT;

	if (z->path)
		fault_truncate("zip-member", z->path);
	if (read_entry(z, e, guarded_sink, &g, why) == 0)
		return 0;
	if (!g.failed && zip_changed(z, &changed)) {
		buf_setlen(why, at);
		buf_add(why, changed.s, changed.len);
	}
	buf_release(&changed);
	return -1;
}

struct peek_ctx {
	uint8_t *out;
	size_t want, got;
};

static int
peek_sink(void *vctx, const void *data, size_t n)
{
	struct peek_ctx *c = vctx;
	size_t take = n < c->want - c->got ? n : c->want - c->got;

	memcpy(c->out + c->got, data, take);
	c->got += take;
	/* Enough: stop the inflate here (the caller sees how much came, not an error). */
	return c->got == c->want ? -1 : 0;
}

size_t
zip_peek(const struct zip *z, const struct zip_entry *e, uint8_t *out, size_t n)
{
	struct peek_ctx c = { out, n, 0 };
	struct buf why = BUF_INIT;

	if (n)
		zip_read(z, e, peek_sink, &c, &why);
	buf_release(&why);
	return c.got;
}

struct spill_sink {
	int fd;
	const char *dir;
	struct buf *why;
};

static int
spill_write(void *vctx, const void *data, size_t n)
{
	struct spill_sink *c = vctx;
	const char *p = data;

	while (n) {
		ssize_t w = write(c->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			buf_addf(c->why, "cannot write a temporary copy in '%s': %s", c->dir,
				 w < 0 ? strerror(errno) : "no progress");
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int
zip_spill(const struct zip *z, const struct zip_entry *e, struct zip_spill *out,
	  struct buf *why)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct spill_sink c = { -1, dir, why };
	struct stat st;
	void *map;

	memset(out, 0, sizeof(*out));
	c.fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (c.fd < 0) {
		struct buf tmpl = BUF_INIT;

		buf_addf(&tmpl, "%s/bwbuild-member.XXXXXX", dir);
		c.fd = mkostemp(tmpl.s, O_CLOEXEC);
		if (c.fd >= 0)
			unlink(tmpl.s);
		buf_release(&tmpl);
	}
	if (c.fd < 0) {
		buf_addf(why, "cannot make a temporary file in '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (zip_read(z, e, spill_write, &c, why) < 0 || fstat(c.fd, &st) < 0) {
		close(c.fd);
		return -1;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, c.fd, 0);
		if (map == MAP_FAILED) {
			buf_addf(why, "cannot map the temporary copy of '%s': %s", e->name,
				 strerror(errno));
			close(c.fd);
			return -1;
		}
		out->p = map;
		out->n = (size_t)st.st_size;
	}
	close(c.fd);
	return 0;
}

void
zip_spill_release(struct zip_spill *s)
{
	if (s->p)
		munmap((void *)s->p, s->n);
	memset(s, 0, sizeof(*s));
}

const struct zip_entry *
zip_find(const struct zip *z, const char *name)
{
	size_t i;

	for (i = 0; i < z->n; i++)
		if (!strcmp(z->entries[i].name, name) && strlen(name) == z->entries[i].name_len)
			return &z->entries[i];
	return NULL;
}
