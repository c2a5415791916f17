#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/safefile.h"
#include "core/strvec.h"
#include "core/util.h"
#include "pipeline/step.h"
#include "sources/git.h"

/*
 * What bwbuild's own build wrote into the tree it builds is not a change
 * to that tree (issue 40): counted as one, a tree without the upstream
 * .gitignore changed its inputs' hash, so the wheel's version and the
 * configure stamp, on every rerun, and was configured from scratch.
 *
 * <work>/outputs.since: its mtime is when the build began writing into
 * the tree (made by the configure step, before the tree's setup.py runs).
 * For a --source tree, which is the user's, two more:
 * <work>/outputs.kept, the tree it is of and the untracked paths that
 * were the tree's own whenever a run began writing (they stay local
 * changes, whatever their ctime), and <work>/outputs.until, whose mtime
 * is when the last run that wrote ended (absent while one writes, or
 * after one was killed: then everything since is the build's). An
 * untracked path whose ctime falls between the two marks and that
 * outputs.kept does not name is the build's (repo_build_outputs); a path
 * the user makes between two runs is newer than outputs.until, and a
 * tracked file changed is a change whenever it was changed.
 */

/* outputs.kept holds paths, one a line; far more than any tree's untracked entries. */
#define KEPT_MAX ((off_t)16 << 20)

static void
mark_path(const struct build *b, const char *name, struct buf *out)
{
	buf_reset(out);
	buf_addf(out, "%s/outputs.%s", b->plan.work_dir, name);
}

/* The mtime of <work>/outputs.NAME in nanoseconds; 0 when there is none, or not a file bwbuild made. */
static long long
mark_time(const struct build *b, const char *name)
{
	struct buf f = BUF_INIT;
	struct stat st;
	long long t = 0;

	mark_path(b, name, &f);
	if (lstat(f.s, &st) == 0 && S_ISREG(st.st_mode))
		t = (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	buf_release(&f);
	return t;
}

static void
mark_remove(const struct build *b, const char *name)
{
	struct buf f = BUF_INIT;

	mark_path(b, name, &f);
	if (unlink(f.s) < 0 && errno != ENOENT)
		warning("cannot remove '%s': %s", f.s, strerror(errno));
	buf_release(&f);
}

/*
 * outputs.kept read back into `kept`: 0, or -1 when there is none, it is
 * of another tree (the work directory built another --source), or it is
 * not what bwbuild writes (said; it is made again).
 */
static int
kept_read(const struct build *b, struct strvec *kept)
{
	struct buf f = BUF_INIT, text = BUF_INIT, head = BUF_INIT;
	struct stat st;
	const char *line, *end;
	int rc = -1;

	mark_path(b, "kept", &f);
	if (lstat(f.s, &st) < 0)
		goto out;
	if (!S_ISREG(st.st_mode) || st.st_size > KEPT_MAX) {
		warning("'%s' is %s, not the record bwbuild writes; it is made again, and the "
			"tree's untracked files count as local changes", f.s,
			S_ISLNK(st.st_mode) ? "a symbolic link" : !S_ISREG(st.st_mode) ?
			"not a regular file" : "too large");
		goto out;
	}
	if (read_file(&text, f.s) < 0)
		goto out;
	buf_addf(&head, "tree %s\n", b->plan.src_dir);
	if (strncmp(text.s, head.s, head.len))
		goto out;
	for (line = text.s + head.len; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (end > line)
			strvec_pushf(kept, "%.*s", (int)(end - line), line);
	}
	rc = 0;
out:
	buf_release(&f);
	buf_release(&text);
	buf_release(&head);
	return rc;
}

void
outputs_load(const struct build *b)
{
	struct strvec kept = STRVEC_INIT;
	long long since = mark_time(b, "since");

	/* A --source tree's marks are its own only with its outputs.kept. */
	if (b->plan.local_source && since && kept_read(b, &kept) < 0)
		since = 0;
	repo_build_outputs(since, b->plan.local_source ? mark_time(b, "until") : 0, &kept);
	strvec_clear(&kept);
}

void
outputs_reset(const struct build *b)
{
	mark_remove(b, "since");
	mark_remove(b, "kept");
	mark_remove(b, "until");
}

/* outputs.since made now, where it is missing; its mtime (ns), 0 when it cannot be made. */
static long long
since_mark(const struct build *b)
{
	struct buf f = BUF_INIT;
	struct stat st;
	int fd;

	mark_path(b, "since", &f);
	if (lstat(f.s, &st) < 0 && errno == ENOENT && (fd = create_new(f.s, 0644)) >= 0)
		close(fd);
	buf_release(&f);
	return mark_time(b, "since");
}

/* A --source tree: what is untracked now and not the build's is the tree's own, kept. */
static int
kept_write(const struct build *b, struct strvec *kept)
{
	struct strvec now = STRVEC_INIT;
	struct buf f = BUF_INIT, text = BUF_INIT;
	int rc;

	if (repo_untracked_paths(b->plan.src_dir, &now) == 0)
		for (size_t i = 0; i < now.n; i++)
			strset_add(kept, now.v[i]);
	buf_addf(&text, "tree %s\n", b->plan.src_dir);
	/* A path with a newline cannot be kept: it stays a change, the safe side. */
	for (size_t i = 0; i < kept->n; i++)
		if (!strchr(kept->v[i], '\n'))
			buf_addf(&text, "%s\n", kept->v[i]);
	mark_path(b, "kept", &f);
	rc = write_file_atomic(f.s, text.s, text.len);
	strvec_clear(&now);
	buf_release(&f);
	buf_release(&text);
	return rc;
}

int
outputs_begin(struct build *b)
{
	struct strvec kept = STRVEC_INIT;
	long long since;
	int rc = 0;

	if (!b->plan.local_source) {
		repo_build_outputs(since_mark(b), 0, NULL);
		return 0;
	}
	/* Not a git checkout: it has no local changes to tell apart. */
	if (!b->tree.commit)
		return 0;
	since = mark_time(b, "since");
	if (since && kept_read(b, &kept) < 0)
		since = 0;
	if (!since)
		outputs_reset(b);
	/* outputs.kept before outputs.since: a mark never stands without its tree's own paths. */
	rc = kept_write(b, &kept);
	if (!rc) {
		mark_remove(b, "until");
		b->outputs_open = 1;
		repo_build_outputs(since ? since : since_mark(b), 0, &kept);
	}
	strvec_clear(&kept);
	return rc;
}

void
outputs_end(const struct build *b)
{
	struct buf f = BUF_INIT;

	if (!b->outputs_open)
		return;
	mark_path(b, "until", &f);
	if (write_file_atomic(f.s, "", 0) < 0)
		note("the next run takes what is new in '%s' for the build's own output",
		     b->plan.src_dir);
	buf_release(&f);
}
