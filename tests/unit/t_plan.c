#include <string.h>

#include "../../src/host/host.h"
#include "../../src/pipeline/plan.h"
#include "../../src/profile/profile.h"
#include "t.h"

#define GiB (1024ULL * 1024 * 1024)

void
t_plan(void)
{
	struct profile p;
	struct host h;
	struct jobs_calc jc;
	struct plan pl;
	struct plan_opts o = { .work_dir = "/w", .out_dir = "/o", .cuda_home = "/usr/local/cuda" };

	t_write("plan.yaml",
		"source: {repo: https://example.invalid/x.git, ref: v2.11.0}\n"
		"cuda: {archs: [\"8.0\", \"12.0+PTX\"]}\n"
		"features: {cuda: on, mslk: on, nccl: off}\n"
		"cmake: {USE_SYSTEM_NCCL: \"1\", CMAKE_CUDA_FLAGS: \"-w\"}\n");
	CHECK(profile_load(&p, t_path("plan.yaml")) == 0);

	memset(&h, 0, sizeof(h));
	h.cpus = 64;
	h.mem_total = 64 * GiB;
	h.mem_available = 40 * GiB;
	jobs_compute(&jc, &p, &h, 0, 0);
	/* headroom max(2 GiB, 6.4 GiB); 33.6 GiB / 2.5 GiB per 3-target CUDA job = 13 */
	CHECK(jc.headroom == 64 * GiB / 10);
	CHECK(jc.jobs == 13);
	CHECK(jc.heavy_jobs == 6);

	/* A cgroup tighter than MemAvailable wins. */
	h.cgroup_limit = 16 * GiB;
	h.cgroup_room = 12 * GiB;
	jobs_compute(&jc, &p, &h, 0, 0);
	CHECK(jc.usable == 12 * GiB);
	CHECK(jc.budget == 10 * GiB);
	CHECK(jc.jobs == 4);

	/* An explicit budget; never fewer than one job. */
	jobs_compute(&jc, &p, &h, 0, 1 * GiB);
	CHECK(jc.budget_given && jc.jobs == 1 && jc.heavy_jobs == 1);

	/*
	 * With the launcher ninja is offered what it admits (cpus) and a
	 * waiting room: an eighth of the cores where memory lets every core
	 * compile (64 + 8, not 2 x 64), the compiles memory keeps waiting
	 * where it does not (64 + 60), at least one (2 + 1).
	 */
	h.cgroup_limit = h.cgroup_room = 0;
	h.mem_total = h.mem_available = 503 * GiB;
	jobs_compute(&jc, &p, &h, 1, 0);
	CHECK(jc.slots == 64 && jc.room == 8 && jc.jobs == 72);
	jobs_compute(&jc, &p, &h, 1, 10 * GiB);
	CHECK(jc.by_memory == 4 && jc.slots == 64 && jc.room == 60 && jc.jobs == 124);
	h.cpus = 2;
	jobs_compute(&jc, &p, &h, 1, 0);
	CHECK(jc.slots == 2 && jc.room == 1 && jc.jobs == 3);
	h.cpus = 64;
	h.mem_total = 64 * GiB;
	h.mem_available = 40 * GiB;
	h.cgroup_limit = 16 * GiB;
	h.cgroup_room = 12 * GiB;

	CHECK(plan_make(&pl, &p, &h, &o) == 0);
	CHECK_STR(strvec_env_get(&pl.env, "TORCH_CUDA_ARCH_LIST"), "8.0;12.0+PTX");
	CHECK_STR(strvec_env_get(&pl.env, "USE_MSLK"), "1");
	CHECK(strvec_env_get(&pl.env, "USE_FBGEMM_GENAI") == NULL); /* only the name this release has */
	CHECK_STR(strvec_env_get(&pl.env, "USE_NCCL"), "0");
	CHECK_STR(strvec_env_get(&pl.env, "USE_SYSTEM_NCCL"), "1");
	CHECK_STR(strvec_env_get(&pl.env, "MAX_JOBS"), "4");
	CHECK_STR(strvec_env_get(&pl.cmake, "CMAKE_CUDA_FLAGS"), "-w");
	CHECK(strvec_env_get(&pl.cmake, "MAX_JOBS") == NULL);
	CHECK(pl.sass.n == 2 && pl.ptx.n == 1);
	CHECK_STR(pl.ptx.v[0], "compute_120");
	/* The build tree's RUNPATH relative ($ORIGIN); the stub's compile maps the build paths away. */
	CHECK_STR(strvec_env_get(&pl.cmake, "CMAKE_BUILD_RPATH_USE_ORIGIN"), "ON");
	CHECK_STR(strvec_env_get(&pl.env, "CPPFLAGS"),
		  "-ffile-prefix-map=/w=/bwbuild/work -ffile-prefix-map=/w/src=/bwbuild/src");
	plan_release(&pl);
	/* The user's own CPPFLAGS come first and stay. */
	{
		char *env[] = { (char *)"CPPFLAGS=-DMINE -I/opt/x", NULL };

		o.env = env;
		CHECK(plan_make(&pl, &p, &h, &o) == 0);
		CHECK_STR(strvec_env_get(&pl.env, "CPPFLAGS"), "-DMINE -I/opt/x -ffile-prefix-map=/w=/bwbuild/work "
			  "-ffile-prefix-map=/w/src=/bwbuild/src");
		CHECK(strvec_env_find(&pl.inherited, "CPPFLAGS", 8) < 0);
		plan_release(&pl);
		o.env = NULL;
	}
	profile_release(&p);
}
