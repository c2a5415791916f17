/*
 * Where a repository's objects come from, as pure logic (no libgit2):
 * the cache directory and the trust checks on it, a URL's key and mirror
 * path, .gitmodules URL joins, url.<base>.insteadOf rewriting, the
 * mirror directories of $BWBUILD_MIRRORS and the names a repository may
 * have in them. The libgit2 wrapper family (src/sources/git*.c, the only
 * files that include <git2.h>) does the fetching and opening. May include: core/, and repourl.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/hash.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"
#include "sources/repourl.h"

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

/*
 * One level of the cache that bwbuild reads sources from: it must be the
 * user's own and not writable by everyone (nor by the group where
 * `no_group`): whoever can write it can hand the build any source. An
 * absent level is fine (bwbuild makes it). -1 after reporting.
 */
int
repo_trust_level(const char *path, const char *what, int no_group)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : error("cannot read '%s':", path);
	if (st.st_uid != geteuid())
		return error("%s '%s' belongs to uid %ld, not to you; remove it (bwbuild fetches it "
			     "again) or set BWBUILD_CACHE_DIR to a directory of your own", what, path,
			     (long)st.st_uid);
	if (st.st_mode & (S_IWOTH | (no_group ? S_IWGRP : 0)))
		return error("%s '%s' is writable by others; 'chmod go-w' it, remove it or set "
			     "BWBUILD_CACHE_DIR to a directory of your own", what, path);
	return 0;
}

int
repo_cache_dir_check(const char *dir)
{
	/* Every level: the directory, git/ and each mirror in it (src/core/safefile.c). */
	return cache_dir_check(dir);
}

int
repo_is_remote_url(const char *url)
{
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');

	if (!strncmp(url, "file://", 7) || url[0] == '/')
		return 0;
	/* scheme://... or scp-like host:path (a colon before any slash) */
	return strstr(url, "://") != NULL || (colon && (!slash || colon < slash));
}

void
repo_url_key(const char *url, struct buf *out)
{
	size_t n = strlen(url);

	if (!repo_is_remote_url(url)) {
		buf_addstr(out, url);
		return;
	}
	while (n && url[n - 1] == '/')
		n--;
	if (n > 4 && !strncmp(url + n - 4, ".git", 4))
		n -= 4;
	buf_add(out, url, n);
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
	/* A remote URL names one repository with or without ".git" (GitHub answers both). */
	{
		struct buf key = BUF_INIT;

		repo_url_key(url, &key);
		sha256_hex(&h, key.s, key.len);
		buf_release(&key);
	}
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

void
repo_url_rewrite(const struct strvec *rules, const char *url, struct buf *out)
{
	size_t best = 0, len = 0;

	/* git's rule: of all url.<base>.insteadOf prefixes of the URL, the longest wins. */
	for (size_t i = 0; i + 1 < rules->n; i += 2) {
		size_t n = strlen(rules->v[i + 1]);

		if (n && n > len && !strncmp(url, rules->v[i + 1], n)) {
			best = i + 1;
			len = n;
		}
	}
	if (!len) {
		buf_addstr(out, url);
		return;
	}
	buf_addf(out, "%s%s", rules->v[best - 1], url + len);
}

void
repo_mirror_dirs_env(struct strvec *dirs)
{
	const char *v = getenv("BWBUILD_MIRRORS");

	while (v && *v) {
		size_t n = strcspn(v, ":");

		if (n)
			strvec_push_nodup(dirs, xstrndup(v, n));
		v += n;
		if (*v == ':')
			v++;
	}
}

/* The last two components of a URL or path, "owner" and "name" (".git" and "/" dropped). */
static void
url_owner_name(const char *url, struct buf *owner, struct buf *name)
{
	struct buf key = BUF_INIT;
	const char *end, *b;

	buf_addstr(&key, url);
	while (key.len && key.s[key.len - 1] == '/')
		key.s[--key.len] = '\0';
	if (key.len > 4 && ends_with(key.s, ".git"))
		key.s[key.len -= 4] = '\0';
	end = key.s + key.len;
	b = end;
	while (b > key.s && b[-1] != '/' && b[-1] != ':')
		b--;
	buf_add(name, b, (size_t)(end - b));
	if (b > key.s) {
		end = b - 1;
		b = end;
		while (b > key.s && b[-1] != '/' && b[-1] != ':')
			b--;
		buf_add(owner, b, (size_t)(end - b));
	}
	buf_release(&key);
}

void
repo_mirror_candidates(const char *dir, const char *url, struct strvec *out)
{
	struct buf owner = BUF_INIT, name = BUF_INIT;
	struct strvec bases = STRVEC_INIT;

	url_owner_name(url, &owner, &name);
	if (!name.len || !strcmp(name.s, ".") || !strcmp(name.s, ".."))
		goto out;
	if (owner.len && strcmp(owner.s, ".") && strcmp(owner.s, "..")) {
		strvec_pushf(&bases, "%s+%s", owner.s, name.s);
		strvec_pushf(&bases, "%s+%s.git", owner.s, name.s);
		strvec_pushf(&bases, "%s/%s.git", owner.s, name.s);
		strvec_pushf(&bases, "%s/%s", owner.s, name.s);
	}
	strvec_pushf(&bases, "%s.git", name.s);
	strvec_push(&bases, name.s);
	for (size_t i = 0; i < bases.n; i++) {
		strvec_pushf(out, "%s/%s/repo", dir, bases.v[i]);
		strvec_pushf(out, "%s/%s", dir, bases.v[i]);
	}
out:
	strvec_clear(&bases);
	buf_release(&owner);
	buf_release(&name);
}

/*
 * `path` as it is on disk, each component matched without regard to case
 * when not found as spelled (GitHub's names are case-insensitive:
 * pytorch/fbgemm is pytorch+FBGEMM). 0 with the path in `out`, -1 when absent.
 */
int
repo_resolve_nocase(const char *path, struct buf *out)
{
	struct buf rest = BUF_INIT;
	const char *p = path, *slash;
	int ret = 0;

	if (path_exists(path)) {
		buf_addstr(out, path);
		return 0;
	}
	while (*p == '/')
		p++;
	while (*p && ret == 0) {
		DIR *d;
		struct dirent *de;
		size_t n;
		int found = 0;

		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		buf_reset(&rest);
		buf_addf(&rest, "%s/%.*s", out->len ? out->s : "", (int)n, p);
		if (!path_exists(rest.s)) {
			d = opendir(out->len ? out->s : "/");
			while (d && (de = readdir(d)))
				if (strlen(de->d_name) == n && !strncasecmp(de->d_name, p, n)) {
					buf_reset(&rest);
					buf_addf(&rest, "%s/%s", out->len ? out->s : "", de->d_name);
					found = 1;
					break;
				}
			if (d)
				closedir(d);
			if (!found)
				ret = -1;
		}
		buf_reset(out);
		buf_addstr(out, rest.s);
		p += n;
		while (*p == '/')
			p++;
	}
	buf_release(&rest);
	return ret;
}

/* A mirror directory's repository, or its objects/, that everyone may write. */
int
repo_world_writable(const char *repo)
{
	struct buf objects = BUF_INIT;
	struct stat st;
	int ww = stat(repo, &st) == 0 && (st.st_mode & S_IWOTH);

	buf_addf(&objects, "%s/objects", repo);
	ww = ww || (stat(objects.s, &st) == 0 && (st.st_mode & S_IWOTH));
	buf_release(&objects);
	return ww;
}

/* A bare repository there: its HEAD, objects/ and refs/. */
int
repo_looks_bare(const char *path)
{
	struct buf b = BUF_INIT;
	int ok;

	buf_addf(&b, "%s/objects", path);
	ok = is_dir(b.s);
	buf_reset(&b);
	buf_addf(&b, "%s/HEAD", path);
	ok = ok && path_exists(b.s);
	buf_release(&b);
	return ok;
}

int
repo_is_relative_url(const char *url)
{
	return !strncmp(url, "./", 2) || !strncmp(url, "../", 3);
}

/*
 * libgit2's fetch takes a local repository only as file://; paths are
 * normalized first so one repository has one mirror however it is
 * spelled.
 */
void
repo_fetch_url(const char *url, struct buf *out)
{
	if (url[0] != '/') {
		buf_addstr(out, url);
		return;
	}
	/* Lexically: the path must give the same mirror when it is gone (offline). */
	buf_addstr(out, "file://");
	path_normalize(out, url);
}
