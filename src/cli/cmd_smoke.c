#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "core/diag.h"
#include "core/json.h"
#include "profile/profile.h"
#include "build/resolve.h"
#include "wheel/smoke.h"
#include "core/util.h"

static const char about[] =
	"Prove a wheel on the GPU: install it privately (nothing in your environment\n"
	"changes), import it in a child Python and run one kernel family per compiled-in\n"
	"feature, forward compatibility under CUDA_FORCE_PTX_JIT=1, then micro-benchmarks\n"
	"as % of the GPU's datasheet peak. The probe, probes/smoke-<package>.py, ships\n"
	"with bwbuild. Exit 0 when every check passed (warnings allowed), 1 when one failed,\n"
	"3 when there is no usable GPU, 2 on bad usage. Docs: docs/smoke.md.\n";

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

int
cmd_smoke(int argc, char **argv, const struct command *cmd)
{
	struct resolve_opts ro = { 0 };
	struct smoke_request rq = { .gpu = -1 };
	const char *out = NULL, *manifest = NULL;
	unsigned timeout = 300, gpu = 0;
	int json = 0, ret = EXIT_USAGE, rc;
	struct strvec gpu_set = STRVEC_INIT;
	const struct option options[] = {
		OPT_ARG("target", &rq.target, "WHEEL|PKGDIR",
			"a wheel (installed privately), or an installed package such as "
			"site-packages/torch"),
		OPT_PROFILE(&ro.profile),
		OPT_FLAG(0, "json", &json, "print the result as JSON (the manifest's runtime section)"),
		OPT_STRING('o', "output", &out, "FILE", "write the JSON result to FILE (atomically)"),
		OPT_STRING(0, "manifest", &manifest, "FILE",
			   "put the result into this manifest's \"runtime\" section"),
		OPT_FLAG(0, "quick", &rq.quick, "checks only, no benchmarks"),
		OPT_LIST(0, "gpu", &gpu_set, "N", "the GPU to use (CUDA_VISIBLE_DEVICES=N)"),
		OPT_UNSIGNED(0, "timeout", &timeout, "SECONDS", 1, 86400,
			     "a check silent this long is killed and failed (default 300)"),
		OPT_STRING(0, "against", &rq.against, "TORCH",
			   "an extension: run it with this torch (its wheel, installed privately, "
			   "or site-packages/torch) instead of the interpreter's"),
		OPT_STRING(0, "python", &rq.python, "PATH",
			   "the interpreter (default python3; its environment supplies the "
			   "nvidia-* libraries)"),
		OPT_END(),
	};
	struct smoke_result sr;
	struct json *result = NULL;
	struct profile p;

	memset(&p, 0, sizeof(p));
	smoke_result_init(&sr);
	if (cmd_parse(cmd, about, options, argc, argv, &ret) ||
	    (ro.profile && resolve_profile(&p, &ro) < 0))
		goto out;
	if (gpu_set.n && sscanf(gpu_set.v[gpu_set.n - 1], "%u", &gpu) != 1) {
		error("--gpu '%s' is not a GPU index such as 0", gpu_set.v[gpu_set.n - 1]);
		goto out;
	}
	rq.gpu = gpu_set.n ? (int)gpu : -1;
	rq.timeout = timeout;
	rq.profile = ro.profile ? &p : NULL;
	rc = smoke_target(&rq, &sr, &result);
	if (rc < 0) {
		ret = is_regular(rq.target) || is_dir(rq.target) ? EXIT_FAIL : EXIT_USAGE;
		goto out;
	}
	ret = rc == SMOKE_NO_GPU ? SMOKE_NO_GPU : rc ? EXIT_FAIL : EXIT_OK;
	if (!json)
		report_text(&sr, stdout);
	if (rc == SMOKE_NO_GPU)
		error("no usable GPU: %s (exit %d: nothing beyond the import was run)",
		      smoke_find(&sr, "cuda")->reason, SMOKE_NO_GPU);
	else if (rc) {
		size_t failed = 0;

		for (size_t i = 0; i < sr.nchecks; i++)
			failed += sr.checks[i].status == SMOKE_FAIL;
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
		if (smoke_manifest_merge(manifest, result) < 0)
			ret = EXIT_FAIL;
		result = NULL;
	}
out:
	json_free(result);
	smoke_result_release(&sr);
	profile_release(&p);
	strvec_clear(&gpu_set);
	return ret;
}
