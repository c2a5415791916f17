#include <git2.h>
#include <string.h>

/* libgit2's *_OPTIONS_INIT macros leave trailing fields implicit. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "git.h"
#include "strvec.h"
#include "util.h"

static int
git_fail(const char *what, const char *subject)
{
	const git_error *e = git_error_last();

	return error("%s '%s': %s", what, subject, e && e->message ? e->message : "unknown libgit2 error");
}

static int
resolve(git_repository *repo, const char *ref, git_oid *out)
{
	static const char *const forms[] = { "%s", "refs/tags/%s", "origin/%s", "refs/remotes/origin/%s" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		struct buf spec = BUF_INIT;
		git_object *obj = NULL, *commit = NULL;
		int rc;

		buf_addf(&spec, forms[i], ref);
		rc = git_revparse_single(&obj, repo, spec.s);
		buf_release(&spec);
		if (rc < 0)
			continue;
		rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
		git_object_free(obj);
		if (rc < 0)
			continue;
		git_oid_cpy(out, git_object_id(commit));
		git_object_free(commit);
		return 0;
	}
	return -1;
}

static int
fetch_origin(git_repository *repo, const char *url)
{
	git_remote *remote = NULL;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	int rc;

	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	if (git_remote_lookup(&remote, repo, "origin") < 0)
		return git_fail("cannot find remote origin for", url);
	rc = git_remote_fetch(remote, NULL, &fo, NULL);
	git_remote_free(remote);
	if (rc < 0)
		return git_fail("cannot fetch", url);
	return 0;
}

static int
update_submodule(git_submodule *sm, const char *name, void *payload)
{
	git_submodule_update_options so = GIT_SUBMODULE_UPDATE_OPTIONS_INIT;
	git_repository *sub = NULL;
	int rc;

	(void)payload;
	so.checkout_opts.checkout_strategy = GIT_CHECKOUT_SAFE;
	if (git_submodule_update(sm, 1, &so) < 0)
		return git_fail("cannot update submodule", name);
	if (git_submodule_open(&sub, sm) < 0)
		return git_fail("cannot open submodule", name);
	rc = git_submodule_foreach(sub, update_submodule, NULL);
	git_repository_free(sub);
	return rc;
}

/* Report local changes (modified, deleted or new non-ignored files); count. */
static size_t
list_changes(git_repository *repo)
{
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	git_status_list *list = NULL;
	size_t i, n;

	so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_INCLUDE_UNTRACKED;
	if (git_status_list_new(&list, repo, &so) < 0)
		return 0;
	n = git_status_list_entrycount(list);
	for (i = 0; i < n && i < 20; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;

		if (d && d->new_file.path)
			note("%s: %s", e->status & (GIT_STATUS_WT_NEW | GIT_STATUS_INDEX_NEW) ? "new" :
				       e->status & (GIT_STATUS_WT_DELETED | GIT_STATUS_INDEX_DELETED) ?
				       "deleted" : "modified", d->new_file.path);
	}
	if (n > 20)
		note("and %zu more", n - 20);
	git_status_list_free(list);
	return n;
}

int
git_checkout(const char *url, const char *ref, const char *dir, struct buf *commit_out)
{
	git_repository *repo = NULL;
	git_object *target = NULL;
	git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1];
	struct buf gitdir = BUF_INIT;
	int ret = -1;

	git_libgit2_init();
	buf_addf(&gitdir, "%s/.git", dir);
	if (path_exists(gitdir.s)) {
		if (git_repository_open(&repo, dir) < 0) {
			git_fail("cannot open the checkout in", dir);
			goto out;
		}
		if (git_repository_head_detached(repo) == 1 && list_changes(repo)) {
			error("the checkout in '%s' has local changes; bwbuild builds only what the "
			      "ref says and never overwrites changes: commit, stash or remove them, or "
			      "remove the work directory", dir);
			goto out;
		}
	} else {
		git_clone_options cl = GIT_CLONE_OPTIONS_INIT;

		if (path_exists(dir) && !is_dir(dir)) {
			error("'%s' exists and is not a directory", dir);
			goto out;
		}
		cl.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE;
		if (git_clone(&repo, url, dir, &cl) < 0) {
			git_fail("cannot clone", url);
			goto out;
		}
	}
	if (resolve(repo, ref, &oid) < 0) {
		/* Not here yet: the only case that touches the network. */
		if (fetch_origin(repo, url) < 0)
			goto out;
		if (resolve(repo, ref, &oid) < 0) {
			error("unknown ref '%s' in '%s' (not a tag, branch or commit there)", ref, url);
			goto out;
		}
	}
	if (git_object_lookup(&target, repo, &oid, GIT_OBJECT_COMMIT) < 0) {
		git_fail("cannot look up commit of", ref);
		goto out;
	}
	co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_RECREATE_MISSING;
	if (git_checkout_tree(repo, target, &co) < 0) {
		git_fail("cannot check out", ref);
		list_changes(repo);
		note("bwbuild never overwrites local changes; commit, stash or remove them in '%s'", dir);
		goto out;
	}
	if (git_repository_set_head_detached(repo, &oid) < 0) {
		git_fail("cannot move HEAD to", ref);
		goto out;
	}
	if (git_submodule_foreach(repo, update_submodule, NULL) < 0)
		goto out;
	git_oid_tostr(hex, sizeof(hex), &oid);
	buf_addstr(commit_out, hex);
	ret = 0;
out:
	git_object_free(target);
	git_repository_free(repo);
	buf_release(&gitdir);
	git_libgit2_shutdown();
	return ret;
}

int
git_clean_ignored(const char *dir, const char *const *keep)
{
	git_repository *repo = NULL;
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	git_status_list *list = NULL;
	size_t i, n;
	int ret = 0;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) < 0) {
		git_fail("cannot open the checkout in", dir);
		git_libgit2_shutdown();
		return -1;
	}
	so.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
	so.flags = GIT_STATUS_OPT_INCLUDE_IGNORED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&list, repo, &so) < 0) {
		ret = git_fail("cannot list ignored files in", dir);
		goto out;
	}
	n = git_status_list_entrycount(list);
	for (i = 0; i < n; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const char *path;
		const char *const *k;
		struct buf full = BUF_INIT;
		int kept = 0;

		if (!(e->status & GIT_STATUS_IGNORED) || !e->index_to_workdir)
			continue;
		path = e->index_to_workdir->new_file.path;
		for (k = keep; k && *k; k++) {
			size_t kl = strlen(*k);

			if (!strncmp(path, *k, kl) && (path[kl] == '/' || path[kl] == '\0'))
				kept = 1;
		}
		if (kept)
			continue;
		buf_addf(&full, "%s/%s", dir, path);
		if (remove_tree(full.s) < 0)
			ret = -1;
		buf_release(&full);
	}
out:
	git_status_list_free(list);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

void
git_version_string(struct buf *out)
{
	int major, minor, rev;

	git_libgit2_version(&major, &minor, &rev);
	buf_addf(out, "%d.%d.%d", major, minor, rev);
}

/* ---- patches ---- */

struct apply_ctx {
	struct buf file;
	struct buf hunk;
};

static int
apply_delta_cb(const git_diff_delta *delta, void *payload)
{
	struct apply_ctx *c = payload;

	buf_reset(&c->file);
	buf_addstr(&c->file, delta->new_file.path ? delta->new_file.path : delta->old_file.path);
	buf_reset(&c->hunk);
	return 0;
}

static int
apply_hunk_cb(const git_diff_hunk *hunk, void *payload)
{
	struct apply_ctx *c = payload;

	buf_reset(&c->hunk);
	buf_add(&c->hunk, hunk->header, strcspn(hunk->header, "\n"));
	return 0;
}

int
git_apply_text(const char *dir, const char *text, size_t len, int check_only, struct buf *why)
{
	git_repository *repo = NULL;
	git_diff *diff = NULL;
	git_apply_options ao = GIT_APPLY_OPTIONS_INIT;
	struct apply_ctx c = { BUF_INIT, BUF_INIT };
	int ret = -1;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) < 0) {
		buf_addf(why, "cannot open the checkout in '%s'", dir);
		goto out;
	}
	if (git_diff_from_buffer(&diff, text, len) < 0) {
		const git_error *e = git_error_last();

		buf_addf(why, "not a patch git can read: %s", e && e->message ? e->message : "?");
		goto out;
	}
	ao.delta_cb = apply_delta_cb;
	ao.hunk_cb = apply_hunk_cb;
	ao.payload = &c;
	if (check_only)
		ao.flags |= GIT_APPLY_CHECK;
	if (git_apply(repo, diff, GIT_APPLY_LOCATION_WORKDIR, &ao) < 0) {
		const git_error *e = git_error_last();

		buf_addf(why, "'%s'%s%s: %s", c.file.len ? c.file.s : "?", c.hunk.len ? ", hunk " : "",
			 c.hunk.s, e && e->message ? e->message : "does not apply");
		goto out;
	}
	ret = 0;
out:
	git_diff_free(diff);
	git_repository_free(repo);
	buf_release(&c.file);
	buf_release(&c.hunk);
	git_libgit2_shutdown();
	return ret;
}

int
git_resolve_local(const char *dir, const char *ref, struct buf *out)
{
	git_repository *repo = NULL;
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1];
	int ret = -1;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) == 0 && resolve(repo, ref, &oid) == 0) {
		git_oid_tostr(hex, sizeof(hex), &oid);
		buf_addstr(out, hex);
		ret = 0;
	}
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

int
git_changed_paths(const char *dir, struct strvec *paths)
{
	git_repository *repo = NULL;
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	git_status_list *list = NULL;
	size_t i, n;

	git_libgit2_init();
	so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_INCLUDE_UNTRACKED;
	if (git_repository_open(&repo, dir) < 0 || git_status_list_new(&list, repo, &so) < 0) {
		git_repository_free(repo);
		git_libgit2_shutdown();
		return -1;
	}
	n = git_status_list_entrycount(list);
	for (i = 0; i < n; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;

		if (d && d->new_file.path)
			strvec_push(paths, d->new_file.path);
	}
	git_status_list_free(list);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return 0;
}

int
git_head_commit(const char *dir, struct buf *out)
{
	return git_resolve_local(dir, "HEAD", out);
}
