#ifndef BWBUILD_DIAG_H
#define BWBUILD_DIAG_H

#include <stddef.h>

/*
 * Reporting, in git's wording: lowercase, no full stop, the failure first,
 * the subject in single quotes. Errors go to stderr once, where they are
 * detected; callers then return -1 up the stack without printing again.
 *
 * A format ending in ':' gets ": <strerror(errno)>" appended (samurai).
 */

/* Exit statuses of every bwbuild command (docs/design/pipeline.md §2). */
enum {
	EXIT_OK = 0,       /* success */
	EXIT_FAIL = 1,     /* a failed check or build */
	EXIT_USAGE = 2,    /* usage error or bad input */
	EXIT_NO_GPU = 3,   /* bwbuild smoke: no usable GPU here, nothing was run */
	EXIT_SIGNAL = 128, /* + N: stopped by signal N (130 for Ctrl-C) */
};

/*
 * The steps of a build, in order (docs/design/pipeline.md §1). Their names
 * are defined once, in step_names: --until, the progress lines, the logs
 * (<work>/logs/STEP.log), the fault points, `bwbuild plan` and the
 * manifest's timings all take them from there.
 */
enum step {
	STEP_FETCH,
	STEP_CONFIGURE,
	STEP_COMPILE,
	STEP_WHEEL,
	STEP_VERIFY,
	STEP_SMOKE,
	STEP_PUBLISH,
	STEP__COUNT
};
extern const char *const step_names[STEP__COUNT];
/* Step by name, or -1. */
int step_from_name(const char *name);

/*
 * A line of a step's progress on stderr, "STEP: message" (the format
 * without its newline); how every step reports what it is doing.
 */
void step_note(enum step step, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A place in a file: 1-based line and column; file NULL when unknown. */
struct loc {
	const char *file;
	int line;
	int col;
};

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

/* Number of errors reported since start (lets a caller report many). */
extern int diag_errors;
/* Number of warnings reported since start. */
extern int diag_warnings;
/* While set, reports are counted but not printed (probing, e.g. listing profiles). */
extern int diag_quiet;

#endif
