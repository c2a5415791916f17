#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/build.h"
#include "core/diag.h"
#include "pipeline/doctor.h"
#include "core/fault.h"
#include "host/host.h"
#include "core/proc.h"
#include "sources/git.h"
#include "sources/repourl.h"
#include "pipeline/plan.h"
#include "pipeline/step.h"
#include "pipeline/uptodate.h"
#include "core/safefile.h"
#include "core/strvec.h"
#include "core/util.h"
#include "pipeline/workdir.h"

/*
 * The pipeline, in order (docs/design/pipeline.md §1); each step lives in
 * the file named after it, its name is step_names[] (step.c).
 */
static const struct build_step steps[STEP__COUNT] = {
	[STEP_FETCH] = { extension_check, fetch_run, EXIT_USAGE },   /* src/pipeline/fetch.c, src/pipeline/extension.c */
	[STEP_CONFIGURE] = { NULL, configure_run, 0 },               /* src/pipeline/configure.c */
	[STEP_COMPILE] = { compile_check, compile_run, EXIT_FAIL },  /* src/pipeline/compile.c */
	[STEP_WHEEL] = { NULL, package_run, 0 },                     /* src/pipeline/package.c */
	[STEP_REPAIR] = { repair_check, repair_run, 0 },             /* src/pipeline/repair_step.c */
	[STEP_VERIFY] = { NULL, verify_run, 0 },                     /* src/pipeline/verify_step.c */
	[STEP_SMOKE] = { NULL, smoke_step_run, 0 },                  /* src/pipeline/smoke_step.c */
	[STEP_PUBLISH] = { publish_check, publish_run, EXIT_USAGE }, /* src/pipeline/publish.c */
};

/*
 * Every step's check, before the first step runs (--until too): what is
 * missing is found now. The exit status: bad input (the extension's torch,
 * an unwritable --out) before a failed check of the machine.
 */
static int
check_steps(struct build *b)
{
	int ret = EXIT_OK;

	for (int i = 0; i < STEP__COUNT; i++)
		if (steps[i].check && steps[i].check(b) < 0 &&
		    (ret == EXIT_OK || steps[i].check_fails == EXIT_USAGE))
			ret = steps[i].check_fails;
	return ret;
}

/*
 * The doctor command that checks what this build was given: its profile,
 * --source and --set values, quoted for a shell.
 */
static void
doctor_command(const struct build *b, const struct build_opts *o, struct buf *out)
{
	struct strvec args = STRVEC_INIT;

	strvec_push(&args, "bwbuild");
	strvec_push(&args, "doctor");
	strvec_push(&args, "--profile");
	strvec_push(&args, b->profile.path);
	if (b->plan.local_source) {
		strvec_push(&args, "--source");
		strvec_push(&args, b->plan.src_dir);
	}
	for (size_t i = 0; o->r.sets && i < o->r.sets->n; i++) {
		strvec_push(&args, "--set");
		strvec_push(&args, o->r.sets->v[i]);
	}
	proc_format_args(&args, out);
	strvec_clear(&args);
}

/* doctor's checks that the steps' own checks make too (compile_check): said once, by the step. */
static int
step_checks_too(const char *name)
{
	static const char *const names[] = { "python", "build env", "numpy", "nvcc targets", "cmake" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

/*
 * doctor's checks that a build cannot survive, before anything is fetched:
 * a missing nvml.h stops PyTorch's c10_cuda hours into a build, in CI
 * hours after the job started. A build that stops after the fetch
 * (`last`) is checked for what the fetch needs (DOCTOR_FETCH): the
 * toolchain's probes are for the steps it never runs. Each failure an error with what to do
 * (doctor's words), after those the steps' checks found (`steps_failed`)
 * so that every lack of the machine is said at once; then one pointer to
 * doctor with the build's own --set values. -1 when anything failed.
 */
static int
preflight(const struct build *b, const struct build_opts *o, int last, int steps_failed)
{
	struct doctor d;
	struct buf cmd = BUF_INIT;
	size_t failed = 0;

	if (!o->no_preflight) {
		doctor_preflight(&d, &b->profile, &b->plan, b->plan.cuda_home, b->plan.work_dir,
				 last < STEP_CONFIGURE ? DOCTOR_FETCH : DOCTOR_BUILD);
		for (size_t i = 0; i < d.n; i++) {
			if (!doctor_blocks_build(&d.checks[i]) ||
			    (steps_failed && step_checks_too(d.checks[i].name)))
				continue;
			if (d.checks[i].at.file)
				error_at(&d.checks[i].at, "preflight: %s: %s", d.checks[i].name,
					 d.checks[i].detail);
			else
				error("preflight: %s: %s", d.checks[i].name, d.checks[i].detail);
			failed++;
		}
		doctor_release(&d);
	}
	if (failed || steps_failed)
		doctor_command(b, o, &cmd);
	if (steps_failed)
		hint("'%s' shows the whole checklist; fix what it marks failed", cmd.s);
	else if (failed)
		hint("'%s' shows the whole checklist; fix %s, or build anyway with --no-preflight",
		     cmd.s, failed == 1 ? "it" : "them");
	buf_release(&cmd);
	return failed || steps_failed ? -1 : 0;
}

/*
 * build.host_arch against this machine: an aarch64 profile's toolkit,
 * cuDNN and NCCL are aarch64 builds, which no x86-64 machine runs. 0 after
 * saying so at the key.
 */
static int
host_fits(const struct build *b)
{
	struct buf said = BUF_INIT;
	int fits = plan_host_fits(&b->profile, host_machine(), &said);

	if (!fits) {
		error_at(&b->profile.host_arch.loc, "%s", said.s);
		hint("'bwbuild plan --profile %s' shows the build it would run there; "
		     "--no-preflight builds here anyway", b->profile.path);
	}
	buf_release(&said);
	return fits;
}

/*
 * A source repository that is a local path must be there, unless a mirror of
 * it is cached (the fetch then says what it has) or a mirror directory has
 * the ref: found before the work tree, --out and an empty mirror are made
 * for a build that cannot start.
 */
static int
check_local_repo(const struct build *b)
{
	const struct profile *p = &b->profile;
	const char *url = p->source_repo.str;
	struct buf cache = BUF_INIT, canon = BUF_INIT, mirror = BUF_INIT, want = BUF_INIT;
	int rc = 0;

	if (b->plan.local_source || b->plan.bundle || !url || !p->source_ref.str)
		return 0;
	if (!strncmp(url, "file://", 7))
		url += 7;
	if (url[0] != '/' || path_exists(url))
		return 0;
	repo_cache_dir(&cache);
	/* A mirror of it is cached (named as the fetch names it): the fetch says what it has. */
	repo_fetch_url(p->source_repo.str, &canon);
	repo_mirror_path(cache.s, canon.s, &mirror);
	if (!is_dir(mirror.s)) {
		diag_quiet++;
		if (repo_resolve_cached(cache.s, p->source_repo.str, p->source_ref.str, &want) < 0)
			rc = -1;
		diag_quiet--;
	}
	if (rc < 0)
		error_at(&p->source_repo.loc, "source.repo '%s' does not exist, and no cached mirror "
			 "has '%s'; point source.repo at the repository", p->source_repo.str,
			 p->source_ref.str);
	buf_release(&cache);
	buf_release(&canon);
	buf_release(&mirror);
	buf_release(&want);
	return rc;
}

/*
 * <work>/staging.incomplete: from the start of the compile step until the
 * wheel step ends well. `setup.py build` copies files into build/lib.*
 * only when the copy is older than its source, so a copy cut short by an
 * interrupt (newer, truncated) would be taken into the next wheel; while
 * the mark is there the wheel step starts that staging afresh (package.c).
 */
static int
staging_mark(struct build *b, int set)
{
	struct buf path = BUF_INIT;
	int rc = 0;

	buf_addf(&path, "%s/staging.incomplete", b->plan.work_dir);
	if (set) {
		if (path_exists(path.s))
			b->staging_stale = 1;
		else
			rc = write_file_atomic(path.s, "", 0);
	} else if (unlink(path.s) < 0 && errno != ENOENT) {
		rc = error("cannot remove '%s':", path.s);
	}
	buf_release(&path);
	return rc;
}

static int
run_steps(struct build *b, int last)
{
	for (int i = 0; i <= last; i++) {
		struct buf point = BUF_INIT;
		double start = now_seconds();
		int rc;

		if (workdir_check(b->plan.work_dir) < 0)
			return -1;
		if (i == STEP_COMPILE && staging_mark(b, 1) < 0)
			return -1;
		buf_addf(&point, "before-%s", step_names[i]);
		fault_point(point.s);
		rc = steps[i].run(b);
		if (i == STEP_WHEEL && !rc && !proc_interrupted)
			rc = staging_mark(b, 0);
		b->seconds[i] = now_seconds() - start;
		/* A Ctrl-C during a probe of this step (a python -c): honoured now, not a step later. */
		if (proc_interrupted && !rc) {
			error("interrupted during '%s'; run the same command again to resume",
			      step_names[i]);
			rc = -1;
		}
		buf_reset(&point);
		buf_addf(&point, "after-%s", step_names[i]);
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
	int lock = -1, ret = EXIT_USAGE, rc;
	long long epoch;

	build_init(&b, o);
	if (resolve_profile(&b.profile, &o->r) < 0 || resolve_plan(&b.plan, &b.profile, &o->r) < 0)
		goto out;
	/* The wrong machine first, before the work tree: every other check would judge this one. */
	if (!o->no_preflight && !host_fits(&b)) {
		ret = EXIT_FAIL;
		goto out;
	}
	/* A junk SOURCE_DATE_EPOCH is refused now, not by the repack after the compile. */
	if (workdir_validate(b.plan.work_dir, b.plan.out_dir,
			     b.plan.local_source ? b.plan.src_dir : NULL) < 0 ||
	    check_local_repo(&b) < 0 || source_date_epoch(&epoch) < 0)
		goto out;
	ret = EXIT_FAIL;
	/* The work dir's lock first: an up-to-date check may publish the last build again. */
	lock = workdir_open(b.plan.work_dir);
	if (lock < 0)
		goto out;
	/* Before any check: those start python and nvcc, and an up-to-date build starts nothing. */
	if (last == STEP_PUBLISH && !o->force && !o->refresh && uptodate_check(&b) > 0) {
		ret = EXIT_OK;
		goto out;
	}
	if ((ret = check_steps(&b)) == EXIT_USAGE || proc_interrupted) {
		if (ret == EXIT_OK)
			ret = EXIT_FAIL;
		goto out;
	}
	/* After the steps' checks: bad input (exit 2) is said before the machine's lacks. */
	if (preflight(&b, o, last, ret != EXIT_OK) < 0 || proc_interrupted) {
		ret = EXIT_FAIL;
		goto out;
	}
	ret = EXIT_FAIL;
	fprintf(stderr, "bwbuild: profile '%s', archs %s, MAX_JOBS=%u, python %s\n",
		b.profile.name.str, b.profile.features[FEAT_CUDA] == TRI_OFF ? "none (no CUDA)" :
		b.plan.arch_list, b.plan.jobs.jobs, b.python.s);
	rc = run_steps(&b, last);
	/* Whatever the steps wrote into the tree until now, they ended: the build's (outputs.c). */
	outputs_end(&b);
	if (rc < 0)
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
	return proc_interrupted ? EXIT_SIGNAL + proc_interrupted : ret;
}
