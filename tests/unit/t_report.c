#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/pipeline/plan.h"
#include "../../src/host/host.h"
#include "../../src/cli/report.h"
#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/profile/compat.h"
#include "../../src/profile/profile.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/* What the commands print over the engines' results: verify's lines, GPUs, manifests, profiles. */

/* The text `f` wrote to a temporary FILE. */
static const char *
text_of(FILE *f)
{
	static struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;

	buf_reset(&b);
	fflush(f);
	rewind(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return b.s;
}

/* report_json's standard output, captured. */
static const char *
json_out(struct json *j)
{
	static struct buf b = BUF_INIT;
	const char *path = t_write("report-stdout.txt", "");
	int fd = open(path, O_WRONLY | O_TRUNC), saved;

	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	close(fd);
	report_json(j);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	buf_reset(&b);
	read_file(&b, path);
	return b.s;
}

static void
t_wheel_lines(void)
{
	struct wheel_report r;
	struct gpu_list gpus = GPU_LIST_INIT;
	const char *out, *err;
	FILE *f;

	CHECK(wheel_verify(&r, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"), NULL) == 0);
	f = tmpfile();
	t_stderr_begin();
	report_wheel(&r, 1, f);
	err = t_stderr_end();
	out = text_of(f);
	CHECK(starts_with(out, "plat/lib/k.so: manylinux_2_"));
	CHECK(strstr(out, "; SASS sm_80 sm_120; PTX compute_120 [0 entries decompressed and checked]\n") != NULL);
	CHECK(strstr(out, "ok: plat-1.0-cp311-cp311-linux_x86_64.whl (") != NULL);
	CHECK(strstr(out, " members, every RECORD hash matches)\n") != NULL);
	/* k.so needs libcudart.so.13 and the wheel says nothing of NVIDIA's packages. */
	CHECK_STR(err, "note: CUDA's libraries come from the machine the wheel is installed on (no "
		  "Requires-Dist on NVIDIA's packages, no RUNPATH into site-packages/nvidia): "
		  "libcudart.so.13\n");

	/* sm_80 and sm_120 SASS, compute_120 PTX: a 9.0 GPU runs none of it, a 12.1 one the PTX. */
	CHECK(gpu_list_add(&gpus, "8.6") == 0);
	CHECK(gpu_list_add(&gpus, "9.0") == 0);
	CHECK(gpu_list_add(&gpus, "sm_121") == 0);
	CHECK(gpu_list_add(&gpus, "banana") == -1);
	f = tmpfile();
	t_stderr_begin();
	CHECK(report_gpus(&r, &gpus, f) == 1);
	err = t_stderr_end();
	out = text_of(f);
	CHECK(strstr(out, "sm_86: plat/lib/k.so runs (SASS sm_80)\nsm_86: yes, every CUDA library runs\n") != NULL);
	CHECK(strstr(out, "sm_90: NO: the wheel would fail with 'no kernel image is available'\n") != NULL);
	CHECK(strstr(out, "sm_121: plat/lib/k.so runs (") != NULL);
	/* Reported once, with the others, by report_wheel (verify prints the GPUs first). */
	CHECK(strstr(err, "has no code that runs on sm_90") == NULL);
	/* The failure went into the report: now it says FAILED. */
	f = tmpfile();
	t_stderr_begin();
	report_wheel(&r, 0, f);
	err = t_stderr_end();
	out = text_of(f);
	CHECK(strstr(out, "FAILED: plat-1.0-cp311-cp311-linux_x86_64.whl (1 problem)\n") != NULL);
	CHECK(strstr(err, "error: 'plat/lib/k.so' has no code that runs on sm_90 (it has SASS sm_80 sm_120; PTX compute_120)\n") != NULL);
	gpu_list_release(&gpus);
	wheel_report_release(&r);
}

static void
t_manifests(void)
{
	const char *dir = t_tmpdir("report");
	struct buf p = BUF_INIT;
	struct json *m;
	const char *err;

	m = report_manifest(t_wheel("good/tiny-1.0-py3-none-any.whl"));
	CHECK(m != NULL);
	CHECK_STR(json_str(json_get(m, "schema")), "bwbuild-manifest/1");
	CHECK(strstr(json_out(m), "\"bwbuild-manifest/1\"") != NULL);

	buf_addf(&p, "%s/m.json", dir);
	CHECK(write_file_atomic(p.s, "{\"schema\": \"bwbuild-manifest/1\", \"x\": 1}", 40) == 0);
	m = report_manifest(p.s);
	CHECK(m && json_number_value(json_get(m, "x")) == 1);
	json_free(m);
	buf_reset(&p);
	buf_addf(&p, "%s/other.json", dir);
	CHECK(write_file_atomic(p.s, "{\"schema\": \"other/2\"}", 21) == 0);
	t_stderr_begin();
	CHECK(report_manifest(p.s) == NULL);
	buf_reset(&p);
	buf_addf(&p, "%s/broken.json", dir);
	CHECK(write_file_atomic(p.s, "{\"schema\": ", 11) == 0);
	CHECK(report_manifest(p.s) == NULL);
	err = t_stderr_end();
	CHECK(strstr(err, "is not a bwbuild manifest (schema 'other/2', expected 'bwbuild-manifest/1')") != NULL);
	CHECK(strstr(err, "broken.json' is not a manifest: ") != NULL);
	remove_tree(dir);
	buf_release(&p);
}

static void
t_profiles(void)
{
	const char *dir = t_tmpdir("report-profiles");
	char *abs = path_absolute(dir);
	char *old = t_env_save("BWBUILD_PROFILE_PATH");
	struct buf p = BUF_INIT, text = BUF_INIT;
	struct json *list;
	const struct json *mine = NULL, *demo = NULL, *broken = NULL;
	size_t i, demos = 0;

	buf_addf(&p, "%s/demo.yaml", abs);
	/* Valid as plan judges it: torch 2.6 with CUDA 13 would need the CUB patch. */
	buf_addstr(&text, "name: demo\ndescription: mine\nsource: {repo: r, ref: v2.11.0}\n"
			  "cuda: {archs: [\"12.0+PTX\"]}\n");
	CHECK(write_file_atomic(p.s, text.s, text.len) == 0);
	buf_reset(&text);
	buf_reset(&p);
	buf_addf(&p, "%s/zz-broken.yaml", abs);
	CHECK(write_file_atomic(p.s, "name: [\n", 8) == 0);
	setenv("BWBUILD_PROFILE_PATH", abs, 1);
	list = report_profiles();
	for (i = 0; i < json_len(list); i++) {
		const struct json *o = json_at(list, i);
		const char *name = json_str(json_get(o, "name"));

		if (!strcmp(name, "demo")) {
			demos++;
			if (starts_with(json_str(json_get(o, "path")), abs))
				mine = o;
			else
				demo = o;
		}
		if (!strcmp(name, "zz-broken"))
			broken = o;
	}
	/* profiles/ here comes first; the same name later on the path is shadowed. */
	CHECK(demos == 2);
	CHECK(demo && !json_is_true(json_get(demo, "shadowed")) && json_is_true(json_get(demo, "valid")));
	CHECK(mine && json_is_true(json_get(mine, "shadowed")));
	CHECK_STR(mine ? json_str(json_get(mine, "description")) : NULL, "mine");
	CHECK(broken && !json_is_true(json_get(broken, "valid")));
	report_profiles_format(list, &text);
	CHECK(strstr(text.s, "zz-broken        (invalid, ") != NULL);
	CHECK(strstr(text.s, "zz-broken.yaml' shows ") != NULL);
	CHECK(strstr(text.s, "demo             mine [shadowed]\n") != NULL);
	json_free(list);

	t_env_restore("BWBUILD_PROFILE_PATH", old);
	remove_tree(abs);
	free(abs);
	buf_release(&p);
	buf_release(&text);
}

static void
t_plan_text(void)
{
	struct profile p;
	struct plan pl;
	struct plan_opts o = { .work_dir = "/w", .out_dir = "/o", .cuda_home = "/usr/local/cuda" };
	struct host h;
	struct buf out = BUF_INIT;
	struct plan_view v;

	t_write("report-plan.yaml", "name: t-report\nsource: {repo: r, ref: v2.6.0, patches: pytorch}\n"
				    "cuda: {version: \"12.8\", archs: [\"12.0+PTX\"]}\n");
	CHECK(profile_load(&p, t_path("report-plan.yaml")) == 0);
	memset(&h, 0, sizeof(h));
	h.cpus = 8;
	h.mem_total = h.mem_available = 32ULL << 30;
	CHECK(plan_make(&pl, &p, &h, &o) == 0);
	CHECK(plan_view_make(&v, &pl, &p) == 0);
	plan_view_text(&v, &out);
	plan_view_release(&v);
	CHECK(strstr(out.s, "  work dir  /w\n") != NULL);
	CHECK(strstr(out.s, "\npatches (") != NULL);
	CHECK(strstr(out.s, ", for v2.6.0)\n") != NULL);
	plan_release(&pl);
	profile_release(&p);
	buf_release(&out);
}

void
t_report(void)
{
	t_wheels();
	t_wheel_lines();
	t_manifests();
	t_profiles();
	t_plan_text();
}
