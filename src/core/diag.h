#ifndef BWBUILD_DIAG_H
#define BWBUILD_DIAG_H

#include <stddef.h>
#include <stdio.h>

/*
 * Reporting, in git's wording: lowercase, no full stop, the failure first,
 * the subject in single quotes. Errors go to stderr once, where they are
 * detected; callers then return -1 up the stack without printing again.
 *
 * A format ending in ':' gets ": <strerror(errno)>" appended (samurai),
 * except in step_note, whose ':' introduces the lines that follow.
 */

/*
 * The exit statuses of every bwbuild command: the one contract, printed by
 * 'bwbuild help exit-codes' from exit_codes[] (diag.c) and checked command by
 * command by tests/cli/exit-codes.sh (docs/design/pipeline.md §2). 1 is a verdict about the thing
 * checked (diff: "they differ"), so what keeps a command from reaching one
 * (bad usage, unreadable input, an output that cannot be written) is 2.
 */
enum {
	EXIT_OK = 0,      /* success: the thing checked is ok */
	EXIT_FAIL = 1,    /* the thing checked is not ok: a check, a build, a difference */
	EXIT_USAGE = 2,   /* bad usage or bad input, or an output that cannot be written */
	EXIT_NO_GPU = 3,  /* no usable GPU for what must run on one (smoke) */
	EXIT_SIGNAL = 128 /* + N when stopped by signal N: 130 Ctrl-C, 143 TERM */
};

struct exit_code {
	int code;
	const char *name;    /* one word, as tests and scripts name the class */
	const char *meaning; /* one line */
};
/* Every row of the contract, in order; ends with a NULL name. */
extern const struct exit_code exit_codes[];

/*
 * A line of progress on stderr, "WHO: message" (the format without its
 * newline), escaped as every message is. A format ending in ':' introduces
 * a list and gets no strerror. The pipeline's steps say theirs through
 * step_note (pipeline/build.h), with WHO the step's name.
 */
void progress_note(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A place in a file: 1-based line and column; file NULL when unknown. */
struct loc {
	const char *file;
	int line;
	int col;
};

/*
 * Every message below is escaped on its way out (diag.c, escape_at): a
 * control byte from a name is shown as \xNN, a newline inside a message
 * is followed by an indent. diag_escape appends `s` (`n` bytes) so
 * escaped, for text printed elsewhere.
 */
struct buf;
void diag_escape(struct buf *out, const char *s, size_t n);
/*
 * The length of the invisible character `s` (`n` bytes) starts with, 0
 * when it does not start with one, its code point in *cp: a bidi control
 * (U+061C, U+200E/F, U+202A-E, U+2066-9), a zero-width one (U+200B-D,
 * U+2060-4, U+FEFF) or U+2028/2029. Every escaper shows these as \uNNNN;
 * verify refuses a member name holding one.
 */
size_t diag_invisible(const char *s, size_t n, unsigned *cp);

/*
 * Standard output's text (listings, reports, Markdown) is written through
 * diag_write or diag_printf: as it is, but a control byte other than
 * newline and tab, and a C1 control, shown as in messages, so no byte of
 * a name reaches the terminal as an escape sequence. A name from outside
 * (a wheel member, a manifest key or value, a RECORD row, a profile value)
 * goes into such text through diag_name: escaped into `scratch` (reset
 * first), a newline shown as \x0a too, so it stays on its own line and
 * cannot forge one of bwbuild's ("verify: OK"); returns scratch->s.
 */
void diag_write(FILE *f, const char *s, size_t n);
void diag_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *diag_name(struct buf *scratch, const char *s);

int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "hint: did you mean 'archs'?": what to do, after the error it belongs to. */
void hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
__attribute__((noreturn)) void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
__attribute__((noreturn)) void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "file:line:col: error: msg"; returns -1. */
int error_at(const struct loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void warning_at(const struct loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void note_at(const struct loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A note per line, the first `most` of them, then "and N more". */
void note_lines(char *const *lines, size_t n, size_t most);

/*
 * Between diag_collect_begin() and diag_collect_end(), reports are held
 * and then printed sorted by file, line and column (the order they came
 * in among equals; reports with no place after the others), each note
 * and hint staying after the report it follows. Used where one run
 * reports every problem of a profile, found in whatever order the checks
 * run. Nested pairs print at the outermost end.
 */
void diag_collect_begin(void);
void diag_collect_end(void);

/*
 * Between diag_capture_begin() and diag_capture_end(), errors and
 * warnings are not printed but kept, each as the line it would have been
 * ("FILE:LINE:COL: error: MESSAGE", no newline; its hints and notes
 * dropped), in the order diag_collect_end would print them: how a
 * command reports another command's findings as data (`bwbuild profiles
 * --json` gives the problems `plan` prints). Not nested.
 */
struct strvec;
void diag_capture_begin(struct strvec *errors, struct strvec *warnings);
void diag_capture_end(void);

/* Number of errors reported since start (lets a caller report many). */
extern int diag_errors;
/* Number of warnings reported since start. */
extern int diag_warnings;
/* While set, reports are counted but not printed (probing, e.g. listing profiles). */
extern int diag_quiet;

#endif
