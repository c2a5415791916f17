#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/diag.h"
#include "../../src/core/strvec.h"
#include "t.h"

static char err[4096];

/* Run the reports of `fn` with stderr captured into err. */
static void
capture(void (*fn)(void))
{
	int saved, fd;
	ssize_t n;

	fflush(stderr);
	fd = open(t_write("diag.err", ""), O_RDWR | O_TRUNC);
	saved = dup(2);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, err, sizeof(err) - 1);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* In the order a validator finds them: merged tree first, checks after. */
static void
unsorted(void)
{
	struct loc b8 = { "b.yaml", 8, 9 }, a10 = { "a.yaml", 10, 3 }, a5 = { "a.yaml", 5, 3 };
	struct loc a5c1 = { "a.yaml", 5, 1 }, parent = { "p.yaml", 4, 16 };

	diag_collect_begin();
	error_at(&b8, "b8");
	error_at(&a10, "a10");
	hint("for a10");
	warning("no place");
	error_at(&a5, "a5");
	note_at(&parent, "set here");
	diag_collect_begin();
	error_at(&a5, "a5 again");
	diag_collect_end();
	error_at(&a5c1, "a5c1");
	diag_collect_end();
}

static void
plain(void)
{
	struct loc b8 = { "b.yaml", 8, 9 }, a5 = { "a.yaml", 5, 3 };

	error_at(&b8, "b8");
	error_at(&a5, "a5");
}

/* A name from outside with a newline, escape sequences, a C1 CSI (issue 31). */
static const char hostile[] = "x.so\nverify: OK all good\x1b]0;owned\x07\r\xc2\x9b" "2J \xc3\xa9";

static void
escaped(void)
{
	error("'%s' is bad", hostile);
	diag_collect_begin();
	warning("'%s' held", hostile);
	diag_collect_end();
	progress_note("verify", "'%s'", hostile);
	error("'%s' is bad", "gpj.\xe2\x80\xae" "exe");
	/* Lines bwbuild means to indent keep their own indent. */
	error("cause: x\n  what to do");
}

/* git's wording: "LEVEL: msg", a place first when known, strerror after a ':'; quiet counts. */
static void
basics(void)
{
	struct loc at = { "profiles/x.yaml", 12, 5 }, line_only = { "p.yaml", 3, 0 },
		   nowhere = { NULL, 0, 0 };
	static char one[] = "one", two[] = "two", three[] = "three", four[] = "four";
	char *lines[] = { one, two, three, four };
	int errors = diag_errors, warnings = diag_warnings;
	const char *e;

	t_stderr_begin();
	CHECK(error("cannot read '%s'", "a") == -1);
	warning("slow %d", 1);
	note("see %s", "docs");
	errno = ENOENT;
	error("cannot open '%s':", "b");
	CHECK(errno == ENOENT);   /* reporting keeps errno */
	CHECK(error_at(&at, "unknown key '%s'", "jobz") == -1);
	warning_at(&line_only, "deprecated");
	note_at(&nowhere, "plain");
	note_lines(lines, 4, 2);
	note_lines(lines, 2, 5);
	e = t_stderr_end();
	CHECK_STR(e, "error: cannot read 'a'\n"
		     "warning: slow 1\n"
		     "note: see docs\n"
		     "error: cannot open 'b': No such file or directory\n"
		     "profiles/x.yaml:12:5: error: unknown key 'jobz'\n"
		     "p.yaml:3: warning: deprecated\n"
		     "note: plain\n"
		     "note: one\nnote: two\nnote: and 2 more\n"
		     "note: one\nnote: two\n");
	CHECK(diag_errors == errors + 3);
	CHECK(diag_warnings == warnings + 2);

	/* Quiet: counted, never printed. */
	t_stderr_begin();
	diag_quiet = 1;
	error("hidden");
	warning("hidden");
	diag_quiet = 0;
	e = t_stderr_end();
	CHECK_STR(e, "");
	CHECK(diag_errors == errors + 4);
	CHECK(diag_warnings == warnings + 3);
	diag_errors = errors;
	diag_warnings = warnings;
}

/* Captured: the lines a collection would print, errors and warnings apart, nothing on stderr. */
static void
captured(void)
{
	struct strvec errors = STRVEC_INIT, warnings = STRVEC_INIT;
	struct loc b8 = { "b.yaml", 8, 9 }, a5 = { "a.yaml", 5, 3 };
	int e0 = diag_errors, w0 = diag_warnings;
	const char *e;

	t_stderr_begin();
	diag_capture_begin(&errors, &warnings);
	diag_collect_begin();
	error_at(&b8, "b8");
	hint("dropped");
	warning_at(&a5, "w5");
	error_at(&a5, "a5");
	diag_collect_end();
	error("outside a collection");
	diag_capture_end();
	e = t_stderr_end();
	CHECK_STR(e, "");
	CHECK(errors.n == 3 && warnings.n == 1);
	if (errors.n == 3) {
		CHECK_STR(errors.v[0], "a.yaml:5:3: error: a5");
		CHECK_STR(errors.v[1], "b.yaml:8:9: error: b8");
		CHECK_STR(errors.v[2], "error: outside a collection");
	}
	if (warnings.n == 1)
		CHECK_STR(warnings.v[0], "a.yaml:5:3: warning: w5");
	CHECK(diag_errors == e0 + 3 && diag_warnings == w0 + 1);
	diag_errors = e0;
	diag_warnings = w0;
	strvec_clear(&errors);
	strvec_clear(&warnings);
}

/*
 * Standard output's text keeps its own newlines and tabs, loses every other
 * control byte; a name put into it stays on one line (issue 31).
 */
static void
stdout_text(void)
{
	const char *evil = "k\nverify: OK all good\x1b]0;owned\x07\xc2\x9b" "2J\t\xc3\xa9";
	const char *text_in = "a\n\tb\x1b[2J\r\x7f\xc2\x85 \xc2\xa0\n";
	struct buf name = BUF_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK_STR(diag_name(&name, evil),
		  "k\\x0averify: OK all good\\x1b]0;owned\\x07\\u009b2J\t\xc3\xa9");
	CHECK_STR(diag_name(&name, "plain"), "plain");
	/* Characters that reorder, hide or break the line the terminal draws (issue 40, F4). */
	CHECK_STR(diag_name(&name, "lib\xe2\x80\xaeos.so\xe2\x80\x8b\xe2\x80\xa8x\xef\xbb\xbf\xd8\x9c\xe2\x81\xa6"),
		  "lib\\u202eos.so\\u200b\\u2028x\\ufeff\\u061c\\u2066");
	/* Their neighbours are text: U+2010 hyphen, U+2030 per mille, U+00E9. */
	CHECK_STR(diag_name(&name, "\xe2\x80\x90\xe2\x80\xb0\xc3\xa9\xe2\x80"), "\xe2\x80\x90\xe2\x80\xb0\xc3\xa9\xe2\x80");
	diag_write(f, text_in, strlen(text_in));
	diag_printf(f, "%s: %zu\n", evil, (size_t)3);
	diag_printf(f, "%s\n", "a\xe2\x80\xae" "b");
	fclose(f);
	CHECK_STR(text, "a\n\tb\\x1b[2J\\x0d\\x7f\\u0085 \xc2\xa0\n"
			"k\nverify: OK all good\\x1b]0;owned\\x07\\u009b2J\t\xc3\xa9: 3\n"
			"a\\u202eb\n");
	free(text);
	buf_release(&name);
}

void
t_diag(void)
{
	int errors = diag_errors, warnings = diag_warnings;

	capture(unsorted);
	/* By file, line and column; equals as they came; a note or hint stays with its report. */
	CHECK_STR(err, "a.yaml:5:1: error: a5c1\n"
		       "a.yaml:5:3: error: a5\n"
		       "p.yaml:4:16: note: set here\n"
		       "a.yaml:5:3: error: a5 again\n"
		       "a.yaml:10:3: error: a10\n"
		       "hint: for a10\n"
		       "b.yaml:8:9: error: b8\n"
		       "warning: no place\n");
	CHECK(diag_errors == errors + 5 && diag_warnings == warnings + 1);
	/* Outside a collection: as they come. */
	capture(plain);
	CHECK_STR(err, "b.yaml:8:9: error: b8\na.yaml:5:3: error: a5\n");
	/* No line starts at the margin but bwbuild's own; no control byte reaches the terminal. */
	capture(escaped);
	CHECK_STR(err, "error: 'x.so\n  verify: OK all good\\x1b]0;owned\\x07\\x0d\\u009b2J \xc3\xa9' is bad\n"
		       "warning: 'x.so\n  verify: OK all good\\x1b]0;owned\\x07\\x0d\\u009b2J \xc3\xa9' held\n"
		       "verify: 'x.so\n  verify: OK all good\\x1b]0;owned\\x07\\x0d\\u009b2J \xc3\xa9'\n"
		       "error: 'gpj.\\u202eexe' is bad\n"
		       "error: cause: x\n  what to do\n");
	basics();
	captured();
	stdout_text();
}
