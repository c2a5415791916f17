#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/pipeline/workdir.h"
#include "../../src/core/buf.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/* Where bwbuild may write, and one bwbuild per work directory. */

static int
validate(const char *work, const char *out, const char *source, const char *want)
{
	const char *e;
	int rc;

	t_stderr_begin();
	rc = workdir_validate(work, out, source);
	e = t_stderr_end();
	if (want && !strstr(e, want)) {
		fprintf(stderr, "t_workdir: wanted '%s' in: %s\n", want, e);
		return 0;
	}
	return want ? rc == -1 : rc == 0 && !*e;
}

void
t_workdir(void)
{
	char *top = path_absolute(t_tmpdir("workdir"));
	char *home = t_env_save("HOME");
	struct buf w = BUF_INIT, o = BUF_INIT, s = BUF_INIT, p = BUF_INIT;
	const char *e;
	int fd, fd2;

	setenv("HOME", top, 1);
	buf_addf(&w, "%s/work", top);
	buf_addf(&o, "%s/out", top);
	buf_addf(&s, "%s/src", top);
	CHECK(validate(w.s, o.s, s.s, NULL));
	CHECK(validate("/", o.s, NULL, "--work '/'"));
	CHECK(validate(w.s, top, NULL, "--out '"));
	CHECK(validate(top, o.s, NULL, "--work '"));
	buf_reset(&p);
	buf_addf(&p, "%s/src/../work/x", top);    /* lexically inside --work */
	CHECK(validate(w.s, p.s, NULL, "is inside the work directory"));
	buf_reset(&p);
	buf_addf(&p, "%s/pytorch", w.s);
	CHECK(validate(w.s, o.s, p.s, "holds the source tree"));
	/* --work inside the --source tree (issue 31), as written or through a link. */
	buf_reset(&p);
	buf_addf(&p, "%s/build/work", s.s);
	CHECK(validate(p.s, o.s, s.s, "is inside the source tree"));
	CHECK(mkdir_p(s.s) == 0);
	buf_reset(&p);
	buf_addf(&p, "%s/link-to-src", top);
	CHECK(symlink(s.s, p.s) == 0);
	buf_addstr(&p, "/work");
	CHECK(mkdir_p(p.s) == 0);
	CHECK(validate(p.s, o.s, s.s, "is inside the source tree"));
	CHECK(validate(s.s, o.s, s.s, "holds the source tree"));
	/* Issue 40 E4: the same through the link, the work directory not made yet. */
	buf_reset(&p);
	buf_addf(&p, "%s/link-to-src/w-not-yet", top);
	CHECK(validate(p.s, o.s, s.s, "is inside the source tree"));
	/* E3: --out through a link into the work directory (its dist/ is emptied). */
	CHECK(mkdir_p(w.s) == 0);
	buf_reset(&p);
	buf_addf(&p, "%s/link-to-work", top);
	CHECK(symlink(w.s, p.s) == 0);
	buf_addstr(&p, "/dist");
	CHECK(validate(w.s, p.s, NULL, "is inside the work directory"));
	CHECK(rmdir(w.s) == 0);

	/* An existing directory: empty is fine, one with files and no lock is not. */
	CHECK(mkdir_p(w.s) == 0);
	CHECK(validate(w.s, o.s, NULL, NULL));
	buf_reset(&p);
	buf_addf(&p, "%s/precious.txt", w.s);
	CHECK(write_file_atomic(p.s, "x", 1) == 0);
	CHECK(validate(w.s, o.s, NULL, "is not empty and was not made by bwbuild"));

	/* workdir_open makes logs/, tmp/ and the lock; the lock then vouches for the directory. */
	t_stderr_begin();
	fd = workdir_open(w.s);
	e = t_stderr_end();
	CHECK(fd >= 0);
	CHECK_STR(e, "");
	buf_reset(&p);
	buf_addf(&p, "%s/logs", w.s);
	CHECK(is_dir(p.s));
	buf_reset(&p);
	buf_addf(&p, "%s/lock", w.s);
	{
		struct buf pid = BUF_INIT, want = BUF_INIT;

		CHECK(read_file(&pid, p.s) == 0);
		buf_addf(&want, "%ld\n", (long)getpid());
		CHECK_STR(pid.s, want.s);
		buf_release(&pid);
		buf_release(&want);
	}
	CHECK(validate(w.s, o.s, NULL, NULL));

	/* A second bwbuild (another open of the lock) is refused while the first holds it. */
	t_stderr_begin();
	fd2 = workdir_open(w.s);
	e = t_stderr_end();
	CHECK(fd2 == -1);
	CHECK(strstr(e, "is in use by another bwbuild (pid ") != NULL);
	close(fd);

	/* A stale temporary of a dead run goes when the lock is taken. */
	buf_reset(&p);
	buf_addf(&p, "%s/last-build.json.tmp.999999999", w.s);
	CHECK(write_file_atomic(p.s, "{}", 2) == 0);
	t_stderr_begin();
	fd = workdir_open(w.s);
	e = t_stderr_end();
	CHECK(fd >= 0);
	CHECK(strstr(e, "removed 1 temporary file left in") != NULL);
	CHECK(!path_exists(p.s));
	close(fd);

	/* A lock that is a symbolic link is never followed. */
	buf_reset(&p);
	buf_addf(&p, "%s/lock", w.s);
	unlink(p.s);
	CHECK(symlink("precious.txt", p.s) == 0);
	t_stderr_begin();
	fd = workdir_open(w.s);
	e = t_stderr_end();
	CHECK(fd == -1);
	CHECK(strstr(e, "is a symbolic link") != NULL);
	unlink(p.s);
	CHECK(mkdir(p.s, 0755) == 0);
	t_stderr_begin();
	fd = workdir_open(w.s);
	e = t_stderr_end();
	CHECK(fd == -1);

	t_env_restore("HOME", home);
	remove_tree(top);
	free(top);
	buf_release(&w);
	buf_release(&o);
	buf_release(&s);
	buf_release(&p);
}
