#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/profile/profile.h"
#include "../../src/pipeline/era.h"
#include "t.h"

/*
 * The compile step with a fake `python setup.py build`: a compiler killed
 * for memory makes it resume with half the jobs (recorded for the
 * manifest), up to three times; any other failure is reported once;
 * --targets builds named CMake targets.
 */

static struct buf dir = BUF_INIT;

/* A build whose compile runs `python` (in dir) with 8 jobs. */
static void
setup(struct build *b, struct build_opts *bo, const char *python)
{
	struct buf w = BUF_INIT, s = BUF_INIT;

	memset(bo, 0, sizeof(*bo));
	build_init(b, bo);
	buf_addf(&w, "%s/work", dir.s);
	buf_addf(&s, "%s/src", dir.s);
	b->plan.work_dir = buf_detach(&w);
	b->plan.src_dir = buf_detach(&s);
	b->plan.jobs.jobs = 8;
	b->plan.jobs.slots = 8;
	b->plan.jobs.heavy_jobs = 6;
	strvec_push(&b->plan.env, "MAX_JOBS=8");
	buf_addf(&b->python, "%s/%s", dir.s, python);
	b->era = era_by_key("setup-helpers");
}

static void
t_recovery(void)
{
	struct build b;
	struct build_opts bo;
	const struct json *r;
	const char *e;
	struct buf log = BUF_INIT, p = BUF_INIT;

	/* Killed twice, then through: two recoveries, 8 -> 4 -> 2 jobs. */
	t_put(dir.s, "count", "", 0);
	buf_addf(&p, "#!/bin/sh\nc=%s/count\necho x >> $c\necho \"build MAX_JOBS=$MAX_JOBS\"\n"
		     "[ $(wc -l < $c) -ge 3 ] && exit 0\n"
		     "echo 'c++: fatal error: Killed signal terminated program cc1plus'; exit 1\n", dir.s);
	t_put(dir.s, "python-oom", p.s, 1);
	setup(&b, &bo, "python-oom");
	t_stderr_begin();
	CHECK(compile_run(&b) == 0);
	e = t_stderr_end();
	CHECK(json_len(b.recoveries) == 2);
	r = json_at(b.recoveries, 1);
	CHECK(json_number_value(json_get(r, "attempt")) == 2);
	CHECK(json_number_value(json_get(r, "max_jobs_before")) == 4);
	CHECK(json_number_value(json_get(r, "max_jobs_after")) == 2);
	CHECK(b.plan.jobs.jobs == 2 && b.plan.jobs.slots == 2 && b.plan.jobs.heavy_jobs == 2);
	CHECK(strstr(e, "warning: compile: a compiler was killed for memory; resuming with MAX_JOBS 8 -> 4, "
		       "8 -> 4 compiles at once (recovery 1 of 3)") != NULL);
	CHECK(strstr(e, "compile: done in ") != NULL);
	CHECK(strstr(e, "error:") == NULL);
	/* One log, appended by each attempt, with the jobs each was given. */
	buf_reset(&p);
	buf_addf(&p, "%s/work/logs/compile.log", dir.s);
	CHECK(read_file(&log, p.s) == 0);
	CHECK(strstr(log.s, "build MAX_JOBS=8\n") && strstr(log.s, "build MAX_JOBS=4\n") &&
	      strstr(log.s, "build MAX_JOBS=2\n"));
	build_release(&b);

	/* Killed every time: three recoveries, then the error that says what to do. */
	t_put(dir.s, "python-always", "#!/bin/sh\necho 'nvcc error   : \"cicc\" died due to signal 9'; exit 1\n", 1);
	setup(&b, &bo, "python-always");
	t_stderr_begin();
	CHECK(compile_run(&b) == -1);
	e = t_stderr_end();
	CHECK(json_len(b.recoveries) == 3);
	CHECK(strstr(e, "error: compile was killed for memory again at MAX_JOBS=1 after 3 recoveries; "
		       "lower build.mem_budget or turn a heavy feature off") != NULL);
	CHECK(strstr(e, "error: step 'compile' failed: ") != NULL);
	build_release(&b);

	/* Another failure: reported once, no recovery. */
	t_put(dir.s, "python-err", "#!/bin/sh\necho 'error: identifier \"x\" is undefined'; exit 1\n", 1);
	setup(&b, &bo, "python-err");
	t_stderr_begin();
	CHECK(compile_run(&b) == -1);
	e = t_stderr_end();
	CHECK(json_len(b.recoveries) == 0);
	CHECK(strstr(e, "error: step 'compile' failed: ") != NULL);
	CHECK(strstr(strstr(e, "error: step 'compile' failed: ") + 1, "error: step 'compile'") == NULL);
	CHECK(strstr(e, "killed for memory") == NULL);
	build_release(&b);
	buf_release(&log);
	buf_release(&p);
}

static void
t_targets(void)
{
	struct build b;
	struct build_opts bo;
	struct buf want = BUF_INIT;
	const char *e;

	setup(&b, &bo, "python-err");
	bo.targets = "torch_cpu,,c10";
	t_stderr_begin();
	CHECK(compile_run(&b) == -1);     /* no configured build directory here */
	e = t_stderr_end();
	buf_addf(&want, "compile: cmake --build %s/src/build --parallel 8 --target torch_cpu c10\n", dir.s);
	CHECK(strstr(e, want.s) != NULL);
	build_release(&b);
	buf_release(&want);
}

static void
t_check(void)
{
	struct build b;
	struct build_opts bo;
	struct buf text = BUF_INIT;
	const char *e;

	t_put(dir.s, "python-ok", "#!/bin/sh\nexit 0\n", 1);
	buf_addf(&text, "name: t-compile\nsource: {repo: r, ref: v2.6.0}\nfeatures: {cuda: off}\n"
			"build: {python: %s/python-err, cache: ccache}\n", dir.s);
	t_put(dir.s, "p.yaml", text.s, 0);
	setup(&b, &bo, "python-ok");
	buf_reset(&text);
	buf_addf(&text, "%s/p.yaml", dir.s);
	CHECK(profile_load(&b.profile, text.s) == 0);
	b.plan.ccache = xstrdup("ccache");           /* planned by its bare name: not on PATH */
	t_stderr_begin();
	CHECK(compile_check(&b) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "error: build.cache is ccache, but there is no ccache on PATH") != NULL);
	CHECK(strstr(e, "/python-err' cannot build wheels:\n") != NULL);
	build_release(&b);
	buf_release(&text);
}

void
t_compile(void)
{
	char *abs = path_absolute(t_tmpdir("compile"));

	buf_addstr(&dir, abs);
	free(abs);
	t_put(dir.s, "src/setup.py", "# setup\n", 0);
	t_put(dir.s, "work/logs/.keep", "", 0);
	t_recovery();
	t_targets();
	t_check();
	remove_tree(dir.s);
	buf_release(&dir);
}
