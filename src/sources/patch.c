/*
 * Applying a patch series to a checkout and undoing it (patch.h): which
 * patches are already applied, <work>/patches.applied, the manifest's
 * list. The series is in patchset.c, the checks in patchcheck.c, reverse
 * and relocation in patchmove.c; libgit2 applies through git.h.
 * May include: core/, sources/git.h, sources/patch.h, sources/repowork.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "sources/git.h"
#include "core/hash.h"
#include "core/json.h"
#include "sources/patch.h"
#include "sources/repowork.h"
#include "core/safefile.h"
#include "core/util.h"

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

enum patch_state
patch_state(const struct patch *pt, const char *src, struct buf *why)
{
	struct buf git = BUF_INIT, rev = BUF_INIT, ignored = BUF_INIT;
	enum patch_state st = PATCH_NEITHER;

	buf_addf(&git, "%s/.git", src);
	if (path_exists(git.s)) {
		if (is_applied(pt, src))
			st = PATCH_APPLIED;
		else if (apply(pt, src, 0, 1, why) == 0)
			st = PATCH_MISSING;
	} else if (patch_check_tree(pt, src, why) == 0) {
		patch_reverse(pt->text, pt->len, &rev);
		if (patch_lines_found(rev.s, rev.len, src, &ignored) == 1)
			st = PATCH_APPLIED;
		else if (patch_lines_found(pt->text, pt->len, src, why) == 1)
			st = PATCH_MISSING;
		else if (!why->len)
			buf_addf(why, "a binary patch: only git can tell ('%s' is no checkout)", src);
	}
	buf_release(&git);
	buf_release(&rev);
	buf_release(&ignored);
	return st;
}

static int
unapply(const struct patch *pt, const char *src, struct buf *why)
{
	return apply(pt, src, 1, 0, why);
}

static void
selection_text(const struct patch_set *ps, const struct relver *version, struct buf *out)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (patch_selected(&ps->v[i], version))
			buf_addf(out, "%s %s\n", ps->v[i].sha256, ps->v[i].file);
}

int
patches_apply(const struct patch_set *ps, const struct relver *version, const char *src,
	      const char *record, struct json *out, const struct src_progress *pr)
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
		src_note(pr, "patch %s: %s", pt->file, status);
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
patches_before_checkout(const struct patch_set *ps, const struct relver *version,
			const char *src, const char *record, const char *commit, int force,
			const struct src_progress *pr)
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
				src_note(pr, "patch %s: undone", pt->file);
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
