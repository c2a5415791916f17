#ifndef BWBUILD_REPOWORK_H
#define BWBUILD_REPOWORK_H

/*
 * A work tree's own files and progress lines, without libgit2 (repowork.c).
 */

#include <stddef.h>

struct buf;

/* The relative path from directory `from` to `to` (both absolute), as a gitlink names it. */
void repo_relative_path(const char *from, const char *to, struct buf *out);

/*
 * Progress into a log (not a terminal): nothing for the first 5 seconds,
 * then at most one line per 10% and per 5 seconds, however often libgit2
 * reports (a fetch reports on every object, and again while it resolves
 * deltas). repo_progress_due says whether a line is due `now` (seconds).
 */
struct repo_progress {
	double start, last;
	unsigned next_pct;
};
void repo_progress_start(struct repo_progress *p, double now);
int repo_progress_due(struct repo_progress *p, size_t done, size_t total, double now);


/*
 * Where sources/ says what it does, so that it needs no word of the
 * pipeline: `line` gets each finished line (no newline; the caller prefixes
 * and escapes it), `label` prefixes the live meters ("fetch"). A NULL
 * progress, or a NULL `line`: silent.
 */
struct src_progress {
	void (*line)(void *ctx, const char *text);
	void *ctx;
	const char *label;
};
void src_note(const struct src_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A meter's label ("fetch: " and the text) into `out`; NULL when there is no meter. */
const char *src_meter_label(const struct src_progress *p, struct buf *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Progress of one long operation (a NULL `what`: none shown). On a terminal: one line rewritten in
 * place. Otherwise (a log): repo_progress_due's rule; the caller prints one summary.
 */
struct repo_meter {
	const char *what;
	struct repo_progress due;
	int tty, shown;
};
void repo_progress_init(struct repo_meter *p, const char *what);
void repo_progress_update(struct repo_meter *p, size_t done, size_t total, const char *detail);
/* Clear a terminal's progress line. */
void repo_progress_end(struct repo_meter *p);

/* 1 when `path` is absent or holds nothing. */
int repo_dir_is_empty(const char *path);
/* Whether the gitlink `dotgit` is one bwbuild wrote for `gitdir` (or libgit2 while bwbuild made it). */
int repo_gitlink_is_ours(const char *dotgit, const char *workdir, const char *gitdir);
/* Remove libgit2's *.lock files under `gitdir` (a checkout of ours cut short), objects/ aside. */
void repo_remove_stale_locks(const char *gitdir, int depth);

#endif
