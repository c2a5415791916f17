#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/eta.h"
#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/proc.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/*
 * A step's command: its log with the command and environment, progress
 * from ninja's [n/m] lines, and on failure the command, its last lines and
 * the cause found in the logs with what to do.
 */

static struct plan pl;

/* `script` run from a file, so the log's header line (the command) does not hold its words. */
static int
run_eta(const char *step, const char *script, int defer, struct proc *p, const char **err,
	struct eta_plan *eta)
{
	struct buf path = BUF_INIT;
	int rc;

	buf_addf(&path, "%s/%s.sh", pl.src_dir, step);
	remove(path.s);
	if (write_file_atomic(path.s, script, strlen(script)) < 0)
		exit(1);
	strvec_pushl(&p->args, "sh", path.s, NULL);
	buf_release(&path);
	p->defer_failure = defer;
	t_stderr_begin();
	rc = step_command_eta((enum step)step_from_name(step), &pl, p, eta);
	*err = t_stderr_end();
	return rc;
}

static int
run(const char *step, const char *script, int defer, struct proc *p, const char **err)
{
	return run_eta(step, script, defer, p, err, NULL);
}

static const char *
log_of(const char *step)
{
	static struct buf b = BUF_INIT;
	struct buf path = BUF_INIT;

	buf_reset(&b);
	buf_addf(&path, "%s/logs/%s.log", pl.work_dir, step);
	if (read_file(&b, path.s) < 0)
		buf_addstr(&b, "(none)");
	buf_release(&path);
	return b.s;
}

static void
t_success(void)
{
	struct proc p = PROC_INIT;
	struct eta_plan e;
	const char *err;

	/* The weighted ETA of compile.c: three edges known from ninja -n. */
	eta_plan_parse(&e, "[1/3] Building CXX object a.o\n[2/3] Building CUDA object k.o\n"
			   "[3/3] Linking CXX shared library libtorch.so\n");
	strvec_push(&p.env, "T_STEP=1");
	CHECK(run_eta("compile", "echo '[1/3] Building CXX object a.o'; echo noise;"
			     " echo '[2/3] Building CUDA object k.o'; echo '[3/3] Linking CXX shared library libtorch.so'",
		  0, &p, &err, &e) == 0);
	CHECK(e.done == e.total && e.total > 0);
	eta_plan_release(&e);
	CHECK(strstr(err, "compile: sh ") != NULL);
	CHECK(strstr(err, "compile: [3/3] 100%") != NULL);
	CHECK(strstr(err, "compile: done in ") != NULL);
	CHECK(starts_with(log_of("compile"), "# bwbuild step 'compile'\n# cd .\n# sh "));
	CHECK(strstr(log_of("compile"), "# env T_STEP=1\n[1/3] Building CXX object a.o\nnoise\n") != NULL);
	proc_release(&p);

	/* A retried step appends to its log. */
	p.append_log = 1;
	CHECK(run("compile", "echo again", 0, &p, &err) == 0);
	CHECK(strstr(log_of("compile"), "libtorch.so\n# bwbuild step 'compile'") != NULL);
	CHECK(strstr(log_of("compile"), "again\n") != NULL);
	proc_release(&p);
}

static void
t_failure(void)
{
	struct proc p = PROC_INIT;
	struct buf path = BUF_INIT;
	const char *err;

	CHECK(run("compile", "echo 'c++: fatal error: Killed signal terminated program cc1plus'; "
			     "echo 'ninja: build stopped'; exit 2", 0, &p, &err) == -1);
	CHECK(strstr(err, "error: step 'compile' failed: 'sh ") != NULL);
	CHECK(strstr(err, "' exited with 2\n---- last lines of output ----\n"
			  "c++: fatal error: Killed signal terminated program cc1plus\n"
			  "ninja: build stopped\n----\n") != NULL);
	CHECK(strstr(err, "error: cause: c++: fatal error: Killed signal terminated program cc1plus\n"
			  "  a compiler was killed, most likely for memory: lower build.mem_budget\n") != NULL);
	CHECK(strstr(err, "note: full log: ") != NULL && strstr(err, "/logs/compile.log\n") != NULL);
	proc_release(&p);

	/* Deferred: nothing said; the caller has the status and reports when it decides to. */
	CHECK(run("wheel", "echo 'OSError: No space left on device'; echo x: Cannot allocate memory; kill -9 $$",
		  1, &p, &err) == -1);
	CHECK(p.status == 128 + 9);
	CHECK(strstr(err, "error:") == NULL);
	t_stderr_begin();
	step_failed(STEP_WHEEL, &pl, &p);
	err = t_stderr_end();
	CHECK(strstr(err, "' was killed by signal 9\n") != NULL);
	/* The first cause in the table's order wins: the full disk, not the memory. */
	CHECK(strstr(err, "error: cause: OSError: No space left on device\n  the disk is full") != NULL);
	proc_release(&p);

	/* configure: CMake's own logs are read too. */
	buf_addf(&path, "%s/build/CMakeFiles/CMakeError.log", pl.src_dir);
	CHECK(mkdir_p_parent(path.s) == 0);
	CHECK(write_file_atomic(path.s, "nvcc fatal   : Unsupported gpu architecture 'compute_120'\n", 58) == 0);
	CHECK(run("configure", "echo 'CMake Error: see CMakeError.log'; exit 1", 0, &p, &err) == -1);
	CHECK(strstr(err, "error: cause: nvcc fatal   : Unsupported gpu architecture 'compute_120'\n"
			  "  this nvcc cannot build an arch") != NULL);
	proc_release(&p);
	t_stderr_begin();
	CHECK(step_cause(STEP_SMOKE, &pl) == 0);     /* no log, no cause */
	err = t_stderr_end();
	CHECK_STR(err, "");

	/* A log that is a planted link is refused, never followed. */
	buf_reset(&path);
	buf_addf(&path, "%s/logs/fetch.log", pl.work_dir);
	CHECK(symlink("compile.log", path.s) == 0);
	CHECK(run("fetch", "echo never", 0, &p, &err) == -1);
	CHECK(strstr(err, "fetch.log' is a symbolic link; bwbuild writes only files it made: remove it") != NULL);
	CHECK(!strstr(log_of("compile"), "never"));
	proc_release(&p);
	buf_release(&path);
}

static void
t_env(void)
{
	struct build b;
	struct build_opts bo;
	struct proc p = PROC_INIT;
	char *sde = t_env_save("SOURCE_DATE_EPOCH");

	memset(&bo, 0, sizeof(bo));
	build_init(&b, &bo);
	/* Its bufs and strvecs as their _INIT leaves them: never NULL. */
	CHECK(b.wheel.s && !*b.wheel.s && b.python.s && b.torch_site.s && b.version.s);
	CHECK(b.patches.env.v && b.patches.env.n == 0 && b.epoch == -1 && !b.borrowed);
	strvec_push(&b.plan.env, "USE_CUDA=1");
	b.epoch = 1234;
	buf_addstr(&b.version, "2.6.0+bw1");
	unsetenv("SOURCE_DATE_EPOCH");
	step_env(&p, &b);
	CHECK_STR(strvec_env_get(&p.env, "USE_CUDA"), "1");
	CHECK_STR(strvec_env_get(&p.env, "SOURCE_DATE_EPOCH"), "1234");
	CHECK_STR(strvec_env_get(&p.env, "PYTORCH_BUILD_VERSION"), "2.6.0+bw1");
	CHECK_STR(strvec_env_get(&p.env, "PYTORCH_BUILD_NUMBER"), "1");
	proc_release(&p);
	/* The user's SOURCE_DATE_EPOCH wins over the commit's. */
	setenv("SOURCE_DATE_EPOCH", "99", 1);
	step_env(&p, &b);
	CHECK(strvec_env_get(&p.env, "SOURCE_DATE_EPOCH") == NULL);
	proc_release(&p);
	t_env_restore("SOURCE_DATE_EPOCH", sde);
	/* A borrowing context sees b's plan and leaves it to b (ASan: no double free). */
	{
		struct build t;

		build_init_from(&t, &b);
		CHECK(t.borrowed && t.plan.env.v == b.plan.env.v && t.opts == b.opts);
		buf_addstr(&t.version, "x");
		build_release(&t);
		CHECK_STR(strvec_env_get(&b.plan.env, "USE_CUDA"), "1");
	}
	strvec_clear(&b.plan.env);
	memset(&b.plan, 0, sizeof(b.plan));
	build_release(&b);
}

void
t_step(void)
{
	struct buf w = BUF_INIT, s = BUF_INIT;

	buf_addstr(&w, t_tmpdir("step"));
	buf_addf(&s, "%s/src", w.s);
	buf_addstr(&w, "/work");
	mkdir_p(s.s);
	{
		struct buf logs = BUF_INIT;

		buf_addf(&logs, "%s/logs", w.s);
		mkdir_p(logs.s);
		buf_release(&logs);
	}
	memset(&pl, 0, sizeof(pl));
	pl.work_dir = w.s;
	pl.src_dir = s.s;
	t_success();
	t_failure();
	t_env();
	remove_tree(t_path("step"));
	buf_release(&w);
	buf_release(&s);
}
