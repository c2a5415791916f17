#include <git2.h>
#include <ctype.h>
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

#include "buf.h"
#include "diag.h"
#include "fault.h"
#include "git.h"
#include "hash.h"
#include "strvec.h"
#include "util.h"

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

void
repo_cache_dir(struct buf *out)
{
	const char *v = getenv("BWBUILD_CACHE_DIR");

	if (v && *v) {
		buf_addstr(out, v);
		return;
	}
	v = getenv("XDG_CACHE_HOME");
	if (v && *v == '/') {
		buf_addf(out, "%s/bwbuild", v);
		return;
	}
	v = getenv("HOME");
	if (!v || !*v) {
		struct passwd *pw = getpwuid(getuid());

		v = pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
	}
	if (v)
		buf_addf(out, "%s/.cache/bwbuild", v);
}

int
repo_cache_dir_check(const char *dir)
{
	/* Every level: the directory, git/ and each mirror in it (src/util.c). */
	return cache_dir_check(dir);
}

void
repo_mirror_path(const char *cache_dir, const char *url, struct buf *out)
{
	struct buf h = BUF_INIT;
	const char *base;
	size_t n;

	/* The last path component names it for people, the URL's hash keeps it unique. */
	n = strlen(url);
	while (n && (url[n - 1] == '/'))
		n--;
	base = url + n;
	while (base > url && base[-1] != '/' && base[-1] != ':')
		base--;
	n -= (size_t)(base - url);
	if (n > 4 && !strncmp(base + n - 4, ".git", 4))
		n -= 4;
	sha256_hex(&h, url, strlen(url));
	buf_addf(out, "%s/git/", cache_dir);
	for (size_t i = 0; i < n && i < 64; i++)
		buf_addch(out, isalnum((unsigned char)base[i]) || base[i] == '-' || base[i] == '_' ||
				       base[i] == '.' ? base[i] : '_');
	buf_addf(out, "-%.12s.git", h.s);
	buf_release(&h);
}

void
repo_url_join(const char *base, const char *rel, struct buf *out)
{
	size_t n = strlen(base);

	/* git's rule for .gitmodules: each leading ../ drops one component of the superproject's URL. */
	while (n && base[n - 1] == '/')
		n--;
	for (;;) {
		if (!strncmp(rel, "./", 2)) {
			rel += 2;
		} else if (!strncmp(rel, "../", 3)) {
			rel += 3;
			while (n && base[n - 1] != '/' && base[n - 1] != ':')
				n--;
			if (n)
				n--;
		} else {
			break;
		}
	}
	buf_add(out, base, n);
	/* scp-like "host:path": keep the colon when the path was used up */
	buf_addch(out, n && base[n] == ':' ? ':' : '/');
	buf_addstr(out, rel);
}

static int
is_relative_url(const char *url)
{
	return !strncmp(url, "./", 2) || !strncmp(url, "../", 3);
}

/* A submodule's upstream: its URL, a relative one joined to the superproject's `parent` URL. */
static void
submodule_upstream(git_submodule *sm, const char *parent, struct buf *out)
{
	const char *url = git_submodule_url(sm);

	if (url && parent && is_relative_url(url))
		repo_url_join(parent, url, out);
	else
		buf_addstr(out, url ? url : "");
}

struct fetch_progress {
	const char *url;
	double last;
	int shown;
};

static int
fetch_progress_cb(const git_indexer_progress *st, void *payload)
{
	struct fetch_progress *fp = payload;
	double t = now_seconds();

	if (t - fp->last < 2.0 && st->received_objects != st->total_objects)
		return 0;
	if (!fp->shown && st->received_objects == st->total_objects)
		return 0;
	fp->last = t;
	fp->shown = 1;
	fprintf(stderr, "fetch: %s: %u/%u objects, %.1f MiB\n", fp->url, st->received_objects,
		st->total_objects, (double)st->received_bytes / (1024.0 * 1024.0));
	return 0;
}

/* Fetch every branch and tag of `url` into the mirror; the only network access. */
static int
mirror_fetch(git_repository *m, const char *url, const char *mpath, const char *what)
{
	git_remote *remote = NULL;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	struct fetch_progress fp = { url, 0, 0 };
	int rc;

	fprintf(stderr, "fetch: %s: fetching %s into %s\n", url, what, mpath);
	fp.last = now_seconds();
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.callbacks.transfer_progress = fetch_progress_cb;
	fo.callbacks.payload = &fp;
	if (git_remote_lookup(&remote, m, "origin") < 0)
		return libgit2_fail("cannot find remote origin in the mirror", mpath);
	rc = git_remote_fetch(remote, NULL, &fo, NULL);
	git_remote_free(remote);
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

/*
 * libgit2's fetch takes a local repository only as file://; paths are
 * normalized first so one repository has one mirror however it is
 * spelled.
 */
static void
fetch_url(const char *url, struct buf *out)
{
	if (url[0] != '/') {
		buf_addstr(out, url);
		return;
	}
	/* Lexically: the path must give the same mirror when it is gone (offline). */
	buf_addstr(out, "file://");
	path_normalize(out, url);
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

	fetch_url(url, &canon);
	repo_mirror_path(cache, canon.s, &mpath);
	buf_addf(&lockp, "%s.lock", mpath.s);
	buf_addf(objects, "%s/objects", mpath.s);
	if (ref)
		buf_addf(&what, "ref '%s'", ref);
	else
		buf_addf(&what, "commit %s", git_oid_tostr_s(want));
	if (mkdir_p_parent(lockp.s) < 0)
		goto out;
	fd = open(lockp.s, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
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

static int
dir_is_empty(const char *path)
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
	if (path_exists(workdir) && !dir_is_empty(workdir)) {
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
	size_t i, n;

	so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_INCLUDE_UNTRACKED;
	if (git_status_list_new(&list, repo, &so) < 0)
		return -1;
	n = git_status_list_entrycount(list);
	for (i = 0; i < n; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;

		if (!d || !d->new_file.path)
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
	free(ti->commit);
	memset(ti, 0, sizeof(*ti));
}

static void
checkout_progress(const char *path, size_t done, size_t total, void *payload)
{
	(void)payload;
	if (path && done < total)
		fault_point("checkout-file");
}

static int
checkout_commit(git_repository *repo, const git_oid *oid, const char *what, const char *workdir,
		int force)
{
	git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
	git_object *target = NULL;
	int rc;

	if (git_object_lookup(&target, repo, oid, GIT_OBJECT_COMMIT) < 0)
		return libgit2_fail("cannot look up the commit of", what);
	co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_RECREATE_MISSING;
	co.progress_cb = checkout_progress;
	if (force)
		co.checkout_strategy |= GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED;
	rc = git_checkout_tree(repo, target, &co);
	git_object_free(target);
	if (rc < 0) {
		libgit2_fail("cannot check out", what);
		note("bwbuild never overwrites local changes; commit, stash or remove them in '%s', "
		     "or run with --force to discard them", workdir);
		return -1;
	}
	if (git_repository_set_head_detached(repo, oid) < 0)
		return libgit2_fail("cannot move HEAD to", what);
	return 0;
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

struct checkout_ctx {
	const struct repo_checkout_opts *o;
	struct repo_tree_info *out;
	struct strvec *mirrors;  /* the objects/ of every mirror used, for repair */
	int force;               /* --force, or finishing a checkout that was cut short */
	const char *mark;        /* CHECKOUT_MARK's path, written before the first file changes */
	int marked;
};

#define CHECKOUT_MARK "bwbuild-checkout"

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
		int fresh = 0, rc = -1;

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
		buf_addf(&gitdir, "%smodules/%s", git_repository_path(repo), git_submodule_name(sm));
		buf_addf(&workdir, "%s%s", git_repository_workdir(repo), git_submodule_path(sm));
		if (mirror_ensure(c->o->cache_dir, suburl.s, NULL, want, c->o->refresh, NULL,
				  &objects) < 0) {
			note("needed by submodule '%s'", shown.s);
			goto next;
		}
		strvec_push(c->mirrors, objects.s);
		if (work_repo_open(workdir.s, gitdir.s, suburl.s, objects.s, &sub, &fresh) < 0)
			goto next;
		if (fresh == 1 || c->force || git_reference_name_to_id(&head, sub, "HEAD") < 0 ||
		    !git_oid_equal(&head, want)) {
			if (checkout_begin(c) < 0 ||
			    checkout_commit(sub, want, shown.s, workdir.s, c->force || fresh == 1) < 0)
				goto next;
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
attach_submodules(struct checkout_ctx *c, git_repository *repo, const char *url, int depth)
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
		struct buf suburl = BUF_INIT, objects = BUF_INIT;

		if (git_submodule_lookup(&sm, repo, names.v[i]) < 0)
			continue;
		want = git_submodule_head_id(sm);
		if (want && git_submodule_url(sm) && git_submodule_open(&sub, sm) == 0) {
			submodule_upstream(sm, url, &suburl);
			ret = mirror_ensure(c->o->cache_dir, suburl.s, NULL, want, 0, NULL, &objects);
			if (!ret)
				ret = ensure_alternate(sub, objects.s);
			if (!ret)
				ret = attach_submodules(c, sub, suburl.s, depth + 1);
		}
		git_repository_free(sub);
		git_submodule_free(sm);
		buf_release(&suburl);
		buf_release(&objects);
	}
out:
	strvec_clear(&names);
	return ret;
}

/*
 * A checkout bwbuild began and did not finish (killed, power cut) leaves
 * <work>/.git/bwbuild-checkout behind, and maybe libgit2's lock files:
 * its half-written files are bwbuild's, not the user's, so the next run
 * removes the locks and forces the checkout instead of refusing them.
 */
static void
remove_stale_locks(const char *gitdir, int depth)
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
			remove_stale_locks(path.s, depth + 1);
	}
	if (d)
		closedir(d);
	buf_release(&path);
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
			remove_stale_locks(dotgit.s, 0);
	}
	git_repository_free(repo);
	buf_release(&dotgit);
	buf_release(&mark);
	return cut;
}

static int
checkout_once(const struct repo_checkout_opts *o, struct repo_tree_info *out, struct strvec *mirrors)
{
	git_repository *repo = NULL;
	struct checkout_ctx c = { o, out, mirrors, 0, NULL, 0 };
	struct strvec changes = STRVEC_INIT;
	struct buf objects = BUF_INIT, mark = BUF_INIT;
	git_oid oid, head;
	int ret = -1, fresh = 0, at_head, force = o->force, interrupted;

	memset(out, 0, sizeof(*out));
	interrupted = checkout_interrupted(o->dir);
	if (interrupted) {
		struct buf dotgit = BUF_INIT;

		buf_addf(&dotgit, "%s/.git", o->dir);
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
		buf_release(&dotgit);
		if (ret < 0)
			goto out;
		ret = -1;
	}
	if (mirror_ensure(o->cache_dir, o->url, o->ref, NULL, o->refresh, &oid, &objects) < 0)
		goto out;
	strvec_push(mirrors, objects.s);
	if (work_repo_open(o->dir, NULL, o->url, objects.s, &repo, &fresh) < 0)
		goto out;
	buf_addf(&mark, "%s" CHECKOUT_MARK, git_repository_path(repo));
	if (fresh != 1 && !interrupted && attach_submodules(&c, repo, o->url, 0) < 0)
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
			 checkout_commit(repo, &oid, o->ref, o->dir, force || fresh == 1) < 0))
		goto out;
	out->commit = xstrdup(git_oid_tostr_s(&oid));
	if (checkout_submodules(&c, repo, o->url, "", 0) < 0)
		goto out;
	if (c.marked && unlink(mark.s) < 0) {
		error("cannot remove '%s':", mark.s);
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		repo_tree_info_release(out);
	strvec_clear(&changes);
	buf_release(&objects);
	buf_release(&mark);
	git_repository_free(repo);
	return ret;
}

/*
 * A checkout that failed may have read a damaged mirror (a disk error, a
 * fetch cut short, a bad copy): each mirror it used is read back, and a
 * damaged one is named, removed and fetched again, once.
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
	struct strvec mirrors = STRVEC_INIT;
	int rc;

	git_libgit2_init();
	rc = checkout_once(o, out, &mirrors);
	if (rc < 0 && repair_mirrors(&mirrors) > 0) {
		strvec_clear(&mirrors);
		note("checking out again from the fetched mirrors");
		rc = checkout_once(o, out, &mirrors);
	}
	strvec_clear(&mirrors);
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
	struct buf mpath = BUF_INIT, canon = BUF_INIT;
	int ret;

	fetch_url(url, &canon);
	repo_mirror_path(cache_dir, canon.s, &mpath);
	ret = is_dir(mpath.s) ? repo_resolve_local(mpath.s, ref, out) : -1;
	buf_release(&mpath);
	buf_release(&canon);
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
