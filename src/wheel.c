#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "diag.h"
#include "elf.h"
#include "fatbin.h"
#include "hash.h"
#include "record.h"
#include "util.h"
#include "wheel.h"
#include "zip.h"

/* An ELF library is read whole to find its section table (at the end). */
#define MAX_ELF_BYTES (8ULL << 30)
#define MAX_TEXT_BYTES (16ULL << 20)

/* Natural order so sm_90 sorts before sm_100. */
static int
natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

void
strset_add(struct strvec *set, const char *s)
{
	size_t pos;
	char *added;

	for (pos = 0; pos < set->n; pos++) {
		int c = natcmp(set->v[pos], s);

		if (!c)
			return;
		if (c > 0)
			break;
	}
	strvec_push(set, s);
	added = set->v[set->n - 1];
	memmove(&set->v[pos + 1], &set->v[pos], (set->n - 1 - pos) * sizeof(char *));
	set->v[pos] = added;
}

int
strset_has(const struct strvec *set, const char *s)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->v[i], s))
			return 1;
	return 0;
}

static void
add_error(struct wheel_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
add_error(struct wheel_report *r, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	strvec_push_nodup(&r->errors, buf_detach(&b));
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
		add_error(r, "file name '%s' does not end in .whl", r->filename);
		return -1;
	}
	stem = xstrndup(r->filename, strlen(r->filename) - 4);
	for (t = strtok_r(stem, "-", &save); t; t = strtok_r(NULL, "-", &save))
		strvec_push(&parts, t);
	free(stem);
	n = parts.n;
	if (n != 5 && n != 6) {
		add_error(r, "file name '%s' has %zu '-'-separated fields (a wheel has 5 or 6: "
			  "name-version[-build]-python-abi-platform)", r->filename, n);
		goto out;
	}
	r->name = xstrdup(parts.v[0]);
	r->version = xstrdup(parts.v[1]);
	if (n == 6) {
		if (!isdigit((unsigned char)parts.v[2][0]))
			add_error(r, "build tag '%s' in the file name does not start with a digit",
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

	if (strlen(s) != n) {
		add_error(r, "member name '%s' contains a NUL byte (names)", s);
		return;
	}
	if (s[0] == '/')
		add_error(r, "'%s': absolute member name (names)", s);
	if (n >= 2 && isalpha((unsigned char)s[0]) && s[1] == ':')
		add_error(r, "'%s': member name starts with a drive letter (names)", s);
	for (i = 0; i < n; i++) {
		if (s[i] == '\\') {
			add_error(r, "'%s': backslash in member name (names)", s);
			break;
		}
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			add_error(r, "member name with a control character: '%s' (names)", s);
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
			add_error(r, "'%s': empty, '.' or '..' path component (names)", s);
			break;
		}
		comp = s + i + 1;
	}
	if (!(e->flags & (1u << 11))) {
		for (i = 0; i < n; i++) {
			if ((unsigned char)s[i] >= 0x80) {
				add_error(r, "'%s': non-ASCII name without the UTF-8 flag (names)", s);
				break;
			}
		}
	}
	if (e->flags & 1)
		add_error(r, "'%s' is encrypted (zip hygiene)", s);
	if (e->method != 0 && e->method != 8)
		add_error(r, "'%s' uses compression method %u; only stored (0) and deflate (8) are "
			  "allowed (zip hygiene)", s, e->method);
	if ((e->made_by >> 8) == 3 && ((e->ext_attr >> 16) & 0170000) == 0120000)
		add_error(r, "'%s' is a symbolic link (zip hygiene)", s);
	if (e->local_name_differs)
		add_error(r, "'%s': the local header names a different file (zip hygiene)", s);
}

/* ---- per-member pass: hash, size, keep ELF and text files ---- */

struct member_ctx {
	struct digest d;
	int hashing;
	uint64_t size;
	int first;
	int is_elf;
	int keep_text;
	struct buf data;
	const char *name;
	struct buf *why;
};

static int
member_sink(void *vctx, const void *data, size_t n)
{
	struct member_ctx *c = vctx;

	if (c->first) {
		c->first = 0;
		c->is_elf = elf_is_elf(data, n);
	}
	if (c->hashing)
		digest_update(&c->d, data, n);
	c->size += n;
	if (c->is_elf || c->keep_text) {
		uint64_t max = c->is_elf ? MAX_ELF_BYTES : MAX_TEXT_BYTES;

		if (c->data.len + n > max) {
			buf_addf(c->why, "'%s' is larger than %llu bytes", c->name,
				 (unsigned long long)max);
			return -1;
		}
		buf_add(&c->data, data, n);
	}
	return 0;
}

struct fatbin_ctx {
	struct wheel_lib *lib;
	int rel;
	struct buf name;
};

static int
fatbin_cb(void *vctx, const struct fatbin_entry *e)
{
	struct fatbin_ctx *c = vctx;
	struct strvec *set;

	buf_reset(&c->name);
	fatbin_entry_name(e, &c->name);
	if (e->kind == FATBIN_PTX)
		set = c->rel ? &c->lib->rel_ptx : &c->lib->ptx;
	else
		set = c->rel ? &c->lib->rel_sass : &c->lib->sass;
	strset_add(set, c->name.s);
	strset_add(&c->lib->codecs, fatbin_codec_name(e->codec));
	c->lib->entries++;
	if (e->container + 1 > c->lib->containers)
		c->lib->containers = e->container + 1;
	return 0;
}

static void
scan_elf(struct wheel_report *r, const char *path, const uint8_t *data, size_t len)
{
	struct buf why = BUF_INIT;
	struct wheel_lib *lib;
	struct elf elf;
	static const char *const sections[] = { ".nv_fatbin", "__nv_relfatbin" };
	size_t i;

	if (elf_open(&elf, data, len, &why) < 0) {
		add_error(r, "'%s': cannot read ELF: %s", path, why.s);
		buf_release(&why);
		return;
	}
	r->libs = xreallocarray(r->libs, r->nlibs + 1, sizeof(*r->libs));
	lib = &r->libs[r->nlibs++];
	memset(lib, 0, sizeof(*lib));
	lib->path = xstrdup(path);
	strvec_init(&lib->sass);
	strvec_init(&lib->ptx);
	strvec_init(&lib->rel_sass);
	strvec_init(&lib->rel_ptx);
	strvec_init(&lib->codecs);
	for (i = 0; i < ARRAY_SIZE(sections); i++) {
		const struct elf_section *s = elf_section_by_name(&elf, sections[i]);
		struct fatbin_ctx fc = { lib, (int)i, BUF_INIT };

		if (!s || s->type == SHT_NOBITS_)
			continue;
		if (!i)
			lib->has_fatbin = 1;
		if (fatbin_walk(data + s->offset, (size_t)s->size, fatbin_cb, &fc, &why) < 0) {
			add_error(r, "'%s': %s: %s", path, sections[i], why.s);
			buf_reset(&why);
		}
		buf_release(&fc.name);
	}
	for (i = 0; i < lib->sass.n; i++)
		strset_add(&r->sass, lib->sass.v[i]);
	for (i = 0; i < lib->ptx.n; i++)
		strset_add(&r->ptx, lib->ptx.v[i]);
	elf_release(&elf);
	buf_release(&why);
}

static int
is_dist_info_file(const char *name, const char *dist_info, const char *file)
{
	size_t n = strlen(dist_info);

	return !strncmp(name, dist_info, n) && name[n] == '/' && !strcmp(name + n + 1, file);
}

/* Parse "Key: value" lines of WHEEL. */
static void
check_wheel_file(struct wheel_report *r, const char *text, const char *member)
{
	struct strvec tags = STRVEC_INIT;
	const char *p = text;
	int have_version = 0, purelib = -1;
	size_t i;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len), *colon, *val;

		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		colon = strchr(line, ':');
		if (colon) {
			*colon = '\0';
			for (val = colon + 1; *val == ' '; val++)
				;
			if (!strcmp(line, "Wheel-Version")) {
				have_version = 1;
				if (atoi(val) != 1)
					add_error(r, "%s: Wheel-Version %s is not 1.x (WHEEL)", member, val);
			} else if (!strcmp(line, "Root-Is-Purelib")) {
				purelib = !strcmp(val, "true");
			} else if (!strcmp(line, "Tag")) {
				strvec_push(&tags, val);
			} else if (!strcmp(line, "Build")) {
				if (!r->build_tag || strcmp(r->build_tag, val))
					add_error(r, "%s: Build '%s' does not match the file name (WHEEL)",
						  member, val);
			}
		}
		free(line);
		p += len + (nl ? 1 : 0);
	}
	if (!have_version)
		add_error(r, "%s has no Wheel-Version (WHEEL)", member);
	for (i = 0; i < tags.n; i++)
		if (!strset_has(&r->tags, tags.v[i]))
			add_error(r, "%s: Tag '%s' is not in the file name's tags (WHEEL)", member, tags.v[i]);
	for (i = 0; i < r->tags.n; i++) {
		if (!strset_has(&tags, r->tags.v[i]))
			add_error(r, "%s has no Tag line for '%s' from the file name (WHEEL)", member,
				  r->tags.v[i]);
		if (!ends_with(r->tags.v[i], "-any") && purelib == 1)
			add_error(r, "%s: Root-Is-Purelib is true for platform tag '%s' (WHEEL)", member,
				  r->tags.v[i]);
	}
	strvec_clear(&tags);
}

static int
check_hash_field(struct wheel_report *r, const struct record_row *row, uint8_t *want,
		 size_t *want_len, char *algo, size_t algo_cap)
{
	const char *h = row->fields[1], *eq = strchr(h, '=');
	struct digest d;
	size_t alen, i, dlen, expect_len;

	if (!eq) {
		add_error(r, "RECORD line %d: hash '%s' of '%s' is not algo=digest (hashes)", row->line,
			  h, row->fields[0]);
		return -1;
	}
	alen = (size_t)(eq - h);
	if (alen >= algo_cap || (memcpy(algo, h, alen), algo[alen] = '\0', digest_init(&d, algo) < 0)) {
		add_error(r, "RECORD line %d: '%s' uses hash algorithm '%.*s'; only sha256, sha384 and "
			  "sha512 are allowed (hashes)", row->line, row->fields[0], (int)alen, h);
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
		add_error(r, "RECORD line %d: digest of '%s' is not urlsafe base64 of %zu bytes without "
			  "padding (hashes)", row->line, row->fields[0], d.size);
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

int
wheel_verify(struct wheel_report *r, const char *path, const struct wheel_expect *expect)
{
	struct zip z;
	struct buf why = BUF_INIT, dist_info = BUF_INIT, want_di = BUF_INIT, record_name = BUF_INIT;
	struct buf text = BUF_INIT;
	struct record_row *rows = NULL;
	size_t nrows = 0, i, j;
	const char *slash;
	char *seen_rows;

	memset(r, 0, sizeof(*r));
	strvec_init(&r->tags);
	strvec_init(&r->sass);
	strvec_init(&r->ptx);
	strvec_init(&r->errors);
	strvec_init(&r->notes);
	r->path = xstrdup(path);
	slash = strrchr(path, '/');
	r->filename = xstrdup(slash ? slash + 1 : path);
	{
		struct buf h = BUF_INIT;

		if (sha256_file_hex(&h, path) < 0) {
			wheel_report_release(r);
			return -1;
		}
		memcpy(r->sha256, h.s, 65);
		buf_release(&h);
	}
	if (zip_open(&z, path) < 0) {
		wheel_report_release(r);
		return -1;
	}
	r->members = z.n;
	parse_filename(r);

	/* Data after the central directory, other than the end records, is smuggled. */
	if (z.cd_end != z.eocd_offset && z.cd_end + 20 != z.eocd_offset &&
	    !(z.eocd_offset >= 76 && z.cd_end + 76 <= z.eocd_offset))
		add_error(r, "bytes between the central directory and its end record (zip hygiene)");

	/* Names, duplicates, the one .dist-info directory. */
	for (i = 0; i < z.n; i++) {
		const struct zip_entry *e = &z.entries[i];
		const char *s = strchr(e->name, '/');

		check_name(r, e);
		for (j = 0; j < i; j++)
			if (!strcmp(z.entries[j].name, e->name))
				add_error(r, "'%s' appears twice in the archive (names)", e->name);
		if (s && s - e->name > 10 && !strncmp(s - 10, ".dist-info", 10)) {
			if (!dist_info.len)
				buf_add(&dist_info, e->name, (size_t)(s - e->name));
			else if (strncmp(dist_info.s, e->name, (size_t)(s - e->name)) ||
				 dist_info.len != (size_t)(s - e->name))
				add_error(r, "more than one .dist-info directory ('%s' and '%.*s') "
					  "(dist-info)", dist_info.s, (int)(s - e->name), e->name);
		}
	}
	if (!dist_info.len) {
		add_error(r, "no .dist-info directory (dist-info)");
		goto done;
	}
	if (r->name && r->version) {
		struct buf have = BUF_INIT;

		normalize_name(&want_di, r->name, strlen(r->name));
		buf_addf(&want_di, "-%s.dist-info", r->version);
		normalize_name(&have, dist_info.s, strcspn(dist_info.s, "-"));
		buf_addstr(&have, dist_info.s + strcspn(dist_info.s, "-"));
		if (strcmp(have.s, want_di.s))
			add_error(r, "'%s' does not match the file name's '%s' (dist-info)", dist_info.s,
				  want_di.s);
		buf_release(&have);
	}

	{
		struct buf wheel_name = BUF_INIT;
		const struct zip_entry *we;

		buf_addf(&wheel_name, "%s/WHEEL", dist_info.s);
		we = zip_find(&z, wheel_name.s);
		if (!we) {
			add_error(r, "no %s (WHEEL)", wheel_name.s);
		} else if (zip_read_all(&z, we, &text, MAX_TEXT_BYTES, &why) < 0) {
			add_error(r, "%s", why.s);
			buf_reset(&why);
		} else {
			check_wheel_file(r, text.s, wheel_name.s);
		}
		buf_reset(&text);
		buf_release(&wheel_name);
	}

	buf_addf(&record_name, "%s/RECORD", dist_info.s);
	{
		const struct zip_entry *re = zip_find(&z, record_name.s);

		if (!re) {
			add_error(r, "no %s (RECORD)", record_name.s);
			goto done;
		}
		if (zip_read_all(&z, re, &text, 256ULL << 20, &why) < 0) {
			add_error(r, "%s", why.s);
			goto done;
		}
		if (record_parse(text.s, text.len, &rows, &nrows, &why) < 0) {
			add_error(r, "%s: %s (RECORD)", record_name.s, why.s);
			goto done;
		}
	}

	seen_rows = xcalloc(z.n ? z.n : 1, 1);
	for (i = 0; i < nrows; i++) {
		const struct record_row *row = &rows[i];
		const struct zip_entry *e;
		struct member_ctx mc;
		uint8_t want[DIGEST_MAX], got[DIGEST_MAX];
		size_t want_len = 0;
		char algo[16];
		char *end;
		unsigned long long size;
		int is_record, is_sig;

		if (row->nfields != 3) {
			add_error(r, "RECORD line %d has %zu fields (a row is path,hash,size) (RECORD)",
				  row->line, row->nfields);
			continue;
		}
		for (j = 0; j < i; j++)
			if (rows[j].nfields >= 1 && !strcmp(rows[j].fields[0], row->fields[0]))
				add_error(r, "RECORD line %d lists '%s' again (RECORD)", row->line,
					  row->fields[0]);
		is_record = !strcmp(row->fields[0], record_name.s);
		is_sig = is_dist_info_file(row->fields[0], dist_info.s, "RECORD.jws") ||
			 is_dist_info_file(row->fields[0], dist_info.s, "RECORD.p7s");
		if (is_sig) {
			add_error(r, "RECORD lists the signature file '%s' (RECORD)", row->fields[0]);
			continue;
		}
		e = zip_find(&z, row->fields[0]);
		if (!e) {
			add_error(r, "RECORD line %d lists '%s', which is not in the archive (RECORD)",
				  row->line, row->fields[0]);
			continue;
		}
		seen_rows[e - z.entries] = 1;
		if (is_record) {
			if (*row->fields[1] || *row->fields[2])
				add_error(r, "RECORD's own row has a hash or size (RECORD)");
			continue;
		}
		if (!*row->fields[1] || !*row->fields[2]) {
			add_error(r, "RECORD line %d: '%s' has an empty hash or size (hashes)", row->line,
				  row->fields[0]);
			continue;
		}
		errno = 0;
		size = strtoull(row->fields[2], &end, 10);
		if (*end || !isdigit((unsigned char)*row->fields[2]) || errno == ERANGE) {
			add_error(r, "RECORD line %d: size '%s' of '%s' is not a number (hashes)",
				  row->line, row->fields[2], row->fields[0]);
			continue;
		}
		if (check_hash_field(r, row, want, &want_len, algo, sizeof(algo)) < 0)
			continue;

		memset(&mc, 0, sizeof(mc));
		digest_init(&mc.d, algo);
		mc.hashing = 1;
		mc.first = 1;
		mc.name = e->name;
		mc.why = &why;
		mc.keep_text = ends_with(e->name, "/include/caffe2/core/macros.h") ||
			       (ends_with(e->name, "/version.py") && strchr(e->name, '/') ==
								      strrchr(e->name, '/'));
		buf_init(&mc.data);
		buf_reset(&why);
		if (zip_read(&z, e, member_sink, &mc, &why) < 0) {
			digest_abort(&mc.d);
			add_error(r, "%s (zip hygiene)", why.s);
			buf_release(&mc.data);
			continue;
		}
		digest_final(&mc.d, got);
		r->bytes += mc.size;
		if (mc.size != size)
			add_error(r, "'%s' is %llu bytes, RECORD says %llu (hashes)", e->name,
				  (unsigned long long)mc.size, size);
		if (want_len != mc.d.size || memcmp(want, got, mc.d.size))
			add_error(r, "'%s' does not match its %s in RECORD (hashes)", e->name, algo);
		if (mc.is_elf) {
			scan_elf(r, e->name, (const uint8_t *)mc.data.s, mc.data.len);
		} else if (mc.keep_text && ends_with(e->name, "macros.h")) {
			free(r->macros_h);
			free(r->macros_h_path);
			r->macros_h = buf_detach(&mc.data);
			r->macros_h_path = xstrdup(e->name);
		} else if (mc.keep_text) {
			free(r->version_py);
			free(r->version_py_path);
			r->version_py = buf_detach(&mc.data);
			r->version_py_path = xstrdup(e->name);
		}
		buf_release(&mc.data);
	}
	for (i = 0; i < z.n; i++) {
		const char *n = z.entries[i].name;

		if (seen_rows[i] || ends_with(n, "/"))
			continue;
		if (is_dist_info_file(n, dist_info.s, "RECORD.jws") ||
		    is_dist_info_file(n, dist_info.s, "RECORD.p7s"))
			continue;
		add_error(r, "'%s' is in the archive but not in RECORD (RECORD)", n);
	}
	free(seen_rows);

	if (expect) {
		for (i = 0; i < r->nlibs; i++) {
			const struct wheel_lib *l = &r->libs[i];

			if (!l->has_fatbin)
				continue;
			for (j = 0; j < expect->sass->n; j++)
				if (!strset_has(&l->sass, expect->sass->v[j]))
					add_error(r, "'%s' has no SASS for %s, which the profile asks for "
						  "(coverage)", l->path, expect->sass->v[j]);
			for (j = 0; j < expect->ptx->n; j++)
				if (!strset_has(&l->ptx, expect->ptx->v[j]))
					add_error(r, "'%s' has no PTX for %s, which the profile asks for "
						  "(coverage)", l->path, expect->ptx->v[j]);
			for (j = 0; j < l->sass.n; j++)
				if (!strset_has(expect->sass, l->sass.v[j]))
					strvec_pushf(&r->notes, "'%s' also carries %s, which the profile "
						     "does not list", l->path, l->sass.v[j]);
		}
	}
done:
	record_free(rows, nrows);
	zip_close(&z);
	buf_release(&why);
	buf_release(&dist_info);
	buf_release(&want_di);
	buf_release(&record_name);
	buf_release(&text);
	return 0;
}

void
wheel_report_release(struct wheel_report *r)
{
	size_t i;

	for (i = 0; i < r->nlibs; i++) {
		free(r->libs[i].path);
		strvec_clear(&r->libs[i].sass);
		strvec_clear(&r->libs[i].ptx);
		strvec_clear(&r->libs[i].rel_sass);
		strvec_clear(&r->libs[i].rel_ptx);
		strvec_clear(&r->libs[i].codecs);
	}
	free(r->libs);
	free(r->path);
	free(r->filename);
	free(r->name);
	free(r->version);
	free(r->build_tag);
	strvec_clear(&r->tags);
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
