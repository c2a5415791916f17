/*
 * The plan (plan.h): what a build of a profile will do, from the profile
 * and the host facts alone: the job counts and the arithmetic behind them
 * (jobs_compute, docs/design/scheduling.md §1-3), the environment and
 * CMake entries given to the tree's build, the compiler launcher's
 * settings, build.remote, and whether this machine is the profile's host
 * (plan_host_fits). How it is shown (text and JSON) is plan_format.c's.
 * May include: core/, host/, profile/, launch/launch.h, launch/memmodel.h,
 * launch/repro.h, pipeline/.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "host/host.h"
#include "launch/launch.h"
#include "launch/memmodel.h"
#include "pipeline/plan.h"
#include "launch/repro.h"
#include "profile/hostlist.h"
#include "profile/profile.h"
#include "profile/profview.h"
#include "core/util.h"

void
jobs_compute(struct jobs_calc *jc, const struct profile *p, const struct host *h, int launcher,
	     uint64_t mem_budget)
{
	uint64_t limit;
	size_t targets = 0, i;

	memset(jc, 0, sizeof(*jc));
	jc->cpus = h->cpus ? h->cpus : 1;
	jc->mem_available = h->mem_available;
	jc->cgroup_room = h->cgroup_room;
	jc->usable = h->mem_available;
	if (h->cgroup_limit && h->cgroup_room < jc->usable)
		jc->usable = h->cgroup_room;
	limit = h->cgroup_limit && h->cgroup_limit < h->mem_total ? h->cgroup_limit : h->mem_total;
	jc->headroom = limit / 10 > 2 * GiB ? limit / 10 : 2 * GiB;
	if (mem_budget || p->mem_budget) {
		jc->budget = mem_budget ? mem_budget : p->mem_budget;
		jc->budget_given = 1;
	} else {
		jc->budget = jc->usable > jc->headroom ? jc->usable - jc->headroom : 0;
	}

	for (i = 0; i < p->narchs; i++)
		targets += 1 + (size_t)p->archs[i].arch.ptx;
	if (profile_feature_on(p, FEAT_CUDA) && p->narchs) {
		jc->per_job = EST_CUDA_BASE + EST_CUDA_PER_TARGET * targets;
		jc->per_job_kind = "CUDA compile";
		if (jc->per_job < EST_CXX) {
			jc->per_job = EST_CXX;
			jc->per_job_kind = "C++ compile";
		}
		if (profile_feature_on(p, FEAT_FLASH_ATTENTION) ||
		    profile_feature_on(p, FEAT_MEM_EFF_ATTENTION) || p->features[FEAT_MSLK] == TRI_ON ||
		    p->features[FEAT_FBGEMM_GENAI] == TRI_ON)
			jc->heavy_per_job = EST_HEAVY;
	} else {
		jc->per_job = EST_CXX;
		jc->per_job_kind = "C++ compile";
	}

	jc->by_memory = (unsigned)(jc->budget / jc->per_job);
	if (jc->by_memory < 1)
		jc->by_memory = 1;
	jc->jobs = jc->by_memory < jc->cpus ? jc->by_memory : jc->cpus;
	jc->slots = jc->jobs;
	if (launcher) {
		/*
		 * The launcher admits at most `cpus` compiles, by memory and CPU
		 * slots itself; ninja gets those and a waiting room: the
		 * compiles the plan's estimate says memory keeps waiting (so
		 * one waiting does not hold the slot a small one could use),
		 * at least an eighth of the cores, among which the launcher
		 * starts the longest first (docs/design/scheduling.md §3).
		 * Twice the cores, as before, made ninja start 128 launchers
		 * on 64 cores that memory never held back.
		 */
		unsigned room = jc->cpus / 8 ? jc->cpus / 8 : 1;

		if (jc->by_memory < jc->cpus && jc->cpus - jc->by_memory > room)
			room = jc->cpus - jc->by_memory;
		jc->launcher = 1;
		jc->slots = jc->cpus;
		jc->room = room;
		jc->jobs = jc->cpus + room;
	}
	if (p->jobs) {
		jc->jobs = (unsigned)p->jobs;
		jc->jobs_given = 1;
	}
	if (jc->heavy_per_job) {
		jc->heavy_jobs = (unsigned)(jc->budget / jc->heavy_per_job);
		if (jc->heavy_jobs < 1)
			jc->heavy_jobs = 1;
		if (jc->heavy_jobs > jc->slots)
			jc->heavy_jobs = jc->slots;
	}
}

static void
add_env_and_cmake(struct plan *pl, const char *name, const char *value)
{
	strvec_env_set(&pl->env, name, value);
	if (cmake_name_forwarded(name))
		strvec_env_set(&pl->cmake, name, value);
}

/* Whether the profile names NAME under cmake: (the user's word wins over bwbuild's). */
static int
profile_sets_cmake(const struct profile *p, const char *name)
{
	for (size_t i = 0; i < p->ncmake; i++)
		if (!strcmp(p->cmake[i].key, name))
			return 1;
	return 0;
}

/* The profile's switches: features, the CUDA toolkit and archs, cmake.NAME entries. */
static void
profile_env(struct plan *pl, const struct profile *p)
{
	struct buf nvcc = BUF_INIT;
	size_t i;

	for (i = 0; i < FEAT__COUNT; i++)
		if (p->features[i] != TRI_UNSET)
			add_env_and_cmake(pl, feature_table[i].option,
					  p->features[i] == TRI_ON ? "1" : "0");
	if (profile_feature_on(p, FEAT_CUDA)) {
		/* Must be in the environment: Dependencies.cmake reads $ENV{...}. */
		add_env_and_cmake(pl, "TORCH_CUDA_ARCH_LIST", pl->arch_list);
		buf_addf(&nvcc, "%s/bin/nvcc", pl->cuda_home);
		strvec_env_set(&pl->env, "CUDA_HOME", pl->cuda_home);
		strvec_env_set(&pl->env, "CUDACXX", nvcc.s);
	}
	for (i = 0; i < p->ncmake; i++)
		add_env_and_cmake(pl, p->cmake[i].key, p->cmake[i].val);
	for (i = 0; i < p->nbuild_env; i++)
		strvec_env_set(&pl->env, p->build_env[i].key, p->build_env[i].val);
	buf_release(&nvcc);
}

int
env_changes_build(const char *entry)
{
	static const char *const prefixes[] = { "USE_", "BUILD_", "CMAKE_", "TORCH_", "CUDA",
						"NVCC_", "PYTORCH_", "MAX_JOBS=", "CC=", "CXX=",
						"CFLAGS=", "CXXFLAGS=", "CPPFLAGS=", "LDFLAGS=",
						"DEBUG=", "REL_WITH_DEB_INFO=", "MAGMA_HOME=",
						"CUDNN_", "NCCL_", "BLAS=", "MKL_" };
	static const char *const runtime[] = { "CUDA_VISIBLE_DEVICES=", "CUDA_MODULE_LOADING=",
					       "CUDA_LAUNCH_BLOCKING=", "NCCL_DEBUG",
					       "PYTORCH_CUDA_ALLOC_CONF=" };
	size_t i;

	if (!strchr(entry, '='))
		return 0;
	for (i = 0; i < ARRAY_SIZE(runtime); i++)
		if (starts_with(entry, runtime[i]))
			return 0;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (starts_with(entry, prefixes[i]))
			return 1;
	return 0;
}

/* What the build takes from bwbuild's own environment and the plan does not set. */
static void
inherited_env(struct plan *pl, char *const *env)
{
	for (; env && *env; env++) {
		size_t n = strcspn(*env, "=");

		if (env_changes_build(*env) && strvec_env_find(&pl->env, *env, n) < 0)
			strvec_push(&pl->inherited, *env);
	}
	strvec_sort(&pl->inherited);
}

static void
env_set_u64(struct plan *pl, const char *name, uint64_t v)
{
	strvec_env_setf(&pl->env, name, "%llu", (unsigned long long)v);
}

/*
 * setuptools compiles torch._C's stub.c itself, with -g and outside the
 * launcher, so its DW_AT_comp_dir named the work directory. CPPFLAGS
 * reaches its compile (distutils appends it to CFLAGS) and no CMake
 * (which reads CFLAGS but not CPPFLAGS): the launcher's prefix maps go
 * there, after the user's own CPPFLAGS.
 */
static void
repro_setuptools_flags(struct plan *pl, char *const *env)
{
	struct buf b = BUF_INIT;
	struct strvec maps = STRVEC_INIT;
	long at = strvec_env_find(&pl->env, "CPPFLAGS", strlen("CPPFLAGS"));
	const char *own = at >= 0 ? pl->env.v[at] + strlen("CPPFLAGS=") : NULL;

	for (; !own && env && *env; env++)
		if (starts_with(*env, "CPPFLAGS="))
			own = *env + strlen("CPPFLAGS=");
	if (own && *own)
		buf_addf(&b, "%s ", own);
	/* The launcher's own maps (src/launch/repro.c), for the compiles it never sees. */
	repro_prefix_maps(pl->work_dir, pl->src_dir, "", &maps);
	strvec_join(&maps, " ", &b);
	strvec_env_set(&pl->env, "CPPFLAGS", b.s);
	strvec_clear(&maps);
	buf_release(&b);
}

/*
 * The launcher's command as CMake lists it: bwbuild-launch beside bwbuild
 * where it was installed (no shared libraries to load before each
 * compile), else `bwbuild launch`.
 */
static void
launcher_command(const char *self, struct buf *out)
{
	struct buf lean = BUF_INIT;

	buf_addf(&lean, "%s-launch", self);
	if (access(lean.s, X_OK) == 0)
		buf_addf(out, "%s;--", lean.s);
	else
		buf_addf(out, "%s;launch;--", self);
	buf_release(&lean);
}

/* Job counts, the compiler launchers (bwbuild launch, ccache) and their settings. */
static void
compile_env(struct plan *pl, const struct profile *p, const struct plan_opts *o)
{
	static const char *const langs[] = { "C", "CXX", "CUDA" };
	struct buf b = BUF_INIT;

	env_set_u64(pl, "MAX_JOBS", pl->jobs.jobs);
	if (pl->jobs.heavy_jobs)
		env_set_u64(pl, "FLASH_ATTENTION_MAX_JOBS", pl->jobs.heavy_jobs);
	if (pl->jobs.launcher)
		launcher_command(o->self_exe, &b);
	if (o->ccache)
		buf_addf(&b, "%s%s", b.len ? ";" : "", o->ccache);
	for (size_t i = 0; (pl->jobs.launcher || o->ccache) && i < ARRAY_SIZE(langs); i++) {
		struct buf name = BUF_INIT;

		buf_addf(&name, "CMAKE_%s_COMPILER_LAUNCHER", langs[i]);
		add_env_and_cmake(pl, name.s, b.s);
		buf_release(&name);
	}
	/*
	 * PyTorch's own USE_CCACHE (on by default) sets the C, C++ and CUDA
	 * launchers to a ccache found on PATH after configure began: on
	 * v2.6.0 that replaced bwbuild's launcher on 6,792 of its 7,452
	 * compiles, outside every memory budget. ccache, where wanted, is in
	 * the chain above (build.cache).
	 */
	if ((pl->jobs.launcher || o->ccache) && !profile_sets_cmake(p, "USE_CCACHE"))
		add_env_and_cmake(pl, "USE_CCACHE", "OFF");
	if (pl->jobs.launcher) {
		buf_reset(&b);
		buf_addf(&b, "%s/launch", o->work_dir);
		strvec_env_set(&pl->env, LAUNCH_ENV_DIR, b.s);
		env_set_u64(pl, LAUNCH_ENV_BUDGET, pl->jobs.budget);
		env_set_u64(pl, LAUNCH_ENV_SLOTS, pl->jobs.slots);
		strvec_env_set(&pl->env, LAUNCH_ENV_ROOT, pl->src_dir);
		if (p->split_compile == TRI_ON)
			strvec_env_set(&pl->env, LAUNCH_ENV_SPLIT, "on");
	}
	if (o->ccache) {
		/* Path-independent keys, so two checkouts share hits. */
		strvec_env_set(&pl->env, "CCACHE_BASEDIR", pl->src_dir);
		strvec_env_set(&pl->env, "CCACHE_NOHASHDIR", "true");
		/*
		 * The launcher's prefix maps name the work directory; what they map
		 * to does not. Its long-pole --threads=N depends on the cores idle
		 * when the unit ran and leaves the object's bytes alone (launch.c);
		 * --split-compile changes them, so it stays in the key.
		 */
		if (pl->jobs.launcher)
			strvec_env_set(&pl->env, "CCACHE_IGNOREOPTIONS",
				       "-ffile-prefix-map=* -Xcompiler=-ffile-prefix-map=* --threads=*");
		if (p->cache_remote.str)
			strvec_env_set(&pl->env, "CCACHE_REMOTE_STORAGE", p->cache_remote.str);
		/*
		 * Before distcc, ccache looks a unit up by the compiler's own
		 * dependency file, not by preprocessing it here first.
		 */
		if (pl->remote)
			strvec_env_set(&pl->env, "CCACHE_DEPEND", "true");
	}
	if (pl->remote && pl->jobs.launcher)
		strvec_env_set(&pl->env, LAUNCH_ENV_REMOTE, pl->remote);
	buf_release(&b);
}

/*
 * build.remote, from the profile or a file it names (relative to the
 * profile's directory), into the launcher's form; the hosts' slots are
 * added to ninja's jobs (they wait in the launcher, not in ninja).
 */
static int
plan_remote(struct plan *pl, const struct profile *p)
{
	struct buf text = BUF_INIT, err = BUF_INIT, path = BUF_INIT;
	struct remote_hosts h;
	const char *v = p->remote.str;
	int rc = 0;

	if (!v)
		return 0;
	if (remote_is_file(v)) {
		const char *f = p->remote.loc.file, *slash = f ? strrchr(f, '/') : NULL;

		/* --set and --remote values are relative to the current directory. */
		if (v[0] != '/' && slash && !starts_with(f, "--set"))
			buf_addf(&path, "%.*s/", (int)(slash - f), f);
		buf_addstr(&path, v);
		if (!path_exists(path.s) || read_file(&text, path.s) < 0) {
			rc = error_at(&p->remote.loc, "build.remote: cannot read the host list '%s'",
				      path.s);
			goto out;
		}
		v = text.s;
	}
	if (remote_hosts_parse(&h, v, &err) < 0) {
		rc = error_at(&p->remote.loc, "build.remote%s%s: %s", path.len ? " " : "", path.s,
			      err.s);
		goto out;
	}
	if (p->launcher == TRI_OFF) {
		remote_hosts_release(&h);
		rc = error_at(&p->remote.loc, "build.remote needs build.launcher: the launcher "
			      "decides where each compile runs");
		goto out;
	}
	buf_reset(&err);
	remote_hosts_format(&h, &err);
	pl->remote = buf_detach(&err);
	pl->jobs.remote_slots = remote_hosts_slots(&h);
	pl->jobs.remote_hosts = h.n;
	if (pl->jobs.launcher && !pl->jobs.jobs_given)
		pl->jobs.jobs += pl->jobs.remote_slots;
	remote_hosts_release(&h);
out:
	buf_release(&text);
	buf_release(&err);
	buf_release(&path);
	return rc;
}

int
plan_make(struct plan *pl, const struct profile *p, const struct host *h,
	  const struct plan_opts *o)
{
	struct buf b = BUF_INIT;

	memset(pl, 0, sizeof(*pl));
	strvec_init(&pl->env);
	strvec_init(&pl->inherited);
	strvec_init(&pl->cmake);
	strvec_init(&pl->sass);
	strvec_init(&pl->ptx);
	pl->profile = p;
	pl->work_dir = xstrdup(o->work_dir);
	if (o->src_dir) {
		pl->src_dir = xstrdup(o->src_dir);
		pl->local_source = 1;
	} else {
		buf_addf(&b, "%s/src", o->work_dir);
		pl->src_dir = buf_detach(&b);
	}
	pl->out_dir = xstrdup(o->out_dir);
	pl->bundle = o->bundle ? xstrdup(o->bundle) : NULL;
	pl->ccache = o->ccache ? xstrdup(o->ccache) : NULL;
	pl->cuda_home = xstrdup(o->cuda_home ? o->cuda_home : "/usr/local/cuda");
	pl->arch_source = o->arch_source ? xstrdup(o->arch_source) : NULL;

	profile_arch_list(p, &b);
	pl->arch_list = buf_detach(&b);
	profile_targets(p, &pl->sass, &pl->ptx);
	jobs_compute(&pl->jobs, p, h, o->self_exe && p->launcher != TRI_OFF, o->mem_budget);
	if (plan_remote(pl, p) < 0)
		return -1;

	profile_env(pl, p);
	compile_env(pl, p, o);
	/* The read-back's hook (configure.c), unless the profile brings its own. */
	if (strvec_env_find(&pl->env, "CMAKE_PROJECT_INCLUDE", strlen("CMAKE_PROJECT_INCLUDE")) < 0) {
		buf_addf(&b, "%s/cmake/bwbuild-effective.cmake", o->work_dir);
		add_env_and_cmake(pl, "CMAKE_PROJECT_INCLUDE", b.s);
		buf_reset(&b);
	}
	/*
	 * Libraries linked with the RUNPATH they are installed with, never a
	 * build-tree path: CMake blanks that path at install but it stays in
	 * .dynstr and the build-id, so the work directory would reach the wheel.
	 */
	if (strvec_env_find(&pl->env, "CMAKE_BUILD_WITH_INSTALL_RPATH",
			    strlen("CMAKE_BUILD_WITH_INSTALL_RPATH")) < 0)
		add_env_and_cmake(pl, "CMAKE_BUILD_WITH_INSTALL_RPATH", "ON");
	/*
	 * PyTorch sets CMAKE_BUILD_WITH_INSTALL_RPATH FALSE itself
	 * (cmake/Dependencies.cmake), which hides the one above: its build-tree
	 * RUNPATH is then $ORIGIN-relative, not the work directory (v2.6.0's
	 * libraries from two work directories differed in their build-ids only).
	 */
	if (strvec_env_find(&pl->env, "CMAKE_BUILD_RPATH_USE_ORIGIN",
			    strlen("CMAKE_BUILD_RPATH_USE_ORIGIN")) < 0)
		add_env_and_cmake(pl, "CMAKE_BUILD_RPATH_USE_ORIGIN", "ON");
	repro_setuptools_flags(pl, o->env);
	/* nvcc's intermediates on disk, not on a tmpfs where they are unreclaimable. */
	buf_addf(&b, "%s/tmp", o->work_dir);
	strvec_env_set(&pl->env, "TMPDIR", b.s);
	buf_release(&b);
	inherited_env(pl, o->env);
	return 0;
}

void
plan_release(struct plan *pl)
{
	free(pl->arch_list);
	strvec_clear(&pl->env);
	strvec_clear(&pl->inherited);
	strvec_clear(&pl->cmake);
	strvec_clear(&pl->sass);
	strvec_clear(&pl->ptx);
	free(pl->work_dir);
	free(pl->src_dir);
	free(pl->bundle);
	free(pl->out_dir);
	free(pl->ccache);
	free(pl->cuda_home);
	free(pl->arch_source);
	free(pl->remote);
	memset(pl, 0, sizeof(*pl));
}

int
plan_host_fits(const struct profile *p, const char *machine, struct buf *said)
{
	const char *want = p->host_arch.str;

	if (!want || !strcmp(want, machine))
		return 1;
	buf_addf(said, "this profile builds on an %s host%s, and this machine is %s: run doctor "
		 "and the build there", want, !strcmp(want, "aarch64") ? " (Grace, DGX Spark)" : "",
		 machine);
	return 0;
}
