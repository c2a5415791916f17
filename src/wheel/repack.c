/*
 * Zip writer for wheels (APPNOTE 6.3; docs/design/formats.md §2), little-endian:
 *
 * Local file header, 30 bytes + name (+ extra):
 *	0 u32 0x04034b50, 4 u16 version needed, 6 u16 flags, 8 u16 method,
 *	10 u16 DOS time, 12 u16 DOS date, 14 u32 crc, 18 u32 csize, 22 u32 usize,
 *	26 u16 name len, 28 u16 extra len
 * Central directory header, 46 bytes + name (+ extra):
 *	0 u32 0x02014b50, 4 u16 made by (3 << 8: Unix), 6 u16 version needed,
 *	8 u16 flags, 10 u16 method, 12 time, 14 date, 16 crc, 20 csize, 24 usize,
 *	28 name len, 30 extra len, 32 comment len, 34 disk, 36 internal attrs,
 *	38 u32 external attrs (mode << 16), 42 u32 local header offset
 * ZIP64 extra (0x0001), written only where a field does not fit 32 bits
 * (the 32-bit field is then 0xFFFFFFFF): u64 usize, u64 csize, u64 offset.
 * End: the ZIP64 EOCD record (56 bytes) and locator (20) when the entry
 * count, the directory's size or offset does not fit, then the EOCD (22).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/hash.h"
#include "formats/record.h"
#include "wheel/cudalibs.h"
#include "wheel/repack.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"
#include "formats/zip.h"

#define U32_MAX_ 0xFFFFFFFFull

static void
put16(struct buf *b, unsigned v)
{
	unsigned char x[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	buf_add(b, x, 2);
}

static void
put32(struct buf *b, uint32_t v)
{
	put16(b, v & 0xFFFF);
	put16(b, v >> 16);
}

static void
put64(struct buf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

int
wheel_name_with_platform(const char *filename, const char *platform, struct buf *out)
{
	const char *dash = strrchr(filename, '-');

	if (!dash || !ends_with(filename, ".whl"))
		return -1;
	buf_reset(out);
	buf_add(out, filename, (size_t)(dash - filename) + 1);
	buf_addf(out, "%s.whl", platform);
	return 0;
}

/* Where a member goes: the package's files, then .dist-info's, RECORD the very last. */
static int
member_rank(const char *name)
{
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : 0, sl = strlen(".dist-info");

	if (!slash || n <= sl || memcmp(slash - sl, ".dist-info", sl))
		return 0;
	return strcmp(slash + 1, "RECORD") ? 1 : 2;
}

static void
dos_time(long long epoch, unsigned *time_out, unsigned *date_out)
{
	struct tm tm;
	time_t t = (time_t)(epoch < 315532800 ? 315532800 : epoch); /* 1980-01-01 */

	gmtime_r(&t, &tm);
	if (tm.tm_year > 2107 - 1900) {
		tm.tm_year = 2107 - 1900;
		tm.tm_mon = 11;
		tm.tm_mday = 31;
	}
	*time_out = (unsigned)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
	*date_out = (unsigned)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
}

static void
csv_field(struct buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		buf_addstr(b, s);
		return;
	}
	buf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			buf_addch(b, '"');
		buf_addch(b, *s);
	}
	buf_addch(b, '"');
}

/* WHEEL with every Tag line's platform replaced (duplicates dropped). */
static void
retag_wheel_file(const char *text, const char *platform, struct buf *out)
{
	struct strvec seen = STRVEC_INIT;
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *dash;

		if (platform && n > 5 && !strncmp(p, "Tag: ", 5) &&
		    (dash = memrchr(p, '-', n)) && dash > p + 5) {
			struct buf line = BUF_INIT;

			buf_add(&line, p, (size_t)(dash - p) + 1);
			buf_addstr(&line, platform);
			if (!strset_has(&seen, line.s)) {
				strset_add(&seen, line.s);
				buf_add(out, line.s, line.len);
				buf_addch(out, '\n');
			}
			buf_release(&line);
		} else {
			buf_add(out, p, n);
			buf_addch(out, '\n');
		}
		p += n + (p[n] == '\n');
	}
	strvec_clear(&seen);
}

/*
 * METADATA with the requirement on `name` replaced by `req` (its
 * environment marker after ';' kept with `keep_marker`), or `req` added after the last
 * Requires-Dist (else at the end of the headers).
 */
static void
pin_requirement(const char *text, const char *name, const char *req, int keep_marker,
		struct buf *out)
{
	const char *body = strstr(text, "\n\n"), *p = text;
	const char *end = body ? body + 1 : text + strlen(text);
	size_t nl = strlen(name), insert_at = 0;
	int done = 0;

	while (p < end) {
		size_t n = strcspn(p, "\n");
		const char *v = p + 14;

		if (n > 14 && !strncasecmp(p, "Requires-Dist:", 14)) {
			v += strspn(v, " \t");
			if (!strncasecmp(v, name, nl) && !isalnum((unsigned char)v[nl]) && v[nl] != '-' &&
			    v[nl] != '_' && v[nl] != '.' && !done) {
				const char *semi = memchr(v, ';', n - (size_t)(v - p));

				buf_addf(out, "Requires-Dist: %s", req);
				if (semi && keep_marker)
					buf_addf(out, " %.*s", (int)(p + n - semi), semi);
				buf_addch(out, '\n');
				done = 1;
			} else {
				buf_add(out, p, n);
				buf_addch(out, '\n');
			}
			insert_at = out->len;
		} else {
			buf_add(out, p, n);
			buf_addch(out, '\n');
		}
		p += n + (p[n] == '\n');
	}
	if (!done) {
		struct buf rest = BUF_INIT;
		size_t at = insert_at ? insert_at : out->len;

		buf_addstr(&rest, out->len > at ? out->s + at : "");
		buf_setlen(out, at);
		buf_addf(out, "Requires-Dist: %s\n", req);
		buf_add(out, rest.s ? rest.s : "", rest.len);
		buf_release(&rest);
	}
	if (body)
		buf_addstr(out, body + 1);
}

static void
sha256_record(const struct buf *data, struct buf *out)
{
	struct digest d;
	uint8_t md[DIGEST_MAX];

	digest_init(&d, "sha256");
	digest_update(&d, data->s, data->len);
	digest_final(&d, md);
	buf_addstr(out, "sha256=");
	base64url_nopad(out, md, 32);
}

/* A RECORD row written anew: the member's new hash ("sha256=...") and size. */
struct row_override {
	const char *name;
	struct buf hash;
	uint64_t size;
	int seen;
};

/*
 * RECORD with the overridden rows following their new bytes (in place),
 * the other rows as they were, and overrides the old RECORD lacks added
 * before RECORD's own row (else at the end).
 */
static int
rewrite_record(const char *text, size_t len, const char *record_name, struct row_override *ov,
	       size_t nov, struct buf *out, struct buf *why)
{
	struct record_row *rows;
	size_t n, added = 0;

	if (record_parse(text, len, &rows, &n, why) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nov && rows[i].nfields; k++)
			ov[k].seen |= !strcmp(rows[i].fields[0], ov[k].name);
	for (size_t i = 0; i <= n; i++) {
		const struct record_row *r = i < n ? &rows[i] : NULL;
		struct row_override *o = NULL;

		if (r && !r->nfields)
			continue;
		if (!added && (!r || !strcmp(r->fields[0], record_name))) {
			for (size_t k = 0; k < nov; k++) {
				if (ov[k].seen)
					continue;
				csv_field(out, ov[k].name);
				buf_addf(out, ",%s,%llu\n", ov[k].hash.s, (unsigned long long)ov[k].size);
			}
			added = 1;
		}
		if (!r)
			break;
		for (size_t k = 0; k < nov && !o; k++)
			if (!strcmp(r->fields[0], ov[k].name))
				o = &ov[k];
		csv_field(out, r->fields[0]);
		if (o) {
			buf_addf(out, ",%s,%llu", o->hash.s, (unsigned long long)o->size);
		} else {
			for (size_t f = 1; f < r->nfields && f < 3; f++) {
				buf_addch(out, ',');
				csv_field(out, r->fields[f] ? r->fields[f] : "");
			}
		}
		buf_addch(out, '\n');
	}
	record_free(rows, n);
	return 0;
}

struct writer {
	int fd;
	uint64_t off;
	struct buf cd;
	size_t count;
	unsigned time, date;
};

static int
emit(struct writer *w, const void *data, size_t n)
{
	if (write_all(w->fd, data, n) < 0)
		return -1;
	w->off += n;
	return 0;
}

/* One member: local header, data (already compressed as `method` says), its central record. */
static int
add_member(struct writer *w, const char *name, unsigned method, uint32_t crc, uint64_t csize,
	   uint64_t usize, unsigned mode, const void *data)
{
	struct buf h = BUF_INIT, z64 = BUF_INIT;
	size_t nlen = strlen(name);
	int big = csize >= U32_MAX_ || usize >= U32_MAX_, rc;
	unsigned need = big || w->off >= U32_MAX_ ? 45 : 20;

	if (big) {
		put16(&z64, 0x0001);
		put16(&z64, 16);
		put64(&z64, usize);
		put64(&z64, csize);
	}
	put32(&h, 0x04034b50u);
	put16(&h, need);
	put16(&h, 1u << 11);
	put16(&h, method);
	put16(&h, w->time);
	put16(&h, w->date);
	put32(&h, crc);
	put32(&h, big ? (uint32_t)U32_MAX_ : (uint32_t)csize);
	put32(&h, big ? (uint32_t)U32_MAX_ : (uint32_t)usize);
	put16(&h, (unsigned)nlen);
	put16(&h, (unsigned)z64.len);
	buf_add(&h, name, nlen);
	buf_add(&h, z64.s, z64.len);

	/* The central record: the same, plus the offset when it does not fit. */
	buf_reset(&z64);
	if (big || w->off >= U32_MAX_) {
		put16(&z64, 0x0001);
		put16(&z64, (unsigned)((big ? 16 : 0) + (w->off >= U32_MAX_ ? 8 : 0)));
		if (big) {
			put64(&z64, usize);
			put64(&z64, csize);
		}
		if (w->off >= U32_MAX_)
			put64(&z64, w->off);
	}
	put32(&w->cd, 0x02014b50u);
	put16(&w->cd, 3u << 8 | need);
	put16(&w->cd, need);
	put16(&w->cd, 1u << 11);
	put16(&w->cd, method);
	put16(&w->cd, w->time);
	put16(&w->cd, w->date);
	put32(&w->cd, crc);
	put32(&w->cd, big ? (uint32_t)U32_MAX_ : (uint32_t)csize);
	put32(&w->cd, big ? (uint32_t)U32_MAX_ : (uint32_t)usize);
	put16(&w->cd, (unsigned)nlen);
	put16(&w->cd, (unsigned)z64.len);
	put16(&w->cd, 0);
	put16(&w->cd, 0);
	put16(&w->cd, 0);
	put32(&w->cd, (uint32_t)mode << 16);
	put32(&w->cd, w->off >= U32_MAX_ ? (uint32_t)U32_MAX_ : (uint32_t)w->off);
	buf_add(&w->cd, name, nlen);
	buf_add(&w->cd, z64.s, z64.len);
	w->count++;

	rc = emit(w, h.s, h.len) < 0 || emit(w, data, (size_t)csize) < 0 ? -1 : 0;
	buf_release(&h);
	buf_release(&z64);
	return rc;
}

static int
finish(struct writer *w)
{
	uint64_t cd_off = w->off, cd_size = w->cd.len;
	struct buf end = BUF_INIT;
	int z64 = w->count >= 0xFFFF || cd_off >= U32_MAX_ || cd_size >= U32_MAX_, rc;

	if (emit(w, w->cd.s, w->cd.len) < 0)
		return -1;
	if (z64) {
		uint64_t at = w->off;

		put32(&end, 0x06064b50u);
		put64(&end, 44);
		put16(&end, 3u << 8 | 45);
		put16(&end, 45);
		put32(&end, 0);
		put32(&end, 0);
		put64(&end, w->count);
		put64(&end, w->count);
		put64(&end, cd_size);
		put64(&end, cd_off);
		put32(&end, 0x07064b50u);
		put32(&end, 0);
		put64(&end, at);
		put32(&end, 1);
	}
	put32(&end, 0x06054b50u);
	put16(&end, 0);
	put16(&end, 0);
	put16(&end, z64 ? 0xFFFF : (unsigned)w->count);
	put16(&end, z64 ? 0xFFFF : (unsigned)w->count);
	put32(&end, z64 ? (uint32_t)U32_MAX_ : (uint32_t)cd_size);
	put32(&end, z64 ? (uint32_t)U32_MAX_ : (uint32_t)cd_off);
	put16(&end, 0);
	rc = emit(w, end.s, end.len);
	buf_release(&end);
	return rc;
}

/* A member of the new wheel: from the old one (e) or from a file (f). */
struct slot {
	const char *name;
	const struct zip_entry *e;
	const struct repack_file *f;
};

static int
by_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	int rx = member_rank(x->name), ry = member_rank(y->name);

	return rx != ry ? rx - ry : strcmp(x->name, y->name);
}

/* A file deflated (raw, level 6) into `out`, with its CRC-32, size and RECORD hash. */
static int
deflate_file(const char *path, struct buf *out, uint32_t *crc, uint64_t *size, struct buf *hash,
	     struct buf *why)
{
	unsigned char in[1 << 16], chunk[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), rc = -1, flush = Z_NO_FLUSH;
	struct digest d;
	uint8_t md[DIGEST_MAX];
	z_stream zs;
	struct stat st;

	memset(&zs, 0, sizeof(zs));
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		buf_addf(why, "cannot read '%s' as a regular file", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		close(fd);
		buf_addstr(why, "cannot start deflate");
		return -1;
	}
	digest_init(&d, "sha256");
	*crc = 0;
	*size = 0;
	do {
		ssize_t n = read(fd, in, sizeof(in));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			buf_addf(why, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		*crc = (uint32_t)crc32(*crc, in, (uInt)n);
		*size += (uint64_t)n;
		digest_update(&d, in, (size_t)n);
		flush = n ? Z_NO_FLUSH : Z_FINISH;
		zs.next_in = in;
		zs.avail_in = (uInt)n;
		do {
			zs.next_out = chunk;
			zs.avail_out = sizeof(chunk);
			deflate(&zs, flush);
			buf_add(out, chunk, sizeof(chunk) - zs.avail_out);
		} while (zs.avail_out == 0);
	} while (flush != Z_FINISH);
	digest_final(&d, md);
	buf_addstr(hash, "sha256=");
	base64url_nopad(hash, md, 32);
	rc = 0;
out:
	if (rc < 0)
		digest_abort(&d);
	deflateEnd(&zs);
	close(fd);
	return rc;
}

/* The old members and the files, each name once, in the order the wheel is written. */
static int
plan_slots(const struct zip *z, const struct repack_opts *o, struct slot **out, size_t *n,
	   struct buf *why)
{
	struct slot *s = xcalloc(z->n + o->nfiles + 1, sizeof(*s));
	size_t k = 0;

	for (size_t i = 0; i < o->nfiles; i++) {
		const char *m = o->files[i].member;

		if (!*m || m[0] == '/' || strstr(m, "..") || member_rank(m) != 0 || ends_with(m, "/")) {
			buf_addf(why, "'%s' cannot be added to a wheel (a package file's path)", m);
			free(s);
			return -1;
		}
	}
	for (size_t i = 0; i < z->n; i++) {
		s[k].name = z->entries[i].name;
		s[k].e = &z->entries[i];
		for (size_t j = 0; j < o->nfiles && !s[k].f; j++)
			if (!strcmp(o->files[j].member, s[k].name))
				s[k].f = &o->files[j];
		k++;
	}
	for (size_t j = 0; j < o->nfiles; j++) {
		int found = 0;

		for (size_t i = 0; i < k && !found; i++)
			found = s[i].f == &o->files[j];
		if (!found) {
			s[k].name = o->files[j].member;
			s[k++].f = &o->files[j];
		}
	}
	qsort(s, k, sizeof(*s), by_slot);
	*out = s;
	*n = k;
	return 0;
}

/* A member that comes from a file, deflated; its RECORD override follows WHEEL's and METADATA's. */
struct file_data {
	struct buf z;
	uint32_t crc;
};

/* One repack: the old wheel, its special members made anew, the new members' order. */
struct repack {
	const struct repack_opts *o;
	struct zip z;
	const struct zip_entry *wheel_e, *record_e, *meta_e;
	struct buf wheel, meta, record;
	struct slot *slots;
	size_t nslots;
	struct row_override *ov;
	size_t nov;
	struct file_data *fd;
};

/* WHEEL, RECORD and (to pin) METADATA found; a member compressed another way refused. */
static int
find_special(struct repack *r, const char *in, struct buf *why)
{
	for (size_t i = 0; i < r->z.n; i++) {
		const struct zip_entry *e = &r->z.entries[i];

		if (member_rank(e->name) == 2)
			r->record_e = e;
		else if (member_rank(e->name) == 1 && ends_with(e->name, "/WHEEL"))
			r->wheel_e = e;
		else if (member_rank(e->name) == 1 && ends_with(e->name, "/METADATA") &&
			 (r->o->requires || (r->o->add_requires && r->o->add_requires->n)))
			r->meta_e = e;
		if (e->method != 0 && e->method != 8) {
			buf_addf(why, "'%s' uses compression method %u (only stored and deflate)",
				 e->name, e->method);
			return -1;
		}
	}
	if (!r->wheel_e || !r->record_e) {
		buf_addf(why, "'%s' has no .dist-info/WHEEL or RECORD", in);
		return -1;
	}
	return 0;
}

/* The new WHEEL, METADATA, the files deflated, and RECORD following all of them. */
static int
make_members(struct repack *r, struct buf *why)
{
	const struct repack_opts *o = r->o;
	struct buf text = BUF_INIT;
	int rc = -1;

	if (zip_read_all(&r->z, r->wheel_e, &text, 1 << 20, why) < 0)
		goto out;
	retag_wheel_file(text.s, o->platform, &r->wheel);
	if (r->meta_e) {
		buf_reset(&text);
		if (zip_read_all(&r->z, r->meta_e, &text, 16 << 20, why) < 0)
			goto out;
		if (o->requires)
			pin_requirement(text.s, o->requires_name, o->requires, 1, &r->meta);
		else
			buf_addstr(&r->meta, text.s);
		for (size_t i = 0; o->add_requires && i < o->add_requires->n; i++) {
			struct buf name = BUF_INIT;

			buf_reset(&text);
			buf_add(&text, r->meta.s, r->meta.len);
			buf_reset(&r->meta);
			requirement_name(o->add_requires->v[i], &name, NULL);
			pin_requirement(text.s, name.s, o->add_requires->v[i], 0, &r->meta);
			buf_release(&name);
		}
	}
	r->ov = xcalloc(o->nfiles + 2, sizeof(*r->ov));
	r->fd = xcalloc(o->nfiles + 1, sizeof(*r->fd));
	r->ov[r->nov].name = r->wheel_e->name;
	sha256_record(&r->wheel, &r->ov[r->nov].hash);
	r->ov[r->nov++].size = r->wheel.len;
	if (r->meta_e) {
		r->ov[r->nov].name = r->meta_e->name;
		sha256_record(&r->meta, &r->ov[r->nov].hash);
		r->ov[r->nov++].size = r->meta.len;
	}
	for (size_t j = 0; j < o->nfiles; j++) {
		struct row_override *v = &r->ov[r->nov++];

		v->name = o->files[j].member;
		if (deflate_file(o->files[j].path, &r->fd[j].z, &r->fd[j].crc, &v->size, &v->hash,
				 why) < 0)
			goto out;
	}
	buf_reset(&text);
	if (zip_read_all(&r->z, r->record_e, &text, (uint64_t)1 << 30, why) < 0 ||
	    rewrite_record(text.s, text.len, r->record_e->name, r->ov, r->nov, &r->record, why) < 0)
		goto out;
	rc = 0;
out:
	buf_release(&text);
	return rc;
}

/* Every member, in the slots' order, into the open writer. */
static int
write_members(struct repack *r, struct writer *w)
{
	const struct repack_opts *o = r->o;

	for (size_t i = 0; i < r->nslots; i++) {
		const struct zip_entry *e = r->slots[i].e;
		const struct repack_file *f = r->slots[i].f;
		int rc;

		if (f) {
			size_t j = (size_t)(f - o->files);

			rc = add_member(w, r->slots[i].name, 8, r->fd[j].crc, r->fd[j].z.len,
					r->ov[r->nov - o->nfiles + j].size,
					f->mode & 0111 ? 0100755 : 0100644, r->fd[j].z.s);
		} else if (e == r->wheel_e || e == r->record_e || e == r->meta_e) {
			const struct buf *d = e == r->wheel_e ? &r->wheel :
					      e == r->meta_e ? &r->meta : &r->record;

			rc = add_member(w, e->name, 0, (uint32_t)crc32(0, (const Bytef *)d->s,
					(uInt)d->len), d->len, d->len, 0100644, d->s);
		} else {
			unsigned mode = ends_with(e->name, "/") ? 040755 :
					(e->ext_attr >> 16) & 0111 ? 0100755 : 0100644;

			rc = add_member(w, e->name, e->method, e->crc, e->csize, e->usize, mode,
					r->z.data + e->data_off);
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static void
repack_release(struct repack *r)
{
	zip_close(&r->z);
	free(r->slots);
	for (size_t k = 0; r->ov && k < r->nov; k++)
		buf_release(&r->ov[k].hash);
	for (size_t j = 0; r->fd && j < r->o->nfiles; j++)
		buf_release(&r->fd[j].z);
	free(r->ov);
	free(r->fd);
	buf_release(&r->wheel);
	buf_release(&r->meta);
	buf_release(&r->record);
}

int
wheel_repack(const char *in, const char *dir, const struct repack_opts *o, struct buf *out,
	     struct buf *why)
{
	struct repack r = { .o = o, .wheel = BUF_INIT, .meta = BUF_INIT, .record = BUF_INIT };
	struct writer w = { .fd = -1, .cd = BUF_INIT };
	struct buf name = BUF_INIT, tmp = BUF_INIT;
	const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
	int rc = -1;

	if (zip_open(&r.z, in) < 0) {
		buf_addf(why, "cannot read '%s' as a zip", in);
		return -1;
	}
	if (o->platform) {
		if (wheel_name_with_platform(base, o->platform, &name) < 0) {
			buf_addf(why, "'%s' is not a wheel file name", base);
			goto out;
		}
	} else {
		buf_addstr(&name, base);
	}
	if (find_special(&r, in, why) < 0 || plan_slots(&r.z, o, &r.slots, &r.nslots, why) < 0 ||
	    make_members(&r, why) < 0)
		goto out;
	/* Created new under a fresh name: a file or link planted there is refused, never written. */
	buf_addf(&tmp, "%s/%s.tmp.%ld.", dir, name.s, (long)getpid());
	random_token(&tmp);
	w.fd = open(tmp.s, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (w.fd < 0) {
		buf_addf(why, "cannot create '%s': %s", tmp.s,
			 errno == EEXIST || errno == ELOOP ? "something is already there (bwbuild "
			 "never writes through a file or link it did not make); remove it" :
			 strerror(errno));
		buf_reset(&tmp);
		goto out;
	}
	dos_time(o->epoch, &w.time, &w.date);
	if (write_members(&r, &w) < 0 || finish(&w) < 0 || fsync(w.fd) < 0) {
		buf_addf(why, "cannot write '%s': %s", tmp.s, strerror(errno));
		goto out;
	}
	close(w.fd);
	w.fd = -1;
	buf_reset(out);
	buf_addf(out, "%s/%s", dir, name.s);
	if (rename(tmp.s, out->s) < 0) {
		buf_addf(why, "cannot rename '%s' to '%s': %s", tmp.s, out->s, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (w.fd >= 0)
		close(w.fd);
	if (rc < 0 && tmp.len)
		unlink(tmp.s);
	repack_release(&r);
	buf_release(&w.cd);
	buf_release(&name);
	buf_release(&tmp);
	return rc;
}
