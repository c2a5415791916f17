#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/safefile.h"
#include "core/util.h"
#include "pipeline/workdir.h"

/* 1 if `dir` has no entries (or cannot be listed: then the caller's open reports it). */
static int
dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int empty = 1;

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	if (d)
		closedir(d);
	return empty;
}

/*
 * `normal` through its links (a link to the tree is the tree): its longest
 * part that is there resolved, the rest (not made yet) as written, so that
 * <link-to-source>/w is inside the source before w exists.
 */
static void
path_real(struct buf *out, const char *normal)
{
	struct buf head = BUF_INIT;
	const char *tail = "";
	char *real = NULL;

	buf_addstr(&head, normal);
	while (!(real = realpath(head.s, NULL)) && strrchr(head.s, '/') && head.len > 1) {
		char *slash = strrchr(head.s, '/');

		tail = normal + (slash - head.s);
		buf_setlen(&head, slash == head.s ? 1 : (size_t)(slash - head.s));
	}
	if (real)
		buf_addf(out, "%s%s", real, strcmp(real, "/") || !*tail ? tail : tail + 1);
	else
		buf_addstr(out, normal);
	free(real);
	buf_release(&head);
}

int
workdir_validate(const char *work, const char *out, const char *source)
{
	const char *home = getenv("HOME"), *why;
	struct buf w = BUF_INIT, o = BUF_INIT, s = BUF_INIT, lock = BUF_INIT;
	struct stat st;
	int rc = -1;

	path_normalize(&w, work);
	path_normalize(&o, out);
	if (source)
		path_normalize(&s, source);
	if ((why = dir_unsafe_reason(w.s, home))) {
		error("--work '%s' %s; give bwbuild a directory of its own (e.g. --work work/NAME)",
		      w.s, why);
		goto out;
	}
	if ((why = dir_unsafe_reason(o.s, home))) {
		error("--out '%s' %s; give the wheels a directory of their own (e.g. --out out/NAME)",
		      o.s, why);
		goto out;
	}
	if (source && path_within(s.s, w.s)) {
		error("--work '%s' holds the source tree '%s'; bwbuild rewrites what is in its work "
		      "directory: give one outside the source tree", w.s, s.s);
		goto out;
	}
	if (source) {
		struct buf rw = BUF_INIT, rs = BUF_INIT;
		int inside;

		path_real(&rw, w.s);
		path_real(&rs, s.s);
		inside = path_within(w.s, s.s) || path_within(rw.s, rs.s);
		buf_release(&rw);
		buf_release(&rs);
		/* Its logs, temporaries and wheels would be the tree's untracked files, read by its build. */
		if (inside) {
			error("--work '%s' is inside the source tree '%s', which is built as it is; give "
			      "a --work outside it", w.s, s.s);
			goto out;
		}
	}
	{
		struct buf ro = BUF_INIT, rw = BUF_INIT;
		int inside;

		path_real(&ro, o.s);
		path_real(&rw, w.s);
		inside = path_within(o.s, w.s) || path_within(ro.s, rw.s);
		buf_release(&ro);
		buf_release(&rw);
		if (inside) {
			error("--out '%s' is inside the work directory '%s', whose contents bwbuild "
			      "rewrites (its dist/ is emptied on every build); give an --out outside "
			      "it", o.s, w.s);
			goto out;
		}
	}
	buf_addf(&lock, "%s/lock", w.s);
	if (is_dir(w.s) && lstat(lock.s, &st) < 0 && !dir_empty(w.s)) {
		error("--work '%s' is not empty and was not made by bwbuild (it has no 'lock'); "
		      "bwbuild deletes and rewrites what is inside its work directory (dist/, src/, "
		      "logs/): give a new or empty directory", w.s);
		goto out;
	}
	rc = 0;
out:
	buf_release(&w);
	buf_release(&o);
	buf_release(&s);
	buf_release(&lock);
	return rc;
}

/*
 * The directories bwbuild writes into below the work directory: made, or
 * refused when one is a symbolic link (never followed). `src` (the
 * checkout) is checked only when it is there; the fetch makes it.
 */
static int
own_dirs(const char *work_dir)
{
	static const char *const made[] = { "logs", "tmp", "cmake", "launch", "dist" };

	for (size_t i = 0; i < ARRAY_SIZE(made); i++)
		if (mkdir_in(work_dir, made[i], 1) < 0)
			return -1;
	/* repair/ is made by its step; a link or file there is refused now, not after the compile. */
	if (mkdir_in(work_dir, "repair", 0) < 0)
		return -1;
	return mkdir_in(work_dir, "src", 0) < 0 ? -1 : 0;
}

int
workdir_check(const char *work_dir)
{
	return own_dirs(work_dir);
}

int
workdir_open(const char *work_dir)
{
	static const char *const subdirs[] = { "", "/cmake", "/launch" };
	struct buf path = BUF_INIT, holder = BUF_INIT;
	struct stat st;
	int fd = -1, removed = 0;

	if (mkdir_p(work_dir) < 0 || own_dirs(work_dir) < 0)
		goto out;
	buf_addf(&path, "%s/lock", work_dir);
	/* Never through a link: a planted <work>/lock -> victim would have the victim truncated. */
	fd = open_regular(path.s, O_RDWR | O_CREAT, 0666);
	if (fd < 0) {
		open_regular_error(path.s);
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		error("'%s' is not a regular file of yours with one name; bwbuild writes only files "
		      "it made: remove it", path.s);
		close(fd);
		fd = -1;
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		read_file(&holder, path.s);
		error("work directory '%s' is in use by another bwbuild (pid %.*s); wait for it to "
		      "finish or use another --work", work_dir,
		      (int)strcspn(holder.s ? holder.s : "?", "\n"), holder.s ? holder.s : "?");
		close(fd);
		fd = -1;
		goto out;
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%ld\n", (long)getpid());
	/* Locked: the temporaries of killed runs of this work dir are ours to remove. */
	for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++) {
		buf_reset(&path);
		buf_addf(&path, "%s%s", work_dir, subdirs[i]);
		removed += remove_stale_temporaries(path.s);
	}
	if (removed)
		fprintf(stderr, "bwbuild: removed %d temporary file%s left in '%s' by runs that were "
			"killed\n", removed, removed == 1 ? "" : "s", work_dir);
out:
	buf_release(&path);
	buf_release(&holder);
	return fd;
}
