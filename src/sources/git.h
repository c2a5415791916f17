#ifndef BWBUILD_GIT_H
#define BWBUILD_GIT_H

#include <stddef.h>

#include "sources/repourl.h"
#include "sources/repowork.h"

struct buf;
struct src_progress;
struct strvec;

/*
 * Source checkouts through libgit2. libgit2 is used only by
 * src/sources/git*.c, the wrapper family (git.c, git_mirror.c,
 * git_checkout.c, git_submodule.c, sharing git_priv.h); nothing else
 * includes <git2.h>, and this header keeps libgit2's types out. Where
 * repositories live is in repourl.h, the work tree's own files and
 * progress lines in repowork.h.
 */

/*
 * Checkouts from cached mirrors. Each repository URL has one bare mirror
 * under <cache>/git/<name>-<hash of URL>.git (all branches and tags),
 * fetched only when it lacks the ref (or with `refresh`); the work tree at
 * `dir` borrows the mirror's objects (objects/info/alternates) and is
 * checked out at the ref as a detached HEAD. Submodules follow
 * recursively, each from its own mirror, in git's layout
 * (.git/modules/<name>), at the commits the tree records. Local changes
 * are refused and listed unless `force`, which discards them. A tree
 * already at the commit is not rewritten. -1 after reporting.
 */
struct repo_checkout_opts {
	const char *url;       /* upstream: URL or absolute path */
	const char *ref;       /* tag, branch, full or short commit id */
	const char *dir;       /* the work tree */
	const char *cache_dir; /* holds git/ mirrors (repo_cache_dir) */
	int force;
	int refresh;           /* fetch even when the ref is already in the mirror */
	/*
	 * Directories of bare repositories searched before the cache
	 * (repo_mirror_candidates says how they are named); one that has the
	 * commit is used as it is, read only. NULL: none.
	 */
	const struct strvec *mirror_dirs;
	/* Submodule paths (nested ones from the top) left out with what they hold. NULL: none. */
	const struct strvec *exclude;
	/* Where the fetch and checkout lines go (repowork.h). NULL: silent. */
	const struct src_progress *progress;
};

struct repo_submodule_info {
	char *path;   /* from the top of the tree, nested ones included */
	char *url;    /* relative URLs resolved */
	char *commit;
};

struct repo_tree_info {
	char *commit;
	struct repo_submodule_info *subs;
	size_t nsubs, alloc;
	/* files not checked out because the mirrors lack their blobs (from the top of the tree) */
	char **absent;
	size_t nabsent;
};

int repo_checkout(const struct repo_checkout_opts *o, struct repo_tree_info *out);
/* What the tree at `dir` is: HEAD, each submodule's HEAD; local changes into `changes` (may be NULL). */
int repo_describe(const char *dir, struct repo_tree_info *out, struct strvec *changes);
void repo_tree_info_release(struct repo_tree_info *ti);

/* The rules of the user's git config (global, XDG, system). -1 when unreadable. */
int repo_url_rules_load(struct strvec *rules);


/*
 * Remove the files git ignores in the work tree at `dir` (build outputs
 * such as a library installed into torch/lib by an earlier configuration),
 * except under the top-level directories named in `keep` (NULL-terminated).
 * Tracked and untracked-but-not-ignored files are never touched.
 */
int repo_clean_ignored(const char *dir, const char *const *keep);

/*
 * Apply a git-format patch to the work tree at `dir` (all of it or none),
 * or with `check_only` only check that it would apply. -1 with the file,
 * the hunk and libgit2's reason in `why`.
 */
int repo_apply_text(const char *dir, const char *text, size_t len, int check_only, struct buf *why);
/* HEAD's commit id; the id a ref resolves to without fetching. -1 when unknown. */
int repo_head_commit(const char *dir, struct buf *out);
int repo_resolve_local(const char *dir, const char *ref, struct buf *out);
/*
 * The id `ref` has where the fetch step would take `url` from (insteadOf,
 * the mirror directories, the cache), without fetching; -1 when not there.
 * repo_resolve_cached searches the mirror directories of $BWBUILD_MIRRORS.
 */
int repo_resolve_cached(const char *cache_dir, const char *url, const char *ref, struct buf *out);
int repo_resolve_source(const char *cache_dir, const struct strvec *mirror_dirs, const char *url,
			const char *ref, struct buf *out);
/* Paths that differ from HEAD in the work tree (modified, new, deleted). */
int repo_changed_paths(const char *dir, struct strvec *paths);
/*
 * The files of the tree at `dir` (one repository; submodules not entered),
 * `prefix` its path from the top ("" or "third_party/fmt/"): tracked
 * ones, and untracked ones no build made and git does not ignore.
 */
int repo_tree_files(const char *dir, const char *prefix, struct strvec *out);
/*
 * What bwbuild's own build wrote into a tree is not a change to it: the
 * files a PyTorch configure and compile generate into the source tree
 * (build/, compile_commands.json, torchgen/packaged/), which a tree
 * without the upstream .gitignore (a release tarball, Debian's source)
 * shows as new. An untracked path whose ctime is from `since` to `until`
 * (nanoseconds since 1970, as the file system has them, so that a file
 * made just after a run is not its; since 0: nothing is the build's; until
 * 0: no end yet) is such an output, unless `kept` (paths from the top, as status
 * names them; NULL: none) lists it as the tree's own. src/pipeline/outputs.c
 * sets it from <work>/outputs.*.
 */
void repo_build_outputs(long long since, long long until, const struct strvec *kept);
/* The untracked paths (submodules' too, from the top) that are no build output; -1 outside git. */
int repo_untracked_paths(const char *dir, struct strvec *paths);

/* The committer time of `commit` in the repository at `dir` (seconds since 1970); -1 when unknown. */
int repo_commit_time(const char *dir, const char *commit, long long *out);

/* libgit2's version, "1.5.1". */
void repo_version_string(struct buf *out);

#endif
