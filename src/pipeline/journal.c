#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/fault.h"
#include "core/hash.h"
#include "pipeline/journal.h"
#include "core/json.h"
#include "pipeline/step.h"
#include "core/safefile.h"
#include "core/util.h"

/*
 * The journal behind the publish step: the verified wheel and its manifest
 * into --out, as a pair (docs/design/filesystem.md). Under an flock on the --out directory
 * itself (no lock file is left there), so two builds publishing into one
 * --out take turns. Both are first written under temporary names made
 * new (O_EXCL|O_NOFOLLOW) with a random token; the old manifest is moved
 * aside (a wheel without a manifest is not published), the old wheel kept
 * as a hard link; then the new wheel is renamed into place and the
 * manifest, which names its sha256, last. A failure rolls back to the old
 * pair. The names are written first to <work>/publish.journal, so a run
 * that was killed is finished or rolled back by the next one from that
 * record: cleanup in --out removes only what the journal proves this work
 * directory made there, regular files of this user, never through a link.
 */

/* Wait for the --out directory's lock; -1 after reporting. */
static int
out_lock(int outfd, const char *out)
{
	if (flock(outfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return error("cannot lock the output directory '%s':", out);
	step_note(STEP_PUBLISH, "waiting for another bwbuild publishing into '%s'", out);
	while (flock(outfd, LOCK_EX) < 0)
		if (errno != EINTR)
			return error("cannot lock the output directory '%s':", out);
	return 0;
}

/* A regular file of this user at `name` in `dirfd`, not a link. */
static int
ours(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid();
}

/*
 * The journal publish_pair writes: the --out, then the temporaries and
 * backups of the wheel `wname` and its manifest, all with one suffix
 * ".<pid>.<token>".
 */
static void
journal_format(struct buf *j, const char *out, const char *wname, const char *suffix)
{
	int stem = (int)(strlen(wname) - 4);

	buf_addf(j, "out\t%s\n", out);
	buf_addf(j, "tmp\t%s.tmp%s\n", wname, suffix);
	buf_addf(j, "tmp\t%.*s.manifest.json.tmp%s\n", stem, wname, suffix);
	buf_addf(j, "bak\t%s\t%s.bak%s\n", wname, wname, suffix);
	buf_addf(j, "bak\t%.*s.manifest.json\t%.*s.manifest.json.bak%s\n", stem, wname, stem, wname,
		 suffix);
}

/* ".<pid>.<16 hex>" at the start of `s`: its length, else 0. */
static size_t
suffix_len(const char *s)
{
	size_t n = 0;

	if (s[n++] != '.' || !isdigit((unsigned char)s[n]))
		return 0;
	while (isdigit((unsigned char)s[n]))
		n++;
	if (s[n++] != '.' || strspn(s + n, "0123456789abcdef") != 16)
		return 0;
	return n + 16;
}

/*
 * Whether `path` is the directory open as `fd`: the --out a journal names
 * is the one held whatever its spelling ("DIR/", "DIR/.", a link to it),
 * as a kill and a rerun with another spelling leave it.
 */
static int
same_dir(const char *path, int fd)
{
	struct stat a, b;

	return stat(path, &a) == 0 && fstat(fd, &b) == 0 && S_ISDIR(a.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * The journal as publish_pair writes it, or NULL with the reason in *why.
 * The work directory is not a trusted place (docs/design/filesystem.md):
 * the journal is believed only when it is exactly what this bwbuild
 * writes for this --out, its wheel's name and suffix taken from the wheel's
 * backup line and every other line compared with what they make. So
 * recovery touches only the temporaries and backups bwbuild names itself,
 * and only in the --out directory it holds locked.
 */
static int
journal_parse(const char *text, int outfd, struct buf *wname, struct buf *suffix,
	      const char **why)
{
	struct buf want = BUF_INIT, jout = BUF_INIT;
	const char *bak, *w, *tab, *nl;
	size_t wl, sl;
	int ok;

	*why = "not a journal bwbuild writes";
	if (!starts_with(text, "out\t") || !(nl = strchr(text, '\n')))
		return -1;
	buf_add(&jout, text + 4, (size_t)(nl - text - 4));
	if (!same_dir(jout.s, outfd)) {
		*why = "it names another output directory";
		buf_release(&jout);
		return -1;
	}
	/* The wheel's backup line, the fourth: "bak\t<wheel>\t<wheel>.bak.<pid>.<token>". */
	bak = nl;
	for (int i = 0; i < 2 && bak; i++)
		bak = strchr(bak + 1, '\n');
	w = bak && starts_with(bak + 1, "bak\t") ? bak + 5 : NULL;
	tab = w ? strchr(w, '\t') : NULL;
	wl = tab ? (size_t)(tab - w) : 0;
	if (wl < 5 || *w == '.' || strncmp(tab - 4, ".whl", 4) || memchr(w, '/', wl) ||
	    memchr(w, '\n', wl) || strncmp(tab + 1, w, wl) || strncmp(tab + 1 + wl, ".bak", 4) ||
	    !(sl = suffix_len(tab + 1 + wl + 4))) {
		buf_release(&jout);
		return -1;
	}
	buf_add(wname, w, wl);
	buf_add(suffix, tab + 1 + wl + 4, sl);
	journal_format(&want, jout.s, wname->s, suffix->s);
	ok = !strcmp(want.s, text);
	buf_release(&want);
	buf_release(&jout);
	return ok ? 0 : -1;
}

/*
 * The journal of a publish into this --out that did not finish: its
 * temporaries removed; unless the manifest it published is in place, the
 * old pair restored from the backups. A journal that is not exactly one
 * of ours is set aside with a warning, and nothing is touched. -1 when
 * it is there but cannot be read (a FIFO, a directory): nothing is
 * published over what it might name.
 */
static int
journal_recover(const char *work, const char *out, int outfd)
{
	struct buf path = BUF_INIT, text = BUF_INIT, wname = BUF_INIT, suffix = BUF_INIT;
	struct buf mname = BUF_INIT, name = BUF_INIT, bak = BUF_INIT;
	const char *why;
	int removed = 0, restored = 0, manifest_in, rc = 0;

	buf_addf(&path, "%s/%s", work, PUBLISH_JOURNAL);
	if (!path_exists(path.s))
		goto out;
	if (read_file(&text, path.s) < 0) {
		hint("it is bwbuild's record of an unfinished publish; remove it and build again");
		rc = -1;
		goto out;
	}
	if (journal_parse(text.s, outfd, &wname, &suffix, &why) < 0) {
		warning("'%s' is ignored: %s; nothing in '%s' was removed or renamed for it", path.s,
			why, out);
		goto done;
	}
	buf_addf(&mname, "%.*s.manifest.json", (int)(wname.len - 4), wname.s);
	for (int i = 0; i < 2; i++) {
		buf_reset(&name);
		buf_addf(&name, "%s.tmp%s", i ? mname.s : wname.s, suffix.s);
		if (ours(outfd, name.s) && unlinkat(outfd, name.s, 0) == 0)
			removed++;
	}
	/* The manifest's final name decides: in place, the publish got through. */
	manifest_in = faccessat(outfd, mname.s, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	for (int i = 0; i < 2; i++) {
		const char *final = i ? mname.s : wname.s;

		buf_reset(&bak);
		buf_addf(&bak, "%s.bak%s", final, suffix.s);
		if (!ours(outfd, bak.s))
			continue;
		if (!manifest_in && renameat(outfd, bak.s, outfd, final) == 0)
			restored++;
		else if (unlinkat(outfd, bak.s, 0) == 0)
			removed++;
	}
	if (removed || restored)
		step_note(STEP_PUBLISH, "finished a publish into '%s' that was killed: %d temporary "
			  "file%s removed%s", out, removed, removed == 1 ? "" : "s",
			  restored ? ", the wheel and manifest published before restored" : "");
done:
	unlink(path.s);
out:
	buf_release(&path);
	buf_release(&text);
	buf_release(&wname);
	buf_release(&suffix);
	buf_release(&mname);
	buf_release(&name);
	buf_release(&bak);
	return rc;
}

static int
write_at(int dirfd, const char *name, const char *shown, const char *data, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);

	if (fd < 0)
		return error("cannot create '%s':", shown);
	if (write_all(fd, data, len) < 0 || (fsync(fd) < 0 && errno != EINVAL)) {
		error("cannot write '%s':", shown);
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return error("cannot close '%s':", shown);
	return 0;
}

static int
rename_in(int dirfd, const char *from, const char *to, const char *out, const char *point)
{
	if (fault_fail(point)) {
		errno = EIO;
		return error("cannot rename '%s/%s' to '%s/%s':", out, from, out, to);
	}
	if (renameat(dirfd, from, dirfd, to) < 0)
		return error("cannot rename '%s/%s' to '%s/%s':", out, from, out, to);
	return 0;
}

int
publish_pair(const char *work, const char *out, const char *wheel, const char *wname,
	     const char *mtext, size_t mlen)
{
	struct buf mname = BUF_INIT, tw = BUF_INIT, tm = BUF_INIT, wb = BUF_INIT, mb = BUF_INIT;
	struct buf tok = BUF_INIT, journal = BUF_INIT, jpath = BUF_INIT, shown = BUF_INIT;
	struct buf suffix = BUF_INIT;
	int outfd, rc = -1, have_wb = 0, have_mb = 0, wheel_in = 0;

	if (!ends_with(wname, ".whl") || strpbrk(wname, "/\t\n"))
		return error("'%s' is not a wheel's file name", wname);
	outfd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (outfd < 0)
		return error("cannot open the output directory '%s':", out);
	if (out_lock(outfd, out) < 0)
		goto out;
	if (journal_recover(work, out, outfd) < 0)
		goto out;
	random_token(&tok);
	buf_addf(&mname, "%.*s.manifest.json", (int)(strlen(wname) - 4), wname);
	buf_addf(&tw, "%s.tmp.%ld.%s", wname, (long)getpid(), tok.s);
	buf_addf(&tm, "%s.tmp.%ld.%s", mname.s, (long)getpid(), tok.s);
	buf_addf(&wb, "%s.bak.%ld.%s", wname, (long)getpid(), tok.s);
	buf_addf(&mb, "%s.bak.%ld.%s", mname.s, (long)getpid(), tok.s);
	buf_addf(&suffix, ".%ld.%s", (long)getpid(), tok.s);
	journal_format(&journal, out, wname, suffix.s);
	buf_addf(&jpath, "%s/%s", work, PUBLISH_JOURNAL);
	if (write_file_atomic(jpath.s, journal.s, journal.len) < 0)
		goto out;
	buf_addf(&shown, "%s/%s", out, tw.s);
	if (copy_file_at(wheel, outfd, tw.s, shown.s) < 0)
		goto undo;
	buf_reset(&shown);
	buf_addf(&shown, "%s/%s", out, tm.s);
	if (write_at(outfd, tm.s, shown.s, mtext, mlen) < 0)
		goto undo;
	fault_point("publish-wheel-copied");
	/* The old wheel kept (a link: it stays in place meanwhile), the old manifest moved aside. */
	have_wb = linkat(outfd, wname, outfd, wb.s, 0) == 0;
	if (renameat(outfd, mname.s, outfd, mb.s) == 0)
		have_mb = 1;
	else if (errno != ENOENT) {
		error("cannot rename '%s/%s':", out, mname.s);
		goto undo;
	}
	if (rename_in(outfd, tw.s, wname, out, "publish-rename-wheel") < 0)
		goto undo;
	wheel_in = 1;
	fault_point("publish-wheel-renamed");
	if (rename_in(outfd, tm.s, mname.s, out, "publish-rename-manifest") < 0)
		goto undo;
	fault_point("publish-manifest-renamed");
	if (have_wb)
		unlinkat(outfd, wb.s, 0);
	if (have_mb)
		unlinkat(outfd, mb.s, 0);
	fsync(outfd);
	unlink(jpath.s);
	rc = 0;
	goto out;
undo:
	/* Back to the pair that was there: nothing of this publish stays. */
	if (wheel_in && have_wb)
		renameat(outfd, wb.s, outfd, wname);
	else if (wheel_in)
		unlinkat(outfd, wname, 0);
	else if (have_wb)
		unlinkat(outfd, wb.s, 0);
	if (have_mb)
		renameat(outfd, mb.s, outfd, mname.s);
	unlinkat(outfd, tw.s, 0);
	unlinkat(outfd, tm.s, 0);
	unlink(jpath.s);
	step_note(STEP_PUBLISH, "nothing published; '%s' holds what it held before", out);
out:
	close(outfd);
	buf_release(&mname);
	buf_release(&tw);
	buf_release(&tm);
	buf_release(&wb);
	buf_release(&mb);
	buf_release(&tok);
	buf_release(&journal);
	buf_release(&jpath);
	buf_release(&shown);
	buf_release(&suffix);
	return rc;
}
