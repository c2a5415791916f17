#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"

int diag_errors;
int diag_warnings;
int diag_quiet;

static void
vreport(const struct loc *loc, const char *level, const char *fmt, va_list ap)
{
	int err = errno;
	size_t n = strlen(fmt);

	if (diag_quiet)
		return;
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
	vfprintf(stderr, fmt, ap);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(err));
	fputc('\n', stderr);
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
die(const char *fmt, ...)
{
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
