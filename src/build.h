#ifndef BWBUILD_BUILD_H
#define BWBUILD_BUILD_H

struct strvec;

#include <stdint.h>

/*
 * The build pipeline: profile -> plan -> fetch -> configure -> compile ->
 * wheel -> verify -> manifest. Each step logs to <work>/logs/<step>.log.
 */
struct build_opts {
	const char *profile;   /* name or path */
	const char *work_dir;  /* NULL: work/<profile name> */
	const char *out_dir;   /* NULL: out/<profile name> */
	int until;             /* last step to run (enum step) */
	uint64_t mem_budget;   /* --mem-budget; 0 = profile or auto */
	const struct strvec *sets; /* --set KEY=VALUE, applied after the profile's files */
	int strict;            /* --strict: knowledge-base warnings are errors */
	const char *source_dir; /* --source: build this local tree as it is (no checkout, no patches) */
	int force;             /* --force: discard local changes in the work tree's checkout */
	int refresh;           /* --fetch: fetch the mirrors even when they have the ref */
};

/* Run; returns the exit status (diag.h). */
int build_run(const struct build_opts *o);

/* Shared by build and plan: load the profile and make the plan. */
struct profile;
struct plan;
struct strvec;
struct host;
int build_prepare(struct profile *p, struct plan *pl, struct host *h, const struct build_opts *o);

#endif
