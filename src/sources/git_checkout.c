/*
 * The work tree: its repository opened or made (objects borrowed from the
 * mirror through alternates, origin naming the upstream), what differs
 * from HEAD (local changes, the build's own outputs, submodules
 * moved), checking a commit out (files whose blobs the mirrors lack left
 * out and kept in the index as skip-worktree), the mark that tells a
 * checkout cut short, and repo_checkout and repo_describe over all of it.
 * The submodules it walks are git_submodule.c's, the mirrors
 * git_mirror.c's.
 *
 * libgit2 is used only by src/sources/git*.c, the wrapper family (git.c,
 * git_mirror.c, git_checkout.c, git_submodule.c, sharing git_priv.h);
 * nothing else includes <git2.h>, and `make layers` fails if anything does.
 * The logic that needs no libgit2 lives beside them: repourl.c (where a
 * repository's objects come from) and repowork.c (the work tree's own
 * files and progress lines).
 *
 * Just past 800 lines: its two halves, what differs from HEAD and the
 * checkout, work on one opened repository, and checkout_once and
 * repo_describe ask collect_changes (static here) for the local changes
 * before anything moves. The seam, if it grows: kept_cmp to
 * repo_tree_info_release as a git_status.c in the same family, with
 * collect_changes declared in git_priv.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/fault.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"
#include "sources/git.h"
#include "sources/git_priv.h"
#include "sources/repourl.h"
#include "sources/repowork.h"

/* ---- work repositories ---- */

static int
add_alternate_now(git_repository *repo, const char *objects)
{
	git_odb *odb = NULL;
	int rc;

	if (git_repository_odb(&odb, repo) < 0)
		return git_fail("cannot open the object database of", git_repository_path(repo));
	rc = git_odb_add_disk_alternate(odb, objects);
	git_odb_free(odb);
	return rc < 0 ? git_fail("cannot add the mirror's objects", objects) : 0;
}

/*
 * A work repository borrows every object from the mirror through
 * objects/info/alternates (as `git clone --reference`), so a PyTorch tree
 * costs its checkout only. Adds the mirror when the line is missing.
 */
int
git_ensure_alternate(git_repository *repo, const char *objects)
{
	struct buf path = BUF_INIT, text = BUF_INIT, want = BUF_INIT;
	int ret = 0;

	/* Exactly this mirror: a line for a mirror that is gone breaks git itself. */
	buf_addf(&path, "%sobjects/info/alternates", git_repository_path(repo));
	buf_addf(&want, "%s\n", objects);
	if (path_exists(path.s) && read_file(&text, path.s) < 0) {
		ret = -1;
		goto out;
	}
	if (!text.s || strcmp(text.s, want.s)) {
		ret = mkdir_p_parent(path.s);
		if (!ret)
			ret = write_file_atomic(path.s, want.s, want.len);
		if (!ret)
			ret = add_alternate_now(repo, objects);
	}
out:
	buf_release(&path);
	buf_release(&text);
	buf_release(&want);
	return ret;
}

/* The work repository's origin names the upstream it came from; 1 when it had to change. */
int
git_ensure_origin(git_repository *repo, const char *url)
{
	git_remote *r = NULL;
	int changed = 0;

	if (git_remote_lookup(&r, repo, "origin") < 0) {
		if (git_remote_create(&r, repo, "origin", url) == 0)
			changed = 1;
	} else if (!git_remote_url(r) || strcmp(git_remote_url(r), url)) {
		changed = git_remote_set_url(repo, "origin", url) == 0;
	}
	git_remote_free(r);
	return changed;
}

/*
 * Open the work repository at `workdir`, or create it: its git directory
 * at `gitdir` (NULL: workdir/.git), `url` as its origin for people
 * reading it, objects from the mirror. `fresh` is 1 when it was just
 * made, -1 when it existed with another upstream (its origin now follows).
 */
static int
work_repo_open(const char *workdir, const char *gitdir, const char *url, const char *objects,
	       git_repository **out, int *fresh)
{
	git_repository_init_options io = GIT_REPOSITORY_INIT_OPTIONS_INIT;
	struct buf dotgit = BUF_INIT;
	int rc;

	*fresh = 0;
	buf_addf(&dotgit, "%s/.git", workdir);
	if (path_exists(dotgit.s)) {
		buf_release(&dotgit);
		if (git_repository_open_ext(out, workdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
			return git_fail("cannot open the checkout in", workdir);
		/* The profile may name another upstream for the same work directory. */
		if (git_ensure_origin(*out, url))
			*fresh = -1;
		return git_ensure_alternate(*out, objects);
	}
	buf_release(&dotgit);
	if (path_exists(workdir) && !repo_dir_is_empty(workdir)) {
		/* Not ours: checking out over it could overwrite someone's files. */
		return error("'%s' exists, is not empty and is not a git checkout; remove it or "
			     "choose another work directory", workdir);
	}
	io.flags = GIT_REPOSITORY_INIT_MKPATH;
	if (gitdir) {
		io.flags |= GIT_REPOSITORY_INIT_NO_DOTGIT_DIR | GIT_REPOSITORY_INIT_RELATIVE_GITLINK;
		io.workdir_path = workdir;
	}
	io.origin_url = url;
	rc = git_repository_init_ext(out, gitdir ? gitdir : workdir, &io);
	if (rc < 0)
		return git_fail("cannot create a checkout in", workdir);
	*fresh = 1;
	return git_ensure_alternate(*out, objects);
}

/* ---- status ---- */

/*
 * What bwbuild's own build wrote into the tree (repo_build_outputs): the
 * window its ctime must fall in, and the untracked paths that are the
 * tree's own whatever their ctime (sorted, for bsearch).
 */
static long long outputs_since, outputs_until;
static struct strvec outputs_kept = STRVEC_INIT;

static int
kept_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
repo_build_outputs(long long since, long long until, const struct strvec *kept)
{
	outputs_since = since;
	outputs_until = until;
	strvec_clear(&outputs_kept);
	for (size_t i = 0; kept && i < kept->n; i++)
		strvec_push(&outputs_kept, kept->v[i]);
	strvec_sort(&outputs_kept);
}

/* An untracked path (`prefix`: its submodule's, from the top) the build wrote (repo_build_outputs). */
static int
is_build_output(git_repository *repo, const char *prefix, const char *path)
{
	const char *wd = git_repository_workdir(repo);
	struct buf full = BUF_INIT, top = BUF_INIT;
	struct stat st;
	int r = 0;

	if (!outputs_since || !wd)
		return 0;
	buf_addf(&top, "%s%s", prefix, path);
	if (outputs_kept.n && bsearch(&top.s, outputs_kept.v, outputs_kept.n, sizeof(char *),
				      kept_cmp)) {
		buf_release(&top);
		return 0;
	}
	buf_addf(&full, "%s%s", wd, path);
	while (full.len > 1 && full.s[full.len - 1] == '/')
		full.s[--full.len] = '\0';
	if (lstat(full.s, &st) == 0) {
		long long ctime = (long long)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;

		r = ctime >= outputs_since && (!outputs_until || ctime <= outputs_until);
	}
	buf_release(&full);
	buf_release(&top);
	return r;
}

/* What status_paths and collect_changes list. */
enum change_form {
	CHANGES_BARE,      /* "<prefix>path" */
	CHANGES_KINDS,     /* "modified: <prefix>path", "new: ", "deleted: " */
	CHANGES_UNTRACKED, /* "<prefix>path" of the untracked paths alone */
};

/*
 * What differs from HEAD in one repository (modified, new, deleted;
 * submodules not entered; no build output), in `form`. -1 when git
 * cannot list it.
 */
static int
status_paths(git_repository *repo, const char *prefix, enum change_form form, struct strvec *out)
{
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	git_status_list *list = NULL;
	git_index *idx = NULL;
	size_t i, n;

	so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_INCLUDE_UNTRACKED;
	if (git_status_list_new(&list, repo, &so) < 0)
		return -1;
	if (git_repository_index(&idx, repo) < 0)
		idx = NULL;
	n = git_status_list_entrycount(list);
	for (i = 0; i < n; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
		const git_index_entry *ie;

		if (!d || !d->new_file.path)
			continue;
		if (e->status == GIT_STATUS_WT_NEW && is_build_output(repo, prefix, d->new_file.path))
			continue;
		if (form == CHANGES_UNTRACKED && e->status != GIT_STATUS_WT_NEW)
			continue;
		/* a file the mirrors lack, left out of the checkout (mark_absent): not a change */
		if (idx && e->status == GIT_STATUS_WT_DELETED &&
		    (ie = git_index_get_bypath(idx, d->new_file.path, 0)) &&
		    (ie->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE))
			continue;
		if (form != CHANGES_KINDS)
			strvec_pushf(out, "%s%s", prefix, d->new_file.path);
		else
			strvec_pushf(out, "%s: %s%s",
				     e->status & (GIT_STATUS_WT_NEW | GIT_STATUS_INDEX_NEW) ? "new" :
				     e->status & (GIT_STATUS_WT_DELETED | GIT_STATUS_INDEX_DELETED) ?
				     "deleted" : "modified", prefix, d->new_file.path);
	}
	git_status_list_free(list);
	git_index_free(idx);
	return 0;
}

/*
 * The files of the tree at `dir` as its commit and patches make it: the
 * index's entries (gitlinks and files the mirrors lacked left out), then
 * untracked files git does not ignore and no build made (a file a patch
 * added). Deleted ones are left out by the caller, which finds them gone.
 */
int
repo_tree_files(const char *dir, const char *prefix, struct strvec *out)
{
	git_repository *repo = NULL;
	git_index *idx = NULL;
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	git_status_list *list = NULL;
	int ret = -1;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) < 0 || git_repository_index(&idx, repo) < 0)
		goto out;
	for (size_t i = 0; i < git_index_entrycount(idx); i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);

		if (e && e->mode != GIT_FILEMODE_COMMIT &&
		    !(e->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE) && !git_index_entry_stage(e))
			strvec_push(out, e->path);
	}
	so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_INCLUDE_UNTRACKED |
		   GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
	so.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
	if (git_status_list_new(&list, repo, &so) < 0)
		goto out;
	for (size_t i = 0; i < git_status_list_entrycount(list); i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const git_diff_delta *d = e->index_to_workdir;

		if (e->status == GIT_STATUS_WT_NEW && d && d->new_file.path &&
		    !is_build_output(repo, prefix, d->new_file.path))
			strvec_push(out, d->new_file.path);
	}
	ret = 0;
out:
	git_status_list_free(list);
	git_index_free(idx);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

/*
 * status_paths, and each submodule: entered, or (CHANGES_KINDS) "moved:"
 * when not at the commit the tree records.
 */
static void
collect_changes(git_repository *repo, const char *prefix, enum change_form form,
		struct strvec *out, int depth)
{
	struct strvec names = STRVEC_INIT;
	size_t i;

	if (git_repository_head_unborn(repo) == 1)
		return;
	status_paths(repo, prefix, form, out);
	if (depth > 8 || git_submodule_foreach(repo, git_collect_name, &names) < 0)
		goto out;
	for (i = 0; i < names.n; i++) {
		git_submodule *sm = NULL;
		git_repository *sub = NULL;
		const git_oid *want;
		git_oid head;
		struct buf p = BUF_INIT;

		if (git_submodule_lookup(&sm, repo, names.v[i]) < 0)
			continue;
		want = git_submodule_head_id(sm);
		buf_addf(&p, "%s%s/", prefix, git_submodule_path(sm));
		if (want && git_submodule_open(&sub, sm) == 0) {
			if (git_reference_name_to_id(&head, sub, "HEAD") == 0 &&
			    !git_oid_equal(&head, want)) {
				if (form == CHANGES_KINDS)
					strvec_pushf(out, "moved: %.*s (at %.12s, the tree records "
						     "%.12s)", (int)p.len - 1, p.s,
						     git_oid_tostr_s(&head), git_oid_tostr_s(want));
			} else {
				collect_changes(sub, p.s, form, out, depth + 1);
			}
			git_repository_free(sub);
		}
		buf_release(&p);
		git_submodule_free(sm);
	}
out:
	strvec_clear(&names);
}

int
repo_changed_paths(const char *dir, struct strvec *paths)
{
	git_repository *repo = NULL;
	int ret = -1;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) == 0)
		ret = status_paths(repo, "", CHANGES_BARE, paths);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

int
repo_untracked_paths(const char *dir, struct strvec *paths)
{
	git_repository *repo = NULL;
	int ret = -1;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0 &&
	    git_repository_head_unborn(repo) != 1) {
		collect_changes(repo, "", CHANGES_UNTRACKED, paths, 0);
		ret = 0;
	}
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

void
git_tree_info_add(struct repo_tree_info *ti, const char *path, const char *url, const git_oid *oid)
{
	struct repo_submodule_info *s;

	if (ti->nsubs == ti->alloc) {
		ti->alloc = ti->alloc ? 2 * ti->alloc : 8;
		ti->subs = xreallocarray(ti->subs, ti->alloc, sizeof(*ti->subs));
	}
	s = &ti->subs[ti->nsubs++];
	s->path = xstrdup(path);
	s->url = xstrdup(url);
	s->commit = xstrdup(git_oid_tostr_s(oid));
}

void
repo_tree_info_release(struct repo_tree_info *ti)
{
	for (size_t i = 0; i < ti->nsubs; i++) {
		free(ti->subs[i].path);
		free(ti->subs[i].url);
		free(ti->subs[i].commit);
	}
	free(ti->subs);
	for (size_t i = 0; i < ti->nabsent; i++)
		free(ti->absent[i]);
	free(ti->absent);
	free(ti->commit);
	memset(ti, 0, sizeof(*ti));
}

/* ---- checkout ---- */

#define CHECKOUT_MARK "bwbuild-checkout"

struct checkout_progress_ctx {
	struct repo_meter p;
	size_t total;
};

static void
checkout_progress(const char *path, size_t done, size_t total, void *payload)
{
	struct checkout_progress_ctx *cp = payload;

	cp->total = total;
	if (path && done < total)
		fault_point("checkout-file");
	repo_progress_update(&cp->p, done, total, " files");
}

/*
 * The files of `tree` whose blobs are missing from the object store
 * (snapshots that leave out large files): "<prefix>path" into `absent`
 * and bare paths into `paths`. -1 with the reason in `why` when a tree
 * itself is missing (then nothing can be checked out).
 */
struct absent_walk {
	git_odb *odb;
	struct strvec *paths;
};

static int
absent_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct absent_walk *w = payload;

	if (git_tree_entry_type(e) == GIT_OBJECT_BLOB && !git_odb_exists(w->odb, git_tree_entry_id(e)))
		strvec_pushf(w->paths, "%s%s", root, git_tree_entry_name(e));
	return 0;
}

static int
find_absent(git_repository *repo, git_tree *tree, struct strvec *paths, struct buf *why)
{
	struct absent_walk w = { NULL, paths };
	int rc;

	if (git_repository_odb(&w.odb, repo) < 0) {
		buf_addstr(why, "cannot open its object database");
		return -1;
	}
	rc = git_tree_walk(tree, GIT_TREEWALK_PRE, absent_cb, &w);
	if (rc < 0) {
		const git_error *e = git_error_last();

		buf_addf(why, "a tree of it is missing (%s)", e && e->message ? e->message : "unreadable");
	}
	git_odb_free(w.odb);
	return rc < 0 ? -1 : 0;
}

/*
 * The index keeps each absent file, marked skip-worktree (as a sparse
 * checkout would): git itself then shows a clean tree, and bwbuild's own
 * status skips them (status_paths).
 */
static int
mark_absent(git_repository *repo, git_tree *tree, const struct strvec *paths)
{
	git_index *idx = NULL;
	int rc = git_repository_index(&idx, repo);

	/* libgit2 refuses an entry whose blob it cannot read, unless told to trust the id */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
	for (size_t i = 0; rc == 0 && i < paths->n; i++) {
		git_tree_entry *te = NULL;
		git_index_entry ie;

		if (git_tree_entry_bypath(&te, tree, paths->v[i]) < 0)
			continue;
		memset(&ie, 0, sizeof(ie));
		ie.mode = git_tree_entry_filemode(te);
		git_oid_cpy(&ie.id, git_tree_entry_id(te));
		ie.path = paths->v[i];
		ie.flags_extended = GIT_INDEX_ENTRY_SKIP_WORKTREE;
		rc = git_index_add(idx, &ie);
		git_tree_entry_free(te);
	}
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 1);
	if (rc == 0)
		rc = git_index_write(idx);
	git_index_free(idx);
	return rc;
}

/*
 * Check `oid` out in `repo` (its work tree `workdir`), and move HEAD
 * there. Files whose blobs the mirror lacks are left out and listed in
 * c->absent; any other failure is reported with its true cause: what is
 * missing from which mirror, or the local change in the way.
 */
int
git_checkout_commit(struct checkout_ctx *c, git_repository *repo, const git_oid *oid, const char *what,
		const char *prefix, const char *workdir, const char *objects, int force)
{
	git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
	struct checkout_progress_ctx cp;
	struct strvec absent = STRVEC_INIT, spec = STRVEC_INIT;
	struct buf why = BUF_INIT, label = BUF_INIT;
	git_object *target = NULL;
	git_tree *tree = NULL;
	int rc, ret = -1;

	if (git_object_lookup(&target, repo, oid, GIT_OBJECT_COMMIT) < 0) {
		git_fail("cannot look up the commit of", what);
		note("commit %s is missing from the objects in '%s'", git_oid_tostr_s(oid), objects);
		goto out;
	}
	if (git_commit_tree(&tree, (git_commit *)target) < 0)
		buf_addf(&why, "its tree %s is missing",
			 git_oid_tostr_s(git_commit_tree_id((git_commit *)target)));
	if (!tree || find_absent(repo, tree, &absent, &why) < 0) {
		error("cannot check out '%s' at %s: %s", what, git_oid_tostr_s(oid),
		      why.len ? why.s : "its tree is missing");
		note("the objects come from '%s', which is incomplete; fetch it again or use a "
		     "complete mirror", objects);
		goto out;
	}
	co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_RECREATE_MISSING;
	if (force)
		co.checkout_strategy |= GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED;
	if (absent.n) {
		/* everything but the absent files: negative pathspecs, then all */
		for (size_t i = 0; i < absent.n; i++) {
			strvec_pushf(&spec, "!%s", absent.v[i]);
			strvec_pushf(&c->absent, "%s%s", prefix, absent.v[i]);
		}
		strvec_push(&spec, "*");
		co.paths.strings = spec.v;
		co.paths.count = spec.n;
	}
	repo_progress_init(&cp.p, src_meter_label(c->o->progress, &label, "checking out %s", what));
	cp.total = 0;
	co.progress_cb = checkout_progress;
	co.progress_payload = &cp;
	rc = git_checkout_tree(repo, target, &co);
	repo_progress_end(&cp.p);
	if (rc < 0) {
		const git_error *e = git_error_last();

		error("cannot check out '%s': %s", what, e && e->message ? e->message : "unknown libgit2 error");
		if (rc == GIT_ECONFLICT)
			note("bwbuild never overwrites local changes; commit, stash or remove them in "
			     "'%s', or run with --force to discard them", workdir);
		else if (rc == GIT_ENOTFOUND || (e && e->klass == GIT_ERROR_ODB))
			note("an object of commit %s is missing from '%s'", git_oid_tostr_s(oid), objects);
		goto out;
	}
	c->files += cp.total;
	c->repos++;
	if (absent.n && mark_absent(repo, tree, &absent) < 0) {
		git_fail("cannot record the absent files in the index of", what);
		goto out;
	}
	if (git_repository_set_head_detached(repo, oid) < 0) {
		git_fail("cannot move HEAD to", what);
		goto out;
	}
	ret = 0;
out:
	git_tree_free(tree);
	git_object_free(target);
	strvec_clear(&absent);
	strvec_clear(&spec);
	buf_release(&why);
	buf_release(&label);
	return ret;
}

/* A checkout is about to change files: leave a mark that only its end removes. */
int
git_checkout_begin(struct checkout_ctx *c)
{
	if (c->marked)
		return 0;
	c->marked = 1;
	if (write_file_atomic(c->mark, "", 0) < 0)
		return -1;
	fault_point("checkout-begun");
	return 0;
}

/*
 * The state of an existing work tree: 1 when a checkout of ours was cut
 * short (marker left, or a repository that cannot be opened or has no
 * HEAD yet), 0 otherwise.
 */
static int
checkout_interrupted(const char *dir)
{
	struct buf dotgit = BUF_INIT, mark = BUF_INIT;
	git_repository *repo = NULL;
	int cut = 0;

	buf_addf(&dotgit, "%s/.git", dir);
	buf_addf(&mark, "%s/" CHECKOUT_MARK, dotgit.s);
	if (is_dir(dotgit.s)) {
		cut = path_exists(mark.s);
		if (!cut && git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
			cut = 1;
		else if (!cut && git_repository_head_unborn(repo) == 1)
			cut = 1;
		if (cut)
			repo_remove_stale_locks(dotgit.s, 0);
	}
	git_repository_free(repo);
	buf_release(&dotgit);
	buf_release(&mark);
	return cut;
}

/* The end of a checkout: what was left out and why, and one summary line. */
static void
checkout_report(struct checkout_ctx *c)
{
	const struct strvec *ex = c->o->exclude;

	if (c->left_out.n) {
		src_note(c->o->progress, "%zu submodule%s left out (source.submodules.exclude):",
			  c->left_out.n, c->left_out.n == 1 ? "" : "s");
		for (size_t i = 0; i < c->left_out.n; i++)
			src_note(c->o->progress, "  %s", c->left_out.v[i]);
	}
	for (size_t i = 0; ex && i < ex->n; i++) {
		int seen = 0;

		for (size_t j = 0; j < c->left_out.n && !seen; j++)
			seen = !strcmp(c->left_out.v[j], ex->v[i]) ||
			       (starts_with(ex->v[i], c->left_out.v[j]) &&
				ex->v[i][strlen(c->left_out.v[j])] == '/');
		/* a shared profile names paths of several releases: a note, not a warning */
		if (!seen)
			note("source.submodules.exclude: '%s' is no submodule of this tree; nothing "
			     "left out for it", ex->v[i]);
	}
	if (c->absent.n) {
		warning("%zu file%s missing from the mirrors %s not checked out (large files a "
			"snapshot leaves out; a build never needs them)", c->absent.n,
			c->absent.n == 1 ? " is" : "s are", c->absent.n == 1 ? "and was" : "and were");
		note_lines(c->absent.v, c->absent.n, 50);
	}
	if (c->repos)
		src_note(c->o->progress, "checked out %zu file%s in %zu repositor%s in %.1f s", c->files,
			  c->files == 1 ? "" : "s", c->repos, c->repos == 1 ? "y" : "ies",
			  now_seconds() - c->start);
}

static int
checkout_once(const struct repo_checkout_opts *o, struct repo_tree_info *out, struct strvec *mirrors,
	      const struct strvec *rules)
{
	git_repository *repo = NULL;
	struct checkout_ctx c;
	struct strvec changes = STRVEC_INIT, tried = STRVEC_INIT;
	struct buf objects = BUF_INIT, mark = BUF_INIT;
	git_oid oid, head;
	int ret = -1, fresh = 0, at_head, force = o->force, interrupted, cached = 0;
	char *tree;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.out = out;
	c.mirrors = mirrors;
	c.src.cache = o->cache_dir;
	c.src.dirs = o->mirror_dirs;
	c.src.rules = *rules;
	c.src.refresh = o->refresh;
	c.src.progress = o->progress;
	c.src.tree = tree = realpath(o->dir, NULL);
	c.start = now_seconds();
	interrupted = checkout_interrupted(o->dir);
	if (interrupted) {
		if (git_repository_open_ext(&repo, o->dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
			warning("the checkout in '%s' was cut short and its repository is damaged; "
				"making it again", o->dir);
			ret = remove_tree(o->dir);
		} else {
			warning("a checkout in '%s' was cut short; finishing it (its half-written files "
				"are replaced)", o->dir);
			force = 1;
			ret = 0;
		}
		git_repository_free(repo);
		repo = NULL;
		if (ret < 0)
			goto out;
		ret = -1;
	}
	if (git_source_ensure(&c.src, o->url, o->ref, NULL, &oid, &objects, &cached, &tried) < 0) {
		for (size_t i = 0; i < tried.n; i++)
			note("tried %s", tried.v[i]);
		goto out;
	}
	if (cached)
		strvec_push(mirrors, objects.s);
	if (work_repo_open(o->dir, NULL, o->url, objects.s, &repo, &fresh) < 0)
		goto out;
	buf_addf(&mark, "%s" CHECKOUT_MARK, git_repository_path(repo));
	if (fresh != 1 && !interrupted && git_attach_submodules(&c, repo, o->url, "", 0) < 0)
		goto out;
	if (!interrupted)
		collect_changes(repo, "", CHANGES_KINDS, &changes, 0);
	if (changes.n && !force) {
		error("the checkout in '%s' has local changes, and bwbuild builds exactly what the "
		      "ref names and never overwrites changes", o->dir);
		note_lines(changes.v, changes.n, 20);
		note("commit, stash or remove them, run with --force to discard them, or build the "
		     "tree as it is with --source '%s'", o->dir);
		goto out;
	}
	if (changes.n) {
		warning("--force: discarding %zu local change%s in '%s'", changes.n,
			changes.n == 1 ? "" : "s", o->dir);
		note_lines(changes.v, changes.n, 20);
	}
	at_head = fresh != 1 && !interrupted && git_reference_name_to_id(&head, repo, "HEAD") == 0 &&
		  git_oid_equal(&head, &oid) && !changes.n;
	c.force = force;
	c.mark = mark.s;
	if (!at_head && (git_checkout_begin(&c) < 0 ||
			 git_checkout_commit(&c, repo, &oid, o->ref, "", o->dir, objects.s,
					 force || fresh == 1) < 0))
		goto out;
	out->commit = xstrdup(git_oid_tostr_s(&oid));
	if (git_checkout_submodules(&c, repo, o->url, "", 0) < 0)
		goto out;
	if (c.marked && unlink(mark.s) < 0) {
		error("cannot remove '%s':", mark.s);
		goto out;
	}
	if (c.absent.n) {
		out->absent = xcalloc(c.absent.n, sizeof(*out->absent));
		for (size_t i = 0; i < c.absent.n; i++)
			out->absent[out->nabsent++] = xstrdup(c.absent.v[i]);
	}
	checkout_report(&c);
	ret = 0;
out:
	if (ret < 0)
		repo_tree_info_release(out);
	strvec_clear(&changes);
	strvec_clear(&tried);
	strvec_clear(&c.absent);
	strvec_clear(&c.left_out);
	buf_release(&objects);
	buf_release(&mark);
	git_repository_free(repo);
	free(tree);
	return ret;
}

int
repo_checkout(const struct repo_checkout_opts *o, struct repo_tree_info *out)
{
	struct strvec mirrors = STRVEC_INIT, rules = STRVEC_INIT;
	int rc;

	git_libgit2_init();
	if (repo_url_rules_load(&rules) < 0)
		warning("cannot read url.<base>.insteadOf from your git config; URLs are used as "
			"they are");
	rc = checkout_once(o, out, &mirrors, &rules);
	if (rc < 0 && git_repair_mirrors(&mirrors) > 0) {
		strvec_clear(&mirrors);
		note("checking out again from the fetched mirrors");
		rc = checkout_once(o, out, &mirrors, &rules);
	}
	strvec_clear(&mirrors);
	strvec_clear(&rules);
	git_libgit2_shutdown();
	return rc;
}

int
repo_describe(const char *dir, struct repo_tree_info *out, struct strvec *changes)
{
	git_repository *repo = NULL;
	git_remote *origin = NULL;
	git_oid head;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		goto out;
	if (git_reference_name_to_id(&head, repo, "HEAD") < 0)
		goto out;
	out->commit = xstrdup(git_oid_tostr_s(&head));
	git_remote_lookup(&origin, repo, "origin");
	git_describe_submodules(repo, origin ? git_remote_url(origin) : NULL, "", out, 0);
	if (changes)
		collect_changes(repo, "", CHANGES_KINDS, changes, 0);
	ret = 0;
out:
	git_remote_free(origin);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}
