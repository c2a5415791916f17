#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "buf.h"
#include "compat.h"
#include "doctor.h"
#include "json.h"
#include "knowledge.h"
#include "plan.h"
#include "proc.h"
#include "profile.h"
#include "python.h"
#include "util.h"

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
add(struct doctor *d, enum check_status st, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
add(struct doctor *d, enum check_status st, const char *name, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	ALLOC_GROW(d->checks, d->n + 1, d->cap);
	d->checks[d->n].status = st;
	d->checks[d->n].name = xstrdup(name);
	d->checks[d->n].detail = buf_detach(&b);
	d->n++;
}

/* Run argv quietly and keep its output; the exit status, or -1. */
static int
capture(struct buf *out, const char *const *argv)
{
	struct proc p = PROC_INIT;
	int rc;

	for (; *argv; argv++)
		strvec_push(&p.args, *argv);
	rc = proc_run_capture(&p, out);
	proc_release(&p);
	return rc;
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

static void
check_build_tools(struct doctor *d, const struct profile *p)
{
	const char *argv[] = { "cmake", "--version", NULL }, *nargv[] = { "ninja", "--version", NULL };
	struct buf out = BUF_INIT;
	char *cmake = find_program("cmake"), *ninja = find_program("ninja");
	unsigned v;

	if (!cmake) {
		add(d, CHECK_FAIL, "cmake", "no cmake on PATH (apt-get install cmake)");
	} else {
		capture(&out, argv);
		v = kb_parse_version(out.s && strstr(out.s, "version ") ? strstr(out.s, "version ") + 8 :
									    NULL);
		if (v < REAL_TREE_CMAKE)
			add(d, is_real_tree(p) ? CHECK_FAIL : CHECK_WARN, "cmake",
			    "cmake %u.%u; real PyTorch trees need >= 3.27 (the bundled example accepts "
			    "it); install a newer cmake (Debian backports, or Kitware's)", v / 100, v % 100);
		else
			add(d, CHECK_OK, "cmake", "cmake %u.%u", v / 100, v % 100);
	}
	buf_reset(&out);
	if (!ninja) {
		add(d, is_real_tree(p) ? CHECK_FAIL : CHECK_WARN, "ninja",
		    "no ninja on PATH (apt-get install ninja-build); without it PyTorch falls back to make");
	} else {
		capture(&out, nargv);
		add(d, CHECK_OK, "ninja", "ninja %.*s", (int)strcspn(out.s ? out.s : "", "\n"),
		    out.s ? out.s : "");
	}
	free(cmake);
	free(ninja);
	buf_release(&out);
}

/* python_find's "  path (from): reason" lines as one "; "-separated line. */
static void
one_line(const struct buf *lines, struct buf *out)
{
	const char *s = lines->s ? lines->s : "";

	while (*s) {
		size_t n = strcspn(s, "\n");

		while (n && *s == ' ')
			s++, n--;
		buf_addf(out, "%s%.*s", out->len ? "; " : "", (int)n, s);
		s += n + (s[n] == '\n');
	}
}

static void
check_python(struct doctor *d, const struct profile *p)
{
	struct buf py = BUF_INIT, why = BUF_INIT, skipped = BUF_INIT;

	if (python_find(&py, p ? p->python.str : NULL, &why) < 0) {
		add(d, CHECK_FAIL, "python", "no Python that imports setuptools and wheel (%.*s); "
		    "apt-get install python3-setuptools python3-wheel", (int)strcspn(why.s, "\n"),
		    why.s);
	} else {
		one_line(&why, &skipped);
		add(d, CHECK_OK, "python", "%s can build wheels (setup.py trees)%s%s", py.s,
		    skipped.len ? "; skipped " : "", skipped.len ? skipped.s : "");
		if (!python_imports(py.s, "build"))
			add(d, CHECK_WARN, "python build", "%s cannot import 'build'; trees with only "
			    "pyproject.toml (scikit-build-core) need it: apt-get install python3-build",
			    py.s);
		else
			add(d, CHECK_OK, "python build", "'python3 -m build' available (pyproject trees)");
	}
	buf_release(&py);
	buf_release(&why);
	buf_release(&skipped);
}

static int
any_exists(const char *const *dirs, const char *cuda_home, const char *file, struct buf *found)
{
	size_t i;

	for (i = 0; dirs[i]; i++) {
		buf_reset(found);
		if (dirs[i][0] == '+')
			buf_addf(found, "%s/%s/%s", cuda_home, dirs[i] + 1, file);
		else
			buf_addf(found, "%s/%s", dirs[i], file);
		if (path_exists(found->s))
			return 1;
	}
	return 0;
}

static void
check_library(struct doctor *d, const struct profile *p, enum feature f, const char *cuda_home,
	      const char *header, const char *lib, const char *pkg)
{
	static const char *const inc[] = { "+include", "/usr/include",
					   "/usr/include/x86_64-linux-gnu", NULL };
	static const char *const libs[] = { "+lib64", "+lib", "/usr/lib/x86_64-linux-gnu",
					    "/usr/lib64", NULL };
	struct buf h = BUF_INIT, l = BUF_INIT;
	const char *key = feature_table[f].key;

	if (!p || p->features[f] != TRI_ON) {
		buf_release(&h);
		buf_release(&l);
		return;
	}
	if (!any_exists(inc, cuda_home, header, &h))
		add(d, CHECK_FAIL, key, "features.%s is on (%s:%d) but no %s was found in %s/include "
		    "or /usr/include; install %s or set features.%s: off", key, p->feature_loc[f].file,
		    p->feature_loc[f].line, header, cuda_home, pkg, key);
	else if (!any_exists(libs, cuda_home, lib, &l))
		add(d, CHECK_FAIL, key, "found %s but no %s; install %s", h.s, lib, pkg);
	else
		add(d, CHECK_OK, key, "%s and %s", h.s, l.s);
	buf_release(&h);
	buf_release(&l);
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
	if (capture(&out, argv) != 0 || !out.len) {
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

void
doctor_run(struct doctor *d, const struct profile *p, const struct plan *pl, const char *cuda_home,
	   const char *work_dir)
{
	unsigned cuda;

	memset(d, 0, sizeof(*d));
	cuda = check_nvcc(d, p, cuda_home);
	check_host_compiler(d, cuda);
	check_build_tools(d, p);
	check_python(d, p);
	check_library(d, p, FEAT_CUDNN, cuda_home, "cudnn_version.h", "libcudnn.so", "cuDNN");
	check_library(d, p, FEAT_NCCL, cuda_home, "nccl.h", "libnccl.so", "NCCL (libnccl-dev)");
	check_disk(d, p, work_dir);
	if (pl)
		check_memory(d, pl);
	check_gpus(d, pl, cuda);
}

void
doctor_release(struct doctor *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->checks[i].name);
		free(d->checks[i].detail);
	}
	free(d->checks);
	memset(d, 0, sizeof(*d));
}

int
doctor_failed(const struct doctor *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->checks[i].status == CHECK_FAIL)
			return 1;
	return 0;
}

static const char *const marks[] = { "✅", "⚠️ ", "❌" };
static const char *const words[] = { "ok", "warn", "fail" };

void
doctor_format(const struct doctor *d, struct buf *out)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		buf_addf(out, "%s %-14s %s\n", marks[d->checks[i].status], d->checks[i].name,
			 d->checks[i].detail);
}

struct json *
doctor_json(const struct doctor *d)
{
	struct json *o = json_object(), *a = json_array();
	size_t i;

	for (i = 0; i < d->n; i++) {
		struct json *c = json_object();

		json_set(c, "name", json_string(d->checks[i].name));
		json_set(c, "status", json_string(words[d->checks[i].status]));
		json_set(c, "detail", json_string(d->checks[i].detail));
		json_push(a, c);
	}
	json_set(o, "ok", json_bool(!doctor_failed(d)));
	json_set(o, "checks", a);
	return o;
}
