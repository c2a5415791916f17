/*
 * Reading a git-format patch and what it may change, checked before
 * libgit2 reads it (patch.h, docs/design/patches.md): its paths, modes
 * and symlink targets stay inside the tree, binary hunks are well formed,
 * and the tree it is applied to has no symlink on its paths. Pure: no
 * libgit2. May include: core/, sources/patch.h.
 */
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
#include "sources/patch.h"
#include "core/util.h"

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

/* The path of a "rename from/to" or "copy from/to" line, checked, into *path; 0 or -1 (why says). */
static int
moved_path(const char *p, size_t n, char **path, struct buf *why)
{
	if (check_rel_path(p, n, why) < 0)
		return -1;
	free(*path);
	*path = xstrndup(p, n);
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
/*
 * All the binary blocks of one patch together: a cap per block alone let a
 * 1.3 MB patch of sixteen 64 MiB blocks write 1 GiB into the tree (issue 31).
 */
#define PATCH_BINARY_TOTAL (128 << 20)

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

/*
 * The two blocks after "GIT binary patch": 0, or the line of the first
 * problem. Their declared sizes are added to *total, the patch's so far.
 */
static int
check_binary(struct pcursor *c, uint64_t *total, struct buf *why)
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
		*total += size;
		if (*total > PATCH_BINARY_TOTAL) {
			buf_addf(why, "its binary blocks declare %" PRIu64 " bytes so far, more than the "
				 "%d MiB bwbuild takes in one patch: commit files that large upstream",
				 *total, PATCH_BINARY_TOTAL >> 20);
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

/*
 * A line inside a hunk, counted as libgit2 counts it against the header's
 * line counts; a symlink's new content is kept for check_link_target. The
 * line number of a miscount, or 0.
 */
static int
hunk_line(struct psection *s, const char *l, size_t n, int here, unsigned long *old_left,
	  unsigned long *new_left, struct buf *why)
{
	char k = n ? l[0] : ' ';

	if (k == ' ' || k == '-') {
		if (!(*old_left)-- || (k == ' ' && !(*new_left)--)) {
			buf_addstr(why, "a hunk has more lines than its header says");
			return here;
		}
	} else if (k == '+') {
		if (!(*new_left)--) {
			buf_addstr(why, "a hunk has more lines than its header says");
			return here;
		}
	} else if (k != '\\') {
		buf_addstr(why, "a hunk has fewer lines than its header says");
		return here;
	}
	if ((k == ' ' || k == '+') && s->new_mode == 0120000 && n) {
		if (s->content_lines++)
			buf_addch(&s->content, '\n');
		buf_add(&s->content, l + 1, n - 1);
		if (k == '+' && !s->content_line)
			s->content_line = here;
	}
	return 0;
}

/*
 * git's extended header lines between "diff --git" and the hunks: renames
 * and copies, modes, the index line's mode. Any other line is left alone.
 * -1 on a bad path or mode (the path's reason in `why`).
 */
static int
extended_header(struct psection *s, const char *l, size_t n, struct buf *why)
{
	if ((n > 12 && !strncmp(l, "rename from ", 12)) || (n > 10 && !strncmp(l, "copy from ", 10))) {
		size_t skip = l[0] == 'r' ? 12 : 10;

		return moved_path(l + skip, n - skip, &s->old_path, why);
	}
	if ((n > 10 && !strncmp(l, "rename to ", 10)) || (n > 8 && !strncmp(l, "copy to ", 8))) {
		size_t skip = l[0] == 'r' ? 10 : 8;

		return moved_path(l + skip, n - skip, &s->new_path, why);
	}
	if (n > 9 && !strncmp(l, "old mode ", 9))
		return mode_of(l + 9, n - 9, &s->old_mode);
	if (n > 9 && !strncmp(l, "new mode ", 9))
		return mode_of(l + 9, n - 9, &s->new_mode);
	if (n > 14 && !strncmp(l, "new file mode ", 14)) {
		s->is_new = 1;
		return mode_of(l + 14, n - 14, &s->new_mode);
	}
	if (n > 18 && !strncmp(l, "deleted file mode ", 18)) {
		s->is_deleted = 1;
		return mode_of(l + 18, n - 18, &s->old_mode);
	}
	if (n > 6 && !strncmp(l, "index ", 6)) {
		const char *sp = memchr(l + 6, ' ', n - 6);
		int rc = 0;

		if (sp) {
			rc = mode_of(sp + 1, (size_t)(l + n - sp - 1), &s->old_mode);
			s->new_mode = s->old_mode;
		}
		return rc;
	}
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
	uint64_t binary = 0;
	const char *l;
	size_t n;
	int bad = 0;

	memset(&s, 0, sizeof(s));
	buf_init(&s.content);
	while (!bad && next_line(&c, &l, &n)) {
		int here = c.line;

		if (old_left || new_left) {
			bad = hunk_line(&s, l, n, here, &old_left, &new_left, why);
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
			bad = check_binary(&c, &binary, why);
		} else if (s.body) {
			continue; /* after the hunks, as libgit2 does, until the next "diff --git" */
		} else if (n >= 4 && !strncmp(l, "--- ", 4)) {
			bad = header_path(l + 4, n - 4, 'a', &s.old_path, why) < 0 ? here : 0;
		} else if (n >= 4 && !strncmp(l, "+++ ", 4)) {
			bad = header_path(l + 4, n - 4, 'b', &s.new_path, why) < 0 ? here : 0;
		} else {
			bad = extended_header(&s, l, n, why) < 0 ? here : 0;
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
