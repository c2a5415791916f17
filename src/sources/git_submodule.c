/*
 * Submodules, recursively, each from its own mirror: the upstream of a
 * relative URL, the repository in git's layout (.git/modules/<name>, a
 * gitlink) made so that a kill at any point can be repaired, the commit
 * the tree records checked out, source.submodules.exclude, what is
 * reported when a submodule's objects cannot be had, and the submodules
 * of an existing tree attached to their mirrors or described.
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

/* A submodule's upstream: its URL, a relative one joined to the superproject's `parent` URL. */
static void
submodule_upstream(git_submodule *sm, const char *parent, struct buf *out)
{
	const char *url = git_submodule_url(sm);

	if (url && parent && repo_is_relative_url(url))
		repo_url_join(parent, url, out);
	else
		buf_addstr(out, url ? url : "");
}

/*
 * submodule.<name>.url in the superproject's config, as `git submodule
 * init` writes it, so git itself sees an initialised submodule; written
 * only when it differs.
 */
static void
ensure_submodule_config(git_repository *repo, const char *name, const char *url)
{
	git_config *cfg = NULL;
	git_buf have = GIT_BUF_INIT;
	struct buf key = BUF_INIT;

	buf_addf(&key, "submodule.%s.url", name);
	if (git_repository_config(&cfg, repo) == 0) {
		if (git_config_get_string_buf(&have, cfg, key.s) < 0 || !have.ptr || strcmp(have.ptr, url))
			git_config_set_string(cfg, key.s, url);
	}
	git_buf_dispose(&have);
	git_config_free(cfg);
	buf_release(&key);
}

/*
 * Make a submodule's repository so that a kill at any point leaves
 * nothing the next run cannot repair: its git directory is made under a
 * temporary name and renamed into place, and the gitlink (<workdir>/.git),
 * the last thing written, appears whole (written to a temporary file and
 * renamed). Without the gitlink, the git directory is an orphan of ours
 * and is made again; with it, the repository is complete.
 */
static int
sub_repo_create(const char *workdir, const char *gitdir, const char *url, git_repository **out)
{
	git_repository_init_options io = GIT_REPOSITORY_INIT_OPTIONS_INIT;
	git_repository *r = NULL;
	git_config *cfg = NULL;
	struct buf tmp = BUF_INIT, wt = BUF_INIT, link = BUF_INIT, dotgit = BUF_INIT, rel = BUF_INIT;
	int ret = -1;

	fault_point("checkout-submodule-create");
	buf_addf(&tmp, "%s.bwbuild-new", gitdir);
	if (remove_tree(tmp.s) < 0 || remove_tree(gitdir) < 0)
		goto out;
	io.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_BARE;
	io.origin_url = url;
	if (git_repository_init_ext(&r, tmp.s, &io) < 0) {
		git_fail("cannot create the repository of the submodule in", tmp.s);
		goto out;
	}
	fault_point("checkout-submodule-init");
	repo_relative_path(gitdir, workdir, &wt);
	if (git_repository_config(&cfg, r) < 0 || git_config_set_bool(cfg, "core.bare", 0) < 0 ||
	    git_config_set_string(cfg, "core.worktree", wt.s) < 0) {
		git_fail("cannot configure the repository in", tmp.s);
		goto out;
	}
	git_config_free(cfg);
	cfg = NULL;
	git_repository_free(r);
	r = NULL;
	fault_point("checkout-submodule-config");
	if (rename(tmp.s, gitdir) < 0) {
		error("cannot rename '%s' to '%s':", tmp.s, gitdir);
		goto out;
	}
	fault_point("checkout-submodule-renamed");
	if (mkdir_p(workdir) < 0)
		goto out;
	fault_point("checkout-submodule-workdir");
	repo_relative_path(workdir, gitdir, &rel);
	buf_addf(&link, "gitdir: %s\n", rel.s);
	buf_addf(&dotgit, "%s/.git", workdir);
	if (write_file_atomic(dotgit.s, link.s, link.len) < 0)
		goto out;
	fault_point("checkout-submodule-linked");
	if (git_repository_open_ext(out, workdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		git_fail("cannot open the checkout in", workdir);
		goto out;
	}
	ret = 0;
out:
	git_config_free(cfg);
	git_repository_free(r);
	buf_release(&tmp);
	buf_release(&wt);
	buf_release(&link);
	buf_release(&dotgit);
	buf_release(&rel);
	return ret;
}

/*
 * A submodule's work repository at `workdir` (git directory `gitdir`),
 * opened or made; one that bwbuild began making and was killed making is
 * made again. `fresh` as work_repo_open's.
 */
static int
sub_repo_open(struct checkout_ctx *c, const char *shown, const char *workdir, const char *gitdir,
	      const char *url, const char *objects, git_repository **out, int *fresh)
{
	struct buf dotgit = BUF_INIT;
	int ret = -1;

	*fresh = 0;
	buf_addf(&dotgit, "%s/.git", workdir);
	if (path_exists(dotgit.s)) {
		if (git_repository_open_ext(out, workdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0) {
			if (git_ensure_origin(*out, url))
				*fresh = -1;
			ret = git_ensure_alternate(*out, objects);
			goto done;
		}
		if (!repo_gitlink_is_ours(dotgit.s, workdir, gitdir)) {
			git_fail("cannot open the checkout in", workdir);
			note("'%s' is not the gitlink bwbuild makes for submodule '%s'; remove it or "
			     "the work directory", dotgit.s, shown);
			goto done;
		}
		warning("the repository of submodule '%s' was cut short while it was being made; "
			"making it again", shown);
		if (unlink(dotgit.s) < 0) {
			error("cannot remove '%s':", dotgit.s);
			goto done;
		}
	} else if (path_exists(workdir) && !repo_dir_is_empty(workdir) && !c->force) {
		error("'%s' exists, is not empty and is not a git checkout; remove it or run with "
		      "--force", workdir);
		goto done;
	}
	if (git_checkout_begin(c) < 0 || sub_repo_create(workdir, gitdir, url, out) < 0)
		goto done;
	*fresh = 1;
	ret = git_ensure_alternate(*out, objects);
	if (!ret)
		fault_point("checkout-submodule-ready");
done:
	buf_release(&dotgit);
	return ret;
}

/* Whether source.submodules.exclude leaves `path` out (nested submodules are paths too). */
static int
excluded(const struct checkout_ctx *c, const char *path)
{
	const struct strvec *ex = c->o->exclude;

	for (size_t i = 0; ex && i < ex->n; i++) {
		size_t n = strlen(ex->v[i]);

		while (n && ex->v[i][n - 1] == '/')
			n--;
		if (n && !strncmp(path, ex->v[i], n) && (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

/* Why a submodule's objects could not be had: the path, the commit, the URLs and mirrors tried. */
static void
submodule_failed(const char *shown, const char *url, const git_oid *want, const struct strvec *tried)
{
	note("submodule '%s' needs commit %s from '%s'", shown, git_oid_tostr_s(want), url);
	for (size_t i = 0; i < tried->n; i++)
		note("tried %s", tried->v[i]);
	note("if the build does not need it, leave it out: 'source.submodules: {exclude: [%s]}'",
	     shown);
}

/*
 * Bring each submodule of `repo` (its HEAD already at the wanted commit)
 * to the commit the tree records, from the submodule's own mirror, and
 * recurse. Relative URLs are joined to `url`, the superproject's upstream.
 */
int
git_checkout_submodules(struct checkout_ctx *c, git_repository *repo, const char *url,
		    const char *prefix, int depth)
{
	struct strvec names = STRVEC_INIT;
	int ret = -1;
	size_t i;

	if (depth > 8)
		return error("submodules nest deeper than 8 levels under '%s'", prefix);
	if (git_submodule_foreach(repo, git_collect_name, &names) < 0) {
		git_fail("cannot read .gitmodules in", git_repository_workdir(repo));
		goto out;
	}
	for (i = 0; i < names.n; i++) {
		git_submodule *sm = NULL;
		git_repository *sub = NULL;
		const git_oid *want;
		git_oid head;
		struct buf suburl = BUF_INIT, objects = BUF_INIT, gitdir = BUF_INIT;
		struct buf workdir = BUF_INIT, shown = BUF_INIT;
		struct strvec tried = STRVEC_INIT;
		int fresh = 0, cached = 0, rc = -1;

		if (git_submodule_lookup(&sm, repo, names.v[i]) < 0) {
			git_fail("cannot look up submodule", names.v[i]);
			goto out;
		}
		want = git_submodule_head_id(sm);
		if (!want || !git_submodule_url(sm)) {
			/* In .gitmodules but not in the tree (or no URL): nothing to check out. */
			git_submodule_free(sm);
			continue;
		}
		submodule_upstream(sm, url, &suburl);
		buf_addf(&shown, "%s%s", prefix, git_submodule_path(sm));
		if (excluded(c, shown.s)) {
			strvec_push(&c->left_out, shown.s);
			rc = 0;
			goto next;
		}
		buf_addf(&gitdir, "%smodules/%s", git_repository_path(repo), git_submodule_name(sm));
		buf_addf(&workdir, "%s%s", git_repository_workdir(repo), git_submodule_path(sm));
		if (git_source_ensure(&c->src, suburl.s, NULL, want, NULL, &objects, &cached, &tried) < 0) {
			submodule_failed(shown.s, suburl.s, want, &tried);
			goto next;
		}
		if (cached)
			strvec_push(c->mirrors, objects.s);
		if (sub_repo_open(c, shown.s, workdir.s, gitdir.s, suburl.s, objects.s, &sub, &fresh) < 0)
			goto next;
		if (fresh == 1 || c->force || git_reference_name_to_id(&head, sub, "HEAD") < 0 ||
		    !git_oid_equal(&head, want)) {
			struct buf sp = BUF_INIT;

			buf_addf(&sp, "%s/", shown.s);
			rc = git_checkout_begin(c);
			if (rc == 0)
				rc = git_checkout_commit(c, sub, want, shown.s, sp.s, workdir.s, objects.s,
						     c->force || fresh == 1);
			buf_release(&sp);
			if (rc < 0)
				goto next;
			rc = -1;
		}
		ensure_submodule_config(repo, git_submodule_name(sm), suburl.s);
		git_tree_info_add(c->out, shown.s, suburl.s, want);
		buf_addch(&shown, '/');
		rc = git_checkout_submodules(c, sub, suburl.s, shown.s, depth + 1);
next:
		git_repository_free(sub);
		git_submodule_free(sm);
		buf_release(&suburl);
		buf_release(&objects);
		buf_release(&gitdir);
		buf_release(&workdir);
		buf_release(&shown);
		strvec_clear(&tried);
		if (rc < 0)
			goto out;
	}
	ret = 0;
out:
	strvec_clear(&names);
	return ret;
}

/*
 * Before looking at an existing tree: each submodule already checked out
 * gets its mirror (holding the commit the current HEAD records) as its
 * object store, so status can read it even when the cache was removed
 * since. Fetches only what is missing.
 */
int
git_attach_submodules(struct checkout_ctx *c, git_repository *repo, const char *url, const char *prefix,
		  int depth)
{
	struct strvec names = STRVEC_INIT;
	int ret = 0;

	if (depth > 8 || git_repository_head_unborn(repo) == 1 ||
	    git_submodule_foreach(repo, git_collect_name, &names) < 0)
		goto out;
	for (size_t i = 0; i < names.n && !ret; i++) {
		git_submodule *sm = NULL;
		git_repository *sub = NULL;
		const git_oid *want;
		struct buf suburl = BUF_INIT, objects = BUF_INIT, shown = BUF_INIT;
		struct strvec tried = STRVEC_INIT;
		int cached = 0;

		if (git_submodule_lookup(&sm, repo, names.v[i]) < 0)
			continue;
		want = git_submodule_head_id(sm);
		buf_addf(&shown, "%s%s", prefix, git_submodule_path(sm));
		if (want && git_submodule_url(sm) && !excluded(c, shown.s) &&
		    git_submodule_open(&sub, sm) == 0) {
			submodule_upstream(sm, url, &suburl);
			ret = git_source_ensure(&c->src, suburl.s, NULL, want, NULL, &objects, &cached, &tried);
			if (ret < 0)
				submodule_failed(shown.s, suburl.s, want, &tried);
			if (!ret)
				ret = git_ensure_alternate(sub, objects.s);
			buf_addch(&shown, '/');
			if (!ret)
				ret = git_attach_submodules(c, sub, suburl.s, shown.s, depth + 1);
		}
		git_repository_free(sub);
		git_submodule_free(sm);
		buf_release(&suburl);
		buf_release(&objects);
		buf_release(&shown);
		strvec_clear(&tried);
	}
out:
	strvec_clear(&names);
	return ret;
}

void
git_describe_submodules(git_repository *repo, const char *url, const char *prefix,
		    struct repo_tree_info *out, int depth)
{
	struct strvec names = STRVEC_INIT;

	if (depth > 8 || git_submodule_foreach(repo, git_collect_name, &names) < 0)
		goto out;
	for (size_t i = 0; i < names.n; i++) {
		git_submodule *sm = NULL;
		git_repository *sub = NULL;
		git_oid head;
		struct buf suburl = BUF_INIT, shown = BUF_INIT;

		if (git_submodule_lookup(&sm, repo, names.v[i]) < 0)
			continue;
		submodule_upstream(sm, url, &suburl);
		buf_addf(&shown, "%s%s", prefix, git_submodule_path(sm));
		if (git_submodule_open(&sub, sm) == 0 &&
		    git_reference_name_to_id(&head, sub, "HEAD") == 0) {
			git_tree_info_add(out, shown.s, suburl.s, &head);
			buf_addch(&shown, '/');
			git_describe_submodules(sub, suburl.s, shown.s, out, depth + 1);
		}
		git_repository_free(sub);
		git_submodule_free(sm);
		buf_release(&suburl);
		buf_release(&shown);
	}
out:
	strvec_clear(&names);
}
