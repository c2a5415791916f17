#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/strvec.h"
#include "core/util.h"

const struct exit_code exit_codes[] = {
	{ EXIT_OK, "ok", "success: the build, check or comparison found nothing wrong" },
	{ EXIT_FAIL, "failed",
	  "the thing checked is not ok: a build or check failed, builds differ, not ready" },
	{ EXIT_USAGE, "usage",
	  "bad usage or bad input (option, profile, file), or an output that cannot be written" },
	{ EXIT_NO_GPU, "no-gpu", "no usable GPU for what must run on one (smoke)" },
	{ EXIT_SIGNAL + 2, "interrupted", "stopped by Ctrl-C (SIGINT); 128 + N for signal N" },
	{ EXIT_SIGNAL + 15, "terminated", "stopped by SIGTERM; 128 + N for signal N" },
	{ 0, NULL, NULL },
};

int diag_errors;
int diag_warnings;
int diag_quiet;

size_t
diag_invisible(const char *s, size_t n, unsigned *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c;

	if (n >= 2 && u[0] == 0xd8 && u[1] == 0x9c) {
		*cp = 0x061c;
		return 2;
	}
	if (n < 3 || (u[0] != 0xe2 && u[0] != 0xef) || (u[1] & 0xc0) != 0x80 || (u[2] & 0xc0) != 0x80)
		return 0;
	c = ((u[0] & 0x0fu) << 12) | ((u[1] & 0x3fu) << 6) | (u[2] & 0x3fu);
	if ((c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
	    (c >= 0x2060 && c <= 0x2064) || (c >= 0x2066 && c <= 0x2069) || c == 0xfeff) {
		*cp = c;
		return 3;
	}
	return 0;
}

/*
 * Messages carry names from outside (wheel members, RECORD rows, manifest
 * keys, paths), so every message is escaped on its way out: a control
 * byte (ESC, CR, BEL, ...; C1 controls in UTF-8) is shown as \xNN or
 * \uNNNN, never sent to the terminal to retitle or clear it, and so is
 * a character that reorders or hides text (bidi controls such as U+202E,
 * zero-width ones, U+2028/2029), so a name cannot look like another or
 * break a line the terminal draws (issue 40, F4); a newline
 * inside a message is followed by an indent, so no line a message makes
 * can start at the left margin and pass for bwbuild's own ("verify: OK").
 * Standard output's text keeps its newlines as they are (ESC_TEXT): the
 * names in it are escaped where they go in, a newline too (ESC_NAME).
 * The replacement of the byte at `s` (of `n` left) into `out` (at most
 * 8 bytes, not terminated); its length, and the bytes used in *used.
 */
enum esc_mode { ESC_MESSAGE, ESC_TEXT, ESC_NAME };

static size_t
escape_at(enum esc_mode mode, const char *s, size_t n, char *out, size_t *used)
{
	unsigned char c = (unsigned char)s[0];
	unsigned cp;

	*used = 1;
	if (c == '\n' && mode != ESC_NAME) {
		out[0] = '\n';
		if (mode == ESC_TEXT || (n > 1 && (s[1] == ' ' || s[1] == '\t')))
			return 1;
		out[1] = out[2] = ' ';
		return 3;
	}
	if ((c < 0x20 && c != '\t') || c == 0x7f)
		return (size_t)snprintf(out, 8, "\\x%02x", c);
	if (c == 0xc2 && n > 1 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f) {
		*used = 2;
		return (size_t)snprintf(out, 8, "\\u%04x", (unsigned char)s[1]);
	}
	if (c >= 0xd8 && (*used = diag_invisible(s, n, &cp)))
		return (size_t)snprintf(out, 8, "\\u%04x", cp);
	*used = 1;
	out[0] = (char)c;
	return 1;
}

static void
escape_into(struct buf *out, enum esc_mode mode, const char *s, size_t n)
{
	char rep[8];
	size_t used;

	for (size_t i = 0; i < n; i += used)
		buf_add(out, rep, escape_at(mode, s + i, n - i, rep, &used));
}

void
diag_escape(struct buf *out, const char *s, size_t n)
{
	escape_into(out, ESC_MESSAGE, s, n);
}

const char *
diag_name(struct buf *scratch, const char *s)
{
	buf_reset(scratch);
	escape_into(scratch, ESC_NAME, s, strlen(s));
	return scratch->s;
}

void
diag_write(FILE *f, const char *s, size_t n)
{
	char rep[8];
	size_t used, i, from = 0;

	/* Runs of bytes that need nothing go out as they are. */
	for (i = 0; i < n; i += used) {
		size_t k = escape_at(ESC_TEXT, s + i, n - i, rep, &used);

		if (k == 1 && used == 1 && rep[0] == s[i])
			continue;
		fwrite(s + from, 1, i - from, f);
		fwrite(rep, 1, k, f);
		from = i + used;
	}
	fwrite(s + from, 1, n - from, f);
}

void
diag_printf(FILE *f, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	diag_write(f, b.s, b.len);
	buf_release(&b);
}

/*
 * The message of `fmt` escaped to stderr, then ": strerror(err)" for a
 * format ending in ':' (err -1: never). No allocation is needed (xmalloc's die() reports
 * here): a message longer than the stack's buffer is formatted into
 * malloc'd memory when there is some, and cut otherwise.
 */
static void
put_message(int err, const char *fmt, va_list ap)
{
	char small[4096], *text = small, rep[8];
	size_t n = strlen(fmt), used;
	va_list again;
	int len;

	va_copy(again, ap);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	if (len >= (int)sizeof(small)) {
		text = malloc((size_t)len + 1);
		if (text) {
			vsnprintf(text, (size_t)len + 1, fmt, again);
		} else {
			text = small;
			len = (int)sizeof(small) - 1;
		}
	}
	va_end(again);
	for (size_t i = 0; len > 0 && i < (size_t)len; i += used)
		fwrite(rep, 1, escape_at(ESC_MESSAGE, text + i, (size_t)len - i, rep, &used), stderr);
	if (text != small)
		free(text);
	if (err >= 0 && n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(err));
	fputc('\n', stderr);
}

void
progress_note(const char *who, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s: ", who);
	va_start(ap, fmt);
	/* A progress line ending in ':' introduces a list, never a failure. */
	put_message(-1, fmt, ap);
	va_end(ap);
	errno = err;
}

/* A held report: its place, its text, its level, and the first report of its group. */
struct held {
	char *file;
	int line, col;
	size_t seq, group;
	char *text;
	char level; /* 'e' error, 'w' warning, else a note or hint */
};

static struct {
	struct strvec *errors, *warnings;
} capture;

static struct {
	int depth;
	struct held *v;
	size_t n, cap;
} held;

static int
is_attached(const char *level)
{
	return !strcmp(level, "note") || !strcmp(level, "hint");
}

static void
hold(const struct loc *loc, const char *level, const char *text)
{
	struct held *h;

	ALLOC_GROW(held.v, held.n + 1, held.cap);
	h = &held.v[held.n];
	memset(h, 0, sizeof(*h));
	if (loc && loc->file) {
		h->file = xstrdup(loc->file);
		h->line = loc->line;
		h->col = loc->col;
	}
	h->seq = held.n;
	h->group = is_attached(level) && held.n ? held.v[held.n - 1].group : held.n;
	h->text = xstrdup(text);
	h->level = !strcmp(level, "error") ? 'e' : !strcmp(level, "warning") ? 'w' : 'n';
	held.n++;
}

/* Groups by their first report's place; within a group, as they came. */
static int
cmp_held(const void *pa, const void *pb)
{
	const struct held *a = pa, *b = pb;
	const struct held *ga = &held.v[a->group], *gb = &held.v[b->group];
	int c;

	if (a->group != b->group) {
		if (!ga->file != !gb->file)
			return ga->file ? -1 : 1;
		if (ga->file && (c = strcmp(ga->file, gb->file)))
			return c;
		if (ga->line != gb->line)
			return ga->line < gb->line ? -1 : 1;
		if (ga->col != gb->col)
			return ga->col < gb->col ? -1 : 1;
		return a->group < b->group ? -1 : 1;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void
diag_collect_begin(void)
{
	held.depth++;
}

/* A finished report: to stderr, or while capturing into its list without the newline. */
static void
emit(char level, const char *text)
{
	struct strvec *to = level == 'e' ? capture.errors : level == 'w' ? capture.warnings : NULL;
	size_t n = strlen(text);

	if (!capture.errors) {
		fputs(text, stderr);
		return;
	}
	if (to)
		strvec_pushf(to, "%.*s", (int)(n && text[n - 1] == '\n' ? n - 1 : n), text);
}

void
diag_capture_begin(struct strvec *errors, struct strvec *warnings)
{
	capture.errors = errors;
	capture.warnings = warnings;
}

void
diag_capture_end(void)
{
	capture.errors = capture.warnings = NULL;
}

static void
flush_held(void)
{
	struct held *sorted = held.v;
	size_t n = held.n;

	held.v = NULL;
	held.n = held.cap = 0;
	/* cmp_held reads the groups' heads through held.v: sort a copy against the original. */
	if (n) {
		struct held *copy = xcalloc(n, sizeof(*copy));

		memcpy(copy, sorted, n * sizeof(*copy));
		held.v = sorted;
		qsort(copy, n, sizeof(*copy), cmp_held);
		held.v = NULL;
		fflush(stdout);
		for (size_t i = 0; i < n; i++)
			emit(copy[i].level, copy[i].text);
		free(copy);
	}
	for (size_t i = 0; i < n; i++) {
		free(sorted[i].file);
		free(sorted[i].text);
	}
	free(sorted);
}

void
diag_collect_end(void)
{
	if (held.depth > 0 && --held.depth == 0)
		flush_held();
}

/* "file:line:col: level: message" to stderr, as it comes: no allocation (xmalloc's die() reports here). */
static void
vprint(const struct loc *loc, const char *level, int err, const char *fmt, va_list ap)
{
	fflush(stdout);
	if (loc && loc->file) {
		fputs(loc->file, stderr);
		if (loc->line > 0)
			fprintf(stderr, ":%d", loc->line);
		if (loc->line > 0 && loc->col > 0)
			fprintf(stderr, ":%d", loc->col);
		fputs(": ", stderr);
	}
	fprintf(stderr, "%s: ", level);
	put_message(err, fmt, ap);
}

static void
vreport(const struct loc *loc, const char *level, const char *fmt, va_list ap)
{
	int err = errno;
	size_t n = strlen(fmt);
	struct buf b = BUF_INIT, msg = BUF_INIT;

	if (diag_quiet)
		return;
	/* Held while capturing too: the capture keeps what a collection would print. */
	if (!held.depth && !capture.errors) {
		vprint(loc, level, err, fmt, ap);
		errno = err;
		return;
	}
	if (loc && loc->file) {
		buf_addstr(&b, loc->file);
		if (loc->line > 0)
			buf_addf(&b, ":%d", loc->line);
		if (loc->line > 0 && loc->col > 0)
			buf_addf(&b, ":%d", loc->col);
		buf_addstr(&b, ": ");
	}
	buf_addf(&b, "%s: ", level);
	buf_vaddf(&msg, fmt, ap);
	diag_escape(&b, msg.s, msg.len);
	buf_release(&msg);
	if (n && fmt[n - 1] == ':')
		buf_addf(&b, " %s", strerror(err));
	buf_addch(&b, '\n');
	if (held.depth)
		hold(loc, level, b.s);
	else
		emit(!strcmp(level, "error") ? 'e' : !strcmp(level, "warning") ? 'w' : 'n', b.s);
	buf_release(&b);
	errno = err;
}

#define REPORT(loc, level)                      \
	do {                                    \
		va_list ap;                     \
		va_start(ap, fmt);              \
		vreport(loc, level, fmt, ap);   \
		va_end(ap);                     \
	} while (0)

int
error(const char *fmt, ...)
{
	diag_errors++;
	REPORT(NULL, "error");
	return -1;
}

void
warning(const char *fmt, ...)
{
	diag_warnings++;
	REPORT(NULL, "warning");
}

void
note(const char *fmt, ...)
{
	REPORT(NULL, "note");
}

void
hint(const char *fmt, ...)
{
	REPORT(NULL, "hint");
}

void
die(const char *fmt, ...)
{
	held.depth = 0;
	diag_capture_end();
	flush_held();
	REPORT(NULL, "fatal");
	exit(EXIT_FAIL);
}

void
bug_at(const char *file, int line, const char *fmt, ...)
{
	struct loc loc = { file, line, 0 };

	REPORT(&loc, "BUG");
	abort();
}

int
error_at(const struct loc *loc, const char *fmt, ...)
{
	diag_errors++;
	REPORT(loc, "error");
	return -1;
}

void
warning_at(const struct loc *loc, const char *fmt, ...)
{
	diag_warnings++;
	REPORT(loc, "warning");
}

void
note_at(const struct loc *loc, const char *fmt, ...)
{
	REPORT(loc, "note");
}

void
note_lines(char *const *lines, size_t n, size_t most)
{
	for (size_t i = 0; i < n && i < most; i++)
		note("%s", lines[i]);
	if (n > most)
		note("and %zu more", n - most);
}
