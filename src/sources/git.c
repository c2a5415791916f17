/*
 * Every libgit2 call of bwbuild: this is the only file that includes
 * <git2.h> (the rule for src/sources/: libgit2's types stay here, and the
 * logic that needs none of them lives beside it: repourl.c for where a
 * repository's objects come from, repowork.c for the work tree's own
 * files and progress lines). Over 800 lines for that reason: it holds
 * the mirrors (fetch into cached bare mirrors, mirror directories,
 * alternates, locks), the checkout (status, local changes,
 * outputs.since, absent blobs) and the submodules, which share one
 * checkout context and libgit2's objects; splitting them would put
 * <git2.h> in three files.
 */
#include <git2.h>
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* libgit2's *_OPTIONS_INIT macros leave trailing fields implicit. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/fault.h"
#include "sources/git.h"
#include "sources/repourl.h"
#include "sources/repowork.h"
#include "core/hash.h"
#include "core/strvec.h"
#include "core/util.h"

static int
libgit2_fail(const char *what, const char *subject)
{
	const git_error *e = git_error_last();

	return error("%s '%s': %s", what, subject, e && e->message ? e->message : "unknown libgit2 error");
}

static int
collect_name(git_submodule *sm, const char *name, void *payload)
{
	(void)sm;
	strvec_push(payload, name);
	return 0;
}

static int
resolve(git_repository *repo, const char *ref, git_oid *out)
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

/* ---- mirrors ---- */

static int odb_has(git_repository *repo, const git_oid *id);

static int
collect_insteadof(const git_config_entry *e, void *payload)
{
	size_t n = strlen(e->name), tail = strlen(".insteadof");

	/* url.<base>.insteadof: the base may itself hold dots */
	if (n > 4 + tail && e->value) {
		strvec_push_nodup(payload, xstrndup(e->name + 4, n - 4 - tail));
		strvec_push(payload, e->value);
	}
	return 0;
}

int
repo_url_rules_load(struct strvec *rules)
{
	git_config *cfg = NULL;
	int rc;

	git_libgit2_init();
	/* the user's global, XDG and system files, as git reads them outside a repository */
	rc = git_config_open_default(&cfg);
	if (rc == 0)
		rc = git_config_foreach_match(cfg, "^url\\..*\\.insteadof$", collect_insteadof, rules);
	git_config_free(cfg);
	git_libgit2_shutdown();
	return rc < 0 && rc != GIT_ENOTFOUND ? -1 : 0;
}

/*
 * A repository of the mirror directories `dirs` for `url` that has `ref`
 * (its commit into `out`) or the commit `want`: its path into `found`,
 * 0; -1 when none has it, what was tried (and why not) pushed to `tried`.
 */
static int
mirror_dir_find(const struct strvec *dirs, const char *url, const char *ref, const git_oid *want,
		git_oid *out, struct buf *found, struct strvec *tried)
{
	struct strvec cands = STRVEC_INIT, seen = STRVEC_INIT;
	int ret = -1;

	for (size_t d = 0; dirs && d < dirs->n && ret < 0; d++) {
		size_t before = tried ? tried->n : 0;

		strvec_clear(&cands);
		repo_mirror_candidates(dirs->v[d], url, &cands);
		for (size_t i = 0; i < cands.n && ret < 0; i++) {
			struct buf real = BUF_INIT;
			git_repository *m = NULL;
			git_oid id;

			if (repo_resolve_nocase(cands.v[i], &real) < 0) {
				buf_reset(&real);
			} else if (!repo_looks_bare(real.s)) {
				/* a clone with a work tree: its .git */
				buf_addstr(&real, "/.git");
				if (!repo_looks_bare(real.s))
					buf_reset(&real);
			}
			if (!real.len || strset_has(&seen, real.s)) {
				buf_release(&real);
				continue;
			}
			strset_add(&seen, real.s);
			if (repo_world_writable(real.s)) {
				if (tried)
					strvec_pushf(tried, "%s (refused: writable by all, so anyone could "
						     "change what it serves)", real.s);
			} else if (git_repository_open_bare(&m, real.s) < 0) {
				if (tried)
					strvec_pushf(tried, "%s (not a repository git can open)", real.s);
			} else if (ref ? resolve(m, ref, &id) == 0 : odb_has(m, want)) {
				if (ref && out)
					git_oid_cpy(out, &id);
				buf_addstr(found, real.s);
				ret = 0;
			} else if (tried) {
				strvec_pushf(tried, "%s (has no %s %s)", real.s, ref ? "ref" : "commit",
					     ref ? ref : git_oid_tostr_s(want));
			}
			git_repository_free(m);
			buf_release(&real);
		}
		if (ret < 0 && tried && tried->n == before)
			strvec_pushf(tried, "%s (no repository for this URL: looked for <owner>+<name>, "
				     "<owner>/<name>.git, <name>.git, each with or without /repo)", dirs->v[d]);
	}
	strvec_clear(&cands);
	strvec_clear(&seen);
	return ret;
}

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

struct fetch_progress {
	struct repo_meter p;
	unsigned objects;
	size_t bytes;
};

static int
fetch_progress_cb(const git_indexer_progress *st, void *payload)
{
	struct fetch_progress *fp = payload;
	char detail[64];

	fp->objects = st->received_objects;
	fp->bytes = st->received_bytes;
	snprintf(detail, sizeof(detail), " objects, %.1f MiB",
		 (double)st->received_bytes / (1024.0 * 1024.0));
	if (st->received_objects < st->total_objects)
		repo_progress_update(&fp->p, st->received_objects, st->total_objects, detail);
	else if (st->total_deltas)
		repo_progress_update(&fp->p, st->indexed_deltas, st->total_deltas, " deltas resolved");
	return 0;
}

/* Fetch every branch and tag of `url` into the mirror; the only network access. */
static int
mirror_fetch(git_repository *m, const char *url, const char *mpath, const char *what)
{
	git_remote *remote = NULL;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	struct fetch_progress fp = { { NULL, { 0, 0, 0 }, 0, 0 }, 0, 0 };
	struct buf label = BUF_INIT;
	int rc;

	fprintf(stderr, "fetch: %s: fetching %s into %s\n", url, what, mpath);
	buf_addf(&label, "fetch: %s", url);
	repo_progress_init(&fp.p, label.s);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.callbacks.transfer_progress = fetch_progress_cb;
	fo.callbacks.payload = &fp;
	if (git_remote_lookup(&remote, m, "origin") < 0) {
		buf_release(&label);
		return libgit2_fail("cannot find remote origin in the mirror", mpath);
	}
	rc = git_remote_fetch(remote, NULL, &fo, NULL);
	git_remote_free(remote);
	repo_progress_end(&fp.p);
	if (rc == 0 && fp.objects)
		fprintf(stderr, "fetch: %s: %u objects, %.1f MiB in %.1f s\n", url, fp.objects,
			(double)fp.bytes / (1024.0 * 1024.0), now_seconds() - fp.p.due.start);
	buf_release(&label);
	if (rc < 0) {
		const git_error *e = git_error_last();

		error("cannot fetch '%s' for %s: %s", url, what,
		      e && e->message ? e->message : "unknown libgit2 error");
		note("refs already in the cache (%s) build without the network; check the URL "
		     "and the connection", mpath);
		return -1;
	}
	return 0;
}

static int
odb_has(git_repository *repo, const git_oid *id)
{
	git_odb *odb = NULL;
	int has;

	if (git_repository_odb(&odb, repo) < 0)
		return 0;
	has = git_odb_exists(odb, id);
	git_odb_free(odb);
	return has;
}

/* 1 when the mirror has `ref` (its commit into `out`), or else the commit `want`. */
static int
mirror_has(git_repository *m, const char *ref, const git_oid *want, git_oid *out)
{
	return ref ? resolve(m, ref, out) == 0 : odb_has(m, want);
}

/*
 * Read every object of a mirror back (libgit2 inflates each and checks
 * its hash): 0 when whole, -1 with the first problem in `why`.
 */
struct odb_check {
	git_odb *odb;
	struct buf *why;
};

static int
check_object(const git_oid *id, void *payload)
{
	struct odb_check *oc = payload;
	git_odb_object *obj = NULL;
	const git_error *e;

	if (git_odb_read(&obj, oc->odb, id) == 0) {
		git_odb_object_free(obj);
		return 0;
	}
	e = git_error_last();
	buf_addf(oc->why, "object %s: %s", git_oid_tostr_s(id), e && e->message ? e->message : "unreadable");
	return -1;
}

static int
mirror_verify(const char *objects, struct buf *why)
{
	struct odb_check oc = { NULL, why };
	int rc;

	if (git_odb_open(&oc.odb, objects) < 0) {
		const git_error *e = git_error_last();

		buf_addstr(why, e && e->message ? e->message : "cannot open its objects");
		return -1;
	}
	rc = git_odb_foreach(oc.odb, check_object, &oc);
	if (rc < 0 && !why->len) {
		const git_error *e = git_error_last();

		buf_addstr(why, e && e->message ? e->message : "cannot list its objects");
	}
	git_odb_free(oc.odb);
	return rc < 0 ? -1 : 0;
}

/*
 * Read the mirror whose objects directory is `objects` back; when it is
 * damaged, name it, remove it (to be fetched again) and return 1.
 */
static int
mirror_drop_if_damaged(const char *objects)
{
	struct buf why = BUF_INIT, mpath = BUF_INIT;
	int dropped = 0;

	if (mirror_verify(objects, &why) < 0) {
		buf_add(&mpath, objects, strlen(objects) - strlen("/objects"));
		warning("the mirror '%s' is damaged (%s); removing it to fetch it again", mpath.s,
			why.s);
		dropped = remove_tree(mpath.s) == 0;
	}
	buf_release(&why);
	buf_release(&mpath);
	return dropped;
}

/*
 * Open (creating it when new) the bare mirror of `url` under the cache and
 * make sure it has `ref` (a name or id; its commit into `out`) or the
 * commit `want` (then `out` may be NULL): the mirror is fetched only when
 * it lacks it, or always when `refresh`. The mirror's lock is held while
 * fetching so two builds do not fetch into it at once.
 */
static int
mirror_ensure_once(const char *cache, const char *url, const char *ref, const git_oid *want,
		   int refresh, git_oid *out, struct buf *objects, int *damaged)
{
	git_repository *m = NULL;
	struct buf mpath = BUF_INIT, lockp = BUF_INIT, what = BUF_INIT, canon = BUF_INIT;
	int fd = -1, ret = -1;

	repo_fetch_url(url, &canon);
	repo_mirror_path(cache, canon.s, &mpath);
	buf_addf(&lockp, "%s.lock", mpath.s);
	buf_addf(objects, "%s/objects", mpath.s);
	if (ref)
		buf_addf(&what, "ref '%s'", ref);
	else
		buf_addf(&what, "commit %s", git_oid_tostr_s(want));
	if (mkdir_p_parent(lockp.s) < 0)
		goto out;
	/* every level bwbuild reads a mirror through, not only the top */
	if (repo_trust_level(mpath.s, "the mirror", 0) < 0 || repo_trust_level(objects->s, "the mirror's objects", 0) < 0) {
		note("a mirror is made only by bwbuild, as you; one owned by another user or writable "
		     "by all could hand the build any source");
		goto out;
	}
	fd = open(lockp.s, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		error("cannot open '%s':", lockp.s);
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		fprintf(stderr, "fetch: waiting for another bwbuild using %s\n", mpath.s);
		if (flock(fd, LOCK_EX) < 0) {
			error("cannot lock '%s':", lockp.s);
			goto out;
		}
	}
	if (is_dir(mpath.s) && git_repository_open_bare(&m, mpath.s) < 0) {
		const git_error *e = git_error_last();

		warning("the mirror '%s' cannot be opened (%s); removing it to fetch it again",
			mpath.s, e && e->message ? e->message : "unknown libgit2 error");
		if (remove_tree(mpath.s) < 0)
			goto out;
	}
	if (!m) {
		git_remote *r = NULL;
		struct buf tmp = BUF_INIT;
		int rc;

		/* Built under a temporary name: a mirror is either whole or absent. */
		buf_addf(&tmp, "%s.tmp", mpath.s);
		remove_tree(tmp.s);
		rc = git_repository_init(&m, tmp.s, 1);
		if (rc == 0)
			rc = git_remote_create_with_fetchspec(&r, m, "origin", canon.s,
							      "+refs/heads/*:refs/heads/*");
		if (rc == 0)
			rc = git_remote_add_fetch(m, "origin", "+refs/tags/*:refs/tags/*");
		git_remote_free(r);
		if (rc == 0) {
			git_repository_free(m);
			m = NULL;
			if (rename(tmp.s, mpath.s) < 0)
				rc = error("cannot rename '%s' to '%s':", tmp.s, mpath.s);
			else
				rc = git_repository_open_bare(&m, mpath.s);
		} else {
			libgit2_fail("cannot create a mirror in", tmp.s);
		}
		buf_release(&tmp);
		if (rc < 0)
			goto out;
		refresh = 1;
	}
	if (mirror_has(m, ref, want, out) && !refresh) {
		ret = 0;
		goto out;
	}
	if (mirror_fetch(m, url, mpath.s, what.s) < 0)
		goto out;
	if (!mirror_has(m, ref, want, out)) {
		/* Fetched and still missing: the mirror may hold it, damaged. */
		if ((*damaged = mirror_drop_if_damaged(objects->s)))
			goto out;
		if (ref)
			error("unknown ref '%s' in '%s': not a tag, branch or commit there", ref, url);
		else
			error("commit %s is not in '%s' (none of its branches or tags has it)",
			      git_oid_tostr_s(want), url);
		goto out;
	}
	ret = 0;
out:
	git_repository_free(m);
	if (fd >= 0)
		close(fd); /* releases the lock */
	buf_release(&mpath);
	buf_release(&lockp);
	buf_release(&what);
	buf_release(&canon);
	return ret;
}

static int
mirror_ensure(const char *cache, const char *url, const char *ref, const git_oid *want,
	      int refresh, git_oid *out, struct buf *objects)
{
	int damaged = 0, rc;

	rc = mirror_ensure_once(cache, url, ref, want, refresh, out, objects, &damaged);
	if (rc < 0 && damaged) {
		buf_reset(objects);
		rc = mirror_ensure_once(cache, url, ref, want, 1, out, objects, &damaged);
	}
	return rc;
}

/* ---- work trees ---- */

static int
add_alternate_now(git_repository *repo, const char *objects)
{
	git_odb *odb = NULL;
	int rc;

	if (git_repository_odb(&odb, repo) < 0)
		return libgit2_fail("cannot open the object database of", git_repository_path(repo));
	rc = git_odb_add_disk_alternate(odb, objects);
	git_odb_free(odb);
	return rc < 0 ? libgit2_fail("cannot add the mirror's objects", objects) : 0;
}

/*
 * A work repository borrows every object from the mirror through
 * objects/info/alternates (as `git clone --reference`), so a PyTorch tree
 * costs its checkout only. Adds the mirror when the line is missing.
 */
static int
ensure_alternate(git_repository *repo, const char *objects)
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
static int
ensure_origin(git_repository *repo, const char *url)
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
			return libgit2_fail("cannot open the checkout in", workdir);
		/* The profile may name another upstream for the same work directory. */
		if (ensure_origin(*out, url))
			*fresh = -1;
		return ensure_alternate(*out, objects);
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
		return libgit2_fail("cannot create a checkout in", workdir);
	*fresh = 1;
	return ensure_alternate(*out, objects);
}

/* "modified: path" lines for what differs from HEAD, submodules included (recursively). */
static long long outputs_since;

void
repo_build_outputs_since(long long since)
{
	outputs_since = since;
}

/* An untracked path made since the build began writing into the tree (repo_build_outputs_since). */
static int
is_build_output(git_repository *repo, const char *path)
{
	const char *wd = git_repository_workdir(repo);
	struct buf full = BUF_INIT;
	struct stat st;
	int r = 0;

	if (!outputs_since || !wd)
		return 0;
	buf_addf(&full, "%s%s", wd, path);
	while (full.len > 1 && full.s[full.len - 1] == '/')
		full.s[--full.len] = '\0';
	r = lstat(full.s, &st) == 0 && (long long)st.st_ctime >= outputs_since;
	buf_release(&full);
	return r;
}

/*
 * What differs from HEAD in one repository (modified, new, deleted;
 * submodules not entered): "kind: <prefix>path" lines, or bare paths
 * when `kinds` is 0. -1 when git cannot list it.
 */
static int
status_paths(git_repository *repo, const char *prefix, int kinds, struct strvec *out)
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
		if (e->status == GIT_STATUS_WT_NEW && is_build_output(repo, d->new_file.path))
			continue;
		/* a file the mirrors lack, left out of the checkout (mark_absent): not a change */
		if (idx && e->status == GIT_STATUS_WT_DELETED &&
		    (ie = git_index_get_bypath(idx, d->new_file.path, 0)) &&
		    (ie->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE))
			continue;
		if (!kinds)
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

/* status_paths with kinds, and each submodule: entered, or "moved:" when not at the recorded commit. */
static void
collect_changes(git_repository *repo, const char *prefix, struct strvec *out, int depth)
{
	struct strvec names = STRVEC_INIT;
	size_t i;

	if (git_repository_head_unborn(repo) == 1)
		return;
	status_paths(repo, prefix, 1, out);
	if (depth > 8 || git_submodule_foreach(repo, collect_name, &names) < 0)
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
			if (git_reference_name_to_id(&head, sub, "HEAD") == 0 && !git_oid_equal(&head, want))
				strvec_pushf(out, "moved: %.*s (at %.12s, the tree records %.12s)",
					     (int)p.len - 1, p.s, git_oid_tostr_s(&head),
					     git_oid_tostr_s(want));
			else
				collect_changes(sub, p.s, out, depth + 1);
			git_repository_free(sub);
		}
		buf_release(&p);
		git_submodule_free(sm);
	}
out:
	strvec_clear(&names);
}

static void
tree_info_add(struct repo_tree_info *ti, const char *path, const char *url, const git_oid *oid)
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

/*
 * Where each repository's objects come from: a repository of the mirror
 * directories (used as it is, read only: never fetched into, repaired or
 * removed), else the cache's mirror of the URL after the user's
 * url.<base>.insteadOf rules (fetched when it lacks what is wanted).
 */
struct sources {
	const char *cache;
	const struct strvec *dirs;
	struct strvec rules;   /* url.<base>.insteadOf: base, prefix, base, prefix, ... */
	int refresh;
};

/*
 * `url` (as the tree names it) with `ref` (its commit into `out`) or the
 * commit `want`: the objects directory into `objects`, `cached` 1 when
 * it is the cache's. -1 after reporting, what was tried in `tried`.
 */
static int
source_ensure(const struct sources *s, const char *url, const char *ref, const git_oid *want,
	      git_oid *out, struct buf *objects, int *cached, struct strvec *tried)
{
	struct buf real = BUF_INIT, found = BUF_INIT;
	int rc;

	repo_url_rewrite(&s->rules, url, &real);
	if (strcmp(real.s, url))
		strvec_pushf(tried, "%s, as url.<base>.insteadOf in your git config rewrites it", real.s);
	if (mirror_dir_find(s->dirs, real.s, ref, want, out, &found, tried) == 0) {
		buf_addf(objects, "%s/objects", found.s);
		*cached = 0;
		rc = 0;
	} else {
		*cached = 1;
		rc = mirror_ensure(s->cache, real.s, ref, want, s->refresh, out, objects);
	}
	buf_release(&real);
	buf_release(&found);
	return rc;
}

struct checkout_ctx {
	const struct repo_checkout_opts *o;
	struct repo_tree_info *out;
	struct strvec *mirrors;  /* the objects/ of every cache mirror used, for repair */
	int force;               /* --force, or finishing a checkout that was cut short */
	const char *mark;        /* CHECKOUT_MARK's path, written before the first file changes */
	int marked;
	struct sources src;
	struct strvec absent;    /* files not checked out: their blobs are missing from the mirrors */
	struct strvec left_out;  /* submodules left out by source.submodules.exclude */
	size_t files, repos;
	double start;
};

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
static int
checkout_commit(struct checkout_ctx *c, git_repository *repo, const git_oid *oid, const char *what,
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
		libgit2_fail("cannot look up the commit of", what);
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
	buf_addf(&label, "fetch: checking out %s", what);
	repo_progress_init(&cp.p, label.s);
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
		libgit2_fail("cannot record the absent files in the index of", what);
		goto out;
	}
	if (git_repository_set_head_detached(repo, oid) < 0) {
		libgit2_fail("cannot move HEAD to", what);
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

/* A checkout is about to change files: leave a mark that only its end removes. */
static int
checkout_begin(struct checkout_ctx *c)
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
		libgit2_fail("cannot create the repository of the submodule in", tmp.s);
		goto out;
	}
	fault_point("checkout-submodule-init");
	repo_relative_path(gitdir, workdir, &wt);
	if (git_repository_config(&cfg, r) < 0 || git_config_set_bool(cfg, "core.bare", 0) < 0 ||
	    git_config_set_string(cfg, "core.worktree", wt.s) < 0) {
		libgit2_fail("cannot configure the repository in", tmp.s);
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
		libgit2_fail("cannot open the checkout in", workdir);
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
			if (ensure_origin(*out, url))
				*fresh = -1;
			ret = ensure_alternate(*out, objects);
			goto done;
		}
		if (!repo_gitlink_is_ours(dotgit.s, workdir, gitdir)) {
			libgit2_fail("cannot open the checkout in", workdir);
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
	if (checkout_begin(c) < 0 || sub_repo_create(workdir, gitdir, url, out) < 0)
		goto done;
	*fresh = 1;
	ret = ensure_alternate(*out, objects);
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
static int
checkout_submodules(struct checkout_ctx *c, git_repository *repo, const char *url,
		    const char *prefix, int depth)
{
	struct strvec names = STRVEC_INIT;
	int ret = -1;
	size_t i;

	if (depth > 8)
		return error("submodules nest deeper than 8 levels under '%s'", prefix);
	if (git_submodule_foreach(repo, collect_name, &names) < 0) {
		libgit2_fail("cannot read .gitmodules in", git_repository_workdir(repo));
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
			libgit2_fail("cannot look up submodule", names.v[i]);
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
		if (source_ensure(&c->src, suburl.s, NULL, want, NULL, &objects, &cached, &tried) < 0) {
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
			rc = checkout_begin(c);
			if (rc == 0)
				rc = checkout_commit(c, sub, want, shown.s, sp.s, workdir.s, objects.s,
						     c->force || fresh == 1);
			buf_release(&sp);
			if (rc < 0)
				goto next;
			rc = -1;
		}
		ensure_submodule_config(repo, git_submodule_name(sm), suburl.s);
		tree_info_add(c->out, shown.s, suburl.s, want);
		buf_addch(&shown, '/');
		rc = checkout_submodules(c, sub, suburl.s, shown.s, depth + 1);
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
static int
attach_submodules(struct checkout_ctx *c, git_repository *repo, const char *url, const char *prefix,
		  int depth)
{
	struct strvec names = STRVEC_INIT;
	int ret = 0;

	if (depth > 8 || git_repository_head_unborn(repo) == 1 ||
	    git_submodule_foreach(repo, collect_name, &names) < 0)
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
			ret = source_ensure(&c->src, suburl.s, NULL, want, NULL, &objects, &cached, &tried);
			if (ret < 0)
				submodule_failed(shown.s, suburl.s, want, &tried);
			if (!ret)
				ret = ensure_alternate(sub, objects.s);
			buf_addch(&shown, '/');
			if (!ret)
				ret = attach_submodules(c, sub, suburl.s, shown.s, depth + 1);
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
		fprintf(stderr, "fetch: %zu submodule%s left out (source.submodules.exclude):\n",
			c->left_out.n, c->left_out.n == 1 ? "" : "s");
		for (size_t i = 0; i < c->left_out.n; i++)
			fprintf(stderr, "fetch:   %s\n", c->left_out.v[i]);
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
		fprintf(stderr, "fetch: checked out %zu file%s in %zu repositor%s in %.1f s\n", c->files,
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

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.out = out;
	c.mirrors = mirrors;
	c.src.cache = o->cache_dir;
	c.src.dirs = o->mirror_dirs;
	c.src.rules = *rules;
	c.src.refresh = o->refresh;
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
	if (source_ensure(&c.src, o->url, o->ref, NULL, &oid, &objects, &cached, &tried) < 0) {
		for (size_t i = 0; i < tried.n; i++)
			note("tried %s", tried.v[i]);
		goto out;
	}
	if (cached)
		strvec_push(mirrors, objects.s);
	if (work_repo_open(o->dir, NULL, o->url, objects.s, &repo, &fresh) < 0)
		goto out;
	buf_addf(&mark, "%s" CHECKOUT_MARK, git_repository_path(repo));
	if (fresh != 1 && !interrupted && attach_submodules(&c, repo, o->url, "", 0) < 0)
		goto out;
	if (!interrupted)
		collect_changes(repo, "", &changes, 0);
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
	if (!at_head && (checkout_begin(&c) < 0 ||
			 checkout_commit(&c, repo, &oid, o->ref, "", o->dir, objects.s,
					 force || fresh == 1) < 0))
		goto out;
	out->commit = xstrdup(git_oid_tostr_s(&oid));
	if (checkout_submodules(&c, repo, o->url, "", 0) < 0)
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
	return ret;
}

/*
 * A checkout that failed may have read a damaged mirror (a disk error, a
 * fetch cut short, a bad copy): each cache mirror it used is read back,
 * and a damaged one is named, removed and fetched again, once. The
 * repositories of mirror directories are the user's: never removed.
 */
static int
repair_mirrors(const struct strvec *mirrors)
{
	int repaired = 0;

	for (size_t i = 0; i < mirrors->n; i++)
		repaired += mirror_drop_if_damaged(mirrors->v[i]);
	return repaired;
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
	if (rc < 0 && repair_mirrors(&mirrors) > 0) {
		strvec_clear(&mirrors);
		note("checking out again from the fetched mirrors");
		rc = checkout_once(o, out, &mirrors, &rules);
	}
	strvec_clear(&mirrors);
	strvec_clear(&rules);
	git_libgit2_shutdown();
	return rc;
}

static void
describe_submodules(git_repository *repo, const char *url, const char *prefix,
		    struct repo_tree_info *out, int depth)
{
	struct strvec names = STRVEC_INIT;

	if (depth > 8 || git_submodule_foreach(repo, collect_name, &names) < 0)
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
			tree_info_add(out, shown.s, suburl.s, &head);
			buf_addch(&shown, '/');
			describe_submodules(sub, suburl.s, shown.s, out, depth + 1);
		}
		git_repository_free(sub);
		git_submodule_free(sm);
		buf_release(&suburl);
		buf_release(&shown);
	}
out:
	strvec_clear(&names);
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
	describe_submodules(repo, origin ? git_remote_url(origin) : NULL, "", out, 0);
	if (changes)
		collect_changes(repo, "", changes, 0);
	ret = 0;
out:
	git_remote_free(origin);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
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
		libgit2_fail("cannot open the checkout in", dir);
		git_libgit2_shutdown();
		return -1;
	}
	so.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
	so.flags = GIT_STATUS_OPT_INCLUDE_IGNORED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&list, repo, &so) < 0) {
		ret = libgit2_fail("cannot list ignored files in", dir);
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

int
repo_resolve_local(const char *dir, const char *ref, struct buf *out)
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
repo_resolve_cached(const char *cache_dir, const char *url, const char *ref, struct buf *out)
{
	struct strvec dirs = STRVEC_INIT;
	int ret;

	repo_mirror_dirs_env(&dirs);
	ret = repo_resolve_source(cache_dir, &dirs, url, ref, out);
	strvec_clear(&dirs);
	return ret;
}

int
repo_resolve_source(const char *cache_dir, const struct strvec *mirror_dirs, const char *url,
		    const char *ref, struct buf *out)
{
	struct buf mpath = BUF_INIT, canon = BUF_INIT, real = BUF_INIT, found = BUF_INIT;
	struct strvec rules = STRVEC_INIT;
	git_oid oid;
	int ret;

	/* as the fetch step finds it: insteadOf, the mirror directories, then the cache */
	repo_url_rules_load(&rules);
	repo_url_rewrite(&rules, url, &real);
	git_libgit2_init();
	ret = mirror_dir_find(mirror_dirs, real.s, ref, NULL, &oid, &found, NULL);
	if (ret == 0)
		buf_addstr(out, git_oid_tostr_s(&oid));
	git_libgit2_shutdown();
	if (ret < 0) {
		repo_fetch_url(real.s, &canon);
		repo_mirror_path(cache_dir, canon.s, &mpath);
		ret = is_dir(mpath.s) ? repo_resolve_local(mpath.s, ref, out) : -1;
	}
	buf_release(&mpath);
	buf_release(&canon);
	buf_release(&real);
	buf_release(&found);
	strvec_clear(&rules);
	return ret;
}

int
repo_changed_paths(const char *dir, struct strvec *paths)
{
	git_repository *repo = NULL;
	int ret = -1;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) == 0)
		ret = status_paths(repo, "", 0, paths);
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
