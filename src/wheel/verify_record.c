/*
 * Wheel verification, RECORD against the members: each row's fields, hash
 * (algorithm and urlsafe base64) and size, duplicates, rows for members
 * that are not there or paths that climb out, the signature files; each
 * hashed row becomes a job for verify_members.c, and the jobs' results
 * are merged back into the report in RECORD order. The sorted views keep
 * lookups and duplicate checks O(n log n) on crafted archives.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/hash.h"
#include "formats/elfscan.h"
#include "formats/record.h"
#include "core/strvec.h"
#include "core/util.h"
#include "wheel/verify.h"
#include "wheel/verify_parts.h"
#include "formats/zip.h"

int
verify_is_dist_info_file(const char *name, const char *dist_info, const char *file)
{
	size_t n = strlen(dist_info);

	return !strncmp(name, dist_info, n) && name[n] == '/' && !strcmp(name + n + 1, file);
}

/*
 * A RECORD field quoted in a message: its first ROW_SHOWN bytes (a row
 * may be 100 KB, and was printed whole, into the manifest too); one of a
 * few buffers, for the arguments of one message.
 */
#define ROW_SHOWN 200

static const char *
row_shown(const char *s)
{
	static struct buf ring[3] = { BUF_INIT, BUF_INIT, BUF_INIT };
	static unsigned next;

	return text_cut(&ring[next++ % ARRAY_SIZE(ring)], s, ROW_SHOWN);
}

static int
check_hash_field(struct wheel_report *r, const struct record_row *row, uint8_t *want,
		 size_t *want_len, char *algo, size_t algo_cap)
{
	const char *h = row->fields[1], *eq = strchr(h, '=');
	struct digest d;
	size_t alen, i, dlen, expect_len;

	if (!eq) {
		verify_error(r, "RECORD line %d: hash '%s' of '%s' is not algo=digest (hashes)", row->line,
			  row_shown(h), row_shown(row->fields[0]));
		return -1;
	}
	alen = (size_t)(eq - h);
	if (alen >= algo_cap || (memcpy(algo, h, alen), algo[alen] = '\0', digest_init(&d, algo) < 0)) {
		verify_error(r, "RECORD line %d: '%s' uses hash algorithm '%.*s'; only sha256, sha384 and "
			  "sha512 are allowed (hashes)", row->line, row_shown(row->fields[0]), (int)alen, h);
		return -1;
	}
	digest_abort(&d);
	dlen = strlen(eq + 1);
	expect_len = (d.size * 4 + 2) / 3;
	for (i = 0; i < dlen; i++) {
		char c = eq[1 + i];

		if (!isalnum((unsigned char)c) && c != '-' && c != '_')
			break;
	}
	if (i != dlen || dlen != expect_len) {
		verify_error(r, "RECORD line %d: digest of '%s' is not urlsafe base64 of %zu bytes without "
			  "padding (hashes)", row->line, row_shown(row->fields[0]), d.size);
		return -1;
	}
	{
		/* Decode to compare bytes, not strings: both are canonical anyway. */
		static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
		uint32_t acc = 0;
		int bits = 0;
		size_t o = 0;

		for (i = 0; i < dlen; i++) {
			acc = acc << 6 | (uint32_t)(strchr(tbl, eq[1 + i]) - tbl);
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				if (o < DIGEST_MAX)
					want[o++] = (uint8_t)(acc >> bits);
			}
		}
		*want_len = o;
	}
	return 0;
}

/* ---- sorted views, so lookups and duplicate checks stay O(n log n) ---- */

static int
by_entry_name(const void *a, const void *b, void *ctx)
{
	const struct zip *z = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(z->entries[x].name, z->entries[y].name);

	return c ? c : x < y ? -1 : x > y;
}

static int
by_row_path(const void *a, const void *b, void *ctx)
{
	const struct record_row *rows = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(rows[x].fields[0], rows[y].fields[0]);

	return c ? c : x < y ? -1 : x > y;
}

/* idx: 0..n-1 sorted with cmp; dup[i] set for every item equal to an earlier one. */
static size_t *
sorted_index(size_t n, int (*cmp)(const void *, const void *, void *), void *ctx,
	     int (*same)(size_t, size_t, void *), char *dup)
{
	size_t *idx = xcalloc(n ? n : 1, sizeof(*idx)), i;

	for (i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp, ctx);
	for (i = 1; i < n; i++)
		if (same(idx[i - 1], idx[i], ctx))
			dup[idx[i]] = 1;
	return idx;
}

static int
same_entry_name(size_t a, size_t b, void *ctx)
{
	const struct zip *z = ctx;

	return !strcmp(z->entries[a].name, z->entries[b].name);
}

static int
same_row_path(size_t a, size_t b, void *ctx)
{
	const struct record_row *rows = ctx;

	return !strcmp(rows[a].fields[0], rows[b].fields[0]);
}

/* The first central-directory entry named `name` (names with a NUL never match). */
static const struct zip_entry *
index_find(const struct zip *z, const size_t *idx, const char *name)
{
	size_t lo = 0, hi = z->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(z->entries[idx[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < z->n && !strcmp(z->entries[idx[lo]].name, name); lo++)
		if (strlen(name) == z->entries[idx[lo]].name_len)
			return &z->entries[idx[lo]];
	return NULL;
}

/* A hashed row's size field; -1 after adding the error. */
static int
row_size(struct wheel_report *r, const struct record_row *row, unsigned long long *size)
{
	char *end;

	if (!*row->fields[1] || !*row->fields[2]) {
		verify_error(r, "RECORD line %d: '%s' has an empty hash or size (hashes)", row->line,
			  row_shown(row->fields[0]));
		return -1;
	}
	errno = 0;
	*size = strtoull(row->fields[2], &end, 10);
	if (*end || !isdigit((unsigned char)*row->fields[2]) || errno == ERANGE) {
		verify_error(r, "RECORD line %d: size '%s' of '%s' is not a number (hashes)",
			  row->line, row_shown(row->fields[2]), row_shown(row->fields[0]));
		return -1;
	}
	return 0;
}

/*
 * A '..' after the leading ones (which name console scripts beside
 * site-packages, never opened): "torch/../../../etc/hostname".
 */
static int
climbs_out(const char *path)
{
	const char *p = path;

	while (starts_with(p, "../"))
		p += 3;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* The job of a row: a zip member `e`, or the file under `root` of an installed package. */
static void
job_init(struct job *jb, const struct record_row *row, const struct zip_entry *e,
	 const char *root)
{
	jb->name = row->fields[0];
	jb->e = e;
	jb->order_size = e ? e->usize : 0;
	if (root) {
		struct stat st;
		struct buf f = BUF_INIT;

		buf_addf(&f, "%s/%s", root, row->fields[0]);
		jb->file = buf_detach(&f);
		if (!stat(jb->file, &st))
			jb->order_size = (uint64_t)st.st_size;
	}
	jb->row = row;
	strvec_init(&jb->errors);
	jb->keep_text = ends_with(jb->name, "/include/caffe2/core/macros.h") ||
			(ends_with(jb->name, "/version.py") &&
			 strchr(jb->name, '/') == strrchr(jb->name, '/'));
}

/*
 * Check every RECORD row and turn each hashed one into a job: a zip member
 * (z) or, for an installed package, a file under `root`.
 */
size_t
verify_plan_jobs(struct wheel_report *r, const struct record_row *rows, size_t nrows,
	  const char *record_name, const char *dist_info, const struct zip *z, const size_t *names,
	  char *seen_rows, const char *root, struct job *jobs)
{
	char *dup_rows = xcalloc(nrows ? nrows : 1, 1);
	size_t i, njobs = 0;

	/* record_parse gives every row at least its path field. */
	free(sorted_index(nrows, by_row_path, (void *)rows, same_row_path, dup_rows));
	for (i = 0; i < nrows; i++) {
		const struct record_row *row = &rows[i];
		const struct zip_entry *e;
		struct job *jb;
		int is_record, is_sig;

		if (row->nfields != 3) {
			verify_error(r, "RECORD line %d has %zu fields (a row is path,hash,size) (RECORD)",
				  row->line, row->nfields);
			continue;
		}
		if (dup_rows[i]) {
			/* Checked once, at its first row: a repeat is refused, not read again. */
			verify_error(r, "RECORD line %d lists '%s' again (RECORD)", row->line,
				  row_shown(row->fields[0]));
			continue;
		}
		is_record = !strcmp(row->fields[0], record_name);
		is_sig = verify_is_dist_info_file(row->fields[0], dist_info, "RECORD.jws") ||
			 verify_is_dist_info_file(row->fields[0], dist_info, "RECORD.p7s");
		if (is_sig) {
			verify_error(r, "RECORD lists the signature file '%s' (RECORD)", row_shown(row->fields[0]));
			continue;
		}
		if (root && (row->fields[0][0] == '/' || starts_with(row->fields[0], "../"))) {
			/* console scripts installed outside site-packages: never opened */
			continue;
		}
		if (root && climbs_out(row->fields[0])) {
			verify_error(r, "RECORD line %d: '%s' leads out of the package through '..'; "
				  "it is not read (RECORD)", row->line, row_shown(row->fields[0]));
			continue;
		}
		e = z ? index_find(z, names, row->fields[0]) : NULL;
		if (z && !e) {
			verify_error(r, "RECORD line %d lists '%s', which is not in the archive (RECORD)",
				  row->line, row_shown(row->fields[0]));
			continue;
		}
		if (e)
			seen_rows[e - z->entries] = 1;
		if (is_record) {
			if (*row->fields[1] || *row->fields[2])
				verify_error(r, "RECORD's own row has a hash or size (RECORD)");
			continue;
		}
		if (root && !*row->fields[1] && !*row->fields[2])
			continue; /* written after installation (.pyc): PEP 376 lists them bare */
		jb = &jobs[njobs];
		if (row_size(r, row, &jb->size) < 0 ||
		    check_hash_field(r, row, jb->want, &jb->want_len, jb->algo,
				     sizeof(jb->algo)) < 0)
			continue;
		njobs++;
		job_init(jb, row, e, root);
	}

	free(dup_rows);
	return njobs;
}

/* Collect the jobs' results in RECORD order, so reports do not depend on timing. */
void
verify_merge_jobs(struct wheel_report *r, struct job *jobs, size_t njobs)
{
	size_t i, j;

	for (i = 0; i < njobs; i++) {
		struct job *jb = &jobs[i];

		free(jb->file);
		for (j = 0; j < jb->errors.n; j++)
			verify_error(r, "%s", jb->errors.v[j]);
		strvec_clear(&jb->errors);
		r->bytes += jb->got;
		if (jb->lib) {
			r->libs = xreallocarray(r->libs, r->nlibs + 1, sizeof(*r->libs));
			r->libs[r->nlibs++] = *jb->lib;
			free(jb->lib);
		} else if (jb->text && ends_with(jb->name, "macros.h")) {
			free(r->macros_h);
			free(r->macros_h_path);
			r->macros_h = jb->text;
			r->macros_h_path = xstrdup(jb->name);
		} else if (jb->text) {
			free(r->version_py);
			free(r->version_py_path);
			r->version_py = jb->text;
			r->version_py_path = xstrdup(jb->name);
		}
	}
	for (i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		for (j = 0; j < l->sass.n; j++)
			strset_add(&r->sass, l->sass.v[j]);
		for (j = 0; j < l->ptx.n; j++)
			strset_add(&r->ptx, l->ptx.v[j]);
	}
}

size_t *
verify_names_index(const struct zip *z, char *dup)
{
	return sorted_index(z->n, by_entry_name, (void *)z, same_entry_name, dup);
}
