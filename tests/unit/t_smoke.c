#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/profile/profile.h"
#include "../../src/wheel/manifest.h"
#include "../../src/wheel/smoke.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * The probe's protocol and the process around it, with a shell script as
 * the probe: a check that hangs is killed and the probe restarted past it,
 * one that crashes is recorded with the output, benchmarks and info kept.
 */

static const char probe[] =
	"for a; do case $a in --skip=*) skip=${a#--skip=};; esac; done\n"
	"done_() { case \",$skip,\" in *,$1,*) return 0;; esac; return 1; }\n"
	"echo \"@bwbuild {\\\"info\\\": {\\\"args\\\": \\\"$*\\\", \\\"x\\\": \\\"$T_SMOKE_X\\\","
	" \\\"cvd\\\": \\\"$CUDA_VISIBLE_DEVICES\\\", \\\"pp\\\": \\\"$PYTHONPATH\\\"}}\"\n"
	"done_ import || { echo '@bwbuild {\"start\": \"import\"}';"
	" echo '@bwbuild {\"check\": \"import\", \"status\": \"ok\", \"seconds\": 0.5}'; }\n"
	"done_ hang || { echo '@bwbuild {\"start\": \"hang\"}'; sleep 30; }\n"
	"done_ crash || { echo '@bwbuild {\"start\": \"crash\"}'; echo 'CUDA error: boom'; exit 3; }\n"
	"echo '@bwbuild {\"start\": \"bench:copy\"}'\n"
	"echo '@bwbuild {\"bench\": \"copy\", \"value\": 12.5, \"unit\": \"GB/s\", \"dtype\": \"bytes\", \"shape\": \"1M\"}'\n"
	"echo '@bwbuild {\"check\": \"sdpa\", \"status\": \"warn\", \"reason\": \"math kernel\"}'\n"
	"echo 'plain output'\n"
	"echo '@bwbuild not json'\n"
	"echo '@bwbuild [1]'\n"
	"echo '@bwbuild {\"check\": \"odd\", \"status\": \"weird\"}'\n";

static void
t_run(const char *dir)
{
	struct smoke_result r;
	struct smoke_opts o = { 0 };
	struct strvec env = STRVEC_INIT;
	struct buf path = BUF_INIT;
	const struct smoke_check *c;
	struct json *j;
	const struct json *info;

	buf_addf(&path, "%s/probe.sh", dir);
	CHECK(write_file_atomic(path.s, probe, strlen(probe)) == 0);
	strvec_push(&env, "T_SMOKE_X=from-profile");
	o.python = "sh";
	o.probe = path.s;
	o.pythonpath = "/site";
	o.timeout = 0.5;
	o.quick = 1;
	o.visible = "1";
	o.features = "cuda,nccl";
	o.env = &env;
	smoke_result_init(&r);
	CHECK(smoke_run(&r, &o) == 0);
	CHECK(r.restarts == 2);
	CHECK(r.nchecks == 4);
	c = smoke_find(&r, "import");
	CHECK(c && c->status == SMOKE_OK && c->seconds == 0.5);
	c = smoke_find(&r, "hang");
	CHECK(c && c->status == SMOKE_FAIL);
	CHECK(c && strstr(c->reason, "timed out: no word from the probe for 0 s; killed"));
	c = smoke_find(&r, "crash");
	CHECK(c && c->status == SMOKE_FAIL);
	CHECK(c && strstr(c->reason, "the probe exited with 3 during this check: "));
	CHECK(c && strstr(c->reason, "CUDA error: boom"));
	c = smoke_find(&r, "sdpa");
	CHECK(c && c->status == SMOKE_WARN && !strcmp(c->reason, "math kernel"));
	CHECK(smoke_find(&r, "odd") == NULL);
	CHECK(r.nbenches == 1 && r.benches[0].value == 12.5);
	CHECK(r.current == NULL);

	/* The last run's info: what it was given. */
	j = smoke_json(&r);
	info = j;
	CHECK(strstr(json_str(json_get(info, "args")), "--skip=import,hang,crash --quick --features=cuda,nccl"));
	CHECK_STR(json_str(json_get(info, "x")), "from-profile");
	CHECK_STR(json_str(json_get(info, "cvd")), "1");
	CHECK(starts_with(json_str(json_get(info, "pp")), "/site"));
	CHECK(json_len(json_get(j, "checks")) == 4);
	CHECK_STR(json_str(json_get(json_at(json_get(j, "checks"), 3), "status")), "warn");
	CHECK_STR(json_str(json_get(json_at(json_get(j, "benchmarks"), 0), "unit")), "GB/s");
	CHECK(json_get(json_at(json_get(j, "benchmarks"), 0), "peak") != NULL);
	CHECK(json_number_value(json_get(j, "restarts")) == 2);
	json_free(j);
	smoke_result_release(&r);

	/* A probe that dies before any check: one failed check "probe". */
	CHECK(write_file_atomic(path.s, "echo 'no torch' >&2; exit 1\n", 28) == 0);
	smoke_result_init(&r);
	CHECK(smoke_run(&r, &o) == 0);
	CHECK(r.nchecks == 1 && !strcmp(r.checks[0].name, "probe") && r.checks[0].status == SMOKE_FAIL);
	CHECK(strstr(r.checks[0].reason, "the probe exited with 1 before any check: no torch") != NULL);
	smoke_result_release(&r);

	strvec_clear(&env);
	buf_release(&path);
}

static void
t_protocol(void)
{
	struct smoke_result r;
	struct json *j;
	const char *line;

	smoke_result_init(&r);
	line = "@bwbuild {\"start\": \"matmul\"}";
	smoke_line(&r, line, strlen(line));
	CHECK_STR(r.current, "matmul");
	line = "@bwbuild {\"check\": \"matmul\", \"status\": \"fail\", \"reason\": \"wrong\"}";
	smoke_line(&r, line, strlen(line));
	CHECK(r.current == NULL);
	line = "@bwbuild {\"info\": {\"gpu\": \"B200\"}}";
	smoke_line(&r, line, strlen(line));
	line = "@bwbuild {\"info\": {\"torch\": \"2.6.0\", \"gpu\": \"GB200\"}}";
	smoke_line(&r, line, strlen(line));
	smoke_line(&r, "@bwbuild ", 9);
	smoke_line(&r, "@bwbuil", 7);
	smoke_add_check(&r, "extra", SMOKE_SKIP, NULL, 0);
	CHECK(smoke_find(&r, "extra") && !strcmp(smoke_find(&r, "extra")->reason, ""));
	r.nbenches = 0;
	j = smoke_json(&r);
	CHECK_STR(json_str(json_get(j, "gpu")), "GB200");
	CHECK_STR(json_str(json_get(j, "torch")), "2.6.0");
	json_free(j);
	smoke_result_release(&r);

	CHECK_STR(smoke_status_name(SMOKE_OK), "ok");
	CHECK_STR(smoke_status_name(SMOKE_SKIP), "skip");
	CHECK_STR(smoke_status_mark(SMOKE_FAIL), "❌");
	CHECK_STR(smoke_status_mark(SMOKE_WARN), "⚠️");
}

static void
t_merge(const char *dir)
{
	struct buf path = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	struct json *m, *rt = json_object();
	const char *e;

	buf_addf(&path, "%s/manifest.json", dir);
	CHECK(write_file_atomic(path.s, "{\"schema\": \"bwbuild-manifest/1\", \"runtime\": 1}", 46) == 0);
	json_set(rt, "restarts", json_number(0));
	CHECK(smoke_manifest_merge(path.s, rt) == 0);
	CHECK(read_file(&text, path.s) == 0);
	m = json_parse(text.s, text.len, &why);
	CHECK(m && json_number_value(json_get(json_get(m, "runtime"), "restarts")) == 0);
	CHECK_STR(json_str(json_get(m, "schema")), "bwbuild-manifest/1");
	json_free(m);

	remove(path.s);
	CHECK(write_file_atomic(path.s, "[1, 2]", 6) == 0);
	t_stderr_begin();
	CHECK(smoke_manifest_merge(path.s, json_object()) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "is not a manifest: not an object") != NULL);
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
}

/*
 * Which wheels smoke runs on the CPU (issue 39): one that something says
 * has no CUDA and that carries none; any doubt keeps the CUDA checks.
 */
static void
t_cpu_only(const char *dir)
{
	struct wheel_report w;
	struct wheel_lib lib;
	struct profile p;
	struct buf why = BUF_INIT, path = BUF_INIT;
	const char *asked = "{\"profile\": {\"features\": {\"cuda\": false}}, \"features\": {\"cuda\": true}}";
	const char *built = "{\"profile\": null, \"features\": {\"cuda\": false}}";

	/* smoke --manifest: the profile's features.cuda, else the build settings' as the manifest shows them. */
	buf_addf(&path, "%s/cuda.json", dir);
	CHECK(write_file_atomic(path.s, asked, strlen(asked)) == 0 && manifest_cuda_off(path.s) == 1);
	CHECK(write_file_atomic(path.s, built, strlen(built)) == 0 && manifest_cuda_off(path.s) == 1);
	CHECK(write_file_atomic(path.s, "{}", 2) == 0 && manifest_cuda_off(path.s) == 0);
	remove(path.s);
	CHECK(manifest_cuda_off(path.s) == 0);
	buf_release(&path);

	memset(&w, 0, sizeof(w));
	memset(&lib, 0, sizeof(lib));
	memset(&p, 0, sizeof(p));
	/* Nothing says either way (a pure wheel): the CUDA checks, as before. */
	CHECK(smoke_cpu_only(&w, NULL, 0, &why) == 0 && why.len == 0);
	CHECK(smoke_cpu_only(&w, NULL, 1, &why) == 1);
	CHECK_STR(why.s, "the wheel has no CUDA (its manifest says features.cuda: off; no CUDA library, no fatbin)");
	buf_reset(&why);
	w.version_py = (char *)"cuda: Optional[str] = None\n";
	CHECK(smoke_cpu_only(&w, NULL, 0, &why) == 1 && strstr(why.s, "its version.py says cuda = None"));
	w.version_py = (char *)"cuda = '13.0'\n";
	CHECK(smoke_cpu_only(&w, NULL, 1, &why) == 0);
	w.version_py = NULL;
	buf_reset(&why);
	w.macros_h = (char *)"  {\"USE_CUDA\", \"OFF\"}, \\\n";
	CHECK(smoke_cpu_only(&w, NULL, 0, &why) == 1 && strstr(why.s, "its build settings say USE_CUDA OFF"));
	/* The profile's word wins over the settings', both ways. */
	p.features[FEAT_CUDA] = TRI_ON;
	CHECK(smoke_cpu_only(&w, &p, 0, &why) == 0);
	p.features[FEAT_CUDA] = TRI_OFF;
	buf_reset(&why);
	CHECK(smoke_cpu_only(&w, &p, 0, &why) == 1 && strstr(why.s, "the profile says features.cuda: off"));
	/* A library that needs CUDA's runtime, or carries a fatbin, is CUDA whatever was said. */
	strvec_push(&lib.needed, "libcudart.so.13");
	w.libs = &lib;
	w.nlibs = 1;
	CHECK(smoke_cpu_only(&w, &p, 1, &why) == 0);
	strvec_clear(&lib.needed);
	lib.has_fatbin = 1;
	CHECK(smoke_cpu_only(&w, &p, 1, &why) == 0);
	lib.has_fatbin = 0;
	strvec_push(&lib.needed, "libc.so.6");
	CHECK(smoke_cpu_only(&w, &p, 0, &why) == 1);
	strvec_clear(&lib.needed);
	buf_release(&why);
}

void
t_smoke(void)
{
	const char *d = t_tmpdir("smoke");
	char dir[512];

	snprintf(dir, sizeof(dir), "%s", d);
	t_protocol();
	t_cpu_only(dir);
	t_run(dir);
	t_merge(dir);
	remove_tree(dir);
}
