/*
 * The libgit2 wrapper family's shared part and its one-call operations on
 * a repository that is already there: libgit2's error as bwbuild reports
 * it, a ref to its commit, removing ignored files, applying a patch
 * (patch.c's engine), a ref's or HEAD's id, a commit's time, libgit2's
 * version. The mirrors are git_mirror.c, the checkout git_checkout.c,
 * the submodules git_submodule.c.
 *
 * libgit2 is used only by src/sources/git*.c, the wrapper family (git.c,
 * git_mirror.c, git_checkout.c, git_submodule.c, sharing git_priv.h);
 * nothing else includes <git2.h>, and `make layers` fails if anything does.
 * The logic that needs no libgit2 lives beside them: repourl.c (where a
 * repository's objects come from) and repowork.c (the work tree's own
 * files and progress lines).
 */
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"
#include "sources/git.h"
#include "sources/git_priv.h"

int
git_fail(const char *what, const char *subject)
{
	const git_error *e = git_error_last();

	return error("%s '%s': %s", what, subject, e && e->message ? e->message : "unknown libgit2 error");
}

int
git_collect_name(git_submodule *sm, const char *name, void *payload)
{
	(void)sm;
	strvec_push(payload, name);
	return 0;
}

int
git_resolve(git_repository *repo, const char *ref, git_oid *out)
{
	static const char *const forms[] = { "%s", "refs/tags/%s", "refs/heads/%s", "origin/%s",
					     "refs/remotes/origin/%s" };
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

int
repo_clean_ignored(const char *dir, const char *const *keep)
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
repo_version_string(struct buf *out)
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
repo_apply_text(const char *dir, const char *text, size_t len, int check_only, struct buf *why)
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

/* ---- one-call queries ---- */

int
repo_resolve_local(const char *dir, const char *ref, struct buf *out)
{
	git_repository *repo = NULL;
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1];
	int ret = -1;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) == 0 && git_resolve(repo, ref, &oid) == 0) {
		git_oid_tostr(hex, sizeof(hex), &oid);
		buf_addstr(out, hex);
		ret = 0;
	}
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

int
repo_commit_time(const char *dir, const char *commit, long long *out)
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_oid oid;
	int ret = -1;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) == 0 && git_oid_fromstr(&oid, commit) == 0 &&
	    git_commit_lookup(&c, repo, &oid) == 0) {
		*out = (long long)git_commit_time(c);
		ret = 0;
	}
	git_commit_free(c);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

int
repo_head_commit(const char *dir, struct buf *out)
{
	return repo_resolve_local(dir, "HEAD", out);
}
