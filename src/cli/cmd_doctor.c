#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "pipeline/doctor.h"
#include "pipeline/plan.h"
#include "profile/profile.h"
#include "cli/report.h"
#include "pipeline/resolve.h"
#include "pipeline/build.h"
#include "wheel/against.h"
#include "core/strvec.h"

static const char about[] =
	"A preflight checklist before a long build: the machine against the profile's\n"
	"build.host_arch (aarch64 profiles build on Grace and DGX Spark hosts), nvcc and\n"
	"the archs it can build, the host gcc against that nvcc's range, cmake (>= 3.27\n"
	"for real PyTorch trees; CMake 4 against CMakeLists.txt files below 3.5) and\n"
	"ninja, Python with setuptools/wheel (and 'build' for pyproject trees), what the\n"
	"tree's build needs of it (setuptools >= 70.1 for PyTorch >= 2.9, and the prefix\n"
	"that provides it) and NumPy where the build uses it, the BLAS (cmake.BLAS, else\n"
	"PyTorch's MKL, which is x86-64 only), a --source tree's patches, cuDNN and NCCL\n"
	"when the profile turns them on (in the machine's own multiarch and CUDA\n"
	"targets/ directories, or their *_INCLUDE_DIR, *_LIB_DIR), free disk, the memory\n"
	"budget, and, where nvidia-smi finds GPUs, the driver (>= 570) and whether the\n"
	"profile's archs run on each; without --profile, only the toolchain. Exit 1 when\n"
	"something required is missing.\n";

int
cmd_doctor(int argc, char **argv, const struct command *cmd)
{
	static struct strvec sets = STRVEC_INIT;
	const char *remote = NULL;
	struct resolve_opts o = { .sets = &sets };
	int json = 0, ret = EXIT_USAGE;
	const struct option options[] = {
		OPT_PROFILE_OPTIONS(&o, &sets),
		OPT_REMOTE(&remote),
		OPT_STRING(0, "source", &o.source_dir, "PATH",
			   "check against this local tree (its imports, its CMake minimum, the "
			   "patches its release needs, which it must have: it is built as it is); "
			   "default: the work tree's checkout when there is one"),
		OPT_FLAG(0, "json", &json, "print the checklist as JSON"),
		OPT_END(),
	};
	struct buf text = BUF_INIT;
	struct profile p;
	struct plan pl;
	struct doctor d;
	struct torch_ref torch;
	struct buf where = BUF_INIT;

	memset(&p, 0, sizeof(p));
	memset(&pl, 0, sizeof(pl));
	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		goto out;
	if (remote)
		strvec_pushf(&sets, "build.remote=%s", remote);
	/* An extension's torch is checked as the build checks it: what it refuses, doctor does (exit 2). */
	if ((o.profile && (resolve_profile(&p, &o) < 0 || resolve_plan(&pl, &p, &o) < 0)))
		goto out;
	if (o.profile && profile_is_extension(&p)) {
		if (extension_torch(&p, &torch, &where) < 0)
			goto out;
		torch_ref_release(&torch);
	}
	doctor_run(&d, o.profile ? &p : NULL, o.profile ? &pl : NULL, resolve_cuda_home(&p),
		   o.profile ? pl.work_dir : o.work_dir ? o.work_dir : ".");
	if (json) {
		report_json(doctor_json(&d));
	} else {
		doctor_format(&d, &text);
		diag_printf(stdout, "%s%s\n", text.s,
			    doctor_failed(&d) ? "not ready: fix the ❌ items above" : "ready to build");
	}
	ret = doctor_failed(&d) ? EXIT_FAIL : EXIT_OK;
	buf_release(&text);
	doctor_release(&d);
out:
	buf_release(&where);
	plan_release(&pl);
	profile_release(&p);
	return ret;
}
