/*
 * What a smoke run needs around the probe (smoke.h): the wheel installed
 * privately (members checked, files made O_NOFOLLOW in the run's own
 * mkdtemp directory), NVIDIA's pip libraries linked beside it, the probe
 * for the package found, verify --target-gpu's answer held against what
 * ran (static_vs_runtime), the CPU-only checks, and the runtime merged
 * into a manifest; smoke_target runs it all for one GPU, smoke_multi.c
 * once per GPU. The probe's run and its result are smoke.c's.
 * May include: core/, formats/, profile/, wheel/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "wheel/archs.h"
#include "wheel/against.h"
#include "profile/compat.h"
#include "core/json.h"
#include "profile/knowledge.h"
#include "wheel/manifest.h"
#include "profile/profview.h"
#include "profile/profile.h"
#include "core/proc.h"
#include "wheel/smoke.h"
#include "core/safefile.h"
#include "core/strvec.h"
#include "core/util.h"
#include "wheel/verify.h"
#include "formats/manylinux.h"
#include "formats/zip.h"

/* ---- a private install: the wheel's members under a temporary directory ---- */

struct write_ctx {
	int fd;
	const char *path;
	struct buf *why;
};

/* A full TMPDIR is named with its reason, not left as "error: '<wheel>': ". */
static int
write_sink(void *vctx, const void *data, size_t n)
{
	struct write_ctx *c = vctx;

	if (write_all(c->fd, data, n) < 0) {
		buf_addf(c->why, "cannot write '%s': %s", c->path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
safe_member(const char *name)
{
	if (!*name || name[0] == '/' || strstr(name, "\\"))
		return 0;
	for (const char *p = name; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return 0;
	}
	return 1;
}

static int
install_wheel(const char *wheel, const char *dir)
{
	struct buf path = BUF_INIT, why = BUF_INIT;
	struct zip z;
	int rc = 0;

	if (zip_open(&z, wheel) < 0)
		return -1;
	for (size_t i = 0; i < z.n && !rc; i++) {
		const struct zip_entry *e = &z.entries[i];
		int fd;

		if (!safe_member(e->name)) {
			rc = error("'%s': member '%s' would land outside the install directory; "
				   "run 'bwbuild verify' on it", wheel, e->name);
			break;
		}
		if (e->name_len && e->name[e->name_len - 1] == '/')
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, e->name);
		if (mkdir_p_parent(path.s) < 0) {
			rc = -1;
			break;
		}
		fd = open(path.s, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0755);
		if (fd < 0) {
			rc = error("cannot write '%s':", path.s);
			break;
		}
		struct write_ctx wc = { fd, path.s, &why };

		buf_reset(&why);
		if (zip_read(&z, e, write_sink, &wc, &why) < 0)
			rc = error("'%s': %s", wheel, why.s);
		close(fd);
	}
	zip_close(&z);
	buf_release(&path);
	buf_release(&why);
	return rc;
}

/* ---- what the probe is told to expect ---- */

static void
join_true_features(const struct json *features, struct buf *out)
{
	for (size_t i = 0; i < json_len(features); i++)
		if (json_is_true(json_at(features, i)))
			buf_addf(out, "%s%s", out->len ? "," : "", json_key_at(features, i));
}

/*
 * The arch list torch.cuda.get_arch_list() should print, read from the
 * fatbins: the targets every container of the largest CUDA library
 * carries (extra 'a' kernels and one-off targets are in a few containers
 * only, and get_arch_list() leaves them out).
 */
static void
main_targets(const char *dir, struct buf *out)
{
	char *paths[] = { (char *)dir };
	const struct archs_lib *big = NULL;
	struct archs_report r;

	if (archs_scan(&r, paths, 1, 0) < 0)
		return;
	for (size_t i = 0; i < r.n; i++)
		if (!r.libs[i].error && (!big || r.libs[i].containers > big->containers))
			big = &r.libs[i];
	for (size_t i = 0; big && i < big->sass.n; i++)
		if (big->sass.v[i].n == big->containers)
			buf_addf(out, "%s%s", out->len ? "," : "", big->sass.v[i].name);
	for (size_t i = 0; big && i < big->ptx.n; i++)
		if (big->ptx.v[i].n == big->containers)
			buf_addf(out, "%s%s", out->len ? "," : "", big->ptx.v[i].name);
	archs_report_release(&r);
}

/* PREFIX-PACKAGE.py; $BWBUILD_PROBE_PATH's, the last searched, over the shipped ones. */
static char *
find_probe_as(const char *prefix, const char *package)
{
	struct buf name = BUF_INIT, path = BUF_INIT;
	char *found = NULL;

	buf_addf(&name, "%s-%s.py", prefix, package);
	if (data_find("probes", "BWBUILD_PROBE_PATH", name.s, 1, &path) == 0)
		found = path_absolute(path.s);
	buf_release(&name);
	buf_release(&path);
	return found;
}

char *
smoke_find_probe(const char *package)
{
	return find_probe_as("smoke", package);
}

char *
smoke_find_cross_probe(const char *package)
{
	return find_probe_as("multi", package);
}

char *
smoke_generic_probe(void)
{
	return find_probe_as("generic", "extension");
}

/* BWBUILD_SMOKE_TORCH: the import name of the torch at `against` (site-packages/NAME, NAME-<ver>-...whl). */
static void
against_package(const char *against, struct strvec *env)
{
	char *abs = realpath(against, NULL);
	const char *path = abs ? abs : against, *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = is_dir(path) ? strlen(base) : strcspn(base, "-");
	if (n)
		strvec_pushf(env, "BWBUILD_SMOKE_TORCH=%.*s", (int)n, base);
	free(abs);
}

/* verify --target-gpu's static answer for the GPU the probe found, against what ran. */
static void
static_vs_runtime(struct smoke_result *sr, const struct wheel_report *w)
{
	const struct json *gpu = json_get(sr->info, "gpu");
	const char *capname = json_str(json_get(gpu, "capability"));
	const struct smoke_check *k = smoke_find(sr, "kernel");
	struct buf how = BUF_INIT, why = BUF_INIT;
	int cc, runs = 1;
	const char *no = NULL;

	if (!capname || gpu_parse(capname, &cc) < 0 || !k || k->status == SMOKE_SKIP)
		return;
	for (size_t i = 0; i < w->nlibs; i++) {
		if (!w->libs[i].has_fatbin)
			continue;
		buf_reset(&how);
		if (library_runs_on(&w->libs[i].sass, &w->libs[i].ptx, cc, &how) < 0) {
			runs = 0;
			no = w->libs[i].path;
		}
	}
	if (runs == (k->status == SMOKE_OK))
		buf_addf(&why, "verify --target-gpu %s says %s, and the kernels %s", capname,
			 runs ? "yes" : "no", runs ? "ran" : "did not run");
	else
		buf_addf(&why, "verify --target-gpu %s says %s%s%s, but the kernels %s: report this",
			 capname, runs ? "yes" : "no (", runs ? "" : no, runs ? "" : ")",
			 k->status == SMOKE_OK ? "ran" : "did not run");
	smoke_add_check(sr, "static_vs_runtime", runs == (k->status == SMOKE_OK) ? SMOKE_OK : SMOKE_FAIL,
			why.s, 0);
	buf_release(&how);
	buf_release(&why);
}

/* A library that carries GPU code or loads CUDA's: the runtime, cuBLAS, cuDNN, NCCL, the driver. */
static int
lib_has_cuda(const struct wheel_lib *l)
{
	if (l->has_fatbin)
		return 1;
	for (size_t k = 0; k < l->needed.n; k++) {
		enum soname_origin o = soname_origin(l->needed.v[k]);

		if (o == SONAME_CUDA || o == SONAME_DRIVER)
			return 1;
	}
	return 0;
}

int
smoke_cpu_only(const struct wheel_report *w, const struct profile *p, int cuda_off,
	       struct buf *why)
{
	struct json *settings = w->macros_h ? macros_h_parse(w->macros_h) : json_object();
	struct json *feat = features_from_settings(settings);
	struct json *ver = w->version_py ? version_py_parse(w->version_py) : json_object();
	const struct json *use = json_get(feat, "cuda"), *vcuda = json_get(ver, "cuda");
	const char *said = NULL;
	int cuda = json_is_true(use) || json_str(vcuda) != NULL;

	if (p && p->features[FEAT_CUDA] != TRI_UNSET)
		said = p->features[FEAT_CUDA] == TRI_OFF ? "the profile says features.cuda: off" : NULL;
	else if (cuda_off)
		said = "its manifest says features.cuda: off";
	else if (json_is_bool(use) && !json_is_true(use))
		said = "its build settings say USE_CUDA OFF";
	else if (vcuda && !json_str(vcuda) && !json_is_bool(vcuda))
		said = "its version.py says cuda = None";
	for (size_t i = 0; said && !cuda && i < w->nlibs; i++)
		cuda = lib_has_cuda(&w->libs[i]);
	if (said && !cuda)
		buf_addf(why, "the wheel has no CUDA (%s; no CUDA library, no fatbin)", said);
	json_free(settings);
	json_free(feat);
	json_free(ver);
	return said && !cuda;
}

/*
 * A wheel in the pip form finds CUDA's libraries through RUNPATH entries
 * into site-packages/nvidia/<dir>/lib, where pip put NVIDIA's packages: the
 * private install gets the interpreter's nvidia/ beside the package, as
 * pip would have it (nothing when the interpreter has none, or the wheel
 * carries its own nvidia/).
 */
static void
link_nvidia(const char *python, const char *dir)
{
	struct proc p = PROC_INIT;
	struct buf out = BUF_INIT, mine = BUF_INIT, theirs = BUF_INIT;

	buf_addf(&mine, "%s/nvidia", dir);
	if (path_exists(mine.s))
		goto out;
	strvec_pushl(&p.args, python ? python : "python3", "-c",
		     "import site, sysconfig\n"
		     "for d in [sysconfig.get_paths()[k] for k in ('purelib', 'platlib')] + "
		     "site.getsitepackages(): print(d)", NULL);
	p.quiet = 1;
	if (proc_run_capture(&p, &out) != 0)
		goto out;
	for (const char *l = out.s ? out.s : ""; *l;) {
		size_t n = strcspn(l, "\n");

		buf_reset(&theirs);
		buf_add(&theirs, l, n);
		buf_addstr(&theirs, "/nvidia");
		if (theirs.s[0] == '/' && is_dir(theirs.s)) {
			if (symlink(theirs.s, mine.s) == 0)
				progress_note("smoke", "NVIDIA's packages from %s beside the private install",
					      theirs.s);
			break;
		}
		l += n + (l[n] == '\n');
	}
out:
	proc_release(&p);
	buf_release(&out);
	buf_release(&mine);
	buf_release(&theirs);
}

/*
 * Where `target` is imported from: an installed package's directory's
 * parent (site-packages), or a wheel installed into a new directory under
 * $TMPDIR whose path goes into *tmp for the caller to remove. -1 after
 * reporting.
 */
static int
importable_dir(const char *target, struct buf *dir, char **tmp)
{
	const char *t = getenv("TMPDIR");

	if (is_dir(target)) {
		char *abs = realpath(target, NULL);

		if (!abs)
			abs = path_absolute(target);
		buf_add(dir, abs, (size_t)(strrchr(abs, '/') - abs));
		free(abs);
		return 0;
	}
	buf_addf(dir, "%s/bwbuild-smoke-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir->s))
		return error("cannot make a temporary directory '%s':", dir->s);
	*tmp = xstrdup(dir->s);
	return install_wheel(target, dir->s);
}

/*
 * Across GPUs: the datasheet figure of the link for the slowest of the
 * models the probe listed (info.cross.gpus[].name); 0 when one is unknown.
 */
static double
link_peak(const struct json *info, const char *link)
{
	const struct json *gpus = json_get(json_get(info, "cross"), "gpus");
	double low = 0;

	for (size_t i = 0; i < json_len(gpus); i++) {
		double p = kb_gpu_peak(json_str(json_get(json_at(gpus, i), "name")), link);

		if (p <= 0)
			return 0;
		if (!low || p < low)
			low = p;
	}
	return low;
}

void
smoke_setup_release(struct smoke_setup *s)
{
	if (s->tmp) {
		remove_tree(s->tmp);
		free(s->tmp);
	}
	if (s->tmp_torch) {
		remove_tree(s->tmp_torch);
		free(s->tmp_torch);
	}
	wheel_report_release(&s->w);
	free(s->probe);
	strvec_clear(&s->env);
	buf_release(&s->dir);
	buf_release(&s->torchdir);
	buf_release(&s->path);
	buf_release(&s->features);
	buf_release(&s->archs);
	buf_release(&s->cpu_why);
	memset(s, 0, sizeof(*s));
}

/*
 * The target verified as `bwbuild verify` would: an extension wheel with
 * --against against that torch (whose sonames it may need and whose
 * symbols it may use), so a good extension is not said to fail verify.
 */
static int
smoke_verify(struct wheel_report *w, const struct smoke_request *rq)
{
	struct wheel_expect ex;
	struct torch_ref t;
	int rc;

	if (!rq->against || is_dir(rq->target))
		return wheel_verify(w, rq->target, NULL);
	if (torch_ref_load(&t, rq->against) < 0)
		return -1;
	memset(&ex, 0, sizeof(ex));
	rc = against_verify(w, rq->target, &ex, &t);
	torch_ref_release(&t);
	return rc;
}

int
smoke_setup_init(struct smoke_setup *s, const struct smoke_request *rq)
{
	struct strvec sass = STRVEC_INIT, ptx = STRVEC_INIT;
	struct json *m;

	memset(s, 0, sizeof(*s));
	buf_init(&s->dir);
	buf_init(&s->torchdir);
	buf_init(&s->path);
	buf_init(&s->features);
	buf_init(&s->archs);
	buf_init(&s->cpu_why);
	if (smoke_verify(&s->w, rq) < 0) {
		memset(&s->w, 0, sizeof(s->w));   /* released already */
		return -1;
	}
	if (s->w.errors.n)
		warning("'%s' fails verify%s%s (%s%s); it is run anyway, but what it shows is not "
			"the wheel RECORD describes", rq->target, rq->against ? " --against " : "",
			rq->against ? rq->against : "", s->w.errors.v[0],
			s->w.errors.n > 1 ? ", and more" : "");
	if (!s->w.name || !*s->w.name) {
		error("'%s': cannot tell the package's name", rq->target);
		return -1;
	}
	s->cpu = smoke_cpu_only(&s->w, rq->profile, rq->cuda_off, &s->cpu_why);
	s->probe = smoke_find_probe(s->w.name);
	if (!s->probe && !(s->probe = smoke_generic_probe())) {
		error("no probe for '%s' and no probes/generic-extension.py: bwbuild's data "
		      "directory is incomplete; put smoke-%s.py on BWBUILD_PROBE_PATH", s->w.name,
		      s->w.name);
		return -1;
	}
	/* The package first, then (an extension's) the torch it was built on. */
	if (importable_dir(rq->target, &s->dir, &s->tmp) < 0 ||
	    (rq->against && importable_dir(rq->against, &s->torchdir, &s->tmp_torch) < 0))
		return -1;
	if (s->tmp)
		link_nvidia(rq->python, s->dir.s);
	if (s->tmp_torch)
		link_nvidia(rq->python, s->torchdir.s);
	m = manifest_make(&(struct manifest_input){ .wheel = &s->w });
	join_true_features(json_get(m, "features"), &s->features);
	json_free(m);
	if (rq->profile) {
		profile_targets(rq->profile, &sass, &ptx);
		for (size_t i = 0; i < sass.n; i++)
			buf_addf(&s->archs, "%s%s", s->archs.len ? "," : "", sass.v[i]);
		for (size_t i = 0; i < ptx.n; i++)
			buf_addf(&s->archs, "%s%s", s->archs.len ? "," : "", ptx.v[i]);
		for (size_t i = 0; i < rq->profile->nruntime_env; i++)
			strvec_pushf(&s->env, "%s=%s", rq->profile->runtime_env[i].key,
				     rq->profile->runtime_env[i].val);
	} else {
		main_targets(s->dir.s, &s->archs);
	}
	strvec_clear(&sass);
	strvec_clear(&ptx);
	/* The generic probe's: where the package is, and the torch it imports first. */
	strvec_pushf(&s->env, "BWBUILD_SMOKE_SITE=%s", s->dir.s);
	if (rq->against)
		against_package(rq->against, &s->env);
	/* The extension first, then the torch it was built on. */
	buf_addf(&s->path, "%s%s%s", s->dir.s, s->torchdir.len ? ":" : "",
		 s->torchdir.len ? s->torchdir.s : "");
	return 0;
}

int
smoke_setup_run(struct smoke_setup *s, const struct smoke_request *rq, const char *probe,
		const char *visible, const struct strvec *args, struct smoke_result *sr,
		struct json **result)
{
	struct smoke_opts so = { .timeout = rq->timeout, .quick = rq->quick };
	const struct smoke_check *cuda;
	size_t failed = 0;
	int ret;

	*result = NULL;
	so.python = rq->python;
	so.probe = probe ? probe : s->probe;
	so.pythonpath = s->path.s;
	so.features = s->features.s;
	so.archs = s->archs.len && !s->cpu ? s->archs.s : NULL;
	so.env = &s->env;
	so.visible = s->cpu ? NULL : visible;
	so.args = args;
	so.cpu = s->cpu;
	progress_note("smoke", "%s with %s (%s)%s%s", rq->target, so.probe,
		  rq->python ? rq->python : "python3", s->cpu ? " on the CPU" :
		  so.visible ? " on GPU " : "", so.visible ? so.visible : "");
	if (smoke_run(sr, &so) < 0)
		return -1;
	/* Said by bwbuild, not the probe: the report and the manifest tell a CPU run apart. */
	if (s->cpu) {
		json_set(sr->info, "device", json_string("cpu"));
		json_set(sr->info, "device_reason", json_string(s->cpu_why.s));
	} else if (!probe) {
		static_vs_runtime(sr, &s->w);
	}
	/* A wheel meant to have no PTX (cuda.ptx: none) is not failed for lacking it: not asked for. */
	for (size_t i = 0; i < sr->nchecks; i++) {
		struct smoke_check *c = &sr->checks[i];
		int none = rq->ptx_none || (rq->profile && rq->profile->cuda_ptx.str &&
					    !strcmp(rq->profile->cuda_ptx.str, "none"));

		if (!strcmp(c->name, "forward_compat") && c->status == SMOKE_FAIL && none) {
			struct buf r = BUF_INIT;

			buf_addf(&r, "not asked for: the profile says cuda.ptx: none (%s)", c->reason);
			free(c->reason);
			c->reason = buf_detach(&r);
			c->status = SMOKE_SKIP;
		}
	}
	{
		const char *name = json_str(json_get(json_get(sr->info, "gpu"), "name"));

		for (size_t i = 0; i < sr->nbenches; i++)
			sr->benches[i].peak = sr->benches[i].link ?
				link_peak(sr->info, sr->benches[i].link) :
				kb_gpu_peak(name, sr->benches[i].dtype);
	}
	cuda = smoke_find(sr, "cuda");
	for (size_t i = 0; i < sr->nchecks; i++)
		failed += sr->checks[i].status == SMOKE_FAIL;
	/* No GPU is no verdict on a CUDA wheel; a CPU wheel's run needs none, so its failure is one. */
	ret = !s->cpu && cuda && cuda->status == SMOKE_FAIL ? SMOKE_NO_GPU : failed ? 1 : 0;
	*result = smoke_json(sr);
	json_set(*result, "target", json_string(rq->target));
	json_set(*result, "probe", json_string(so.probe));
	json_set(*result, "status", json_string(ret == SMOKE_NO_GPU ? "no_gpu" :
						ret ? "failed" : "ok"));
	return ret;
}

int
smoke_target(const struct smoke_request *rq, struct smoke_result *sr, struct json **result)
{
	struct smoke_setup s;
	char visible[16];
	int ret = -1;

	*result = NULL;
	if (smoke_setup_init(&s, rq) == 0) {
		snprintf(visible, sizeof(visible), "%d", rq->gpu);
		ret = smoke_setup_run(&s, rq, NULL, rq->gpu >= 0 ? visible : NULL, NULL, sr, result);
	}
	smoke_setup_release(&s);
	return ret;
}

int
smoke_manifest_merge(const char *path, struct json *runtime)
{
	struct buf text = BUF_INIT, why = BUF_INIT;
	struct json *m;
	char *out;
	int rc;

	/* `runtime` is ours to free on every path, as on success. */
	if (read_file(&text, path) < 0) {
		json_free(runtime);
		return -1;
	}
	m = json_parse(text.s, text.len, &why);
	if (!m || !json_is_object(m)) {
		rc = error("'%s' is not a manifest: %s", path, why.len ? why.s : "not an object");
		json_free(m);
		json_free(runtime);
		buf_release(&text);
		buf_release(&why);
		return rc;
	}
	json_set(m, "runtime", runtime);
	out = json_print(m, 1);
	rc = write_file_atomic(path, out, strlen(out));
	free(out);
	json_free(m);
	buf_release(&text);
	buf_release(&why);
	return rc;
}
