#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "build.h"
#include "resolve.h"
#include "cmd.h"
#include "diag.h"
#include "doctor.h"
#include "host.h"
#include "json.h"
#include "plan.h"
#include "profile.h"
#include "strvec.h"

static const char usage_text[] =
	"usage: bwbuild doctor [--profile NAME] [--set KEY=VALUE]... [--work DIR] [--json]\n"
	"\n"
	"A preflight checklist before a long build: nvcc and the archs it can build,\n"
	"the host gcc against that nvcc's range, cmake (>= 3.27 for real PyTorch trees)\n"
	"and ninja, Python with setuptools/wheel (and 'build' for pyproject trees),\n"
	"cuDNN and NCCL when the profile turns them on, free disk, the memory budget,\n"
	"and, where nvidia-smi finds GPUs, the driver (>= 570) and whether the profile's\n"
	"archs run on each. Exit 1 when something required is missing.\n";

int
cmd_doctor(int argc, char **argv)
{
	static struct strvec sets = STRVEC_INIT;
	struct build_opts o = { .until = STEP_PUBLISH, .r.sets = &sets };
	struct profile p;
	struct plan pl;
	struct doctor d;
	const char *cuda_home;
	int json = 0, i, ret;

	for (i = 1; i < argc; i++) {
		int r;

		if (opt_flag(argv[i], "--help") || opt_flag(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		if (opt_flag(argv[i], "--json")) {
			json = 1;
			continue;
		}
		if ((r = opt_profile(argc, argv, &i, &o, &sets))) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		return opt_unknown("doctor", argv[i]);
	}
	memset(&p, 0, sizeof(p));
	memset(&pl, 0, sizeof(pl));
	if (o.r.profile && (resolve_profile(&p, &o.r) < 0 || resolve_plan(&pl, &p, &o.r) < 0)) {
		plan_release(&pl);
		profile_release(&p);
		return EXIT_USAGE;
	}
	cuda_home = o.r.profile ? pl.cuda_home : getenv("CUDA_HOME");
	if (!cuda_home || !*cuda_home)
		cuda_home = "/usr/local/cuda";
	doctor_run(&d, o.r.profile ? &p : NULL, o.r.profile ? &pl : NULL, cuda_home,
		   o.r.profile ? pl.work_dir : o.r.work_dir ? o.r.work_dir : ".");
	if (json) {
		struct json *j = doctor_json(&d);
		json_print_stdout(j);
		json_free(j);
	} else {
		struct buf b = BUF_INIT;

		doctor_format(&d, &b);
		fputs(b.s, stdout);
		printf("%s\n", doctor_failed(&d) ? "not ready: fix the ❌ items above" :
			       "ready to build");
		buf_release(&b);
	}
	ret = doctor_failed(&d) ? EXIT_FAIL : EXIT_OK;
	doctor_release(&d);
	plan_release(&pl);
	profile_release(&p);
	return ret;
}
