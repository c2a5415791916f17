/*
 * The preflight checklist behind `bwbuild doctor` (doctor.h): each check
 * of the toolchain, the libraries the profile's features need, disk,
 * memory and GPUs, with what to do when it is not right, and the checks
 * a build's steps run before they start (nvcc's archs, cmake's version).
 * The report of the list (text, JSON) is doctor_report.c's. The checks of
 * the build's Python are doctor_python.c's, of the libraries the features
 * need (cuDNN, NCCL, nvml.h) doctor_libs.c's, of what a build of the tree
 * needs beyond the toolchain (NumPy, the BLAS, a --source tree's patches)
 * doctor_needs.c's, of the remote hosts remotecheck.c's.
 * May include: core/, formats/, host/, profile/, sources/, pipeline/.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/buf.h"
#include "profile/compat.h"
#include "pipeline/doctor.h"
#include "pipeline/remotecheck.h"
#include "profile/knowledge.h"
#include "pipeline/plan.h"
#include "core/proc.h"
#include "profile/profile.h"
#include "host/host.h"
#include "sources/treeneeds.h"
#include "core/util.h"

/* Real PyTorch trees need CMake >= 3.27 (the example accepts 3.25). */
#define REAL_TREE_CMAKE 327
/*
 * The oldest driver a build runs on: Blackwell needs R570, and a CUDA 13
 * toolkit's code needs R580 (its minimum driver, whatever the GPU).
 */
static unsigned
min_driver(unsigned cuda)
{
	return cuda >= 1300 ? 580 : 570;
}
/* What a real CUDA PyTorch build leaves in its work tree (source, build, wheel). */
#define REAL_TREE_DISK (40ULL << 30)
#define EXAMPLE_DISK (1ULL << 30)

static void
vadd(struct doctor *d, enum check_status st, const char *name, const char *fmt, va_list ap)
{
	struct buf b = BUF_INIT;

	buf_vaddf(&b, fmt, ap);
	ALLOC_GROW(d->checks, d->n + 1, d->cap);
	d->checks[d->n].status = st;
	d->checks[d->n].name = xstrdup(name);
	d->checks[d->n].detail = buf_detach(&b);
	d->checks[d->n].at = (struct loc){ NULL, 0, 0 };
	d->n++;
}

static void
add(struct doctor *d, enum check_status st, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
add(struct doctor *d, enum check_status st, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(d, st, name, fmt, ap);
	va_end(ap);
}

void
doctor_add(struct doctor *d, enum check_status st, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(d, st, name, fmt, ap);
	va_end(ap);
}

/*
 * Run argv quietly and keep its output; the exit status, or -1. Each asks
 * a program about itself, once per run and, for a binary, once per
 * program file (proc_query_kept).
 */
static int
capture(struct buf *out, const char *const *argv)
{
	return proc_query_kept(argv, out);
}

unsigned
nvcc_version_parse(const char *text)
{
	const char *r = text ? strstr(text, "release ") : NULL;

	return r ? kb_parse_version(r + 8) : 0;
}

int
gpu_code_listed(const char *list, unsigned cc)
{
	char want[16];
	const char *p = list;

	snprintf(want, sizeof(want), "sm_%u", cc);
	while (p && (p = strstr(p, want))) {
		char after = p[strlen(want)];

		if (after < '0' || after > '9')
			return 1;
		p++;
	}
	return 0;
}

int
smi_line_parse(const char *line, unsigned *cc, unsigned *driver, struct buf *name)
{
	const char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	unsigned v = 0;

	if (!c1 || !c2)
		return -1;
	buf_reset(name);
	buf_add(name, line, (size_t)(c1 - line));
	v = kb_parse_version(c1 + 1 + strspn(c1 + 1, " "));
	if (!v)
		return -1;
	*cc = v / 100 * 10 + v % 100;
	*driver = (unsigned)strtoul(c2 + 1 + strspn(c2 + 1, " "), NULL, 10);
	return *driver ? 0 : -1;
}

static int
is_real_tree(const struct profile *p)
{
	return p && p->source_repo.str && strstr(p->source_repo.str, "pytorch/pytorch");
}

static unsigned
check_nvcc(struct doctor *d, const struct profile *p, const char *cuda_home)
{
	struct buf nvcc = BUF_INIT, out = BUF_INIT;
	const char *argv[] = { NULL, "--version", NULL }, *list[] = { NULL, "--list-gpu-code", NULL };
	unsigned v = 0;
	size_t i;
	int missing = 0;

	buf_addf(&nvcc, "%s/bin/nvcc", cuda_home);
	/* nvcc writes its temporaries there: a bad TMPDIR looks like a toolkit without targets. */
	if (getenv("TMPDIR") && *getenv("TMPDIR") && access(getenv("TMPDIR"), W_OK | X_OK) != 0) {
		add(d, CHECK_FAIL, "tmpdir", "TMPDIR '%s' is not a directory you can write; nvcc and "
		    "the compilers put their temporaries there: create it or unset TMPDIR",
		    getenv("TMPDIR"));
		goto out;
	}
	if (access(nvcc.s, X_OK) != 0) {
		add(d, p && p->features[FEAT_CUDA] == TRI_OFF ? CHECK_WARN : CHECK_FAIL, "nvcc",
		    "no nvcc at %s; install the CUDA toolkit there or set cuda.home / CUDA_HOME",
		    nvcc.s);
		buf_release(&nvcc);
		return 0;
	}
	argv[0] = list[0] = nvcc.s;
	capture(&out, argv);
	v = nvcc_version_parse(out.s);
	if (!v) {
		add(d, CHECK_FAIL, "nvcc", "%s --version printed no release number", nvcc.s);
		goto out;
	}
	add(d, CHECK_OK, "nvcc", "CUDA %u.%u at %s", v / 100, v % 100, nvcc.s);
	if (p && p->cuda_version.str && kb_parse_version(p->cuda_version.str) != v)
		add(d, CHECK_FAIL, "nvcc version", "the profile says cuda.version %s (%s:%d) but "
		    "%s is CUDA %u.%u; point cuda.home at that toolkit", p->cuda_version.str,
		    p->cuda_version.loc.file, p->cuda_version.loc.line, nvcc.s, v / 100, v % 100);
	if (!p)
		goto out;
	buf_reset(&out);
	capture(&out, list);
	for (i = 0; i < p->narchs; i++) {
		const struct arch *a = &p->archs[i].arch;
		unsigned cc = (unsigned)(a->major * 10 + a->minor);

		if (!gpu_code_listed(out.s, cc)) {
			add(d, CHECK_FAIL, "nvcc targets", "%s --list-gpu-code has no sm_%u, which "
			    "cuda.archs asks for (%s:%d)", nvcc.s, cc, p->archs[i].loc.file,
			    p->archs[i].loc.line);
			missing = 1;
		}
	}
	if (!missing)
		add(d, CHECK_OK, "nvcc targets", "builds every arch of the profile (%zu)", p->narchs);
out:
	buf_release(&nvcc);
	buf_release(&out);
	return v;
}

int
nvcc_archs_check(const char *cuda_home, const struct profile *p)
{
	struct buf nvcc = BUF_INIT, out = BUF_INIT;
	const char *list[] = { NULL, "--list-gpu-code", NULL };
	int rc = 0;

	if (!p || p->features[FEAT_CUDA] == TRI_OFF || !p->narchs)
		return 0;
	buf_addf(&nvcc, "%s/bin/nvcc", cuda_home);
	if (access(nvcc.s, X_OK) != 0) {
		rc = error("no nvcc at %s; install the CUDA toolkit there or set cuda.home "
			   "(or CUDA_HOME)", nvcc.s);
		goto out;
	}
	list[0] = nvcc.s;
	/* An nvcc that cannot list its targets (or fails to) is left to the compile to judge. */
	if (capture(&out, list) != 0 || !out.s || !strstr(out.s, "sm_"))
		goto out;
	for (size_t i = 0; i < p->narchs; i++) {
		const struct arch *a = &p->archs[i].arch;
		unsigned cc = (unsigned)(a->major * 10 + a->minor);

		if (!gpu_code_listed(out.s, cc))
			rc = error_at(&p->archs[i].loc, "%s cannot build sm_%u (it is not in its "
				      "--list-gpu-code); remove it from cuda.archs or point cuda.home "
				      "at a toolkit that has it", nvcc.s, cc);
	}
out:
	buf_release(&nvcc);
	buf_release(&out);
	return rc;
}

static void
check_host_compiler(struct doctor *d, unsigned cuda)
{
	const char *argv[] = { "gcc", "-dumpfullversion", NULL };
	struct buf out = BUF_INIT;
	char *gcc = find_program("gcc");
	unsigned major, max = kb_gcc_max(cuda);

	if (!gcc) {
		add(d, CHECK_FAIL, "host compiler", "no gcc on PATH; install gcc (apt-get install gcc g++)");
		return;
	}
	capture(&out, argv);
	major = (unsigned)strtoul(out.s ? out.s : "0", NULL, 10);
	if (!major)
		add(d, CHECK_WARN, "host compiler", "%s -dumpfullversion printed no version", gcc);
	else if (max && major > max)
		add(d, CHECK_FAIL, "host compiler", "gcc %u is newer than CUDA %u.%u accepts (gcc <= %u); "
		    "install gcc-%u and set CC/CXX/CUDAHOSTCXX to it", major, cuda / 100, cuda % 100,
		    max, max);
	else
		add(d, CHECK_OK, "host compiler", "gcc %.*s%s", (int)strcspn(out.s, "\n"), out.s,
		    max ? " (within CUDA's range)" : "");
	free(gcc);
	buf_release(&out);
}

/* A real PyTorch tree: the profile's repository, or a tree with torchgen. */
static int
real_tree(const struct profile *p, const char *src)
{
	struct buf f = BUF_INIT;
	int r = is_real_tree(p);

	if (!r && src) {
		buf_addf(&f, "%s/torchgen/gen.py", src);
		r = is_regular(f.s);
	}
	buf_release(&f);
	return r;
}

int
doctor_real_tree(const struct profile *p, const char *src)
{
	return real_tree(p, src);
}

/* The tree under src when it is there (a --source tree, or the work tree's checkout); else NULL. */
static const char *
tree_here(const char *src)
{
	struct buf f = BUF_INIT;
	int here;

	if (!src || !is_dir(src))
		return NULL;
	buf_addf(&f, "%s/setup.py", src);
	here = is_regular(f.s);
	buf_reset(&f);
	buf_addf(&f, "%s/pyproject.toml", src);
	here = here || is_regular(f.s);
	buf_release(&f);
	return here ? src : NULL;
}

unsigned
cmake_needed(const struct profile *p, const char *src, struct buf *from)
{
	unsigned need = src ? tree_cmake_needed(src, from) : 0;

	if (real_tree(p, src) && need < REAL_TREE_CMAKE) {
		need = REAL_TREE_CMAKE;
		buf_reset(from);
		buf_addstr(from, "real PyTorch trees: requirements-build.txt's cmake>=3.27");
	}
	return need;
}

/* `cmake --version` of the cmake on PATH: major*100+minor, 0 when it printed none; -1 no cmake. */
static long
cmake_version(char **path)
{
	const char *argv[] = { NULL, "--version", NULL };
	struct buf out = BUF_INIT;
	long v;

	*path = find_program("cmake");
	if (!*path)
		return -1;
	argv[0] = *path;
	capture(&out, argv);
	v = kb_parse_version(out.s && strstr(out.s, "version ") ? strstr(out.s, "version ") + 8 : NULL);
	buf_release(&out);
	return v;
}

int
cmake_policy_needed(const char *src, struct buf *said)
{
	struct buf where = BUF_INIT;
	char *cmake = NULL;
	long v = cmake_version(&cmake);
	unsigned oldest;
	int need = 0;

	if (v < 400)
		goto out;
	if (!src) {
		buf_addf(said, "cmake %ld.%ld refuses cmake_minimum_required below 3.5; the tree's "
			 "CMakeLists.txt files are read after the fetch, and CMAKE_POLICY_VERSION_MINIMUM=3.5 "
			 "is set only if one asks that", v / 100, v % 100);
		goto out;
	}
	oldest = tree_cmake_oldest(src, &where);
	need = oldest && oldest < 305;
	if (need)
		buf_addf(said, "cmake %ld.%ld refuses cmake_minimum_required below 3.5, which %s asks "
			 "(%u.%u): the build sets CMAKE_POLICY_VERSION_MINIMUM=3.5", v / 100, v % 100,
			 where.s, oldest / 100, oldest % 100);
	else if (oldest)
		buf_addf(said, "cmake %ld.%ld: no CMakeLists.txt of the tree asks below 3.5 (the oldest, "
			 "%s, asks %u.%u); CMAKE_POLICY_VERSION_MINIMUM is not set", v / 100, v % 100,
			 where.s, oldest / 100, oldest % 100);
	else
		buf_addf(said, "cmake %ld.%ld: no CMakeLists.txt of the tree names a version; "
			 "CMAKE_POLICY_VERSION_MINIMUM is not set", v / 100, v % 100);
out:
	free(cmake);
	buf_release(&where);
	return need;
}

static const char cmake_hint[] =
	"on Debian 12, scripts/deps.sh installs cmake 3.31 from bookworm-backports "
	"(apt-get install -t bookworm-backports cmake); elsewhere Kitware's packages or "
	"'pip install cmake'";

int
cmake_version_check(const struct profile *p, const char *src)
{
	struct buf from = BUF_INIT;
	char *cmake = NULL;
	unsigned need = cmake_needed(p, tree_here(src), &from);
	long v = cmake_version(&cmake);
	int rc = 0;

	if (v < 0)
		rc = error("no cmake on PATH; %s", cmake_hint);
	else if (need && (unsigned)v < need)
		rc = error("%s is cmake %ld.%ld; this build needs >= %u.%u (%s); %s", cmake, v / 100,
			   v % 100, need / 100, need % 100, from.s, cmake_hint);
	free(cmake);
	buf_release(&from);
	return rc;
}

static void
check_build_tools(struct doctor *d, const struct profile *p, const char *src)
{
	const char *nargv[] = { "ninja", "--version", NULL };
	struct buf out = BUF_INIT, from = BUF_INIT;
	char *cmake = NULL, *ninja = find_program("ninja");
	long v = cmake_version(&cmake);
	unsigned need = cmake_needed(p, src, &from);

	if (v < 0)
		add(d, CHECK_FAIL, "cmake", "no cmake on PATH; %s", cmake_hint);
	else if (need && (unsigned)v < need)
		add(d, CHECK_FAIL, "cmake", "%s is cmake %ld.%ld; this build needs >= %u.%u (%s); %s",
		    cmake, v / 100, v % 100, need / 100, need % 100, from.s, cmake_hint);
	else if (v < REAL_TREE_CMAKE)
		add(d, CHECK_WARN, "cmake", "cmake %ld.%ld; real PyTorch trees need >= 3.27 (this "
		    "build accepts it%s%s); %s", v / 100, v % 100, need ? ": " : "",
		    need ? from.s : "", cmake_hint);
	else if (need)
		add(d, CHECK_OK, "cmake", "cmake %ld.%ld (>= %u.%u: %s)", v / 100, v % 100, need / 100,
		    need % 100, from.s);
	else
		add(d, CHECK_OK, "cmake", "cmake %ld.%ld", v / 100, v % 100);
	buf_reset(&out);
	if (!(p && profile_is_extension(p)) && (cmake_policy_needed(src, &out) || out.len))
		add(d, CHECK_OK, "cmake policy", "%s", out.s);
	buf_reset(&out);
	if (!ninja) {
		add(d, real_tree(p, src) ? CHECK_FAIL : CHECK_WARN, "ninja",
		    "no ninja on PATH (apt-get install ninja-build); without it PyTorch falls back to make");
	} else {
		capture(&out, nargv);
		add(d, CHECK_OK, "ninja", "ninja %.*s", (int)strcspn(out.s ? out.s : "", "\n"),
		    out.s ? out.s : "");
	}
	free(cmake);
	free(ninja);
	buf_release(&out);
	buf_release(&from);
}

static void
check_disk(struct doctor *d, const struct profile *p, const char *work_dir)
{
	struct statvfs st;
	uint64_t need = is_real_tree(p) ? REAL_TREE_DISK : EXAMPLE_DISK, free_bytes;
	struct buf a = BUF_INIT, b = BUF_INIT;
	char *dir = xstrdup(work_dir);

	/* The work directory may not exist yet: ask the nearest existing parent. */
	while (statvfs(dir, &st) != 0 && strrchr(dir, '/') && strrchr(dir, '/') != dir)
		*strrchr(dir, '/') = '\0';
	if (statvfs(dir, &st) != 0) {
		add(d, CHECK_WARN, "disk", "cannot stat %s", work_dir);
		goto out;
	}
	free_bytes = (uint64_t)st.f_bavail * st.f_frsize;
	format_size(&a, free_bytes);
	format_size(&b, need);
	add(d, free_bytes >= need ? CHECK_OK : CHECK_FAIL, "disk", "%s free under %s; %s needs "
	    "about %s", a.s, dir, is_real_tree(p) ? "a CUDA PyTorch build" : "this build", b.s);
out:
	free(dir);
	buf_release(&a);
	buf_release(&b);
}

static void
check_memory(struct doctor *d, const struct plan *pl)
{
	const struct jobs_calc *jc = &pl->jobs;
	struct buf a = BUF_INIT, b = BUF_INIT;
	uint64_t need = jc->heavy_per_job > jc->per_job ? jc->heavy_per_job : jc->per_job;

	format_size(&a, jc->budget);
	format_size(&b, need);
	if (jc->budget < need)
		add(d, CHECK_FAIL, "memory", "budget %s is less than one %s compile (%s); free memory, "
		    "raise the cgroup limit, or turn the heavy feature off", a.s,
		    jc->heavy_per_job ? "flash-attention" : "CUDA", b.s);
	else if (jc->jobs < 2 && jc->cpus > 1)
		add(d, CHECK_WARN, "memory", "budget %s allows MAX_JOBS=%u on %u CPUs; the build will be "
		    "slow", a.s, jc->jobs, jc->cpus);
	else
		add(d, CHECK_OK, "memory", "budget %s: MAX_JOBS=%u%s", a.s, jc->jobs,
		    jc->heavy_jobs ? ", heavy kernels fit" : "");
	buf_release(&a);
	buf_release(&b);
}

static void
check_gpus(struct doctor *d, const struct plan *pl, unsigned cuda)
{
	unsigned need = min_driver(cuda);
	const char *argv[] = { "nvidia-smi", "--query-gpu=name,compute_cap,driver_version",
			       "--format=csv,noheader", NULL };
	struct buf out = BUF_INIT, name = BUF_INIT, how = BUF_INIT;
	char *smi = find_program("nvidia-smi");
	const char *line;
	int seen = 0;

	if (!smi) {
		add(d, CHECK_OK, "gpu", "no nvidia-smi here: no GPU to check (building needs none)");
		return;
	}
	/* The GPUs of this machine now, not nvidia-smi about itself: never kept. */
	if (proc_query(argv, NULL, &out) != 0 || !out.len) {
		add(d, CHECK_WARN, "gpu", "nvidia-smi found no GPU or failed");
		goto out;
	}
	for (line = out.s; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
		char *l = xstrndup(line, strcspn(line, "\n"));
		unsigned cc, driver;

		if (smi_line_parse(l, &cc, &driver, &name) == 0) {
			seen = 1;
			if (driver >= need)
				add(d, CHECK_OK, "driver", "%s: driver %u", name.s, driver);
			else if (need == 570)
				add(d, CHECK_FAIL, "driver", "%s: driver %u; Blackwell builds need R570 "
				    "or newer", name.s, driver);
			else
				add(d, CHECK_FAIL, "driver", "%s: driver %u; CUDA %u.%u needs R%u or "
				    "newer", name.s, driver, cuda / 100, cuda % 100, need);
			if (pl) {
				buf_reset(&how);
				if (library_runs_on(&pl->sass, &pl->ptx, (int)cc, &how) == 0)
					add(d, CHECK_OK, "gpu coverage", "%s (sm_%u): %s", name.s, cc,
					    how.s);
				else
					add(d, CHECK_FAIL, "gpu coverage", "%s (sm_%u): the profile's "
					    "archs (%s) have no SASS or PTX that runs on it; add %u.%u to "
					    "cuda.archs", name.s, cc, pl->arch_list, cc / 10, cc % 10);
			}
		}
		free(l);
	}
	if (!seen)
		add(d, CHECK_WARN, "gpu", "could not read nvidia-smi's answer");
out:
	free(smi);
	buf_release(&out);
	buf_release(&name);
	buf_release(&how);
}

int
doctor_blocks_build(const struct check *c)
{
	/*
	 * Not facts that stop a build: the GPUs the wheel may run on (building
	 * needs none), remote hosts (compiles fall back here), a memory budget
	 * below one heavy compile (the launcher runs it alone), and cuda.version
	 * against the toolkit there (plan warns; that toolkit builds).
	 */
	static const char *const not_for_build[] = { "driver", "gpu coverage", "gpu",
						     "remote host", "memory", "nvcc version" };

	if (c->status != CHECK_FAIL)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(not_for_build); i++)
		if (!strcmp(c->name, not_for_build[i]))
			return 0;
	return 1;
}

static void
add_remote(void *ctx, int st, const char *detail)
{
	add(ctx, st == 0 ? CHECK_OK : st == 1 ? CHECK_WARN : CHECK_FAIL, "remote host", "%s", detail);
}

void
doctor_check_host(struct doctor *d, const struct profile *p, const char *machine)
{
	struct buf said = BUF_INIT;

	if (p && p->host_arch.str) {
		if (plan_host_fits(p, machine, &said))
			add(d, CHECK_OK, "host", "%s (build.host_arch, %s:%d)", machine,
			    p->host_arch.loc.file, p->host_arch.loc.line);
		else
			add(d, CHECK_FAIL, "host", "%s:%d: %s", p->host_arch.loc.file,
			    p->host_arch.loc.line, said.s);
	}
	buf_release(&said);
}

/* All of doctor, or (preflight) a build's preflight of that scope. */
static void
run_checks(struct doctor *d, const struct profile *p, const struct plan *pl, const char *cuda_home,
	   const char *work_dir, int preflight, enum doctor_scope scope)
{
	const struct doctor_host here = { "", host_machine() };
	unsigned cuda;
	const char *src;

	memset(d, 0, sizeof(*d));
	d->preflight = preflight;
	doctor_check_host(d, p, here.machine);
	if (preflight && scope == DOCTOR_FETCH) {
		doctor_check_patches(d, p, pl, tree_here(pl ? pl->src_dir : NULL));
		check_disk(d, p, work_dir);
		return;
	}
	cuda = check_nvcc(d, p, cuda_home);
	check_host_compiler(d, cuda);
	src = tree_here(pl ? pl->src_dir : NULL);
	check_build_tools(d, p, src);
	doctor_check_python(d, p, src);
	/* What the tree's CMake needs from this toolkit (CUB under CUDA 13's include/cccl). */
	if (src && p && !profile_is_extension(p)) {
		struct buf said = BUF_INIT;

		if (kb_check_source(p, src, cuda_home, 0, &said) < 0)
			add(d, CHECK_FAIL, "tree", "%s cannot configure with the toolkit at %s (the "
			    "error above says why)", src, cuda_home);
		buf_release(&said);
	}
	doctor_check_patches(d, p, pl, src);
	doctor_check_host_libs(d, p, src, cuda_home, &here);
	check_disk(d, p, work_dir);
	if (pl)
		check_memory(d, pl);
	/* What these find never stops a build (doctor_blocks_build): not asked for one. */
	if (preflight)
		return;
	if (pl && pl->remote)
		remote_check_all(pl->remote, add_remote, d);
	check_gpus(d, pl, cuda);
}

void
doctor_run(struct doctor *d, const struct profile *p, const struct plan *pl, const char *cuda_home,
	   const char *work_dir)
{
	run_checks(d, p, pl, cuda_home, work_dir, 0, DOCTOR_BUILD);
}

void
doctor_preflight(struct doctor *d, const struct profile *p, const struct plan *pl,
		 const char *cuda_home, const char *work_dir, enum doctor_scope scope)
{
	run_checks(d, p, pl, cuda_home, work_dir, 1, scope);
}
