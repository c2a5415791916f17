/*
 * The build's smoke step (src/pipeline/step.h): picks a GPU of this machine
 * that every CUDA library of the verified wheel runs on, or the CPU for a
 * wheel without CUDA, and hands the wheel to smoke_target
 * (src/wheel/smoke_setup.c); apart from src/wheel/smoke*.c so the smoke
 * engine, which `bwbuild smoke` uses alone, needs nothing of a build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "profile/compat.h"
#include "core/proc.h"
#include "wheel/smoke.h"
#include "pipeline/step.h"
#include "core/strvec.h"
#include "core/util.h"
#include "wheel/verify.h"

/*
 * The index of the first GPU nvidia-smi lists that every CUDA library of
 * the wheel can run on, or -1; *listed says whether it listed any.
 */
static int
pick_gpu(const struct build *b, int *listed)
{
	const char *argv[] = { "nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader",
			       NULL };
	struct proc p = PROC_INIT;
	struct buf out = BUF_INIT, how = BUF_INIT;
	char *nvsmi = find_program("nvidia-smi");
	int index = 0, gpu = -1;

	for (size_t i = 0; argv[i]; i++)
		strvec_push(&p.args, argv[i]);
	if (nvsmi && proc_run_capture(&p, &out) == 0) {
		for (const char *line = out.s; *line && gpu < 0; index++) {
			char *one = xstrndup(line, strcspn(line, "\r\n"));
			int cc, ok = gpu_parse(one, &cc) == 0;

			free(one);

			for (size_t i = 0; ok && i < b->report.nlibs; i++) {
				const struct wheel_lib *l = &b->report.libs[i];

				buf_reset(&how);
				ok = !l->has_fatbin || library_runs_on(&l->sass, &l->ptx, cc, &how) == 0;
			}
			if (ok)
				gpu = index;
			line += strcspn(line, "\n");
			line += *line == '\n';
		}
	}
	proc_release(&p);
	buf_release(&out);
	buf_release(&how);
	free(nvsmi);
	*listed = index > 0;
	return gpu;
}

/*
 * The build's smoke step: a wheel without CUDA (smoke_cpu_only) gets its
 * CPU checks on any host; a CUDA wheel, when this machine has a GPU that
 * every CUDA library of the wheel can run on, its checks there (no
 * benchmarks); their result goes into the manifest's "runtime". Otherwise
 * it says why it did not run. A failed check keeps the wheel from being
 * published.
 */
int
smoke_step_run(struct build *b)
{
	struct smoke_request rq = { .timeout = 300, .quick = 1, .gpu = -1 };
	struct buf cpu = BUF_INIT;
	struct smoke_result sr;
	int listed = 0, rc;

	if (b->report.errors.n) {
		step_note(STEP_SMOKE, "skipped: the wheel failed %s", step_names[STEP_VERIFY]);
		return 0;
	}
	/* An extension runs with its torch; with no probe of its own, the generic one (smoke_setup.c). */
	if (b->era->smoke_against_torch)
		rq.against = b->torch.path;
	if (smoke_cpu_only(&b->report, &b->profile, 0, &cpu)) {
		step_note(STEP_SMOKE, "on the CPU: %s", cpu.s);
	} else if ((rq.gpu = pick_gpu(b, &listed)) < 0) {
		step_note(STEP_SMOKE, "skipped: %s (run 'bwbuild smoke' on the wheel where one is)",
			  listed ? "no GPU here that the wheel can run on" : "no GPU here");
		buf_release(&cpu);
		return 0;
	}
	buf_release(&cpu);
	rq.target = b->wheel.s;
	rq.profile = &b->profile;
	rq.python = b->python.len ? b->python.s : NULL;
	smoke_result_init(&sr);
	rc = smoke_target(&rq, &sr, &b->runtime);
	for (size_t i = 0; i < sr.nchecks; i++) {
		const struct smoke_check *c = &sr.checks[i];

		fprintf(stderr, "  %s %-20s %s\n", smoke_status_mark(c->status), c->name, c->reason);
	}
	smoke_result_release(&sr);
	if (rc < 0)
		return -1;
	b->smoke_failed = rc != 0;
	return 0;
}
