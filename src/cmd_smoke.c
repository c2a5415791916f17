#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archs.h"
#include "buf.h"
#include "cmd.h"
#include "compat.h"
#include "diag.h"
#include "json.h"
#include "knowledge.h"
#include "manifest.h"
#include "plan.h"
#include "profile.h"
#include "resolve.h"
#include "smoke.h"
#include "util.h"
#include "verify.h"
#include "zip.h"

/* Exit status when no GPU can be used: documented in docs/smoke.md. */
#define EXIT_NO_GPU 3

static const char about[] =
	"Prove a wheel on the GPU: install it privately (nothing in your environment\n"
	"changes), import it in a child Python and run one kernel family per compiled-in\n"
	"feature, forward compatibility under CUDA_FORCE_PTX_JIT=1, then micro-benchmarks\n"
	"as % of the GPU's datasheet peak. The probe is probes/smoke-<package>.py, shipped with\n"
	"bwbuild. Exit 0 when every check passed (warnings allowed), 1 when one failed,\n"
	"3 when there is no usable GPU, 2 on bad usage. Docs: docs/smoke.md.\n";

/* ---- a private install: the wheel's members under a temporary directory ---- */

static int
write_sink(void *ctx, const void *data, size_t n)
{
	return write_all(*(int *)ctx, data, n);
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
		fd = open(path.s, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
		if (fd < 0) {
			rc = error("cannot write '%s':", path.s);
			break;
		}
		if (zip_read(&z, e, write_sink, &fd, &why) < 0)
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

static char *
find_probe(const char *package)
{
	struct strvec dirs = STRVEC_INIT;
	struct buf path = BUF_INIT;
	char *found = NULL;

	data_search_path("probes", "BWBUILD_PROBE_PATH", &dirs);
	for (size_t i = dirs.n; i-- > 0 && !found;) {
		buf_reset(&path);
		buf_addf(&path, "%s/smoke-%s.py", dirs.v[i], package);
		if (is_regular(path.s))
			found = path_absolute(path.s);
	}
	strvec_clear(&dirs);
	buf_release(&path);
	return found;
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

static void
report_text(const struct smoke_result *r, FILE *out)
{
	const struct json *gpu = json_get(r->info, "gpu");

	if (gpu)
		fprintf(out, "gpu: %s (%s), driver %s\n", json_str(json_get(gpu, "name")),
			json_str(json_get(gpu, "capability")),
			json_str(json_get(gpu, "driver")) ? json_str(json_get(gpu, "driver")) : "?");
	for (size_t i = 0; i < r->nchecks; i++) {
		const struct smoke_check *c = &r->checks[i];

		fprintf(out, "%s %-20s %s\n", smoke_status_mark(c->status), c->name, c->reason);
	}
	if (r->nbenches)
		fprintf(out, "\n| benchmark | shape | value | %% of peak |\n|---|---|---|---|\n");
	for (size_t i = 0; i < r->nbenches; i++) {
		const struct smoke_bench *b = &r->benches[i];

		if (b->peak > 0)
			fprintf(out, "| %s | %s | %.1f %s | %.0f %% of %.0f |\n", b->name, b->shape,
				b->value, b->unit, b->value / b->peak * 100, b->peak);
		else
			fprintf(out, "| %s | %s | %.1f %s | – |\n", b->name, b->shape, b->value,
				b->unit);
	}
}

static int
merge_into_manifest(const char *path, struct json *runtime)
{
	struct buf text = BUF_INIT, why = BUF_INIT;
	struct json *m;
	char *out;
	int rc;

	if (read_file(&text, path) < 0)
		return -1;
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

int
cmd_smoke(int argc, char **argv, const struct command *cmd)
{
	struct resolve_opts ro = { 0 };
	struct smoke_opts so = { .gpu = -1, .timeout = 300 };
	const char *target = NULL, *out = NULL, *manifest = NULL, *python = NULL;
	unsigned timeout = 300, gpu = 0;
	int json = 0, quick = 0, ret = EXIT_USAGE, have_gpu_opt;
	struct strvec gpu_set = STRVEC_INIT;
	const struct option options[] = {
		OPT_ARG("target", &target, "WHEEL|PKGDIR",
			"a wheel (installed privately), or an installed package such as "
			"site-packages/torch"),
		OPT_PROFILE(&ro.profile),
		OPT_FLAG(0, "json", &json, "print the result as JSON (the manifest's runtime section)"),
		OPT_STRING('o', "output", &out, "FILE", "write the JSON result to FILE (atomically)"),
		OPT_STRING(0, "manifest", &manifest, "FILE",
			   "put the result into this manifest's \"runtime\" section"),
		OPT_FLAG(0, "quick", &quick, "checks only, no benchmarks"),
		OPT_LIST(0, "gpu", &gpu_set, "N", "the GPU to use (CUDA_VISIBLE_DEVICES=N)"),
		OPT_UNSIGNED(0, "timeout", &timeout, "SECONDS", 1, 86400,
			     "a check silent this long is killed and failed (default 300)"),
		OPT_STRING(0, "python", &python, "PATH",
			   "the interpreter (default python3; its environment supplies the "
			   "nvidia-* libraries)"),
		OPT_END(),
	};
	struct wheel_report w;
	struct smoke_result sr;
	struct profile p;
	struct strvec env = STRVEC_INIT;
	struct buf dir = BUF_INIT, features = BUF_INIT, archs = BUF_INIT;
	struct strvec sass = STRVEC_INIT, ptx = STRVEC_INIT;
	char *probe = NULL, *tmp = NULL;
	struct json *m = NULL, *result;
	int have_report = 0;

	memset(&p, 0, sizeof(p));
	smoke_result_init(&sr);
	if (cmd_parse(cmd, about, options, argc, argv, &ret) ||
	    (ro.profile && resolve_profile(&p, &ro) < 0))
		goto out;
	have_gpu_opt = gpu_set.n > 0;
	if (have_gpu_opt && (sscanf(gpu_set.v[gpu_set.n - 1], "%u", &gpu) != 1)) {
		error("--gpu '%s' is not a GPU index such as 0", gpu_set.v[gpu_set.n - 1]);
		goto out;
	}
	ret = EXIT_FAIL;
	if (wheel_verify(&w, target, NULL) < 0) {
		ret = is_regular(target) || is_dir(target) ? EXIT_FAIL : EXIT_USAGE;
		goto out;
	}
	have_report = 1;
	if (!w.name || !*w.name) {
		error("'%s': cannot tell the package's name", target);
		goto out;
	}
	probe = find_probe(w.name);
	if (!probe) {
		error("no probe for '%s': bwbuild ships probes/smoke-torch.py and probes/smoke-minitorch.py; "
		      "put smoke-%s.py on BWBUILD_PROBE_PATH", w.name, w.name);
		goto out;
	}
	if (is_dir(target)) {
		char *abs = path_absolute(target);

		buf_addstr(&dir, abs);
		free(abs);
		/* site-packages/torch: the package is importable from its parent */
		*strrchr(dir.s, '/') = '\0';
		dir.len = strlen(dir.s);
	} else {
		const char *t = getenv("TMPDIR");

		buf_addf(&dir, "%s/bwbuild-smoke-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir.s)) {
			error("cannot make a temporary directory '%s':", dir.s);
			goto out;
		}
		tmp = xstrdup(dir.s);
		if (install_wheel(target, dir.s) < 0)
			goto out;
	}
	m = manifest_make(&(struct manifest_input){ .wheel = &w });
	join_true_features(json_get(m, "features"), &features);
	if (ro.profile) {
		plan_targets(&p, &sass, &ptx);
		for (size_t i = 0; i < sass.n; i++)
			buf_addf(&archs, "%s%s", archs.len ? "," : "", sass.v[i]);
		for (size_t i = 0; i < ptx.n; i++)
			buf_addf(&archs, "%s%s", archs.len ? "," : "", ptx.v[i]);
		for (size_t i = 0; i < p.nruntime_env; i++)
			strvec_pushf(&env, "%s=%s", p.runtime_env[i].key, p.runtime_env[i].val);
	} else {
		main_targets(dir.s, &archs);
	}
	so.python = python;
	so.probe = probe;
	so.pythonpath = dir.s;
	so.timeout = timeout;
	so.quick = quick;
	so.gpu = have_gpu_opt ? (int)gpu : -1;
	so.features = features.s;
	so.archs = archs.len ? archs.s : NULL;
	so.env = &env;
	fprintf(stderr, "smoke: %s with %s (%s)\n", target, probe, python ? python : "python3");
	if (smoke_run(&sr, &so) < 0)
		goto out;
	static_vs_runtime(&sr, &w);
	{
		const char *name = json_str(json_get(json_get(sr.info, "gpu"), "name"));

		for (size_t i = 0; i < sr.nbenches; i++)
			sr.benches[i].peak = kb_gpu_peak(name, sr.benches[i].dtype);
	}
	result = smoke_json(&sr);
	json_set(result, "target", json_string(target));
	json_set(result, "probe", json_string(probe));
	{
		const struct smoke_check *c = smoke_find(&sr, "cuda");
		size_t failed = 0;

		for (size_t i = 0; i < sr.nchecks; i++)
			failed += sr.checks[i].status == SMOKE_FAIL;
		ret = c && c->status == SMOKE_FAIL ? EXIT_NO_GPU : failed ? EXIT_FAIL : EXIT_OK;
		json_set(result, "status", json_string(ret == EXIT_NO_GPU ? "no_gpu" :
						       failed ? "failed" : "ok"));
		if (!json)
			report_text(&sr, stdout);
		if (ret == EXIT_NO_GPU)
			error("no usable GPU: %s (exit %d: nothing beyond the import was run)",
			      c->reason, EXIT_NO_GPU);
		else if (failed)
			error("%zu check%s failed", failed, failed == 1 ? "" : "s");
	}
	if (json)
		json_print_stdout(result);
	if (out) {
		char *text = json_print(result, 1);

		if (write_file_atomic(out, text, strlen(text)) < 0)
			ret = EXIT_FAIL;
		free(text);
	}
	if (manifest) {
		if (merge_into_manifest(manifest, result) < 0)
			ret = EXIT_FAIL;
	} else {
		json_free(result);
	}
out:
	if (tmp) {
		remove_tree(tmp);
		free(tmp);
	}
	if (have_report)
		wheel_report_release(&w);
	json_free(m);
	free(probe);
	smoke_result_release(&sr);
	profile_release(&p);
	strvec_clear(&env);
	strvec_clear(&gpu_set);
	strvec_clear(&sass);
	strvec_clear(&ptx);
	buf_release(&dir);
	buf_release(&features);
	buf_release(&archs);
	return ret;
}
