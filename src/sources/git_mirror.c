/*
 * The cached bare mirrors, the only network access: the user's
 * url.<base>.insteadOf rules, the mirror directories searched before the
 * cache (read only), the cache's mirror of a URL made whole or not at all
 * and fetched under its lock only when it lacks what is wanted, a damaged
 * mirror read back, removed and fetched again, and where each
 * repository's objects come from (git_source_ensure) and what a ref is
 * there without fetching (repo_resolve_cached, repo_resolve_source).
 *
 * libgit2 is used only by src/sources/git*.c, the wrapper family (git.c,
 * git_mirror.c, git_checkout.c, git_submodule.c, sharing git_priv.h);
 * nothing else includes <git2.h>, and `make layers` fails if anything does.
 * The logic that needs no libgit2 lives beside them: repourl.c (where a
 * repository's objects come from) and repowork.c (the work tree's own
 * files and progress lines).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"
#include "sources/git.h"
#include "sources/git_priv.h"
#include "sources/repourl.h"
#include "sources/repowork.h"

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
/* Whether `path` is `tree` or inside it (tree: a real path, or NULL). */
static int
inside_tree(const char *tree, const char *path)
{
	char *real = tree ? realpath(path, NULL) : NULL;
	size_t n = tree ? strlen(tree) : 0;
	int in = real && !strncmp(real, tree, n) && (real[n] == '/' || !real[n]);

	free(real);
	return in;
}

static int
mirror_dir_find(const struct strvec *dirs, const char *tree, const char *url, const char *ref,
		const git_oid *want, git_oid *out, struct buf *found, struct strvec *tried)
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
			if (inside_tree(tree, real.s)) {
				warning("'%s' of the mirror directories is the repository of the tree "
					"being checked out ('%s'), not a mirror of it; not used",
					real.s, tree);
				if (tried)
					strvec_pushf(tried, "%s (refused: the checkout's own repository)",
						     real.s);
			} else if (repo_world_writable(real.s)) {
				if (tried)
					strvec_pushf(tried, "%s (refused: writable by all, so anyone could "
						     "change what it serves)", real.s);
			} else if (git_repository_open_bare(&m, real.s) < 0) {
				if (tried)
					strvec_pushf(tried, "%s (not a repository git can open)", real.s);
			} else if (ref ? git_resolve(m, ref, &id) == 0 : odb_has(m, want)) {
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
mirror_fetch(git_repository *m, const char *url, const char *mpath, const char *what,
	     const struct src_progress *pr)
{
	git_remote *remote = NULL;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	struct fetch_progress fp = { { NULL, { 0, 0, 0 }, 0, 0 }, 0, 0 };
	struct buf label = BUF_INIT;
	int rc;

	src_note(pr, "%s: fetching %s into %s", url, what, mpath);
	repo_progress_init(&fp.p, src_meter_label(pr, &label, "%s", url));
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.callbacks.transfer_progress = fetch_progress_cb;
	fo.callbacks.payload = &fp;
	if (git_remote_lookup(&remote, m, "origin") < 0) {
		buf_release(&label);
		return git_fail("cannot find remote origin in the mirror", mpath);
	}
	rc = git_remote_fetch(remote, NULL, &fo, NULL);
	git_remote_free(remote);
	repo_progress_end(&fp.p);
	if (rc == 0 && fp.objects)
		src_note(pr, "%s: %u objects, %.1f MiB in %.1f s", url, fp.objects,
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
	return ref ? git_resolve(m, ref, out) == 0 : odb_has(m, want);
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
 * A new bare mirror of `url` at `mpath`, fetching every branch and tag,
 * opened into *m; built under a temporary name, so a mirror is either
 * whole or absent. -1 after reporting.
 */
static int
mirror_create(git_repository **m, const char *mpath, const char *url)
{
	git_remote *r = NULL;
	struct buf tmp = BUF_INIT;
	int rc;

	buf_addf(&tmp, "%s.tmp", mpath);
	remove_tree(tmp.s);
	rc = git_repository_init(m, tmp.s, 1);
	if (rc == 0)
		rc = git_remote_create_with_fetchspec(&r, *m, "origin", url,
						      "+refs/heads/*:refs/heads/*");
	if (rc == 0)
		rc = git_remote_add_fetch(*m, "origin", "+refs/tags/*:refs/tags/*");
	git_remote_free(r);
	if (rc == 0) {
		git_repository_free(*m);
		*m = NULL;
		if (rename(tmp.s, mpath) < 0)
			rc = error("cannot rename '%s' to '%s':", tmp.s, mpath);
		else
			rc = git_repository_open_bare(m, mpath);
	} else {
		git_fail("cannot create a mirror in", tmp.s);
	}
	buf_release(&tmp);
	return rc < 0 ? -1 : 0;
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
		   int refresh, git_oid *out, struct buf *objects, int *damaged,
		   const struct src_progress *pr)
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
	fd = open_regular(lockp.s, O_RDWR | O_CREAT, 0644);
	if (fd < 0) {
		open_regular_error(lockp.s);
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		src_note(pr, "waiting for another bwbuild using %s", mpath.s);
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
		if (mirror_create(&m, mpath.s, canon.s) < 0)
			goto out;
		refresh = 1;
	}
	if (mirror_has(m, ref, want, out) && !refresh) {
		ret = 0;
		goto out;
	}
	if (mirror_fetch(m, url, mpath.s, what.s, pr) < 0)
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
	      int refresh, git_oid *out, struct buf *objects, const struct src_progress *pr)
{
	int damaged = 0, rc;

	rc = mirror_ensure_once(cache, url, ref, want, refresh, out, objects, &damaged, pr);
	if (rc < 0 && damaged) {
		buf_reset(objects);
		rc = mirror_ensure_once(cache, url, ref, want, 1, out, objects, &damaged, pr);
	}
	return rc;
}

/* ---- where objects come from ---- */

/*
 * `url` (as the tree names it) with `ref` (its commit into `out`) or the
 * commit `want`: the objects directory into `objects`, `cached` 1 when
 * it is the cache's. -1 after reporting, what was tried in `tried`.
 */
int
git_source_ensure(const struct sources *s, const char *url, const char *ref, const git_oid *want,
	      git_oid *out, struct buf *objects, int *cached, struct strvec *tried)
{
	struct buf real = BUF_INIT, found = BUF_INIT;
	int rc;

	repo_url_rewrite(&s->rules, url, &real);
	if (strcmp(real.s, url))
		strvec_pushf(tried, "%s, as url.<base>.insteadOf in your git config rewrites it", real.s);
	if (mirror_dir_find(s->dirs, s->tree, real.s, ref, want, out, &found, tried) == 0) {
		buf_addf(objects, "%s/objects", found.s);
		*cached = 0;
		rc = 0;
	} else {
		*cached = 1;
		rc = mirror_ensure(s->cache, real.s, ref, want, s->refresh, out, objects, s->progress);
	}
	buf_release(&real);
	buf_release(&found);
	return rc;
}

/*
 * A checkout that failed may have read a damaged mirror (a disk error, a
 * fetch cut short, a bad copy): each cache mirror it used is read back,
 * and a damaged one is named, removed and fetched again, once. The
 * repositories of mirror directories are the user's: never removed.
 */
int
git_repair_mirrors(const struct strvec *mirrors)
{
	int repaired = 0;

	for (size_t i = 0; i < mirrors->n; i++)
		repaired += mirror_drop_if_damaged(mirrors->v[i]);
	return repaired;
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
	ret = mirror_dir_find(mirror_dirs, NULL, real.s, ref, NULL, &oid, &found, NULL);
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
