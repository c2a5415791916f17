#ifndef BWBUILD_BUILD_H
#define BWBUILD_BUILD_H

#include "core/diag.h"
#include "pipeline/resolve.h"

/*
 * The steps of a build, in order (docs/design/pipeline.md §1). Their names
 * are defined once, in step_names (src/pipeline/step.c, the step
 * machinery): --until, the progress lines, the logs (<work>/logs/STEP.log),
 * the fault points, `bwbuild plan` and the manifest's timings all take
 * them from there.
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

struct strvec;
/*
 * `bwbuild bundle`: the profile's checkout in <work>/src, configured (run
 * build_run to configure first), written to `out` as a source bundle with
 * what the configured build never names left out, except the paths in
 * `keep` (src/pipeline/bundle.c). The exit status.
 */
int bundle_make(const struct build_opts *o, const char *out, const struct strvec *keep);

struct buf;
struct plan;
struct profile;
struct strvec;
struct torch_ref;

/*
 * What the steps' environment is made of (step_env in src/pipeline/step.c
 * fills it from a build), so that `bwbuild plan` shows the same
 * environment without a build: the plan's env, SOURCE_DATE_EPOCH (epoch
 * -1: none), the patch series' env, the PYTHONPATH prefix the tree needs,
 * CMake's policy floor, an extension's torch, the wheel's version. NULL
 * and "" alike mean none.
 */
struct step_env_in {
	const struct plan *plan;
	long long epoch;
	const struct strvec *patch_env;
	const char *pythonpath;
	const char *torch_site, *torch_package;
	const char *version;
	int cmake_policy;
};
void step_env_of(const struct step_env_in *in, struct strvec *env);

/*
 * The torch an extension profile builds on (its `torch:`), loaded into `t`
 * (found at `where`), every arch of the profile one it runs on; -1 after
 * reporting. What build, plan and doctor all check (src/pipeline/extension.c).
 */
int extension_torch(const struct profile *p, struct torch_ref *t, struct buf *where);
/*
 * For a `torch:` that names a torch profile: 1 with the wheel its last
 * published build left (work/<name>/last-build.json, here) in `wheel`; 0
 * with why there is none and what to do in `why`, the line plan and build
 * refuse it with; -1 after reporting when that profile cannot be loaded.
 */
int extension_torch_published(const struct profile *p, struct buf *wheel, struct buf *why);
/*
 * What wheel_version will give, as far as the profile tells before the
 * fetch (src/pipeline/version.c): "2.6.0+cpu.cpu (the release of tag v2.6.0)", or the form it takes
 * from the tree ("version.txt+git<commit>.cu130.sm120 (read at fetch)").
 */
void wheel_version_plan(const struct profile *p, const struct plan *pl, struct buf *out);

#endif
