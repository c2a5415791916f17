/*
 * The files of a work tree that bwbuild itself writes or reads around
 * libgit2, as pure logic (no libgit2): relative gitlink paths, whether a
 * gitlink is bwbuild's own, lock files a cut checkout left, and the
 * progress lines of a long fetch or checkout. The libgit2 wrapper family
 * (src/sources/git*.c, the only files that include <git2.h>) calls them;
 * patch.c says its lines through src_note. May include: core/, and repowork.h.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/util.h"
#include "sources/repowork.h"

void
repo_progress_start(struct repo_progress *p, double now)
{
	p->start = p->last = now;
	p->next_pct = 10;
}

int
repo_progress_due(struct repo_progress *p, size_t done, size_t total, double now)
{
	unsigned pct = total ? (unsigned)(100.0 * (double)done / (double)total) : 0;

	if (now - p->start < 5.0 || pct < p->next_pct || now - p->last < 5.0)
		return 0;
	p->next_pct = pct / 10 * 10 + 10;
	p->last = now;
	return 1;
}

void
src_note(const struct src_progress *p, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!p || !p->line)
		return;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	p->line(p->ctx, b.s);
	buf_release(&b);
}

const char *
src_meter_label(const struct src_progress *p, struct buf *out, const char *fmt, ...)
{
	va_list ap;

	if (!p || !p->label)
		return NULL;
	buf_addf(out, "%s: ", p->label);
	va_start(ap, fmt);
	buf_vaddf(out, fmt, ap);
	va_end(ap);
	return out->s;
}

void
repo_progress_init(struct repo_meter *p, const char *what)
{
	p->what = what;
	repo_progress_start(&p->due, now_seconds());
	p->tty = isatty(STDERR_FILENO);
	p->shown = 0;
}

void
repo_progress_update(struct repo_meter *p, size_t done, size_t total, const char *detail)
{
	double t = now_seconds();
	unsigned pct = total ? (unsigned)(100.0 * (double)done / (double)total) : 0;

	if (!p->what)
		return;
	if (p->tty) {
		if (t - p->due.last < 0.25 && done != total)
			return;
		fprintf(stderr, "\r%s: %u%% (%zu/%zu)%s\033[K", p->what, pct, done, total, detail);
		p->due.last = t;
		p->shown = 1;
		return;
	}
	if (!repo_progress_due(&p->due, done, total, t))
		return;
	fprintf(stderr, "%s: %u%% (%zu/%zu)%s\n", p->what, pct, done, total, detail);
	p->shown = 1;
}

/* Clear a terminal's progress line. */
void
repo_progress_end(struct repo_meter *p)
{
	if (p->tty && p->shown)
		fputs("\r\033[K", stderr);
	p->shown = 0;
}

int
repo_dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return 1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/* The relative path from the directory `from` to `to` (both absolute), as git writes gitlinks. */
void
repo_relative_path(const char *from, const char *to, struct buf *out)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	size_t i = 0, common = 0;

	path_normalize(&a, from);
	path_normalize(&b, to);
	/* the longest common prefix that ends at a component boundary */
	while (a.s[i] && a.s[i] == b.s[i]) {
		i++;
		if ((a.s[i] == '/' || !a.s[i]) && (b.s[i] == '/' || !b.s[i]))
			common = i;
	}
	for (const char *p = a.s + common; *p; p++)
		if (*p == '/' && p[1])
			buf_addstr(out, "../");
	buf_addstr(out, b.s[common] == '/' ? b.s + common + 1 : b.s + common);
	if (!out->len)
		buf_addch(out, '.');
	else if (out->s[out->len - 1] == '/')
		out->s[--out->len] = '\0';
	buf_release(&a);
	buf_release(&b);
}

/*
 * Whether `dotgit` (a submodule's .git) is a gitlink bwbuild wrote for
 * `gitdir`, or the one libgit2 wrote while bwbuild made the repository:
 * then a repository that cannot be opened behind it is bwbuild's own,
 * half made, and can be removed.
 */
int
repo_gitlink_is_ours(const char *dotgit, const char *workdir, const char *gitdir)
{
	struct buf text = BUF_INIT, target = BUF_INIT, norm = BUF_INIT, want = BUF_INIT;
	int ours = 0;

	if (!is_regular(dotgit) || read_file(&text, dotgit) < 0 || !starts_with(text.s, "gitdir: "))
		goto out;
	text.len = strcspn(text.s, "\r\n");
	text.s[text.len] = '\0';
	if (text.s[8] == '/')
		buf_addstr(&target, text.s + 8);
	else
		buf_addf(&target, "%s/%s", workdir, text.s + 8);
	path_normalize(&norm, target.s);
	path_normalize(&want, gitdir);
	while (norm.len && norm.s[norm.len - 1] == '/')
		norm.s[--norm.len] = '\0';
	while (want.len && want.s[want.len - 1] == '/')
		want.s[--want.len] = '\0';
	ours = !strcmp(norm.s, want.s) ||
	       (starts_with(norm.s, want.s) && !strcmp(norm.s + want.len, ".bwbuild-new"));
out:
	buf_release(&text);
	buf_release(&target);
	buf_release(&norm);
	buf_release(&want);
	return ours;
}

/*
 * A checkout bwbuild began and did not finish (killed, power cut) leaves
 * <work>/.git/bwbuild-checkout behind, and maybe libgit2's lock files:
 * its half-written files are bwbuild's, not the user's, so the next run
 * removes the locks and forces the checkout instead of refusing them.
 */
void
repo_remove_stale_locks(const char *gitdir, int depth)
{
	struct buf path = BUF_INIT;
	struct dirent *de;
	DIR *d = opendir(gitdir);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", gitdir, de->d_name);
		if (ends_with(de->d_name, ".lock") && !is_dir(path.s))
			unlink(path.s);
		else if (depth < 10 && strcmp(de->d_name, "objects") && is_dir(path.s))
			repo_remove_stale_locks(path.s, depth + 1);
	}
	if (d)
		closedir(d);
	buf_release(&path);
}
