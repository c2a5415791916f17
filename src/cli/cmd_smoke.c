#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/json.h"
#include "profile/profile.h"
#include "pipeline/resolve.h"
#include "wheel/smoke.h"
#include "core/safefile.h"
#include "core/util.h"
#include "cli/report.h"
#include "wheel/manifest.h"

static const char about[] =
	"Prove a wheel on the GPU: install it privately (nothing in your environment\n"
	"changes), import it in a child Python and run one kernel family per compiled-in\n"
	"feature, forward compatibility under CUDA_FORCE_PTX_JIT=1, then micro-benchmarks\n"
	"as % of the GPU's datasheet peak. The probe, probes/smoke-<package>.py, ships\n"
	"with bwbuild. --gpu all runs it on every GPU, then an NCCL group across them\n"
	"(probes/multi-<package>.py). A wheel built without CUDA (features.cuda off, no\n"
	"CUDA library, no fatbin) gets the probe's CPU checks instead, on any host.\n"
	"Exit 0 when every check passed (warnings allowed), 1 when one failed, 3 when\n"
	"there is no usable GPU, 2 on bad usage. Docs: docs/smoke.md.\n";

int
cmd_smoke(int argc, char **argv, const struct command *cmd)
{
	struct resolve_opts ro = { 0 };
	struct smoke_request rq = { .gpu = -1 };
	const char *out = NULL, *manifest = NULL;
	unsigned timeout = 300;
	int json = 0, ret = EXIT_USAGE, rc;
	struct strvec gpu_set = STRVEC_INIT, gpu_list = STRVEC_INIT;
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
		OPT_LIST(0, "gpu", &gpu_set, "N|LIST|all",
			 "the GPU to use (CUDA_VISIBLE_DEVICES=N); several (0,1) or all: each "
			 "checked, then NCCL, P2P and the link across them"),
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
	if (smoke_gpus_parse(&gpu_set, &rq, &gpu_list) < 0)
		goto out;
	rq.gpus = &gpu_list;
	rq.timeout = timeout;
	rq.profile = ro.profile ? &p : NULL;
	if (manifest && !rq.profile) {
		rq.ptx_none = manifest_ptx_none(manifest);
		rq.cuda_off = manifest_cuda_off(manifest);
	}
	if (rq.all_gpus || gpu_list.n)
		rc = smoke_target_multi(&rq, &sr, &result);
	else
		rc = smoke_target(&rq, &sr, &result);
	if (rc < 0) {
		ret = is_regular(rq.target) || is_dir(rq.target) ? EXIT_FAIL : EXIT_USAGE;
		goto out;
	}
	ret = rc == SMOKE_NO_GPU ? EXIT_NO_GPU : rc ? EXIT_FAIL : EXIT_OK;
	if (!json && json_get(result, "gpus"))
		report_smoke_multi(result, stdout);
	else if (!json)
		report_smoke(&sr, stdout);
	report_smoke_verdict(rc, &sr, result);
	if (json)
		json_print_stdout(result);
	if (out) {
		char *text = json_print(result, 1);

		/* Not the wheel's failure: an output that cannot be written (diag.h). */
		if (write_file_atomic(out, text, strlen(text)) < 0)
			ret = EXIT_USAGE;
		free(text);
	}
	/* Nothing ran on a GPU: a manifest's runtime (maybe a GPU machine's) stays as it was. */
	if (manifest && rc == SMOKE_NO_GPU) {
		note("'%s' was not changed: without a GPU there are no runtime results to record",
		     manifest);
	} else if (manifest) {
		if (smoke_manifest_merge(manifest, result) < 0)
			ret = EXIT_USAGE;
		result = NULL;
	}
out:
	json_free(result);
	smoke_result_release(&sr);
	profile_release(&p);
	strvec_clear(&gpu_set);
	strvec_clear(&gpu_list);
	return ret;
}
