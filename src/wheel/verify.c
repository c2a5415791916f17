/*
 * Wheel verification, the walk: a wheel's file name and tags, its member
 * names, its one .dist-info with WHEEL and RECORD, and its own sha256; an
 * installed package's .dist-info beside it. Each hands the RECORD rows to
 * verify_record.c, the members to verify_members.c (every core) and the
 * libraries found to verify_policy.c; this file puts the report together.
 */
#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/hash.h"
#include "formats/record.h"
#include "core/strvec.h"
#include "core/util.h"
#include "wheel/verify.h"
#include "wheel/verify_parts.h"
#include "formats/zip.h"

/* A wheel's RECORD rows: one per member, and this many more to name as missing. */
#define RECORD_SPARE_ROWS 1024
/* An installed package's (torch has some 15,000). */
#define RECORD_INSTALLED_ROWS 1000000

static uint64_t
record_most(size_t members)
{
	uint64_t most = ((uint64_t)members + RECORD_SPARE_ROWS) * 4096;

	return most < (256ULL << 20) ? most : 256ULL << 20;
}

void
verify_error(struct wheel_report *r, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	/* The rule is the format's last words: counted without formatting what is not listed. */
	r->mendable += ends_with(fmt, " (needed)") || ends_with(fmt, " (runpath)") ||
		       ends_with(fmt, " (cuda libs)");
	if (r->errors.n >= VERIFY_ERRORS_LISTED) {
		r->errors_more++;
		return;
	}
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	strvec_push_nodup(&r->errors, buf_detach(&b));
}

void
verify_summarise(struct wheel_report *r)
{
	if (!r->errors_more)
		return;
	if (r->summarised) {
		free(r->errors.v[--r->errors.n]);
		r->errors.v[r->errors.n] = NULL;
	}
	strvec_pushf(&r->errors, "... and %zu more problems (the first %d are listed)",
		     r->errors_more, VERIFY_ERRORS_LISTED);
	r->summarised = 1;
}

/* ---- file name and tags ---- */

static void
normalize_name(struct buf *out, const char *s, size_t n)
{
	size_t i;
	int run = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '-' || s[i] == '_' || s[i] == '.') {
			if (!run)
				buf_addch(out, '_');
			run = 1;
			continue;
		}
		run = 0;
		buf_addch(out, tolower((unsigned char)s[i]));
	}
}

static void
split_dots(struct strvec *out, const char *s)
{
	char *copy = xstrdup(s), *save = NULL, *t;

	for (t = strtok_r(copy, ".", &save); t; t = strtok_r(NULL, ".", &save))
		strvec_push(out, t);
	free(copy);
}

static int
parse_filename(struct wheel_report *r)
{
	struct strvec parts = STRVEC_INIT, py = STRVEC_INIT, abi = STRVEC_INIT, plat = STRVEC_INIT;
	char *stem, *save = NULL, *t;
	size_t i, j, k, n;
	int ret = -1;

	if (!ends_with(r->filename, ".whl")) {
		verify_error(r, "file name '%s' does not end in .whl", r->filename);
		return -1;
	}
	stem = xstrndup(r->filename, strlen(r->filename) - 4);
	for (t = strtok_r(stem, "-", &save); t; t = strtok_r(NULL, "-", &save))
		strvec_push(&parts, t);
	free(stem);
	n = parts.n;
	if (n != 5 && n != 6) {
		verify_error(r, "file name '%s' has %zu '-'-separated fields (a wheel has 5 or 6: "
			  "name-version[-build]-python-abi-platform)", r->filename, n);
		goto out;
	}
	r->name = xstrdup(parts.v[0]);
	r->version = xstrdup(parts.v[1]);
	if (n == 6) {
		if (!isdigit((unsigned char)parts.v[2][0]))
			verify_error(r, "build tag '%s' in the file name does not start with a digit",
				  parts.v[2]);
		r->build_tag = xstrdup(parts.v[2]);
	}
	split_dots(&py, parts.v[n - 3]);
	split_dots(&abi, parts.v[n - 2]);
	split_dots(&plat, parts.v[n - 1]);
	for (i = 0; i < py.n; i++)
		for (j = 0; j < abi.n; j++)
			for (k = 0; k < plat.n; k++)
				strvec_pushf(&r->tags, "%s-%s-%s", py.v[i], abi.v[j], plat.v[k]);
	ret = 0;
out:
	strvec_clear(&parts);
	strvec_clear(&py);
	strvec_clear(&abi);
	strvec_clear(&plat);
	return ret;
}

/* ---- member names ---- */

static void
check_name(struct wheel_report *r, const struct zip_entry *e)
{
	const char *s = e->name;
	size_t i, n = e->name_len;
	const char *comp = s;
	unsigned cp;

	if (strlen(s) != n) {
		verify_error(r, "member name '%s' contains a NUL byte (names)", s);
		return;
	}
	if (s[0] == '/')
		verify_error(r, "'%s': absolute member name (names)", s);
	if (n >= 2 && isalpha((unsigned char)s[0]) && s[1] == ':')
		verify_error(r, "'%s': member name starts with a drive letter (names)", s);
	for (i = 0; i < n; i++) {
		if (s[i] == '\\') {
			verify_error(r, "'%s': backslash in member name (names)", s);
			break;
		}
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			verify_error(r, "member name with a control character: '%s' (names)", s);
			break;
		}
		/* Shown escaped, but still a second name that looks like the first (F4). */
		if (diag_invisible(s + i, n - i, &cp)) {
			verify_error(r, "member name with an invisible or bidi character U+%04X: '%s' "
				     "(names)", cp, s);
			break;
		}
	}
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '/')
			continue;
		if (i == n && comp == s + n && n && s[n - 1] == '/')
			break; /* a directory entry "a/b/" */
		if (s + i == comp || (s + i - comp == 1 && comp[0] == '.') ||
		    (s + i - comp == 2 && comp[0] == '.' && comp[1] == '.')) {
			verify_error(r, "'%s': empty, '.' or '..' path component (names)", s);
			break;
		}
		comp = s + i + 1;
	}
	if (!(e->flags & (1u << 11))) {
		for (i = 0; i < n; i++) {
			if ((unsigned char)s[i] >= 0x80) {
				verify_error(r, "'%s': non-ASCII name without the UTF-8 flag (names)", s);
				break;
			}
		}
	}
	if (e->flags & 1)
		verify_error(r, "'%s' is encrypted (zip hygiene)", s);
	if (e->method != 0 && e->method != 8)
		verify_error(r, "'%s' uses compression method %u; only stored (0) and deflate (8) are "
			  "allowed (zip hygiene)", s, e->method);
	if ((e->made_by >> 8) == 3 && ((e->ext_attr >> 16) & 0170000) == 0120000)
		verify_error(r, "'%s' is a symbolic link (zip hygiene)", s);
	/* An installer makes a directory of it and drops the bytes, which repair would not see. */
	if (n && s[n - 1] == '/' && e->usize)
		verify_error(r, "'%s' is a directory entry holding %llu bytes (zip hygiene)", s,
			     (unsigned long long)e->usize);
	if (e->local_name_differs)
		verify_error(r, "'%s': the local header names a different file (zip hygiene)", s);
}

/* WHEEL against the file name: Wheel-Version 1.x, the same tags and build tag. */
static void
check_wheel_file(struct wheel_report *r, const char *text, const char *member)
{
	struct strvec tags = STRVEC_INIT;
	struct wheel_file wf;
	int have_version = 0, purelib = -1;
	size_t i;

	wheel_file_parse(&wf, text);
	for (i = 0; i < wf.n; i++) {
		const char *key = wf.fields[i].key, *val = wf.fields[i].value;

		if (!strcmp(key, "Wheel-Version")) {
			have_version = 1;
			if (atoi(val) != 1)
				verify_error(r, "%s: Wheel-Version %s is not 1.x (WHEEL)", member,
					  val);
		} else if (!strcmp(key, "Root-Is-Purelib")) {
			purelib = !strcmp(val, "true");
		} else if (!strcmp(key, "Tag")) {
			strvec_push(&tags, val);
		} else if (!strcmp(key, "Build")) {
			if (!r->build_tag || strcmp(r->build_tag, val))
				verify_error(r, "%s: Build '%s' does not match the file name (WHEEL)",
					  member, val);
		}
	}
	wheel_file_release(&wf);
	if (!have_version)
		verify_error(r, "%s has no Wheel-Version (WHEEL)", member);
	for (i = 0; i < tags.n; i++)
		if (!strset_has(&r->tags, tags.v[i]))
			verify_error(r, "%s: Tag '%s' is not in the file name's tags (WHEEL)", member, tags.v[i]);
	for (i = 0; i < r->tags.n; i++) {
		if (!strset_has(&tags, r->tags.v[i]))
			verify_error(r, "%s has no Tag line for '%s' from the file name (WHEEL)", member,
				  r->tags.v[i]);
		if (!ends_with(r->tags.v[i], "-any") && purelib == 1)
			verify_error(r, "%s: Root-Is-Purelib is true for platform tag '%s' (WHEEL)", member,
				  r->tags.v[i]);
	}
	strvec_clear(&tags);
}

struct whole {
	const uint8_t *data;
	size_t len;
	int mapped;
	pthread_t tid;
	int started;
	char hex[65];
};

static void *
whole_hash(void *arg)
{
	struct whole *w = arg;
	struct digest d;
	struct buf h = BUF_INIT;
	uint8_t out[DIGEST_MAX];

	size_t off, chunk = 8u << 20; /* a multiple of any page size */

	digest_init(&d, "sha256");
	for (off = 0; off < w->len; off += chunk) {
		size_t n = w->len - off < chunk ? w->len - off : chunk;

		digest_update(&d, w->data + off, n);
		if (w->mapped && n == chunk)
			madvise((void *)(w->data + off), n, MADV_DONTNEED);
	}
	digest_final(&d, out);
	hex_encode(&h, out, d.size);
	memcpy(w->hex, h.s, sizeof(w->hex));
	buf_release(&h);
	return NULL;
}

static void
report_init(struct wheel_report *r)
{
	memset(r, 0, sizeof(*r));
	strvec_init(&r->tags);
	strvec_init(&r->sass);
	strvec_init(&r->ptx);
	strvec_init(&r->errors);
	strvec_init(&r->notes);
	strvec_init(&r->requires);
}

/* METADATA's Requires-Dist values (the headers only: the description after them is free text). */
static void
read_requires(struct wheel_report *r, const char *text)
{
	const char *end = strstr(text, "\n\n");

	for (const char *p = text; *p && (!end || p < end);) {
		size_t n = strcspn(p, "\n");

		if (n > 14 && !strncasecmp(p, "Requires-Dist:", 14)) {
			struct buf v = BUF_INIT;
			size_t skip = 14 + strspn(p + 14, " \t");

			buf_add(&v, p + skip, n - skip - (p[n - 1] == '\r'));
			strvec_push(&r->requires, v.s ? v.s : "");
			buf_release(&v);
		}
		p += n + (p[n] == '\n');
	}
}

/* The wheel's own sha256 is computed beside the member pass, not before it. */
static void
whole_start(struct whole *w, const struct zip *z)
{
	memset(w, 0, sizeof(*w));
	w->data = z->data;
	w->len = z->len;
	w->mapped = z->mapped;
	w->started = !pthread_create(&w->tid, NULL, whole_hash, w);
	if (!w->started)
		whole_hash(w);
}

static void
whole_finish(struct whole *w, struct wheel_report *r)
{
	if (w->started)
		pthread_join(w->tid, NULL);
	memcpy(r->sha256, w->hex, sizeof(r->sha256));
}

/*
 * Names, duplicates and the one .dist-info directory (into dist_info).
 * Returns the members' index sorted by name, for the RECORD lookups.
 */
static size_t *
check_names(struct wheel_report *r, const struct zip *z, struct buf *dist_info)
{
	char *dup_names = xcalloc(z->n ? z->n : 1, 1);
	size_t *names = verify_names_index(z, dup_names);

	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *e = &z->entries[i];
		const char *s = strchr(e->name, '/');

		check_name(r, e);
		if (dup_names[i])
			verify_error(r, "'%s' appears twice in the archive (names)", e->name);
		if (s && s - e->name > 10 && !strncmp(s - 10, ".dist-info", 10)) {
			if (!dist_info->len)
				buf_add(dist_info, e->name, (size_t)(s - e->name));
			else if (strncmp(dist_info->s, e->name, (size_t)(s - e->name)) ||
				 dist_info->len != (size_t)(s - e->name))
				verify_error(r, "more than one .dist-info directory ('%s' and '%.*s') "
					  "(dist-info)", dist_info->s, (int)(s - e->name), e->name);
		}
	}
	free(dup_names);
	return names;
}

/* {name}-{version}.data/ may hold only the five scheme directories. */
static void
check_data_dirs(struct wheel_report *r, const struct zip *z, const struct buf *dist_info)
{
	static const char *const schemes[] = { "purelib/", "platlib/", "headers/", "scripts/",
					       "data/" };

	for (size_t i = 0; i < z->n; i++) {
		const char *n = z->entries[i].name, *s = strchr(n, '/');
		size_t k;

		if (!s || s - n < 5 || strncmp(s - 5, ".data", 5))
			continue;
		if ((size_t)(s - n) - 5 != dist_info->len - 10 ||
		    strncmp(n, dist_info->s, dist_info->len - 10)) {
			verify_error(r, "'%s': a .data directory that does not match '%.*s' (dist-info)",
				  n, (int)(dist_info->len - 10), dist_info->s);
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(schemes); k++)
			if (starts_with(s + 1, schemes[k]))
				break;
		if (k == ARRAY_SIZE(schemes) && s[1])
			verify_error(r, "'%s': .data may hold only purelib, platlib, headers, scripts and "
				  "data (dist-info)", n);
	}
}

/* The .dist-info directory is the file name's {name}-{version}, normalized. */
static void
check_dist_info_name(struct wheel_report *r, const char *dist_info)
{
	struct buf have = BUF_INIT, want = BUF_INIT;

	if (!r->name || !r->version)
		return;
	normalize_name(&want, r->name, strlen(r->name));
	buf_addf(&want, "-%s.dist-info", r->version);
	normalize_name(&have, dist_info, strcspn(dist_info, "-"));
	buf_addstr(&have, dist_info + strcspn(dist_info, "-"));
	if (strcmp(have.s, want.s))
		verify_error(r, "'%s' does not match the file name's '%s' (dist-info)", dist_info,
			  want.s);
	buf_release(&have);
	buf_release(&want);
}

/* Read `name` from the archive into text; -1 after adding the error. */
static int
read_member(struct wheel_report *r, const struct zip *z, const char *name, uint64_t most,
	    const char *rule, struct buf *text)
{
	struct buf why = BUF_INIT;
	const struct zip_entry *e = zip_find(z, name);
	int ret = -1;

	if (!e)
		verify_error(r, "no %s (%s)", name, rule);
	else if ((ret = zip_read_all(z, e, text, most, &why)) < 0)
		verify_error(r, "%s", why.s);
	buf_release(&why);
	return ret;
}

/*
 * Hash every member RECORD lists (on every core), name the members it
 * leaves out, then check the libraries and their GPU targets.
 */
static void
check_members(struct wheel_report *r, const struct zip *z, const size_t *names,
	      const struct record_row *rows, size_t nrows, const char *record_name,
	      const char *dist_info, const struct wheel_expect *opts)
{
	char *seen_rows = xcalloc(z->n ? z->n : 1, 1);
	struct job *jobs = xcalloc(nrows ? nrows : 1, sizeof(*jobs));
	char **paths = xcalloc(z->n ? z->n : 1, sizeof(*paths));
	size_t i, njobs;

	njobs = verify_plan_jobs(r, rows, nrows, record_name, dist_info, z, names, seen_rows, NULL, jobs);
	verify_run_jobs(z, jobs, njobs, opts->threads, opts->deep);
	verify_merge_jobs(r, jobs, njobs);
	free(jobs);
	for (i = 0; i < z->n; i++) {
		const char *n = z->entries[i].name;

		paths[i] = z->entries[i].name;
		if (seen_rows[i] || ends_with(n, "/"))
			continue;
		if (verify_is_dist_info_file(n, dist_info, "RECORD.jws") ||
		    verify_is_dist_info_file(n, dist_info, "RECORD.p7s"))
			continue;
		verify_error(r, "'%s' is in the archive but not in RECORD (RECORD)", n);
	}
	free(seen_rows);
	verify_libraries(r, paths, z->n, opts->provided);
	verify_cuda_libs(r, paths, z->n, opts, NULL);
	free(paths);
	verify_cxx_abi(r, opts->cxx11_abi);
	verify_coverage(r, opts);
}

int
wheel_verify(struct wheel_report *r, const char *path, const struct wheel_expect *expect)
{
	struct zip z;
	struct buf why = BUF_INIT, dist_info = BUF_INIT, member = BUF_INIT, text = BUF_INIT;
	struct record_row *rows = NULL;
	size_t nrows = 0, *names = NULL;
	const char *slash;
	struct wheel_expect opts = { .sass = NULL };
	struct whole wh;

	if (is_dir(path))
		return installed_verify(r, path, expect);
	if (expect)
		opts = *expect;
	report_init(r);
	r->path = xstrdup(path);
	slash = strrchr(path, '/');
	r->filename = xstrdup(slash ? slash + 1 : path);
	if (zip_open(&z, path) < 0) {
		wheel_report_release(r);
		return -1;
	}
	whole_start(&wh, &z);
	r->members = z.n;
	parse_filename(r);

	/* Data after the central directory, other than the end records, is smuggled. */
	if (z.cd_end != z.eocd_offset && z.cd_end + 20 != z.eocd_offset &&
	    !(z.eocd_offset >= 76 && z.cd_end + 76 <= z.eocd_offset))
		verify_error(r, "bytes between the central directory and its end record (zip hygiene)");

	names = check_names(r, &z, &dist_info);
	if (!dist_info.len) {
		verify_error(r, "no .dist-info directory (dist-info)");
		goto done;
	}
	check_data_dirs(r, &z, &dist_info);
	check_dist_info_name(r, dist_info.s);

	buf_addf(&member, "%s/WHEEL", dist_info.s);
	if (read_member(r, &z, member.s, MAX_TEXT_BYTES, "WHEEL", &text) == 0)
		check_wheel_file(r, text.s, member.s);
	buf_reset(&text);

	buf_reset(&member);
	buf_addf(&member, "%s/METADATA", dist_info.s);
	{
		const struct zip_entry *me = zip_find(&z, member.s);

		/* Its absence is not this check's to judge; a bad one reads as no requirements. */
		if (me && zip_read_all(&z, me, &text, MAX_TEXT_BYTES, &why) == 0)
			read_requires(r, text.s);
		buf_reset(&text);
		buf_reset(&why);
	}
	buf_reset(&member);
	buf_addf(&member, "%s/RECORD", dist_info.s);
	/* A row takes some 100 bytes: 4 KiB for each member (and spare row) is far beyond a real one. */
	if (read_member(r, &z, member.s, record_most(z.n), "RECORD", &text) < 0)
		goto done;
	/* Rows beyond the members (and some to spare, to be named) can only be errors. */
	if (record_parse_max(text.s, text.len, z.n + RECORD_SPARE_ROWS, &rows, &nrows, &why) < 0) {
		verify_error(r, "%s: %s (RECORD)", member.s, why.s);
		goto done;
	}
	check_members(r, &z, names, rows, nrows, member.s, dist_info.s, &opts);
done:
	verify_summarise(r);
	whole_finish(&wh, r);
	record_free(rows, nrows);
	free(names);
	zip_close(&z);
	buf_release(&why);
	buf_release(&dist_info);
	buf_release(&member);
	buf_release(&text);
	return 0;
}

/* ---- an installed package: site-packages/<pkg> with its .dist-info ---- */

static int
dist_info_for(const char *root, const char *pkg, struct buf *out)
{
	struct buf want = BUF_INIT;
	struct dirent *de;
	DIR *d = opendir(root);

	if (!d)
		return -1;
	normalize_name(&want, pkg, strlen(pkg));
	while ((de = readdir(d))) {
		struct buf have = BUF_INIT;
		const char *dash = strchr(de->d_name, '-');

		if (!dash || !ends_with(de->d_name, ".dist-info"))
			continue;
		normalize_name(&have, de->d_name, (size_t)(dash - de->d_name));
		if (!strcmp(have.s, want.s)) {
			buf_reset(out);
			buf_addstr(out, de->d_name);
		}
		buf_release(&have);
	}
	closedir(d);
	buf_release(&want);
	return out->len ? 0 : -1;
}

int
installed_verify(struct wheel_report *r, const char *pkgdir, const struct wheel_expect *expect)
{
	struct wheel_expect opts = { .sass = NULL };
	struct buf root = BUF_INIT, di = BUF_INIT, path = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	struct record_row *rows = NULL;
	struct job *jobs;
	char *abs = realpath(pkgdir, NULL), *slash, **paths;
	size_t nrows = 0, njobs, i;
	int ret = -1;

	if (expect)
		opts = *expect;
	report_init(r);
	if (!abs || !is_dir(abs)) {
		error("'%s' is not a directory (give an installed package, e.g. "
		      "$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))'))", pkgdir);
		goto out;
	}
	slash = strrchr(abs, '/');
	buf_add(&root, abs, (size_t)(slash - abs));
	if (dist_info_for(root.s, slash + 1, &di) < 0) {
		error("no %s-*.dist-info next to '%s'; was it installed from a wheel?", slash + 1, abs);
		goto out;
	}
	r->path = xstrdup(abs);
	r->filename = xstrdup(di.s);
	r->name = xstrndup(di.s, strcspn(di.s, "-"));
	r->version = xstrndup(di.s + strlen(r->name) + 1, di.len - strlen(r->name) - 1 - 10);
	buf_addf(&path, "%s/%s/WHEEL", root.s, di.s);
	if (read_file(&text, path.s) == 0) {
		struct wheel_file wf;

		wheel_file_parse(&wf, text.s);
		for (i = 0; i < wf.n; i++)
			if (!strcmp(wf.fields[i].key, "Tag"))
				strset_add(&r->tags, wf.fields[i].value);
		wheel_file_release(&wf);
	}
	buf_reset(&path);
	buf_reset(&text);
	buf_addf(&path, "%s/%s/METADATA", root.s, di.s);
	if (read_file(&text, path.s) == 0)
		read_requires(r, text.s);
	buf_reset(&path);
	buf_reset(&text);
	buf_addf(&path, "%s/%s/RECORD", root.s, di.s);
	if (read_file(&text, path.s) < 0)
		goto out;
	if (record_parse_max(text.s, text.len, RECORD_INSTALLED_ROWS, &rows, &nrows, &why) < 0) {
		error("%s: %s", path.s, why.s);
		goto out;
	}
	r->members = nrows;
	buf_reset(&path);
	buf_addf(&path, "%s/RECORD", di.s);
	jobs = xcalloc(nrows ? nrows : 1, sizeof(*jobs));
	njobs = verify_plan_jobs(r, rows, nrows, path.s, di.s, NULL, NULL, NULL, root.s, jobs);
	verify_run_jobs(NULL, jobs, njobs, opts.threads, opts.deep);
	verify_merge_jobs(r, jobs, njobs);
	free(jobs);
	paths = xcalloc(nrows ? nrows : 1, sizeof(*paths));
	for (i = 0; i < nrows; i++)
		paths[i] = rows[i].fields[0];
	verify_libraries(r, paths, nrows, opts.provided);
	verify_cuda_libs(r, paths, nrows, &opts, root.s);
	free(paths);
	verify_cxx_abi(r, opts.cxx11_abi);
	verify_coverage(r, &opts);
	verify_summarise(r);
	ret = 0;
out:
	if (ret < 0)
		wheel_report_release(r);
	record_free(rows, nrows);
	free(abs);
	buf_release(&root);
	buf_release(&di);
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	return ret;
}

void
wheel_report_release(struct wheel_report *r)
{
	size_t i;

	for (i = 0; i < r->nlibs; i++)
		wheel_lib_release(&r->libs[i]);
	free(r->libs);
	free(r->path);
	free(r->filename);
	free(r->name);
	free(r->version);
	free(r->build_tag);
	strvec_clear(&r->tags);
	strvec_clear(&r->requires);
	strvec_clear(&r->sass);
	strvec_clear(&r->ptx);
	strvec_clear(&r->errors);
	strvec_clear(&r->notes);
	free(r->macros_h);
	free(r->macros_h_path);
	free(r->version_py);
	free(r->version_py_path);
	memset(r, 0, sizeof(*r));
}
