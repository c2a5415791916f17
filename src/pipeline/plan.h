#ifndef BWBUILD_PLAN_H
#define BWBUILD_PLAN_H

#include <stdint.h>

#include "core/diag.h"
#include "core/strvec.h"

struct profile;
struct host;
struct json;
struct buf;

/*
 * The plan: what a build of a profile will do, computed from the profile
 * and the host facts alone (no I/O), so `bwbuild plan` can print it
 * exactly and tests can check it.
 */

/* The job count and the arithmetic behind it. */
struct jobs_calc {
	unsigned cpus;
	uint64_t mem_available;
	uint64_t cgroup_room;     /* 0 = no cgroup limit */
	uint64_t usable;          /* min(mem_available, cgroup_room) */
	uint64_t headroom;        /* max(2 GiB, 10 % of the effective limit) */
	uint64_t budget;          /* usable - headroom, or the profile's/--mem-budget */
	int budget_given;         /* budget came from build.mem_budget / --mem-budget */
	uint64_t per_job;         /* estimate for one ordinary compile job */
	const char *per_job_kind; /* what that estimate is for */
	uint64_t heavy_per_job;   /* flash-attention class kernels; 0 if none */
	unsigned by_memory;       /* floor(budget / per_job), at least 1 */
	unsigned jobs;            /* MAX_JOBS */
	unsigned heavy_jobs;      /* FLASH_ATTENTION_MAX_JOBS; 0 if none */
	int jobs_given;           /* build.jobs was a number */
	int launcher;             /* admission by `bwbuild launch`: MAX_JOBS = slots + room */
	unsigned slots;           /* compiles the launcher lets run at once (cpus) */
	unsigned room;            /* ninja's compiles waiting in the launcher, beyond slots */
	unsigned remote_slots;    /* build.remote: host C++ compiles the hosts take at once */
	size_t remote_hosts;
};

struct plan {
	const struct profile *profile;
	char *arch_list;            /* TORCH_CUDA_ARCH_LIST */
	struct strvec env;          /* NAME=VALUE set on top of the inherited environment */
	struct strvec inherited;    /* NAME=VALUE from bwbuild's environment that change the build */
	struct strvec cmake;        /* NAME=VALUE the tree's CMake will see as -D */
	struct strvec sass;         /* expected per CUDA library: sm_80, sm_120 */
	struct strvec ptx;          /* expected per CUDA library: compute_120 */
	struct jobs_calc jobs;
	char *work_dir;
	char *src_dir;              /* work_dir/src, or --source */
	int local_source;           /* src_dir is the user's tree (--source): never cleaned */
	char *bundle;               /* --bundle: the file the tree is extracted from (absolute), or NULL */
	char *out_dir;
	char *ccache;               /* the ccache program when build.cache is ccache, else NULL */
	char *cuda_home;
	char *arch_source;          /* what judged the archs: the tree's select_compute_arch.cmake or bwbuild's table */
	char *remote;               /* build.remote as the launcher reads it (hostlist.h), or NULL */
};

struct plan_opts {
	const char *work_dir;   /* absolute */
	const char *src_dir;    /* absolute; NULL: work_dir/src */
	const char *bundle;     /* absolute; NULL: none */
	const char *out_dir;    /* absolute */
	const char *cuda_home;  /* detected or profile's */
	uint64_t mem_budget;    /* --mem-budget; 0 = profile / auto */
	const char *self_exe;   /* bwbuild itself, for the compiler launcher; NULL: no launcher */
	const char *ccache;     /* the ccache program when build.cache is ccache */
	char *const *env;       /* bwbuild's environment, for plan.inherited; NULL: none */
	const char *arch_source; /* kb_arch_source()'s words; NULL: not said */
};

/* NAME=VALUE entries as a JSON object. */
struct json *env_json(const struct strvec *env);

/* Whether an inherited NAME=VALUE is one PyTorch's build reads (USE_*, CC, ...). */
int env_changes_build(const char *entry);

/* Build the plan; -1 after reporting a problem with the profile. */
int plan_make(struct plan *out, const struct profile *p, const struct host *h,
	      const struct plan_opts *opts);
void plan_release(struct plan *pl);


/*
 * Whether the profile builds on a machine `machine` ("x86_64", "aarch64":
 * host_machine() here, another in tests): 1 when build.host_arch is unset
 * or names it; 0 with what to do into `said` (no file:line: the caller
 * gives the key's). An aarch64 profile (GB200, GB10) needs the arm64
 * (sbsa) CUDA toolkit, cuDNN and NCCL, which no x86-64 machine runs.
 */
int plan_host_fits(const struct profile *p, const char *machine, struct buf *said);

/* Human-readable and JSON renderings for `bwbuild plan`. */
void plan_format(const struct plan *pl, struct buf *out);
struct json *plan_json(const struct plan *pl);

/* Compute the job count (exposed for tests). */
void jobs_compute(struct jobs_calc *jc, const struct profile *p, const struct host *h, int launcher,
		  uint64_t mem_budget);

#endif
