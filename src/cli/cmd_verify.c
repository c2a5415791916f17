#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wheel/against.h"
#include "cli/cmd.h"
#include "profile/compat.h"
#include "core/diag.h"
#include "profile/profview.h"
#include "profile/profile.h"
#include "cli/report.h"
#include "pipeline/resolve.h"
#include "core/util.h"
#include "wheel/cudalibs.h"
#include "wheel/verify.h"

static const char about[] =
	"Check a wheel the way installers do not: RECORD hashes and sizes against the\n"
	"decompressed bytes, WHEEL tags, member names, zip hygiene; per ELF library its\n"
	"SASS and PTX targets (.nv_fatbin), needed sonames, an $ORIGIN-based RUNPATH,\n"
	"its machine (x86-64, aarch64) and an extension's suffix against the platform\n"
	"tag, and the glibc it needs against the manylinux tag, by that architecture's\n"
	"policy (manylinux1 and manylinux2010 are x86_64 only; musllinux takes no\n"
	"glibc library). With --profile, every CUDA library must carry each arch of the\n"
	"profile. Exit 1 on any failure.\n";

int
cmd_verify(int argc, char **argv, const struct command *cmd)
{
	struct resolve_opts o = { 0 };
	struct wheel_expect ex = { .sass = NULL };
	struct wheel_exception *exc = NULL;
	struct gpu_list gpus = GPU_LIST_INIT;
	struct strvec sass = STRVEC_INIT, ptx = STRVEC_INIT;
	int json = 0, ret = EXIT_USAGE;
	const char *wheel = NULL, *against = NULL;
	struct torch_ref torch;
	int have_torch = 0;
	const struct option options[] = {
		OPT_ARG("wheel", &wheel, "WHEEL", "a .whl, or an installed package's directory"),
		OPT_PROFILE(&o.profile),
		OPT_GPU(0, "target-gpu", &gpus, "sm_XY",
			"whether every CUDA library runs on that GPU (SASS of its major and a "
			"lower or equal minor, 'a' SASS only on that GPU, PTX JIT-compiled "
			"forward); repeatable"),
		OPT_STRING(0, "against", &against, "TORCH",
			   "an extension wheel checked against the torch it was built for (its "
			   "wheel, or site-packages/torch): torch's libraries only with "
			   "'Requires-Dist: torch==<its version>', every c10/at/torch symbol "
			   "exported by it, the same C++ ABI and CUDA major"),
		OPT_FLAG(0, "deep", &ex.deep, "decompress every fatbin entry, check each cubin"),
		OPT_UNSIGNED(0, "threads", &ex.threads, "N", 1, 1024,
			     "hash the members on N threads (default: every CPU)"),
		OPT_FLAG(0, "json", &json, "print the full report (the manifest)"),
		OPT_END(),
	};
	struct wheel_report r;
	struct profile p;

	memset(&p, 0, sizeof(p));
	if (cmd_parse(cmd, about, options, argc, argv, &ret) ||
	    (o.profile && resolve_profile(&p, &o) < 0))
		goto out;
	if (o.profile) {
		profile_targets(&p, &sass, &ptx);
		ex.sass = &sass;
		ex.ptx = &ptx;
		ex.exceptions = exc = plan_exceptions(&p, &ex.nexceptions);
		ex.cxx11_abi = p.cxx11_abi == TRI_OFF ? 2 : 1;
		ex.cuda_libs = cuda_libs_form_of(&p);
	}
	if (against) {
		if (torch_ref_load(&torch, against) < 0) {
			ret = is_regular(against) || is_dir(against) ? EXIT_FAIL : EXIT_USAGE;
			goto out;
		}
		have_torch = 1;
	}
	/* The C++ ABI to agree with is torch's, unless the profile says otherwise. */
	if ((have_torch ? against_verify(&r, wheel, &ex, &torch) : wheel_verify(&r, wheel, &ex)) < 0) {
		/* A file that is there but is no readable wheel failed; a missing one is usage. */
		ret = is_regular(wheel) || is_dir(wheel) ? EXIT_FAIL : EXIT_USAGE;
		goto out;
	}
	/* The GPUs first: what they find is in the report's errors, so never "ok" then "NO". */
	ret = report_gpus(&r, &gpus, json ? NULL : stdout) || r.errors.n ? EXIT_FAIL : EXIT_OK;
	if (!json)
		report_wheel(&r, ex.deep, stdout);
	if (json)
		report_wheel_json(&r, o.profile ? &p : NULL);
	wheel_report_release(&r);
out:
	if (have_torch)
		torch_ref_release(&torch);
	free(exc);
	gpu_list_release(&gpus);
	strvec_clear(&sass);
	strvec_clear(&ptx);
	profile_release(&p);
	return ret;
}
