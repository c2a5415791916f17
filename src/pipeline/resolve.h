#ifndef BWBUILD_RESOLVE_H
#define BWBUILD_RESOLVE_H

#include <stdint.h>

struct profile;
struct plan;
struct strvec;

/*
 * From what a command was given to a checked profile and a plan. This is
 * all that plan, verify and doctor share with build: nothing here looks
 * for a build-only tool (python, ccache) or touches the work directory;
 * the build steps that need those check them before the first step runs.
 */
struct resolve_opts {
	const char *profile;        /* name or path */
	const struct strvec *sets;  /* --set KEY=VALUE, applied after the profile's files */
	int strict;                 /* --strict: knowledge-base warnings are errors */
	const char *work_dir;       /* NULL: work/<profile name> */
	const char *out_dir;        /* NULL: out/<profile name> */
	const char *source_dir;     /* --source: a local tree built as it is */
	const char *bundle;         /* --bundle: the tree from a file 'bwbuild bundle' made */
	uint64_t mem_budget;        /* --mem-budget; 0 = profile or measured */
};

/*
 * Load the profile with its --set values and check it against the
 * knowledge base (the CUDA version from cuda.version or the toolkit's
 * version.json, torch from source.ref). -1 after reporting.
 */
int resolve_profile(struct profile *p, const struct resolve_opts *o);

/* The toolkit a profile builds with: cuda.home, else $CUDA_HOME, else /usr/local/cuda. */
const char *resolve_cuda_home(const struct profile *p);
/*
 * Its version (1300 for 13.0): cuda.version, else the toolkit's version.json,
 * else CUDA_VERSION in its include/cuda.h (no process started: an up-to-date
 * build starts none), else `nvcc --version`; 0 when none says.
 */
unsigned resolve_cuda_version(const struct profile *p);

/*
 * The plan for a resolved profile on this host: work, out and source
 * directories made absolute (nothing created), the memory budget probed.
 * A wanted ccache that is not on PATH is planned by its bare name; the
 * compile step refuses it. -1 after reporting.
 */
int resolve_plan(struct plan *pl, const struct profile *p, const struct resolve_opts *o);

#endif
