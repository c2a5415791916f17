#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/pipeline/journal.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/*
 * The wheel and its manifest into --out as a pair: replaced together,
 * rolled back together when a rename fails, and a publish killed half-way
 * finished by the next one from its journal.
 */

#define WNAME "t-1.0-py3-none-any.whl"
#define MNAME "t-1.0-py3-none-any.manifest.json"

/* The names in `dir`, sorted, joined by spaces. */
static const char *
listing(const char *dir)
{
	static struct buf b = BUF_INIT;
	struct strvec names = STRVEC_INIT;
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strvec_push(&names, de->d_name);
	if (d)
		closedir(d);
	strvec_sort(&names);
	buf_reset(&b);
	strvec_join(&names, " ", &b);
	strvec_clear(&names);
	return b.s;
}

static const char *
contents(const char *dir, const char *name)
{
	static struct buf b = BUF_INIT;
	struct buf p = BUF_INIT;

	buf_reset(&b);
	buf_addf(&p, "%s/%s", dir, name);
	if (read_file(&b, p.s) < 0)
		buf_addstr(&b, "(none)");
	buf_release(&p);
	return b.s;
}

static int
publish(const char *work, const char *out, const char *wheel, const char *manifest, const char **err)
{
	int rc;

	t_stderr_begin();
	rc = publish_pair(work, out, wheel, WNAME, manifest, strlen(manifest));
	*err = t_stderr_end();
	return rc;
}

/*
 * A tampered <work>/publish.journal (issue 31): the work directory is not
 * a trusted place. A journal naming another directory, or names that are
 * not this bwbuild's temporaries and backups, removes and renames nothing.
 */
static void
t_journal_tampered(const char *d, const char *work, const char *out, const char *wheel)
{
	struct buf victim = BUF_INIT, j = BUF_INIT, jpath = BUF_INIT, f = BUF_INIT;
	const char *e;

	buf_addf(&victim, "%s/victim", d);
	buf_addf(&jpath, "%s/publish.journal", work);
	mkdir_p(victim.s);
	buf_addf(&f, "%s/notes.txt", victim.s);
	CHECK(write_file_atomic(f.s, "precious", 8) == 0);
	buf_reset(&f);
	buf_addf(&f, "%s/" WNAME, victim.s);
	CHECK(write_file_atomic(f.s, "their wheel", 11) == 0);
	/* Another directory: before, its files were deleted and a bak renamed over its wheel. */
	buf_addf(&j, "out\t%s\ntmp\tnotes.txt\ntmp\tx\nbak\t" WNAME "\tnotes.txt\n", victim.s);
	CHECK(write_file_atomic(jpath.s, j.s, j.len) == 0);
	CHECK(publish(work, out, wheel, "{\"m\": 5}", &e) == 0);
	CHECK(strstr(e, "publish.journal' is ignored: it names another output directory; nothing "
		       "in '") != NULL);
	CHECK_STR(listing(victim.s), "notes.txt " WNAME);
	CHECK_STR(contents(victim.s, "notes.txt"), "precious");
	CHECK_STR(contents(victim.s, WNAME), "their wheel");
	CHECK(!strstr(listing(work), "publish.journal"));

	/* This --out, but names that are not bwbuild's own: the user's files stay. */
	buf_reset(&f);
	buf_addf(&f, "%s/notes.txt", out);
	CHECK(write_file_atomic(f.s, "mine", 4) == 0);
	buf_reset(&f);
	buf_addf(&f, "%s/other.whl", out);
	CHECK(write_file_atomic(f.s, "other wheel", 11) == 0);
	buf_reset(&f);
	buf_addf(&f, "%s/" MNAME, out);
	unlink(f.s);
	buf_reset(&j);
	buf_addf(&j, "out\t%s\ntmp\tnotes.txt\ntmp\t" MNAME ".tmp.1.0123456789abcdef\nbak\t" WNAME
		 "\tother.whl\nbak\t" MNAME "\t" MNAME ".bak.1.0123456789abcdef\n", out);
	CHECK(write_file_atomic(jpath.s, j.s, j.len) == 0);
	CHECK(publish(work, out, wheel, "{\"m\": 6}", &e) == 0);
	CHECK(strstr(e, "publish.journal' is ignored: not a journal bwbuild writes") != NULL);
	CHECK_STR(contents(out, "notes.txt"), "mine");
	CHECK_STR(contents(out, "other.whl"), "other wheel");
	CHECK_STR(contents(out, MNAME), "{\"m\": 6}");
	buf_reset(&f);
	buf_addf(&f, "%s/notes.txt", out);
	unlink(f.s);
	buf_reset(&f);
	buf_addf(&f, "%s/other.whl", out);
	unlink(f.s);
	buf_release(&victim);
	buf_release(&j);
	buf_release(&jpath);
	buf_release(&f);
}

/* A publish of `wheel` into `out` killed after its wheel went in, before its manifest. */
static void
killed_publish(const char *work, const char *out, const char *wheel)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setenv("BWBUILD_FAULT", "publish-wheel-renamed", 1);
		t_stderr_begin();
		publish_pair(work, out, wheel, WNAME, "{\"m\": 9}", 8);
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/*
 * Issue 40 W5: rerun as "--out DIR/" (or through a link) after a killed
 * publish into DIR, the journal was "another output directory" and its
 * .bak and .tmp files stayed in DIR for good.
 */
static void
t_journal_respelled(const char *d, const char *work, const char *out, const char *w1,
		    const char *w2)
{
	struct buf slash = BUF_INIT, link = BUF_INIT;
	const char *e;

	buf_addf(&slash, "%s/", out);
	buf_addf(&link, "%s/out-link", d);
	CHECK(symlink("out", link.s) == 0);
	for (int i = 0; i < 2; i++) {
		killed_publish(work, out, w2);
		CHECK(publish(work, i ? link.s : slash.s, w1, "{\"m\": 7}", &e) == 0);
		CHECK(strstr(e, "that was killed: 1 temporary file removed, the wheel and manifest "
			       "published before restored") != NULL);
		CHECK(!strstr(e, "is ignored"));
		CHECK_STR(listing(out), MNAME " " WNAME);
		CHECK_STR(contents(out, WNAME), "wheel one");
	}
	unlink(link.s);
	buf_release(&slash);
	buf_release(&link);
}

void
t_publish(void)
{
	const char *d = t_tmpdir("publish");
	struct buf work = BUF_INIT, out = BUF_INIT, w1 = BUF_INIT, w2 = BUF_INIT, w3 = BUF_INIT;
	const char *e;
	pid_t pid;
	int status;

	buf_addf(&work, "%s/work", d);
	buf_addf(&out, "%s/out", d);
	buf_addf(&w1, "%s/one.whl", work.s);
	buf_addf(&w2, "%s/two.whl", work.s);
	buf_addf(&w3, "%s/three.whl", work.s);
	mkdir_p(work.s);
	mkdir_p(out.s);
	CHECK(write_file_atomic(w1.s, "wheel one", 9) == 0);
	CHECK(write_file_atomic(w2.s, "wheel two", 9) == 0);
	CHECK(write_file_atomic(w3.s, "wheel three", 11) == 0);
	unsetenv("BWBUILD_FAULT");

	CHECK(publish(work.s, out.s, w1.s, "{\"m\": 1}", &e) == 0);
	CHECK_STR(e, "");
	CHECK_STR(listing(out.s), MNAME " " WNAME);
	CHECK_STR(contents(out.s, WNAME), "wheel one");
	CHECK_STR(contents(out.s, MNAME), "{\"m\": 1}");
	CHECK_STR(listing(work.s), "one.whl three.whl two.whl");   /* no journal left */

	CHECK(publish(work.s, out.s, w2.s, "{\"m\": 2}", &e) == 0);
	CHECK_STR(listing(out.s), MNAME " " WNAME);
	CHECK_STR(contents(out.s, WNAME), "wheel two");
	CHECK_STR(contents(out.s, MNAME), "{\"m\": 2}");

	/* The manifest's rename fails: the pair that was there stays, nothing else. */
	setenv("BWBUILD_FAULT", "fail:publish-rename-manifest", 1);
	CHECK(publish(work.s, out.s, w3.s, "{\"m\": 3}", &e) == -1);
	unsetenv("BWBUILD_FAULT");
	CHECK(strstr(e, "error: cannot rename '") != NULL);
	CHECK(strstr(e, "publish: nothing published; '") != NULL);
	CHECK_STR(listing(out.s), MNAME " " WNAME);
	CHECK_STR(contents(out.s, WNAME), "wheel two");
	CHECK_STR(contents(out.s, MNAME), "{\"m\": 2}");
	CHECK_STR(listing(work.s), "one.whl three.whl two.whl");

	/* Killed after the new wheel went in but before its manifest: the next publish undoes it. */
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setenv("BWBUILD_FAULT", "publish-wheel-renamed", 1);
		t_stderr_begin();
		publish_pair(work.s, out.s, w3.s, WNAME, "{\"m\": 3}", 8);
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK_STR(contents(out.s, WNAME), "wheel three");     /* a wheel without its manifest */
	CHECK(strstr(listing(work.s), "publish.journal") != NULL);
	CHECK(publish(work.s, out.s, w1.s, "{\"m\": 4}", &e) == 0);
	CHECK(strstr(e, "publish: finished a publish into '") != NULL);
	/* The manifest's temporary removed; the old wheel and manifest back from their backups. */
	CHECK(strstr(e, "that was killed: 1 temporary file removed, the wheel and manifest "
		       "published before restored") != NULL);
	CHECK_STR(listing(out.s), MNAME " " WNAME);
	CHECK_STR(contents(out.s, WNAME), "wheel one");
	CHECK_STR(contents(out.s, MNAME), "{\"m\": 4}");
	CHECK_STR(listing(work.s), "one.whl three.whl two.whl");

	t_journal_respelled(d, work.s, out.s, w1.s, w2.s);
	t_journal_tampered(d, work.s, out.s, w1.s);
	CHECK_STR(listing(out.s), MNAME " " WNAME);

	/* Names and directories that cannot be used. */
	t_stderr_begin();
	CHECK(publish_pair(work.s, out.s, w1.s, "t-1.0.tar.gz", "{}", 2) == -1);
	CHECK(publish_pair(work.s, out.s, w1.s, "../t-1.0-py3-none-any.whl", "{}", 2) == -1);
	CHECK(publish_pair(work.s, t_path("publish/none"), w1.s, WNAME, "{}", 2) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "error: 't-1.0.tar.gz' is not a wheel's file name") != NULL);
	CHECK(t_has(e, "error: cannot open the output directory '%s'", t_path("publish/none")));
	CHECK_STR(contents(out.s, WNAME), "wheel one");

	remove_tree(d);
	buf_release(&work);
	buf_release(&out);
	buf_release(&w1);
	buf_release(&w2);
	buf_release(&w3);
}
