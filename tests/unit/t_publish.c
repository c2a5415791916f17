#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/build/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
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

	/* Names and directories that cannot be used. */
	t_stderr_begin();
	CHECK(publish_pair(work.s, out.s, w1.s, "t-1.0.tar.gz", "{}", 2) == -1);
	CHECK(publish_pair(work.s, out.s, w1.s, "../t-1.0-py3-none-any.whl", "{}", 2) == -1);
	CHECK(publish_pair(work.s, "tests/tmp/unit/publish/none", w1.s, WNAME, "{}", 2) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "error: 't-1.0.tar.gz' is not a wheel's file name") != NULL);
	CHECK(strstr(e, "error: cannot open the output directory 'tests/tmp/unit/publish/none'") != NULL);
	CHECK_STR(contents(out.s, WNAME), "wheel one");

	remove_tree(d);
	buf_release(&work);
	buf_release(&out);
	buf_release(&w1);
	buf_release(&w2);
	buf_release(&w3);
}
