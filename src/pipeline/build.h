#ifndef BWBUILD_BUILD_H
#define BWBUILD_BUILD_H

#include "core/diag.h"
#include "pipeline/resolve.h"

/*
 * The steps of a build, in order (docs/design/pipeline.md §1). Their names
 * are defined once, in step_names: --until, the progress lines, the logs
 * (<work>/logs/STEP.log), the fault points, `bwbuild plan` and the
 * manifest's timings all take them from there.
 */
enum step {
	STEP_FETCH,
	STEP_CONFIGURE,
	STEP_COMPILE,
	STEP_WHEEL,
	STEP_REPAIR,
	STEP_VERIFY,
	STEP_SMOKE,
	STEP_PUBLISH,
	STEP__COUNT
};
extern const char *const step_names[STEP__COUNT];
/* Step by name, or -1. */
int step_from_name(const char *name);

/*
 * A line of a step's progress on stderr, "STEP: message" (the format
 * without its newline); how every step reports what it is doing.
 */
#define step_note(step, ...) progress_note(step_names[(step)], __VA_ARGS__)

/*
 * The build pipeline: a table of steps (src/pipeline/build.c) run in order over
 * one context (src/pipeline/step.h), each in the file named after it and
 * logging to <work>/logs/<step>.log. The steps, what each does and where:
 * docs/design/pipeline.md §1.
 */
struct build_opts {
	struct resolve_opts r;  /* profile, --set, --strict, directories, --mem-budget */
	int until;              /* last step to run (enum step) */
	int force;              /* --force: discard local changes in the work tree's checkout */
	int refresh;            /* --fetch: fetch the mirrors even when they have the ref */
	const char *targets;    /* --targets T1,T2: compile only these CMake targets, then stop */
	int no_preflight;       /* --no-preflight: skip doctor's checks before the first step */
};

/* Run; returns the exit status (diag.h). */
int build_run(const struct build_opts *o);

#endif
