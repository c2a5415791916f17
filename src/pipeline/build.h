#ifndef BWBUILD_BUILD_H
#define BWBUILD_BUILD_H

#include "pipeline/resolve.h"

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
