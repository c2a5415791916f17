#include <stdio.h>
#include <unistd.h>

#include "diag.h"
#include "fault.h"
#include "proc.h"
#include "step.h"
#include "uptodate.h"
#include "util.h"
#include "workdir.h"

/* The pipeline, in order; each step lives in the file named after it. */
static const struct build_step steps[STEP__COUNT] = {
	[STEP_FETCH] = { "fetch", extension_check, fetch_run },  /* src/fetch.c, src/extension.c */
	[STEP_CONFIGURE] = { "configure", NULL, configure_run }, /* src/configure.c */
	[STEP_COMPILE] = { "compile", compile_check, compile_run }, /* src/compile.c */
	[STEP_WHEEL] = { "wheel", NULL, package_run },           /* src/package.c */
	[STEP_VERIFY] = { "verify", NULL, verify_run },          /* src/verify.c */
	[STEP_SMOKE] = { "smoke", NULL, smoke_step_run },        /* src/smoke.c */
	[STEP_PUBLISH] = { "publish", publish_check, publish_run }, /* src/publish.c */
};

/* Every step's check, before the first step runs (--until too): what is missing is found now. */
static int
check_steps(struct build *b)
{
	int rc = 0;

	for (int i = 0; i < STEP__COUNT; i++)
		if (steps[i].check && steps[i].check(b) < 0)
			rc = -1;
	return rc;
}

static int
run_steps(struct build *b, int last)
{
	for (int i = 0; i <= last; i++) {
		struct buf point = BUF_INIT;
		double start = now_seconds();
		int rc;

		buf_addf(&point, "before-%s", steps[i].name);
		fault_point(point.s);
		rc = steps[i].run(b);
		b->seconds[i] = now_seconds() - start;
		buf_reset(&point);
		buf_addf(&point, "after-%s", steps[i].name);
		if (!rc)
			fault_point(point.s);
		buf_release(&point);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int
build_run(const struct build_opts *o)
{
	struct build b;
	int last = o->until < STEP__COUNT ? o->until : STEP__COUNT - 1;
	int lock = -1, ret = EXIT_USAGE;

	build_init(&b, o);
	if (resolve_profile(&b.profile, &o->r) < 0 || resolve_plan(&b.plan, &b.profile, &o->r) < 0)
		goto out;
	ret = EXIT_FAIL;
	/* Before any check: those start python and nvcc, and an up-to-date build starts nothing. */
	if (last == STEP_PUBLISH && !o->force && !o->refresh && uptodate_check(&b) > 0) {
		ret = EXIT_OK;
		goto out;
	}
	if (check_steps(&b) < 0)
		goto out;
	fprintf(stderr, "bwbuild: profile '%s', archs %s, MAX_JOBS=%u, python %s\n",
		b.profile.name.str, b.plan.arch_list, b.plan.jobs.jobs, b.python.s);
	lock = workdir_open(b.plan.work_dir);
	if (lock < 0 || run_steps(&b, last) < 0)
		goto out;
	if (last < STEP_PUBLISH)
		fprintf(stderr, "bwbuild: stopped after '%s' as asked%s%s\n", step_names[last],
			b.wheel.len ? "; the wheel is " : "", b.wheel.len ? b.wheel.s : "");
	if (b.have_report && b.report.errors.n)
		error("the wheel failed %zu check%s", b.report.errors.n,
		      b.report.errors.n == 1 ? "" : "s");
	if (b.smoke_failed)
		error("the wheel failed on this machine's GPU (bwbuild smoke)");
	ret = (b.have_report && b.report.errors.n) || b.smoke_failed ? EXIT_FAIL : EXIT_OK;
	if (last == STEP_PUBLISH)
		fprintf(stderr, "bwbuild: %s in %.1f s\n", ret == EXIT_OK ? "done" : "failed",
			now_seconds() - b.start);
out:
	if (lock >= 0)
		close(lock);
	build_release(&b);
	/* Stopped by Ctrl-C or a TERM: 128 + the signal, as shells and CI expect. */
	return proc_interrupted ? 128 + proc_interrupted : ret;
}
