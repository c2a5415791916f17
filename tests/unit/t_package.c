#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/pipeline/era.h"
#include "t.h"

/*
 * The wheel step with a fake interpreter standing in for `python3 setup.py
 * bdist_wheel -d DIST`: the one wheel it leaves in <work>/dist, a stale
 * dist/ emptied first, the staging of an unfinished run removed, and the
 * scikit-build-core era's wheel taken as the compile left it.
 */

static struct buf dir = BUF_INIT;

static int
package(struct build *b, const char *python, const struct era_ops *era, int stale, const char **err)
{
	struct build_opts bo;
	struct buf w = BUF_INIT, s = BUF_INIT;
	int rc;

	memset(&bo, 0, sizeof(bo));
	build_init(b, &bo);
	buf_addf(&w, "%s/work", dir.s);
	buf_addf(&s, "%s/src", dir.s);
	b->plan.work_dir = buf_detach(&w);
	b->plan.src_dir = buf_detach(&s);
	buf_addf(&b->python, "%s/%s", dir.s, python);
	b->era = era;
	b->staging_stale = stale;
	t_stderr_begin();
	rc = package_run(b);
	*err = t_stderr_end();
	return rc;
}

void
t_package(void)
{
	struct build b;
	struct buf p = BUF_INIT;
	const char *e;

	{
		char *abs = path_absolute(t_tmpdir("package"));

		buf_addstr(&dir, abs);   /* the command runs in the source tree */
		free(abs);
	}
	t_put(dir.s, "work/logs/.keep", "", 0);
	t_put(dir.s, "work/dist/old-0.9-py3-none-any.whl", "stale", 0);
	t_put(dir.s, "src/build/lib.linux-x86_64-3.11/torch/x.py", "", 0);
	t_put(dir.s, "src/build/bdist.linux-x86_64/wheel/y", "", 0);
	t_put(dir.s, "src/build/temp.linux-x86_64-3.11/z.o", "", 0);
	/* `python setup.py bdist_wheel -d DIST`: one wheel into DIST, run in the source tree. */
	t_put(dir.s, "python-one", "#!/bin/sh\n[ \"$1 $2\" = 'setup.py bdist_wheel' ] && [ -f setup.py ] || exit 9\n"
			           "echo building; mkdir -p \"$4\"; echo wheel > \"$4/t-1.0-py3-none-any.whl\"\n", 1);
	t_put(dir.s, "python-two", "#!/bin/sh\nmkdir -p \"$4\"; touch \"$4/a-1.0-py3-none-any.whl\" \"$4/b-1.0-py3-none-any.whl\"\n", 1);
	t_put(dir.s, "python-fail", "#!/bin/sh\necho 'error: invalid command bdist_wheel'; exit 1\n", 1);
	t_put(dir.s, "src/setup.py", "# setup\n", 0);

	CHECK(package(&b, "python-one", era_by_key("setup-helpers"), 1, &e) == 0);
	buf_addf(&p, "%s/work/dist/t-1.0-py3-none-any.whl", dir.s);
	CHECK_STR(b.wheel.s, p.s);
	buf_reset(&p);
	buf_addf(&p, "%s/work/dist/old-0.9-py3-none-any.whl", dir.s);
	CHECK(!path_exists(p.s));                     /* dist/ emptied before */
	CHECK(strstr(e, "wheel: '") && strstr(e, "/build/lib.linux-x86_64-3.11' is made afresh"));
	buf_reset(&p);
	buf_addf(&p, "%s/src/build/bdist.linux-x86_64", dir.s);
	CHECK(!path_exists(p.s));
	buf_reset(&p);
	buf_addf(&p, "%s/src/build/temp.linux-x86_64-3.11/z.o", dir.s);
	CHECK(path_exists(p.s));                      /* the compile's objects stay */
	CHECK(strstr(e, "wheel: done in ") != NULL);
	build_release(&b);

	CHECK(package(&b, "python-two", era_by_key("setup-helpers"), 0, &e) == -1);
	CHECK(strstr(e, "/work/dist', found 2") && strstr(e, "error: expected one wheel in '"));
	build_release(&b);
	CHECK(package(&b, "python-fail", era_by_key("setup-envfwd"), 0, &e) == -1);
	CHECK(strstr(e, "error: step 'wheel' failed: ") != NULL);
	CHECK(strstr(e, "error: invalid command bdist_wheel\n") != NULL);
	build_release(&b);

	/* scikit-build-core made its wheel while compiling: nothing is run, dist/ is kept. */
	t_put(dir.s, "work/dist/sk-2.0-cp311-cp311-linux_x86_64.whl", "wheel", 0);
	CHECK(package(&b, "python-fail", era_by_key("skbuild"), 0, &e) == 0);
	CHECK(ends_with(b.wheel.s, "/work/dist/sk-2.0-cp311-cp311-linux_x86_64.whl"));
	CHECK_STR(e, "");
	build_release(&b);

	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&p);
}
