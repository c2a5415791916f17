#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/diag.h"
#include "sources/git.h"
#include "core/hash.h"
#include "core/json.h"
#include "sources/patch.h"
#include "profile/profile.h"
#include "core/util.h"

/* ---- the index ---- */

static int
find_index(const char *project, struct buf *out)
{
	struct strvec dirs = STRVEC_INIT;
	size_t i;
	int found = 0;

	data_search_path("patches", "BWBUILD_PATCH_PATH", &dirs);
	for (i = 0; i < dirs.n && !found; i++) {
		buf_reset(out);
		buf_addf(out, "%s/%s/index.yaml", dirs.v[i], project);
		found = path_exists(out->s);
	}
	if (!found)
		error("no patch series '%s' (looked for %s/index.yaml in patches/, bwbuild's own "
		      "patches/ and $BWBUILD_PATCH_PATH)", project, project);
	strvec_clear(&dirs);
	return found ? 0 : -1;
}

static char *
entry_str(const struct pnode *e, const char *key)
{
	const char *s = ynode_str(ynode_get(e, key));

	return s ? xstrdup(s) : NULL;
}

/*
 * env: {NAME: VALUE}: switches the package's own build reads, such as
 * causal-conv1d's CAUSAL_CONV1D_FORCE_BUILD (else it downloads a wheel).
 */
static void
load_env(struct patch_set *ps, const struct pnode *root)
{
	const struct pnode *env = ynode_get(root, "env");

	strvec_init(&ps->env);
	for (size_t i = 0; env && i < ynode_len(env); i++) {
		const char *k = ynode_key_at(env, i), *v = ynode_str(ynode_at(env, i));

		if (!k || !v || !*k || strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(k) ||
		    (*k >= '0' && *k <= '9'))
			error_at(ynode_key_loc(env, i), "env entries are NAME: value with NAME in "
				 "capitals, digits and '_'");
		else
			strvec_pushf(&ps->env, "%s=%s", k, v);
	}
	if (env && !ynode_len(env) && ynode_str(env))
		error_at(ynode_loc(env), "'env' must be a map of NAME: value");
}

int
patch_set_load(struct patch_set *ps, const char *project)
{
	struct buf path = BUF_INIT, why = BUF_INIT;
	struct pnode *root;
	const struct pnode *list;
	int before = diag_errors;
	size_t i;

	memset(ps, 0, sizeof(*ps));
	strvec_init(&ps->env);
	ps->project = xstrdup(project);
	if (find_index(project, &path) < 0) {
		buf_release(&path);
		return -1;
	}
	ps->index = buf_detach(&path);
	root = ydoc_load(ps->index);
	if (!root)
		return -1;
	load_env(ps, root);
	list = ynode_get(root, "patches");
	if (!ynode_is_list(list)) {
		error_at(ynode_loc(list ? list : root), "'patches' must be a list of {file, sha256, "
			 "when, description}");
		ydoc_free(root);
		return -1;
	}
	ps->v = xcalloc(ynode_len(list) ? ynode_len(list) : 1, sizeof(*ps->v));
	for (i = 0; i < ynode_len(list); i++) {
		const struct pnode *e = ynode_at(list, i);
		struct patch *pt = &ps->v[ps->n];
		struct buf file = BUF_INIT, text = BUF_INIT, hex = BUF_INIT;
		char *slash;
		int bad;

		memset(pt, 0, sizeof(*pt));
		strvec_init(&pt->touches);
		pt->loc = *ynode_loc(e);
		pt->loc.file = ps->index; /* outlives the YAML tree */
		pt->file = entry_str(e, "file");
		pt->sha256 = entry_str(e, "sha256");
		pt->when = entry_str(e, "when");
		pt->description = entry_str(e, "description");
		ps->n++;
		if (!pt->file || strchr(pt->file, '/') || !pt->sha256) {
			error_at(&pt->loc, "each patch needs 'file' (a name in %s's directory) and "
				 "'sha256'", ps->index);
			continue;
		}
		if (pt->when && patch_when_matches(pt->when, 0, &why) < 0) {
			error_at(ynode_loc(ynode_get(e, "when")), "%s", why.s);
			buf_reset(&why);
		}
		buf_addstr(&file, ps->index);
		slash = strrchr(file.s, '/');
		buf_setlen(&file, (size_t)(slash - file.s) + 1);
		buf_addstr(&file, pt->file);
		if (read_file(&text, file.s) < 0) {
			error_at(&pt->loc, "cannot read patch '%s'", file.s);
		} else if (sha256_hex(&hex, text.s, text.len), strcmp(hex.s, pt->sha256)) {
			error_at(ynode_loc(ynode_get(e, "sha256")), "'%s' has sha256 %s, not the %s the "
				 "index records; if the change is meant, update the index", pt->file,
				 hex.s, pt->sha256);
		} else if ((bad = patch_check(text.s, text.len, &pt->targets, &pt->ntargets, &why))) {
			struct loc at = { file.s, bad, 0 };

			error_at(&at, "refusing patch '%s': %s", pt->file, why.s);
			note_at(&pt->loc, "listed here");
			buf_reset(&why);
		} else {
			pt->len = text.len;
			pt->text = buf_detach(&text);
			pt->path = xstrdup(file.s);
			/* the checked headers: a binary patch has no ---/+++ lines */
			for (size_t k = 0; k < pt->ntargets; k++)
				strvec_push(&pt->touches, pt->targets[k].path);
		}
		buf_release(&file);
		buf_release(&text);
		buf_release(&hex);
	}
	ydoc_free(root);
	buf_release(&why);
	return diag_errors > before ? -1 : 0;
}

void
patch_set_release(struct patch_set *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++) {
		free(ps->v[i].file);
		free(ps->v[i].sha256);
		free(ps->v[i].when);
		free(ps->v[i].description);
		free(ps->v[i].text);
		free(ps->v[i].path);
		strvec_clear(&ps->v[i].touches);
		patch_targets_free(ps->v[i].targets, ps->v[i].ntargets);
	}
	free(ps->v);
	free(ps->project);
	free(ps->index);
	strvec_clear(&ps->env);
	memset(ps, 0, sizeof(*ps));
}

/* ---- versions ---- */

int
patch_when_matches(const char *when, unsigned version, struct buf *why)
{
	const char *p = when;
	int ok = 1;

	while (*p) {
		const char *op = p;
		size_t oplen = strspn(p, "<>=!");
		unsigned major, minor, v;
		int n = 0;

		p += oplen;
		if (sscanf(p, "%u.%u%n", &major, &minor, &n) != 2 || !oplen || oplen > 2 || minor > 99) {
			buf_addf(why, "'%s' is not a version range such as \">=2.9,<2.12\"", when);
			return -1;
		}
		p += n;
		if (*p == '.')
			p += 1 + strspn(p + 1, "0123456789"); /* a patch level is ignored */
		v = major * 100 + minor;
		if (!strncmp(op, ">=", 2))
			ok &= version >= v;
		else if (!strncmp(op, "<=", 2))
			ok &= version <= v;
		else if (!strncmp(op, "==", 2))
			ok &= version == v;
		else if (!strncmp(op, "!=", 2))
			ok &= version != v;
		else if (*op == '>' && oplen == 1)
			ok &= version > v;
		else if (*op == '<' && oplen == 1)
			ok &= version < v;
		else {
			buf_addf(why, "'%s': unknown comparison '%.*s'", when, (int)oplen, op);
			return -1;
		}
		p += strspn(p, " ");
		if (*p == ',')
			p++;
		p += strspn(p, " ");
	}
	return ok;
}

/* ---- reading and reversing git-format patches ---- */

void
patch_paths(const char *text, size_t len, struct strvec *out)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 6 && !strncmp(p, "+++ b/", 6)) {
			char *path = xstrndup(p + 6, n - 6);

			if (!strset_has(out, path))
				strvec_push(out, path);
			free(path);
		} else if (n > 6 && !strncmp(p, "--- a/", 6) && nl && end - (nl + 1) >= 13 &&
			   !memcmp(nl + 1, "+++ /dev/null", 13)) {
			char *path = xstrndup(p + 6, n - 6); /* a deleted file */

			if (!strset_has(out, path))
				strvec_push(out, path);
			free(path);
		}
		p += n + 1;
	}
}

/* ---- what a patch may change (checked before libgit2 reads it) ---- */

/*
 * The lines patch_check reads, outside hunks:
 *
 *	diff --git a/OLD b/NEW     starts a file's section
 *	--- a/OLD | /dev/null, +++ b/NEW | /dev/null
 *	rename from P, rename to P, copy from P, copy to P
 *	old mode M, new mode M, new file mode M, deleted file mode M, index X..Y [M]
 *	@@ -a[,b] +c[,d] @@         a text hunk: b old and d new lines follow, each
 *	                            ' ' (or empty), '-' or '+'; '\' lines count as none
 *	GIT binary patch           then two blocks, the forward and the reverse one:
 *	  literal N | delta N      N: the size the block inflates to
 *	  L<base85>                L: A-Z = 1-26, a-z = 27-52 bytes, 5 characters
 *	  ...                      per 4 bytes (git's alphabet), zlib data in all
 *	  <empty line>
 *
 * A hunk's lines are counted as libgit2 counts them, so a "+++ b/x" inside
 * one is content, not a header.
 */

struct psection {
	int line;                 /* of "diff --git" */
	char *old_path, *new_path; /* NULL: none (/dev/null) */
	unsigned old_mode, new_mode;
	int is_new, is_deleted, binary;
	int body;                 /* a hunk or binary patch seen: headers are over */
	struct buf content;       /* a symlink's new target: its ' ' and '+' lines */
	size_t content_lines;
	int content_line;         /* the line of its first '+' */
};

static int
mode_of(const char *p, size_t n, unsigned *out)
{
	unsigned m = 0;
	size_t i;

	for (i = 0; i < n && i < 7; i++) {
		if (p[i] < '0' || p[i] > '7')
			break;
		m = m * 8 + (unsigned)(p[i] - '0');
	}
	if (i != n || n < 6)
		return -1;
	*out = m;
	return 0;
}

/* At most this much of a path in a message: a patch may name a 10 MB one. */
#define SHOWN(n) ((int)((n) > 120 ? 120 : (n)))

/* A path as a patch names it: relative, plain, inside the tree. */
static int
check_rel_path(const char *p, size_t n, struct buf *why)
{
	size_t i = 0;

	if (!n)
		return buf_addstr(why, "an empty path"), -1;
	if (p[0] == '"') {
		buf_addf(why, "the quoted path %.*s: bwbuild takes only plain names (no "
			 "control characters, quotes or backslashes)", SHOWN(n), p);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f) {
			buf_addf(why, "the path '%.*s' has a control character", SHOWN(i), p);
			return -1;
		}
	}
	if (p[0] == '/') {
		buf_addf(why, "'%.*s' is an absolute path; a patch changes paths inside the tree",
			 SHOWN(n), p);
		return -1;
	}
	for (i = 0; i < n;) {
		const char *slash = memchr(p + i, '/', n - i);
		size_t c = slash ? (size_t)(slash - (p + i)) : n - i;

		if (!c || (c == 1 && p[i] == '.') || (c == 2 && !memcmp(p + i, "..", 2))) {
			buf_addf(why, "'%.*s' is not a plain path inside the tree (an empty, '.' or "
				 "'..' component)", SHOWN(n), p);
			return -1;
		}
		if (c == 4 && !strncasecmp(p + i, ".git", 4)) {
			buf_addf(why, "'%.*s' is inside .git; a patch changes the work tree only",
				 SHOWN(n), p);
			return -1;
		}
		i += c + (slash ? 1 : 0);
		if (slash && i == n) {
			buf_addf(why, "'%.*s' ends in '/'", SHOWN(n), p);
			return -1;
		}
	}
	return 0;
}

/* "a/PATH" (prefix 'a' or 'b') or /dev/null into *out (NULL for /dev/null). */
static int
header_path(const char *p, size_t n, char prefix, char **out, struct buf *why)
{
	if (n && p[n - 1] == '\t')
		n--; /* git ends a name with a space in it by a tab */
	if (n == 9 && !memcmp(p, "/dev/null", 9)) {
		free(*out);
		*out = NULL;
		return 0;
	}
	if (n && p[0] == '"')
		return check_rel_path(p, n, why);
	if (n < 2 || p[0] != prefix || p[1] != '/') {
		buf_addf(why, "'%.*s' is not %c/PATH or /dev/null", SHOWN(n), p, prefix);
		return -1;
	}
	if (check_rel_path(p + 2, n - 2, why) < 0)
		return -1;
	free(*out);
	*out = xstrndup(p + 2, n - 2);
	return 0;
}

/* "diff --git a/OLD b/NEW": split where both names agree, else at the first " b/". */
static int
git_header_paths(const char *p, size_t n, struct psection *s, struct buf *why)
{
	const char *sp = NULL;

	if (n && p[0] == '"')
		return check_rel_path(p, n, why);
	if (n >= 7 && n % 2 == 1 && p[n / 2] == ' ' && !strncmp(p, "a/", 2) &&
	    !strncmp(p + n / 2 + 1, "b/", 2) && !memcmp(p + 2, p + n / 2 + 3, n / 2 - 2))
		sp = p + n / 2;
	else if (n > 2)
		sp = memmem(p + 2, n - 2, " b/", 3);
	if (!sp || strncmp(p, "a/", 2)) {
		buf_addf(why, "not a git diff header 'diff --git a/PATH b/PATH'");
		return -1;
	}
	if (header_path(p, (size_t)(sp - p), 'a', &s->old_path, why) < 0 ||
	    header_path(sp + 1, (size_t)(p + n - sp - 1), 'b', &s->new_path, why) < 0)
		return -1;
	return 0;
}

/* Where a symlink at `link` pointing to `target` lands: inside the tree, by its text alone. */
static int
check_link_target(const char *link, const char *target, size_t tlen, struct buf *why)
{
	long depth = 0;
	size_t i;

	for (i = 0; link[i]; i++)
		depth += link[i] == '/';
	if (!tlen || memchr(target, '\0', tlen) || memchr(target, '\n', tlen)) {
		buf_addf(why, "'%s' would be a symlink with an empty or multi-line target", link);
		return -1;
	}
	if (target[0] == '/') {
		buf_addf(why, "'%s' would be a symlink to '%.*s', outside the source tree; a patch may "
			 "only make symlinks to relative paths inside it", link, SHOWN(tlen), target);
		return -1;
	}
	for (i = 0; i < tlen;) {
		const char *slash = memchr(target + i, '/', tlen - i);
		size_t c = slash ? (size_t)(slash - (target + i)) : tlen - i;

		if (c == 2 && !memcmp(target + i, "..", 2)) {
			if (--depth < 0) {
				buf_addf(why, "'%s' would be a symlink to '%.*s', outside the source "
					 "tree; a patch may only make symlinks to paths inside it", link,
					 SHOWN(tlen), target);
				return -1;
			}
		} else if (c == 4 && !strncasecmp(target + i, ".git", 4)) {
			buf_addf(why, "'%s' would be a symlink into .git ('%.*s')", link, SHOWN(tlen),
				 target);
			return -1;
		} else if (c && !(c == 1 && target[i] == '.')) {
			depth++;
		}
		i += c + (slash ? 1 : 0);
	}
	return 0;
}

/*
 * libgit2 inflates a binary block whole into memory, and zlib data may
 * inflate ~1000 times its size: a source patch never needs more than this.
 */
#define PATCH_BINARY_MAX (64 << 20)

static const char b85_alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/* One data line of a binary block (without its newline) decoded onto `out`. */
static int
b85_line(const char *p, size_t n, struct buf *out, struct buf *why)
{
	size_t want, i, j;
	char c = n ? p[0] : 0;

	if (c >= 'A' && c <= 'Z')
		want = (size_t)(c - 'A' + 1);
	else if (c >= 'a' && c <= 'z')
		want = (size_t)(c - 'a' + 27);
	else
		return buf_addstr(why, "a binary data line must start with its length (A-Z, a-z)"), -1;
	if (n != 1 + (want + 3) / 4 * 5) {
		buf_addf(why, "a binary data line of %zu bytes has %zu characters, not %zu", want,
			 n - 1, (want + 3) / 4 * 5);
		return -1;
	}
	for (i = 1; i < n; i += 5) {
		uint32_t acc = 0;
		unsigned char four[4];

		for (j = 0; j < 5; j++) {
			const char *d = p[i + j] ? strchr(b85_alphabet, p[i + j]) : NULL;
			uint32_t v;

			if (!d)
				return buf_addf(why, "'%c' is not a base85 character", p[i + j]), -1;
			v = (uint32_t)(d - b85_alphabet);
			if (acc > (UINT32_MAX - v) / 85)
				return buf_addstr(why, "a base85 group overflows 32 bits"), -1;
			acc = acc * 85 + v;
		}
		four[0] = (unsigned char)(acc >> 24);
		four[1] = (unsigned char)(acc >> 16);
		four[2] = (unsigned char)(acc >> 8);
		four[3] = (unsigned char)acc;
		buf_add(out, four, want - (i - 1) / 5 * 4 >= 4 ? 4 : want - (i - 1) / 5 * 4);
	}
	return 0;
}

/*
 * The block's zlib data must end exactly at its end and inflate to exactly
 * `size` bytes (libgit2 1.5 spins forever on a stream that stops short).
 * Inflated through a fixed window, stopping past `size`: time bounded by
 * the data's real content, memory constant.
 */
static int
check_inflate(const struct buf *data, uint64_t size, struct buf *why)
{
	unsigned char window[16384];
	z_stream z;
	uint64_t total = 0;
	int rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		die("cannot initialise zlib");
	z.next_in = (unsigned char *)data->s;
	z.avail_in = (uInt)data->len;
	do {
		z.next_out = window;
		z.avail_out = sizeof(window);
		rc = inflate(&z, Z_NO_FLUSH);
		total += sizeof(window) - z.avail_out;
		if (total > size)
			break;
	} while (rc == Z_OK);
	inflateEnd(&z);
	if (total > size)
		buf_addf(why, "the binary data inflates to more than the %" PRIu64 " bytes it declares",
			 size);
	else if (rc != Z_STREAM_END)
		buf_addf(why, "the binary data is not a complete zlib stream (%s)",
			 rc == Z_BUF_ERROR ? "it stops short" : z.msg ? z.msg : "corrupt");
	else if (z.avail_in)
		buf_addf(why, "%u bytes follow the binary data's zlib stream", z.avail_in);
	else if (total != size)
		buf_addf(why, "the binary data inflates to %" PRIu64 " bytes, not the %" PRIu64
			 " it declares", total, size);
	else
		return 0;
	return -1;
}

struct pcursor {
	const char *p, *end;
	int line;         /* of the line at p */
};

static int
next_line(struct pcursor *c, const char **line, size_t *n)
{
	const char *nl;

	if (c->p >= c->end)
		return 0;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	*line = c->p;
	*n = nl ? (size_t)(nl - c->p) : (size_t)(c->end - c->p);
	c->p += *n + (nl ? 1 : 0);
	c->line++;
	return 1;
}

/* The two blocks after "GIT binary patch": 0, or the line of the first problem. */
static int
check_binary(struct pcursor *c, struct buf *why)
{
	struct buf data = BUF_INIT;
	const char *l;
	size_t n;
	int k, bad = 0;

	for (k = 0; k < 2 && !bad; k++) {
		unsigned long long size = 0;
		const char *num;
		char digits[24], *end = NULL;
		size_t nd;
		int last = 0, head;

		if (!next_line(c, &l, &n) ||
		    !((n > 8 && !strncmp(l, "literal ", 8)) || (n > 6 && !strncmp(l, "delta ", 6)))) {
			buf_addstr(why, k ? "a binary patch needs its reverse block too (git diff "
				   "--binary writes it), so that bwbuild can undo it" :
				   "'GIT binary patch' must be followed by 'literal N' or 'delta N'");
			bad = c->line;
			break;
		}
		head = c->line;
		num = l + (*l == 'l' ? 8 : 6);
		nd = (size_t)(l + n - num);
		errno = 0;
		if (nd < sizeof(digits)) {
			memcpy(digits, num, nd); /* the text need not end in a NUL */
			digits[nd] = '\0';
			size = strtoull(digits, &end, 10);
		}
		if (nd > 19 || errno || *end || !(*num >= '0' && *num <= '9')) {
			buf_addf(why, "'%.*s' is not 'literal N' or 'delta N'", (int)(n > 40 ? 40 : n), l);
			bad = head;
			break;
		}
		if (size > PATCH_BINARY_MAX) {
			buf_addf(why, "a binary block of %llu bytes; bwbuild takes binary patches of up to "
				 "%d MiB (libgit2 holds them whole): commit a file that large upstream",
				 size, PATCH_BINARY_MAX >> 20);
			bad = head;
			break;
		}
		buf_reset(&data);
		while (!last && !bad && next_line(c, &l, &n)) {
			if (!n)
				last = 1;
			else if (b85_line(l, n, &data, why) < 0)
				bad = c->line;
		}
		if (!bad && !data.len) {
			buf_addstr(why, "a binary block without data");
			bad = head;
		}
		if (!bad && check_inflate(&data, size, why) < 0)
			bad = head;
	}
	buf_release(&data);
	return bad;
}

/* "@@ -a[,b] +c[,d] @@": the old and new line counts that follow. */
static int
hunk_header(const char *l, size_t n, size_t len, unsigned long *old_left, unsigned long *new_left,
	    struct buf *why)
{
	char *line = xstrndup(l, n), *e;
	int ok;

	errno = 0;
	strtoul(line + 4, &e, 10);
	*old_left = *e == ',' ? strtoul(e + 1, &e, 10) : 1;
	*new_left = 0;
	if (!strncmp(e, " +", 2)) {
		strtoul(e + 2, &e, 10);
		*new_left = *e == ',' ? strtoul(e + 1, &e, 10) : 1;
	}
	ok = !errno && !strncmp(e, " @@", 3) && *old_left <= len && *new_left <= len;
	free(line);
	if (ok)
		return 0;
	buf_addstr(why, "not a hunk header '@@ -a,b +c,d @@'");
	*old_left = *new_left = 0;
	return -1;
}

void
patch_targets_free(struct patch_target *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].path);
	free(t);
}

static void
section_reset(struct psection *s)
{
	free(s->old_path);
	free(s->new_path);
	buf_release(&s->content);
	memset(s, 0, sizeof(*s));
	buf_init(&s->content);
}

static void
push_target(struct patch_target **t, size_t *n, size_t *cap, const char *path, int line)
{
	for (size_t i = *n; i > 0 && t[0][i - 1].line == line; i--)
		if (!strcmp(t[0][i - 1].path, path))
			return;
	ALLOC_GROW(*t, *n + 1, *cap);
	(*t)[*n].path = xstrdup(path);
	(*t)[*n].line = line;
	(*n)++;
}

/*
 * A finished section. No symlinks: libgit2 1.5 reads a symlink in the work
 * tree through the link (the file or directory it points to), so it could
 * neither check nor undo a patch that changes one; a symlink to outside the
 * tree gets the reason it would be worse.
 */
static int
section_end(struct psection *s, struct patch_target **t, size_t *n, size_t *cap, struct buf *why)
{
	if (!s->line)
		return 0;
	if (s->old_mode == 0120000 || s->new_mode == 0120000) {
		const char *path = s->new_path ? s->new_path : s->old_path ? s->old_path : "?";

		if (s->new_mode == 0120000 && !s->is_deleted && s->content_lines &&
		    check_link_target(path, s->content.s, s->content.len, why) < 0)
			return s->content_line ? s->content_line : s->line;
		buf_addf(why, "'%s' is a symlink (mode 120000): bwbuild's patches do not make, change "
			 "or delete symlinks (libgit2 reads through them, so it could not undo one); "
			 "change the files instead", path);
		return s->line;
	}
	if (s->old_path)
		push_target(t, n, cap, s->old_path, s->line);
	if (s->new_path)
		push_target(t, n, cap, s->new_path, s->line);
	return 0;
}

int
patch_check(const char *text, size_t len, struct patch_target **targets, size_t *ntargets,
	    struct buf *why)
{
	struct pcursor c = { text, text + len, 0 };
	struct psection s;
	struct patch_target *t = NULL;
	size_t nt = 0, cap = 0;
	unsigned long old_left = 0, new_left = 0;
	const char *l;
	size_t n;
	int bad = 0;

	memset(&s, 0, sizeof(s));
	buf_init(&s.content);
	while (!bad && next_line(&c, &l, &n)) {
		int here = c.line;

		if (old_left || new_left) {
			/* a hunk line, counted as libgit2 counts it */
			char k = n ? l[0] : ' ';

			if (k == ' ' || k == '-') {
				if (!old_left-- || (k == ' ' && !new_left--)) {
					buf_addstr(why, "a hunk has more lines than its header says");
					bad = here;
				}
			} else if (k == '+') {
				if (!new_left--) {
					buf_addstr(why, "a hunk has more lines than its header says");
					bad = here;
				}
			} else if (k != '\\') {
				buf_addstr(why, "a hunk has fewer lines than its header says");
				bad = here;
			}
			if (!bad && (k == ' ' || k == '+') && s.new_mode == 0120000 && n) {
				if (s.content_lines++)
					buf_addch(&s.content, '\n');
				buf_add(&s.content, l + 1, n - 1);
				if (k == '+' && !s.content_line)
					s.content_line = here;
			}
			continue;
		}
		if (n >= 11 && !strncmp(l, "diff --git ", 11)) {
			if ((bad = section_end(&s, &t, &nt, &cap, why)))
				break;
			section_reset(&s);
			s.line = here;
			if (git_header_paths(l + 11, n - 11, &s, why) < 0)
				bad = here;
		} else if (!s.line) {
			continue; /* the mail header and message before the first diff */
		} else if (n >= 4 && !strncmp(l, "@@ -", 4)) {
			bad = hunk_header(l, n, len, &old_left, &new_left, why) < 0 ? here : 0;
			s.body = 1;
		} else if (n == 16 && !strncmp(l, "GIT binary patch", 16)) {
			s.binary = s.body = 1;
			bad = check_binary(&c, why);
		} else if (s.body) {
			continue; /* after the hunks, as libgit2 does, until the next "diff --git" */
		} else if (n >= 4 && !strncmp(l, "--- ", 4)) {
			bad = header_path(l + 4, n - 4, 'a', &s.old_path, why) < 0 ? here : 0;
		} else if (n >= 4 && !strncmp(l, "+++ ", 4)) {
			bad = header_path(l + 4, n - 4, 'b', &s.new_path, why) < 0 ? here : 0;
		} else if ((n > 12 && !strncmp(l, "rename from ", 12)) ||
			   (n > 10 && !strncmp(l, "copy from ", 10))) {
			size_t skip = l[0] == 'r' ? 12 : 10;

			bad = check_rel_path(l + skip, n - skip, why) < 0 ? here : 0;
			if (!bad) {
				free(s.old_path);
				s.old_path = xstrndup(l + skip, n - skip);
			}
		} else if ((n > 10 && !strncmp(l, "rename to ", 10)) ||
			   (n > 8 && !strncmp(l, "copy to ", 8))) {
			size_t skip = l[0] == 'r' ? 10 : 8;

			bad = check_rel_path(l + skip, n - skip, why) < 0 ? here : 0;
			if (!bad) {
				free(s.new_path);
				s.new_path = xstrndup(l + skip, n - skip);
			}
		} else if (n > 9 && !strncmp(l, "old mode ", 9)) {
			bad = mode_of(l + 9, n - 9, &s.old_mode) < 0 ? here : 0;
		} else if (n > 9 && !strncmp(l, "new mode ", 9)) {
			bad = mode_of(l + 9, n - 9, &s.new_mode) < 0 ? here : 0;
		} else if (n > 14 && !strncmp(l, "new file mode ", 14)) {
			bad = mode_of(l + 14, n - 14, &s.new_mode) < 0 ? here : 0;
			s.is_new = 1;
		} else if (n > 18 && !strncmp(l, "deleted file mode ", 18)) {
			bad = mode_of(l + 18, n - 18, &s.old_mode) < 0 ? here : 0;
			s.is_deleted = 1;
		} else if (n > 6 && !strncmp(l, "index ", 6)) {
			const char *sp = memchr(l + 6, ' ', n - 6);

			if (sp) {
				bad = mode_of(sp + 1, (size_t)(l + n - sp - 1), &s.old_mode) < 0 ? here : 0;
				s.new_mode = s.old_mode;
			}
		}
		if (bad && !why->len)
			buf_addf(why, "'%.*s' is not a mode such as 100644", (int)(n > 80 ? 80 : n), l);
	}
	if (!bad && (old_left || new_left)) {
		buf_addstr(why, "the patch ends inside a hunk");
		bad = c.line;
	}
	if (!bad)
		bad = section_end(&s, &t, &nt, &cap, why);
	section_reset(&s);
	buf_release(&s.content);
	if (targets && !bad) {
		*targets = t;
		*ntargets = nt;
	} else {
		patch_targets_free(t, nt);
	}
	return bad;
}

int
patch_check_tree(const struct patch *pt, const char *src, struct buf *why)
{
	struct buf full = BUF_INIT, to = BUF_INIT;
	struct stat st;
	int bad = 0;

	for (size_t i = 0; i < pt->ntargets && !bad; i++) {
		const struct patch_target *t = &pt->targets[i];
		size_t base;

		buf_reset(&full);
		buf_addf(&full, "%s/", src);
		base = full.len;
		buf_addstr(&full, t->path);
		for (size_t k = base; k <= full.len && !bad; k++) {
			char saved = full.s[k];
			int last = k == full.len;

			if (!last && saved != '/')
				continue;
			full.s[k] = '\0';
			if (lstat(full.s, &st) < 0) {
				full.s[k] = saved;
				break; /* not there yet: git makes it */
			}
			if (S_ISLNK(st.st_mode)) {
				char target[PATH_MAX];
				ssize_t tl = readlink(full.s, target, sizeof(target) - 1);

				buf_reset(&to);
				if (tl >= 0)
					buf_addf(&to, " (to '%.*s')", (int)tl, target);
				if (last)
					buf_addf(why, "'%s' is a symlink in the tree%s; bwbuild's "
						 "patches do not change symlinks nor write through them",
						 t->path, to.s);
				else
					buf_addf(why, "'%s' goes through '%s', a symlink in the tree%s; "
						 "bwbuild does not write through symlinks", t->path,
						 full.s + base, to.s);
				bad = t->line;
			}
			full.s[k] = saved;
			if (!S_ISDIR(st.st_mode))
				break;
		}
	}
	buf_release(&full);
	buf_release(&to);
	return bad;
}

/* "@@ -a,b +c,d @@ rest" -> "@@ -c,d +a,b @@ rest" */
static void
reverse_hunk_header(const char *line, size_t n, struct buf *out)
{
	const char *minus = memchr(line, '-', n), *plus, *close;

	if (!minus || !(plus = memchr(minus, '+', n - (size_t)(minus - line))) || plus < minus + 2 ||
	    !(close = memmem(plus, (size_t)(line + n - plus), " @@", 3))) {
		buf_add(out, line, n);
		return;
	}
	buf_addstr(out, "@@ -");
	buf_add(out, plus + 1, (size_t)(close - plus - 1));
	buf_addstr(out, " +");
	buf_add(out, minus + 1, (size_t)(plus - minus - 2));
	buf_add(out, close, (size_t)(line + n - close));
}

/* After one block of a binary patch: its "literal N" line, its data lines and the empty line. */
static const char *
binary_block_end(const char *q, const char *end)
{
	int first = 1;

	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t n = nl ? (size_t)(nl - q) : (size_t)(end - q);

		q += n + (nl ? 1 : 0);
		if (!n && !first)
			break;
		first = 0;
	}
	return q;
}

void
patch_reverse(const char *text, size_t len, struct buf *out)
{
	const char *p = text, *end = text + len;
	int in_hunk = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n >= 11 && !strncmp(p, "diff --git ", 11)) {
			const char *b = n > 13 ? memmem(p + 13, n - 13, " b/", 3) : NULL;

			in_hunk = 0;
			if (b && !strncmp(p, "diff --git a/", 13)) {
				buf_addstr(out, "diff --git a/");
				buf_add(out, b + 3, (size_t)(p + n - b - 3));
				buf_addstr(out, " b/");
				buf_add(out, p + 13, (size_t)(b - p - 13));
			} else {
				buf_add(out, p, n);
			}
		} else if (!in_hunk && n >= 4 && !strncmp(p, "--- ", 4) && nl && end - (nl + 1) >= 4 &&
			   !memcmp(nl + 1, "+++ ", 4)) {
			/* swap the two names, keeping each side's a/ or b/ prefix */
			const char *q = nl + 1, *qnl = memchr(q, '\n', (size_t)(end - q));
			size_t qn = qnl ? (size_t)(qnl - q) : (size_t)(end - q);
			const char *oldname = p + 4, *newname = q + 4;
			size_t on = n - 4, nn = qn - 4;

			buf_addstr(out, "--- ");
			if (nn >= 2 && !strncmp(newname, "b/", 2))
				buf_addf(out, "a/%.*s", (int)(nn - 2), newname + 2);
			else
				buf_add(out, newname, nn);
			buf_addstr(out, "\n+++ ");
			if (on >= 2 && !strncmp(oldname, "a/", 2))
				buf_addf(out, "b/%.*s", (int)(on - 2), oldname + 2);
			else
				buf_add(out, oldname, on);
			p = q;
			n = qn;
			nl = qnl;
		} else if (!in_hunk && n == 16 && !strncmp(p, "GIT binary patch", 16) && nl) {
			/* the forward and the reverse block change places */
			const char *b1 = nl + 1, *b2 = binary_block_end(b1, end);
			const char *e2 = binary_block_end(b2, end);

			buf_addstr(out, "GIT binary patch\n");
			buf_add(out, b2, (size_t)(e2 - b2));
			if (e2 > b2 && (e2 - b2 < 2 || memcmp(e2 - 2, "\n\n", 2)))
				buf_addstr(out, e2[-1] == '\n' ? "\n" : "\n\n");
			buf_add(out, b1, (size_t)(b2 - b1));
			p = e2;
			continue;
		} else if (n >= 2 && !strncmp(p, "@@", 2)) {
			in_hunk = 1;
			reverse_hunk_header(p, n, out);
		} else if (!in_hunk && n > 14 && !strncmp(p, "new file mode ", 14)) {
			buf_addstr(out, "deleted file mode ");
			buf_add(out, p + 14, n - 14);
		} else if (!in_hunk && n > 18 && !strncmp(p, "deleted file mode ", 18)) {
			buf_addstr(out, "new file mode ");
			buf_add(out, p + 18, n - 18);
		} else if (!in_hunk && n > 6 && !strncmp(p, "index ", 6) && memchr(p, '.', n)) {
			const char *dots = memmem(p, n, "..", 2), *sp;

			if (dots && dots < p + n) {
				sp = memchr(dots, ' ', (size_t)(p + n - dots));
				buf_addstr(out, "index ");
				buf_add(out, dots + 2, (size_t)((sp ? sp : p + n) - dots - 2));
				buf_addstr(out, "..");
				buf_add(out, p + 6, (size_t)(dots - p - 6));
				if (sp)
					buf_add(out, sp, (size_t)(p + n - sp));
			} else {
				buf_add(out, p, n);
			}
		} else if (in_hunk && n && (*p == '+' || *p == '-')) {
			buf_addch(out, *p == '+' ? '-' : '+');
			buf_add(out, p + 1, n - 1);
		} else {
			if (in_hunk && n && *p != ' ' && *p != '\\')
				in_hunk = 0;
			buf_add(out, p, n);
		}
		if (nl)
			buf_addch(out, '\n');
		p += n + (nl ? 1 : 0);
	}
}


/* ---- moving hunks to where their lines are (git apply wants exact line numbers) ---- */

/* The file's lines as offsets; n lines. */
static size_t
split_lines(const char *text, size_t len, const char ***lines, size_t **lens)
{
	size_t n = 0, cap = 0, i = 0;

	*lines = NULL;
	*lens = NULL;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i;

		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			*lines = xreallocarray(*lines, cap, sizeof(**lines));
			*lens = xreallocarray(*lens, cap, sizeof(**lens));
		}
		(*lines)[n] = text + i;
		(*lens)[n] = l;
		n++;
		i += l + 1;
	}
	return n;
}

static uint64_t
line_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

/*
 * The 0-based file line nearest the stated `a` (1-based; on a tie the
 * earlier) where the hunk at `h` has all its `b` old lines (' ' and '-'),
 * or (size_t)-1. KMP over line hashes finds every place in one pass, each
 * candidate checked byte for byte nearest first: time linear in the file
 * and the hunk (a file of one repeated line is no worse), not their product.
 */
static size_t
nearest_match(const char *h, const char *end, size_t b, unsigned long a, const char **flines,
	      const size_t *flens, const uint64_t *fhash, size_t nf)
{
	const char **pl;
	size_t *plen, *fail, m = 0, q = 0, *cand = NULL, ncand = 0, candcap = 0, best = (size_t)-1;
	uint64_t *ph;

	/* a hunk cannot hold more lines than the text, nor match more than the file has */
	if (b > nf || b > (size_t)(end - h))
		return best;
	if (a > nf + 1)
		a = nf + 1; /* the same order of distances, no overflow */
	pl = xcalloc(b, sizeof(*pl));
	plen = xcalloc(b, sizeof(*plen));
	fail = xcalloc(b, sizeof(*fail));
	ph = xcalloc(b, sizeof(*ph));
	while (h < end && m < b) {
		const char *hnl = memchr(h, '\n', (size_t)(end - h));
		size_t hn = hnl ? (size_t)(hnl - h) : (size_t)(end - h);

		if (hn && (*h == ' ' || *h == '-')) {
			pl[m] = h + 1;
			plen[m] = hn - 1;
			ph[m] = line_hash(h + 1, hn - 1);
			m++;
		} else if (!hn || (*h != '+' && *h != '\\')) {
			break;
		}
		h += hn + 1;
	}
	if (m == b) {
		for (size_t i = 1, k = 0; i < m; i++) {
			while (k && ph[i] != ph[k])
				k = fail[k - 1];
			if (ph[i] == ph[k])
				k++;
			fail[i] = k;
		}
		for (size_t i = 0; i < nf; i++) {
			while (q && fhash[i] != ph[q])
				q = fail[q - 1];
			if (fhash[i] == ph[q])
				q++;
			if (q == m) {
				ALLOC_GROW(cand, ncand + 1, candcap);
				cand[ncand++] = i + 1 - m;
				q = fail[q - 1];
			}
		}
	}
	while (best == (size_t)-1 && ncand) {
		size_t pick = 0, k;
		int same = 1;

		for (size_t c = 1; c < ncand; c++) {
			long dc = labs((long)cand[c] + 1 - (long)a), dp = labs((long)cand[pick] + 1 - (long)a);

			if (dc < dp || (dc == dp && cand[c] < cand[pick]))
				pick = c;
		}
		k = cand[pick];
		for (size_t l = 0; l < m && same; l++)
			same = flens[k + l] == plen[l] && !memcmp(flines[k + l], pl[l], plen[l]);
		if (same)
			best = k;
		else
			cand[pick] = cand[--ncand]; /* a hash collision: the next nearest */
	}
	free(pl);
	free(plen);
	free(fail);
	free(ph);
	free(cand);
	return best;
}

/*
 * Rewrite each hunk header so its old side starts where its context and
 * removed lines really are in the file under `src` (the match nearest the
 * stated line), as GNU patch does with an offset; no fuzz: every line must
 * match. Hunks that match nowhere are left for git apply to report.
 */
int
patch_relocate(const char *text_in, size_t len, const char *src, struct buf *out)
{
	char *copy = xstrndup(text_in, len); /* hunk numbers are parsed with strtoul */
	const char *text = copy, *p = text, *end = text + len;
	struct buf file = BUF_INIT, content = BUF_INIT;
	const char **flines = NULL;
	size_t *flens = NULL, nf = 0;
	uint64_t *fhash = NULL;
	long delta = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 6 && !strncmp(p, "--- a/", 6)) {
			buf_reset(&file);
			buf_addf(&file, "%s/%.*s", src, (int)(n - 6), p + 6);
			buf_reset(&content);
			free(flines);
			free(flens);
			free(fhash);
			flines = NULL;
			flens = NULL;
			fhash = NULL;
			nf = 0;
			delta = 0;
			if (path_exists(file.s) && !is_dir(file.s) && read_file(&content, file.s) == 0) {
				nf = split_lines(content.s, content.len, &flines, &flens);
				fhash = xcalloc(nf ? nf : 1, sizeof(*fhash));
				for (size_t k = 0; k < nf; k++)
					fhash[k] = line_hash(flines[k], flens[k]);
			}
		} else if (n > 4 && !strncmp(p, "@@ -", 4) && nf) {
			unsigned long a, b = 1, c, d = 1;
			const char *q = p + 4, *tail, *h = nl ? nl + 1 : end;
			size_t want = 0, best = (size_t)-1;

			a = strtoul(q, (char **)&q, 10);
			if (*q == ',')
				b = strtoul(q + 1, (char **)&q, 10);
			if (*q == ' ' && q[1] == '+') {
				c = strtoul(q + 2, (char **)&q, 10);
				if (*q == ',')
					d = strtoul(q + 1, (char **)&q, 10);
			} else {
				c = a;
			}
			tail = q < p + n ? memmem(q, (size_t)(p + n - q), "@@", 2) : NULL;
			/* numbers past any file are left for git apply to refuse */
			if (b && a < (1UL << 40) && c < (1UL << 40) && d <= len)
				best = nearest_match(h, end, b, a, flines, flens, fhash, nf);
			if (best != (size_t)-1) {
				delta = (long)best + 1 - (long)a;
				want = 1;
			}
			if (want && tail && tail < p + n) {
				buf_addf(out, "@@ -%lu,%lu +%ld,%lu ", (unsigned long)(best + 1), b,
					 (long)c + delta, d);
				buf_add(out, tail, (size_t)(p + n - tail));
				buf_addch(out, '\n');
				p += n + (nl ? 1 : 0);
				continue;
			}
		}
		buf_add(out, p, n);
		if (nl)
			buf_addch(out, '\n');
		p += n + (nl ? 1 : 0);
	}
	free(flines);
	free(flens);
	free(fhash);
	free(copy);
	buf_release(&file);
	buf_release(&content);
	return 0;
}

/* ---- applying ---- */

/* Apply text (relocated to where its lines are) forwards or in reverse; check only or for real. */
static int
apply(const struct patch *pt, const char *src, int reverse, int check_only, struct buf *why)
{
	struct buf rev = BUF_INIT, moved = BUF_INIT;
	int rc;

	/* libgit2 follows symlinks in the work tree; nothing reaches it that would */
	if (patch_check_tree(pt, src, why))
		return -1;
	if (reverse)
		patch_reverse(pt->text, pt->len, &rev);
	else
		buf_add(&rev, pt->text, pt->len);
	patch_relocate(rev.s, rev.len, src, &moved);
	rc = repo_apply_text(src, moved.s, moved.len, check_only, why);
	buf_release(&rev);
	buf_release(&moved);
	return rc;
}

static int
is_applied(const struct patch *pt, const char *src)
{
	struct buf why = BUF_INIT;
	int applied = apply(pt, src, 1, 1, &why) == 0;

	buf_release(&why);
	return applied;
}

static int
unapply(const struct patch *pt, const char *src, struct buf *why)
{
	return apply(pt, src, 1, 0, why);
}

int
patch_selected(const struct patch *pt, unsigned version)
{
	struct buf why = BUF_INIT;
	int m = !pt->when || patch_when_matches(pt->when, version, &why) == 1;

	buf_release(&why);
	return m;
}

static void
selection_text(const struct patch_set *ps, unsigned version, struct buf *out)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (patch_selected(&ps->v[i], version))
			buf_addf(out, "%s %s\n", ps->v[i].sha256, ps->v[i].file);
}

int
patches_apply(const struct patch_set *ps, unsigned version, const char *src, const char *record,
	      struct json *out)
{
	struct buf why = BUF_INIT, rec = BUF_INIT;
	size_t i, j, done = 0;
	size_t *applied_now = xcalloc(ps->n ? ps->n : 1, sizeof(*applied_now));
	int ret = 0;

	for (i = 0; i < ps->n && !ret; i++) {
		const struct patch *pt = &ps->v[i];
		struct json *o;
		const char *status = NULL;
		int bad;

		if (!patch_selected(pt, version))
			continue;
		if ((bad = patch_check_tree(pt, src, &why))) {
			struct loc at = { pt->path, bad, 0 };

			error_at(&at, "refusing patch '%s': %s", pt->file, why.s);
			note_at(&pt->loc, "listed here");
			ret = -1;
		} else if (is_applied(pt, src)) {
			status = "already applied";
		} else if (apply(pt, src, 0, 1, &why) < 0 || apply(pt, src, 0, 0, &why) < 0) {
			error_at(&pt->loc, "patch '%s' does not apply to this tree: %s", pt->file, why.s);
			ret = -1;
		} else {
			applied_now[done++] = i;
			status = "applied";
		}
		buf_reset(&why);
		if (ret)
			break;
		fprintf(stderr, "fetch: patch %s: %s\n", pt->file, status);
		o = json_object();
		json_set(o, "file", json_string(pt->file));
		json_set(o, "sha256", json_string(pt->sha256));
		json_set(o, "status", json_string(status));
		json_push(out, o);
	}
	if (ret) {
		int stuck = 0;

		for (j = done; j > 0; j--) {
			buf_reset(&why);
			if (unapply(&ps->v[applied_now[j - 1]], src, &why) < 0)
				stuck = error("cannot undo patch '%s': %s", ps->v[applied_now[j - 1]].file,
					      why.s);
		}
		if (stuck)
			note("the tree at '%s' is left part-patched; 'bwbuild build --force' checks it "
			     "out afresh", src);
		else if (done)
			note("the %zu patch%s applied before it %s undone; the tree is as it was", done,
			     done == 1 ? "" : "es", done == 1 ? "was" : "were");
	}
	if (!ret) {
		selection_text(ps, version, &rec);
		ret = write_file_atomic(record, rec.s, rec.len);
	}
	free(applied_now);
	buf_release(&why);
	buf_release(&rec);
	return ret;
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
patches_before_checkout(const struct patch_set *ps, unsigned version, const char *src,
			const char *record, const char *commit, int force)
{
	struct buf have = BUF_INIT, want = BUF_INIT, head = BUF_INIT, why = BUF_INIT;
	struct strvec changed = STRVEC_INIT, touched = STRVEC_INIT;
	int ret = 0;
	size_t i, j;

	if (!path_exists(record) || read_file(&have, record) < 0)
		goto out;
	selection_text(ps, version, &want);
	for (i = 0; i < ps->n; i++)
		if (patch_selected(&ps->v[i], version))
			for (j = 0; j < ps->v[i].touches.n; j++)
				strvec_push(&touched, ps->v[i].touches.v[j]);
	if (commit && repo_head_commit(src, &head) == 0 && !strcmp(head.s, commit) &&
	    !strcmp(have.s, want.s) && repo_changed_paths(src, &changed) == 0) {
		int clean = 1;

		strvec_sort(&touched);
		for (i = 0; i < changed.n && clean; i++)
			clean = bsearch(&changed.v[i], touched.v, touched.n, sizeof(*touched.v),
					cmp_path) != NULL;
		for (i = 0; i < ps->n && clean; i++)
			if (patch_selected(&ps->v[i], version))
				clean = is_applied(&ps->v[i], src);
		if (clean) {
			ret = 1;
			goto out;
		}
	}
	/* Undo what the record says is applied, newest first. */
	for (i = ps->n; i > 0; i--) {
		const struct patch *pt = &ps->v[i - 1];
		struct buf line = BUF_INIT;

		buf_addf(&line, "%s %s\n", pt->sha256, pt->file);
		if (strstr(have.s, line.s) && is_applied(pt, src)) {
			buf_reset(&why);
			if (unapply(pt, src, &why) < 0) {
				error("cannot undo patch '%s' before checking out: %s", pt->file, why.s);
				ret = -1;
			} else {
				fprintf(stderr, "fetch: patch %s: undone\n", pt->file);
			}
		}
		buf_release(&line);
	}
	/*
	 * A recorded patch whose file has changed since (a newer bwbuild's
	 * series): its old text was applied and is not kept, so it cannot be
	 * undone; say so instead of leaving the dirty-tree message alone.
	 */
	for (const char *l = have.s; !ret && !force && *l;) {
		const char *nl = strchr(l, '\n'), *sp = strchr(l, ' ');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (sp && (size_t)(sp - l) < len) {
			struct buf file = BUF_INIT;

			buf_add(&file, sp + 1, len - (size_t)(sp - l) - 1);
			for (i = 0; i < ps->n; i++)
				if (!strcmp(ps->v[i].file, file.s) &&
				    ((size_t)(sp - l) != strlen(ps->v[i].sha256) ||
				     strncmp(l, ps->v[i].sha256, (size_t)(sp - l)))) {
					ret = error("patch '%s' has changed since an earlier build applied "
						    "it (recorded sha256 %.12s, now %.12s), and its old "
						    "text cannot be undone; run with --force to check the "
						    "tree out again with the new series",
						    file.s, l, ps->v[i].sha256);
					break;
				}
			buf_release(&file);
		}
		l += len + (nl ? 1 : 0);
	}
	if (!ret)
		unlink(record);
out:
	buf_release(&have);
	buf_release(&want);
	buf_release(&head);
	buf_release(&why);
	strvec_clear(&changed);
	strvec_clear(&touched);
	return ret;
}
