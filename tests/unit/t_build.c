#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/workdir.h"
#include "../../src/core/buf.h"
#include "../../src/core/diag.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/*
 * The pipeline's frame on a --source copy of the example tree, stopped
 * after the fetch (--until): every step's check first, the work directory
 * validated and locked, the exit statuses of a bad profile, a foreign
 * work directory and one in use.
 */

static struct buf dir = BUF_INIT;

static int
build(const char *profile, const char *work, const char **err)
{
	struct build_opts o;
	struct buf p = BUF_INIT, w = BUF_INIT, out = BUF_INIT, src = BUF_INIT;
	int rc;

	memset(&o, 0, sizeof(o));
	buf_addf(&p, "%s/%s", dir.s, profile);
	buf_addf(&w, "%s/%s", dir.s, work);
	buf_addf(&out, "%s/out", dir.s);
	buf_addf(&src, "%s/src", dir.s);
	o.r.profile = p.s;
	o.r.work_dir = w.s;
	o.r.out_dir = out.s;
	o.r.source_dir = src.s;
	o.until = STEP_FETCH;
	t_stderr_begin();
	rc = build_run(&o);
	*err = t_stderr_end();
	buf_release(&p);
	buf_release(&w);
	buf_release(&out);
	buf_release(&src);
	return rc;
}

void
t_build(void)
{
	struct buf text = BUF_INIT, p = BUF_INIT;
	const char *e;
	char *abs = path_absolute(t_tmpdir("build"));
	int fd;

	buf_addstr(&dir, abs);
	free(abs);
	buf_addf(&p, "cp -r tests/fixtures/minitorch %s/src && mkdir -p %s/out", dir.s, dir.s);
	CHECK(system(p.s) == 0);
	/*
	 * An interpreter that imports anything and says nothing, but answers
	 * python_setuptools' probe (host/python.c): setuptools 70.1.
	 */
	t_put(dir.s, "python", "#!/bin/sh\ncase $2 in *\"find_spec('setuptools')\"*)\n"
		   "printf '70.1.0\\n/s/setuptools/__init__.py\\n0\\n';; esac\n", 1);
	buf_addf(&text, "name: t-build\nsource: {repo: r, ref: v2.11.0}\nfeatures: {cuda: off}\n"
			"build: {python: %s/python}\n", dir.s);
	t_put(dir.s, "p.yaml", text.s, 0);
	t_put(dir.s, "bad.yaml", "name: t-build\nsource: {repo: r, ref: v2.11.0}\nfeatures: {cuda: maybe}\n", 0);

	CHECK(build("p.yaml", "work", &e) == EXIT_OK);
	CHECK(strstr(e, "bwbuild: profile 't-build', archs ") != NULL);
	CHECK(strstr(e, "fetch: build era: ") != NULL);
	CHECK(strstr(e, "bwbuild: stopped after 'fetch' as asked\n") != NULL);
	buf_reset(&p);
	buf_addf(&p, "%s/work/lock", dir.s);
	CHECK(is_regular(p.s));
	buf_reset(&p);
	buf_addf(&p, "%s/work/staging.incomplete", dir.s);
	CHECK(!path_exists(p.s));                 /* the compile never started */

	/* Again: the directory is bwbuild's now. */
	CHECK(build("p.yaml", "work", &e) == EXIT_OK);

	/* A profile that does not load: a usage error, nothing made. */
	CHECK(build("bad.yaml", "work2", &e) == EXIT_USAGE);
	CHECK(strstr(e, "bad.yaml:3:") != NULL);
	buf_reset(&p);
	buf_addf(&p, "%s/work2", dir.s);
	CHECK(!path_exists(p.s));

	/* A work directory with someone's files: refused before anything is written. */
	t_put(dir.s, "mine/notes.txt", "mine", 0);
	CHECK(build("p.yaml", "mine", &e) == EXIT_USAGE);
	CHECK(strstr(e, "is not empty and was not made by bwbuild") != NULL);
	buf_reset(&p);
	buf_addf(&p, "%s/mine/lock", dir.s);
	CHECK(!path_exists(p.s));

	/* The work directory held by another bwbuild (this process's own lock here). */
	buf_reset(&p);
	buf_addf(&p, "%s/work", dir.s);
	t_stderr_begin();
	fd = workdir_open(p.s);
	t_stderr_end();
	CHECK(fd >= 0);
	CHECK(build("p.yaml", "work", &e) == EXIT_FAIL);
	CHECK(strstr(e, "is in use by another bwbuild") != NULL);
	close(fd);

	/* A step's check that fails stops the build before the first step. */
	t_put(dir.s, "python", "#!/bin/sh\nexit 1\n", 1);
	CHECK(build("p.yaml", "work", &e) == EXIT_FAIL);
	CHECK(strstr(e, "cannot build wheels") != NULL);
	CHECK(strstr(e, "fetch: build era") == NULL);

	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&text);
	buf_release(&p);
}
