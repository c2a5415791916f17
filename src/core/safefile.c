/*
 * Files written safely (docs/design/filesystem.md): every file bwbuild
 * creates is created new, O_CREAT|O_EXCL|O_NOFOLLOW, so a planted file or
 * symlink at its name is refused, never followed or truncated; outputs go
 * to a temporary name and are renamed; what is opened below a root is
 * opened one level at a time, never through a link; trees are removed
 * without following links. May include: core/.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/safefile.h"
#include "core/util.h"

void
random_token(struct buf *out)
{
	unsigned char r[8];
	size_t got = 0;

	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* No getrandom (an old kernel): the clock and pid still make a fresh name. */
			struct timespec ts;
			unsigned long long v;

			clock_gettime(CLOCK_REALTIME, &ts);
			v = (unsigned long long)ts.tv_nsec * 2654435761ULL ^
			    ((unsigned long long)ts.tv_sec << 20) ^ (unsigned long long)getpid();
			memcpy(r, &v, sizeof(r));
			break;
		}
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		buf_addf(out, "%02x", r[i]);
}

int
open_nofollow(const char *path, int flags, unsigned mode)
{
	int fd;

	do
		fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
	while (fd < 0 && errno == EINTR);
	return fd;
}

int
mkdir_in(const char *root, const char *name, int create)
{
	struct buf shown = BUF_INIT;
	struct stat st;
	int rc = 0;

	buf_addf(&shown, "%s/%s", root, name);
	if (create && mkdir(shown.s, 0777) < 0 && errno != EEXIST)
		rc = error("cannot create directory '%s':", shown.s);
	else if (lstat(shown.s, &st) < 0)
		rc = errno == ENOENT && !create ? 1 : error("cannot read '%s':", shown.s);
	else if (S_ISLNK(st.st_mode))
		rc = error("'%s' is a symbolic link; bwbuild writes only into directories it made: "
			   "remove it", shown.s);
	else if (!S_ISDIR(st.st_mode))
		rc = error("'%s' is not a directory; remove it", shown.s);
	buf_release(&shown);
	return rc;
}

static int
open_regular_at(int dirfd, const char *path, int flags, unsigned mode)
{
	struct stat st;
	int fd, e;

	do
		fd = openat(dirfd, path, (flags & ~O_TRUNC) | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC,
			    (mode_t)mode);
	while (fd < 0 && errno == EINTR);

	if (fd < 0) {
		/* A FIFO without a reader (write-only, non-blocking) says ENXIO. */
		if (errno == ENXIO)
			errno = EFTYPE_NOT_REGULAR;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
	} else if (!S_ISREG(st.st_mode)) {
		e = EFTYPE_NOT_REGULAR;
	} else if ((flags & O_TRUNC) && ftruncate(fd, 0) < 0) {
		e = errno;
	} else {
		/* Not left for the children that get it as their output. */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		return fd;
	}
	close(fd);
	errno = e;
	return -1;
}

int
open_regular(const char *path, int flags, unsigned mode)
{
	return open_regular_at(AT_FDCWD, path, flags, mode);
}

int
open_dir_beneath(const char *root, const char *rel, size_t n)
{
	struct buf shown = BUF_INIT, part = BUF_INIT;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), next;
	size_t at = 0;

	if (fd < 0) {
		error("cannot open the directory '%s':", root);
		return -1;
	}
	buf_addstr(&shown, root);
	while (fd >= 0 && at < n) {
		size_t k = strcspn(rel + at, "/");

		if (k > n - at)
			k = n - at;
		if (k) {
			buf_reset(&part);
			buf_add(&part, rel + at, k);
			buf_addf(&shown, "/%s", part.s);
			next = openat(fd, part.s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (next < 0 && (errno == ELOOP || errno == ENOTDIR)) {
				struct stat st;

				if (fstatat(fd, part.s, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
					error("'%s' is a symbolic link; bwbuild writes only into "
					      "directories it made: remove it", shown.s);
				else
					error("'%s' is not a directory; remove it", shown.s);
			} else if (next < 0) {
				error("cannot open the directory '%s':", shown.s);
			}
			close(fd);
			fd = next;
		}
		at += k + 1;
	}
	buf_release(&shown);
	buf_release(&part);
	return fd;
}

/* The length of `rel`'s directory part (0 when it names a file in the root). */
static size_t
dir_part(const char *rel)
{
	const char *slash = strrchr(rel, '/');

	return slash ? (size_t)(slash - rel) : 0;
}

int
open_regular_beneath(const char *root, const char *rel, int flags, unsigned mode)
{
	size_t d = dir_part(rel);
	int dirfd = open_dir_beneath(root, rel, d), fd;
	struct buf shown = BUF_INIT;

	if (dirfd < 0)
		return -1;
	fd = open_regular_at(dirfd, rel + (d ? d + 1 : 0), flags, mode);
	close(dirfd);
	if (fd < 0) {
		buf_addf(&shown, "%s/%s", root, rel);
		open_regular_error(shown.s);
		buf_release(&shown);
	}
	return fd;
}

int
open_regular_error(const char *path)
{
	if (errno == ELOOP)
		return error("'%s' is a symbolic link; bwbuild writes only files it made: remove it",
			     path);
	if (errno == EFTYPE_NOT_REGULAR)
		return error("'%s' is not a regular file (a FIFO, a device or a directory); "
			     "bwbuild reads and writes only regular files there: remove it", path);
	return error("cannot open '%s':", path);
}

static int
create_new_at(int dirfd, const char *name, unsigned mode)
{
	int fd;

	do
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    (mode_t)mode);
	while (fd < 0 && errno == EINTR);
	return fd;
}

static int
create_error(const char *shown)
{
	if (errno == EEXIST || errno == ELOOP)
		return error("cannot create '%s': something is already there (bwbuild never "
			     "writes through a file or link it did not make); remove it", shown);
	return error("cannot create '%s':", shown);
}

int
create_new(const char *path, unsigned mode)
{
	int fd = create_new_at(AT_FDCWD, path, mode);

	if (fd < 0)
		create_error(path);
	return fd;
}

int
copy_file_at(const char *from, int dirfd, const char *to, const char *to_shown)
{
	char buf[1 << 16];
	int in, out, ret = -1;
	ssize_t n = 0;

	in = open_regular(from, O_RDONLY, 0);
	if (in < 0)
		return open_regular_error(from);
	out = create_new_at(dirfd, to, 0666);
	if (out < 0) {
		create_error(to_shown);
		close(in);
		return -1;
	}
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (write_all(out, buf, (size_t)n) < 0)
			goto fail_write;
	}
	if (n < 0)
		error("cannot read '%s':", from);
	else if (fsync(out) < 0 && errno != EINVAL)
		error("cannot sync '%s':", to_shown);
	else
		ret = 0;
	goto out;
fail_write:
	error("cannot write '%s':", to_shown);
out:
	if (close(out) < 0 && !ret)
		ret = error("cannot close '%s':", to_shown);
	close(in);
	return ret;
}

int
copy_file(const char *from, const char *to)
{
	return copy_file_at(from, AT_FDCWD, to, to);
}

static int
write_file_renamed(const char *path, const void *data, size_t len, int sync)
{
	struct buf tmp = BUF_INIT;
	int fd, ret = -1;

	buf_addf(&tmp, "%s.tmp.%ld.", path, (long)getpid());
	random_token(&tmp);
	fd = create_new(tmp.s, 0666);
	if (fd < 0)
		goto out;
	if (write_all(fd, data, len) < 0) {
		error("cannot write '%s':", tmp.s);
		close(fd);
		goto fail;
	}
	if (sync && fsync(fd) < 0 && errno != EINVAL) {
		error("cannot sync '%s':", tmp.s);
		close(fd);
		goto fail;
	}
	if (close(fd) < 0) {
		error("cannot close '%s':", tmp.s);
		goto fail;
	}
	if (rename(tmp.s, path) < 0) {
		error("cannot rename '%s' to '%s':", tmp.s, path);
		goto fail;
	}
	ret = 0;
	goto out;
fail:
	unlink(tmp.s);
out:
	buf_release(&tmp);
	return ret;
}

int
write_file_atomic(const char *path, const void *data, size_t len)
{
	return write_file_renamed(path, data, len, 1);
}

int
write_file_replace(const char *path, const void *data, size_t len)
{
	return write_file_renamed(path, data, len, 0);
}

int
write_file_atomic_beneath(const char *root, const char *rel, const void *data, size_t len)
{
	size_t d = dir_part(rel);
	const char *name = rel + (d ? d + 1 : 0);
	struct buf tmp = BUF_INIT, shown = BUF_INIT, final = BUF_INIT;
	int dirfd = open_dir_beneath(root, rel, d), fd, ret = -1;

	if (dirfd < 0)
		return -1;
	buf_addf(&tmp, "%s.tmp.%ld.", name, (long)getpid());
	random_token(&tmp);
	buf_addf(&shown, "%s/%.*s%s%s", root, (int)d, rel, d ? "/" : "", tmp.s);
	buf_addf(&final, "%s/%s", root, rel);
	fd = create_new_at(dirfd, tmp.s, 0666);
	if (fd < 0) {
		create_error(shown.s);
		goto out;
	}
	if (write_all(fd, data, len) < 0) {
		error("cannot write '%s':", shown.s);
		close(fd);
	} else if (fsync(fd) < 0 && errno != EINVAL) {
		error("cannot sync '%s':", shown.s);
		close(fd);
	} else if (close(fd) < 0) {
		error("cannot close '%s':", shown.s);
	} else if (renameat(dirfd, tmp.s, dirfd, name) < 0) {
		error("cannot rename '%s' to '%s':", shown.s, final.s);
	} else {
		ret = 0;
	}
	if (ret < 0)
		unlinkat(dirfd, tmp.s, 0);
out:
	close(dirfd);
	buf_release(&tmp);
	buf_release(&shown);
	buf_release(&final);
	return ret;
}

int
tmp_name_parse(const char *name, long *pid, size_t *base_len)
{
	const char *t = NULL, *p;
	char *end;
	long v;

	for (p = strstr(name, ".tmp."); p; p = strstr(p + 1, ".tmp."))
		t = p;
	if (!t || t == name || !isdigit((unsigned char)t[5]))
		return 0;
	errno = 0;
	v = strtol(t + 5, &end, 10);
	if (errno || v <= 0)
		return 0;
	/* A token: the very 16 hex digits random_token makes, nothing else. */
	if (*end == '.' && strlen(end + 1) == 16 && strspn(end + 1, "0123456789abcdef") == 16)
		end += 17;
	if (*end)
		return 0;
	*pid = v;
	*base_len = (size_t)(t - name);
	return 1;
}

int
remove_stale_temporaries(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), removed = 0;
	struct dirent *de;
	DIR *d;

	if (dfd < 0)
		return 0;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;
		size_t base;
		long pid;

		if (!tmp_name_parse(de->d_name, &pid, &base) || pid == (long)getpid() ||
		    (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if (unlinkat(dfd, de->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

int
path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return *path == '/';
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

const char *
dir_unsafe_reason(const char *dir, const char *home)
{
	struct buf h = BUF_INIT;
	const char *why = NULL;

	if (!strcmp(dir, "/"))
		return "is the root directory";
	if (home && *home == '/') {
		path_normalize(&h, home);
		if (!strcmp(h.s, dir))
			why = "is your home directory";
		else if (strcmp(h.s, "/") && path_within(h.s, dir))
			why = "holds your home directory";
		buf_release(&h);
	}
	return why;
}

/* One level of the cache: this user's, a directory unless `file_ok`, not writable by others. */
static int
cache_level_check(int at, const char *name, const char *shown, int top, int file_ok)
{
	struct stat st;

	if (fstatat(at, name, &st, top ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
		return error("cannot read '%s':", shown);
	if (S_ISLNK(st.st_mode))
		return error("'%s' in the cache is a symbolic link; bwbuild uses only what it "
			     "made there: remove it (what it held is fetched again)", shown);
	if (!S_ISDIR(st.st_mode) && !(file_ok && S_ISREG(st.st_mode)))
		return error("'%s' in the cache is not a %s; remove it", shown,
			     file_ok ? "directory or file" : "directory");
	if (st.st_uid != geteuid()) {
		if (top)
			return error("the cache directory '%s' belongs to uid %ld, not to you; set "
				     "BWBUILD_CACHE_DIR to a directory of your own", shown,
				     (long)st.st_uid);
		return error("'%s' in the cache belongs to uid %ld, not to you: it could hand "
			     "bwbuild any source; remove it (bwbuild fetches it again) or set "
			     "BWBUILD_CACHE_DIR to a directory of your own", shown, (long)st.st_uid);
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		if (top)
			return error("the cache directory '%s' is writable by others; 'chmod go-w' it "
				     "or set BWBUILD_CACHE_DIR to a directory of your own", shown);
		return error("'%s' in the cache is writable by others: anyone could change the "
			     "sources built from it; 'chmod go-w' it, or remove it (bwbuild fetches "
			     "it again)", shown);
	}
	return 0;
}

int
cache_dir_check(const char *dir)
{
	const char *home = getenv("HOME"), *why;
	struct buf abs = BUF_INIT, shown = BUF_INIT;
	char *a;
	int rc = -1, top = -1, git = -1;
	DIR *d = NULL;
	struct dirent *de;

	if (!*dir)
		return error("no cache directory: HOME is unset and the user has no home; set "
			     "BWBUILD_CACHE_DIR");
	a = path_absolute(dir);
	path_normalize(&abs, a);
	free(a);
	if ((why = dir_unsafe_reason(abs.s, home))) {
		error("the cache directory '%s' %s; set BWBUILD_CACHE_DIR to a directory of its own "
		      "(e.g. ~/.cache/bwbuild)", dir, why);
		goto out;
	}
	/* HOME=/nonexistent: its cache is not made, and so neither is it. */
	if (home && *home == '/' && path_within(abs.s, home) && !is_dir(home)) {
		error("HOME is '%s', which does not exist; bwbuild does not create it for its "
		      "cache: fix HOME or set BWBUILD_CACHE_DIR to a directory of your own", home);
		goto out;
	}
	if (mkdir_p(dir) < 0)
		goto out;
	if (cache_level_check(AT_FDCWD, dir, dir, 1, 0) < 0)
		goto out;
	top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0) {
		error("cannot open '%s':", dir);
		goto out;
	}
	buf_addf(&shown, "%s/git", dir);
	if (mkdirat(top, "git", 0755) < 0 && errno != EEXIST) {
		error("cannot create directory '%s':", shown.s);
		goto out;
	}
	if (cache_level_check(top, "git", shown.s, 0, 0) < 0)
		goto out;
	/* The launcher's learned tables: written by every build, so trusted like git/. */
	buf_reset(&shown);
	buf_addf(&shown, "%s/peaks", dir);
	if (mkdirat(top, "peaks", 0755) < 0 && errno != EEXIST) {
		error("cannot create directory '%s':", shown.s);
		goto out;
	}
	if (cache_level_check(top, "peaks", shown.s, 0, 0) < 0)
		goto out;
	buf_reset(&shown);
	buf_addf(&shown, "%s/git", dir);
	git = openat(top, "git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (git < 0 || !(d = fdopendir(git))) {
		error("cannot open '%s':", shown.s);
		goto out;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		buf_reset(&shown);
		buf_addf(&shown, "%s/git/%s", dir, de->d_name);
		if (cache_level_check(dirfd(d), de->d_name, shown.s, 0, 1) < 0)
			goto out;
	}
	rc = 0;
out:
	if (d)
		closedir(d);
	else if (git >= 0)
		close(git);
	if (top >= 0)
		close(top);
	buf_release(&abs);
	buf_release(&shown);
	return rc;
}

static int
remove_tree_at(int at, const char *name)
{
	struct stat st;
	int fd, ret = 0;
	DIR *d;
	struct dirent *de;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0);
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (remove_tree_at(dirfd(d), de->d_name) < 0)
			ret = -1;
	}
	closedir(d);
	if (unlinkat(at, name, AT_REMOVEDIR) < 0)
		ret = -1;
	return ret;
}

int
remove_tree(const char *path)
{
	if (remove_tree_at(AT_FDCWD, path) < 0 && path_exists(path))
		return error("cannot remove '%s':", path);
	return 0;
}
