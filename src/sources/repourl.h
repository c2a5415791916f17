#ifndef BWBUILD_REPOURL_H
#define BWBUILD_REPOURL_H

/*
 * Where a repository's objects come from, without libgit2 (repourl.c):
 * the cache, URL keys and rewrites, mirror directories.
 */

struct buf;
struct strvec;

/* $BWBUILD_CACHE_DIR, else $XDG_CACHE_HOME/bwbuild, else ~/.cache/bwbuild (empty when no home). */
void repo_cache_dir(struct buf *out);
/* Create it if missing; refuse one owned by another user or writable by others. -1 after reporting. */
int repo_cache_dir_check(const char *dir);
/* <cache>/git/<last URL component>-<12 hex of sha256(URL)>.git */
void repo_mirror_path(const char *cache_dir, const char *url, struct buf *out);
/*
 * URLs of one repository: a remote URL without its trailing "/" and ".git"
 * (GitHub answers both spellings); a local path as it is.
 */
void repo_url_key(const char *url, struct buf *out);
/*
 * `url` after the url.<base>.insteadOf rules (pairs base, prefix in
 * `rules`): the longest matching prefix is replaced by its base, as git does.
 */
void repo_url_rewrite(const struct strvec *rules, const char *url, struct buf *out);
/* $BWBUILD_MIRRORS: mirror directories separated by ':'. */
void repo_mirror_dirs_env(struct strvec *dirs);
/*
 * Where a mirror directory `dir` may hold `url`'s repository, in the order
 * tried: <owner>+<name>, <owner>+<name>.git, <owner>/<name>.git,
 * <owner>/<name>, <name>.git, <name>, each first with a /repo suffix
 * (<owner> and <name> are the URL's last two components, ".git" dropped;
 * on disk a name also matches in another case).
 */
void repo_mirror_candidates(const char *dir, const char *url, struct strvec *out);
/* A .gitmodules URL ("../cutlass.git") joined to its superproject's URL, as git does. */
void repo_url_join(const char *base, const char *rel, struct buf *out);

/* One level of the cache bwbuild reads sources from: the user's own, not writable by others. */
int repo_trust_level(const char *path, const char *what, int no_group);
/* scheme://... or scp-like host:path, not a local path nor file:// */
int repo_is_remote_url(const char *url);
/* "./" or "../", as a .gitmodules URL relative to its superproject */
int repo_is_relative_url(const char *url);
/* `path` as it is on disk, a component matched in another case when not found. -1 when absent. */
int repo_resolve_nocase(const char *path, struct buf *out);
/* A repository, or its objects/, that everyone may write. */
int repo_world_writable(const char *repo);
/* A bare repository at `path`: its objects/ and HEAD. */
int repo_looks_bare(const char *path);
/* The URL libgit2's fetch is given: a local path as a normalized file:// URL. */
void repo_fetch_url(const char *url, struct buf *out);

#endif
