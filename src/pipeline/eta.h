#ifndef BWBUILD_ETA_H
#define BWBUILD_ETA_H

#include <stddef.h>

struct strvec;

/*
 * The work ahead of a ninja build, weighted by kind, so that the ETA is
 * not fooled by the order of the steps: v2.6.0 starts with ~4,500 C
 * micro-kernels of a few hundred ms each and ends with CUDA units of
 * minutes (a finished-steps rate said "9 minutes" for a build of hours).
 * Made from `ninja -n` (one "[i/N] DESCRIPTION" line per edge still to
 * run); each finished edge's line adds its weight to `done`.
 *
 * A dry run stops where build.ninja itself must be regenerated (ninja -n
 * returns once it would re-run CMake: v2.6.0's fresh tree lists only the
 * ATen codegen and "Re-running CMake..."); such a list is not the build
 * (`regen`), and the edges of the manifest whose outputs are missing
 * (ninja -t targets all, ninja -t rules -d) stand in for it.
 */
struct eta_plan {
	char **desc;   /* sorted descriptions */
	double *w;     /* their weights */
	size_t n;
	double total;  /* the weight of every edge listed */
	double done;   /* the weight of the edges finished so far */
	double hit_w;  /* of `done`, the weight of the edges listed */
	size_t hits;   /* how many listed edges have finished */
	int regen;     /* the dry run stopped at build.ninja's regeneration */
	size_t pre;    /* a plan of the manifest's edges: the regeneration's edges, which ninja runs and counts first */
	/*
	 * The run of ninja the rate is measured over: it starts again when
	 * ninja's total changes (restarted on the regenerated manifest), so
	 * the minutes CMake took to regenerate are not taken for compiling.
	 */
	int phase_total;
	double phase_t0, phase_done0, last_elapsed;
	/*
	 * Each listed edge's learned wall time in seconds (0: unknown) and
	 * whether it finished: the ETA is never less than what the longest
	 * unfinished unit still needs, however many cores idle beside it
	 * (v2.6.0's FbgemmI8DepthwiseAvx2.cc: 218 s of a 273 s compile on 16
	 * cores, while the rate of steps said 1:20 left for 3 minutes).
	 */
	double *known_s;
	unsigned char *fin;
};

/* Below this share of the plan's weight done in the current run of ninja, no ETA is given. */
#define ETA_MIN_SHARE 0.01

/* The relative cost of an edge by its ninja description (pure). */
double eta_weight(const char *desc);
/* Parse `ninja -n` output into `e` (zeroed first); the number of edges. */
size_t eta_plan_parse(struct eta_plan *e, const char *text);
/*
 * Parse `ninja -t targets all` ("OUTPUT: RULE" lines) with the rules'
 * descriptions (`ninja -t rules -d`: "RULE: DESCRIPTION") into `e`
 * (zeroed first): one entry per edge whose output is not yet under
 * `build_dir` (NULL: every edge), described as ninja will describe it
 * when it finishes ($out and CMake's $TARGET_FILE filled in). Phony edges,
 * build.ninja's own and those described by variables of their own (a
 * custom command's DESC: light, and never matched) are left out;
 * consecutive outputs of one rule that names no output in its description
 * count as one edge. The number of edges.
 */
size_t eta_plan_parse_targets(struct eta_plan *e, const char *targets, const char *rules,
			      const char *build_dir);
/*
 * Keep only the edges of `e` that make a file of `inputs` (`ninja -t
 * inputs TARGET...`: every file the targets need, theirs included, one a
 * line), described as "... DIR/OUT" or "... OUT"; the number kept.
 */
size_t eta_plan_only(struct eta_plan *e, const char *inputs);
/*
 * The plan of the ninja build in `build_dir` (the `targets`, NULL or empty:
 * its default): `ninja -n`, or where that stops at the regeneration, the
 * manifest's edges (those the targets need: eta_plan_only). Left empty
 * when ninja cannot say.
 */
void eta_plan_ninja(struct eta_plan *e, const char *build_dir, const struct strvec *targets);
/* An edge finished: its weight counts as done (unknown descriptions count their kind's weight). */
void eta_plan_done(struct eta_plan *e, const char *desc);
/*
 * ninja's line "[done/total] desc" came `elapsed` seconds into the step:
 * eta_plan_done, after starting a new run when `total` changed.
 */
void eta_plan_step(struct eta_plan *e, const char *desc, double elapsed, int total);
/*
 * Seconds left, from ninja's own count (`done` of `total` edges: the real
 * count, which a plan made before the manifest's regeneration cannot
 * know): the listed edges not finished yet at their mean weight, times
 * the edges ninja says are left, against the weight done in the current
 * run of ninja and the time it took. -1 (not known yet) while ninja runs
 * the regeneration's edges and until ETA_MIN_SHARE of the weight is done
 * (the first unit of a fresh tree said "2085:39"). Never less than the
 * longest learned time of an unfinished edge minus the time this run of
 * ninja has run (it cannot have started earlier). Without a plan that
 * describes the build (none, a regeneration-only dry run, or every listed
 * edge finished) the finished-steps rate; -1 before the first step.
 */
double eta_seconds(const struct eta_plan *e, double elapsed, int done, int total);
/* Milliseconds of a learned time per unit of eta_weight (a PyTorch C++ unit, weight 2, ~20 s). */
#define ETA_MS_PER_WEIGHT 10000.0
/*
 * The edges of `e` whose sources have a learned wall time in `times`
 * (the launcher's <table>.times: "SOURCE#HASH MS" lines) weigh that time
 * instead of their kind's weight: the unit known to take 9 minutes is not
 * counted as any other CUDA object. Sources are read off CMake's object
 * paths ("Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/aten/
 * x.cpp.o" is aten/x.cpp, or build/aten/x.cpp where generated).
 */
void eta_plan_learned(struct eta_plan *e, const char *times);
void eta_plan_release(struct eta_plan *e);

#endif
