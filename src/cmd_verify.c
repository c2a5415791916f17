#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "buf.h"
#include "cmd.h"
#include "compat.h"
#include "util.h"
#include "diag.h"
#include "host.h"
#include "json.h"
#include "manifest.h"
#include "plan.h"
#include "profile.h"
#include "verify.h"

static const char usage_text[] =
	"usage: bwbuild verify WHEEL [--profile NAME] [--target-gpu sm_XY]... [--deep]\n"
	"                      [--threads N] [--json]\n"
	"\n"
	"Check a wheel the way installers do not: every RECORD hash and size against\n"
	"the decompressed bytes, the WHEEL tags against the file name, member names and\n"
	"zip hygiene; list each ELF library's SASS and PTX targets from its .nv_fatbin\n"
	"section. With --profile, every CUDA library must carry each arch of the\n"
	"profile. --target-gpu sm_121 (repeatable) answers whether every CUDA library\n"
	"can run on that GPU by NVIDIA's rules (SASS of the same major and an equal or\n"
	"lower minor, 'a' SASS only on its exact GPU, PTX JIT-compiled forward) and\n"
	"names each library that cannot. Each library's needed sonames must be in the\n"
	"wheel or on the manylinux or CUDA allow-lists, RUNPATH must be $ORIGIN-based,\n"
	"and a manylinux platform tag must not claim an older glibc than the libraries\n"
	"need. --deep decompresses every fatbin entry and checks each cubin's header.\n"
	"Members are hashed on --threads N threads (default: every CPU).\n"
	"--json prints the full report (the manifest).\n"
	"Exit 1 on any failure.\n";

int
cmd_verify(int argc, char **argv)
{
	const char *wheel = NULL, *profile = NULL;
	struct wheel_report r;
	struct profile p;
	struct strvec sass, ptx;
	int json = 0, deep = 0, i, ret, gpus[32], ngpus = 0, gpu_fail = 0;
	unsigned threads = 0;
	size_t k;

	for (i = 1; i < argc; i++) {
		int rc;

		if (opt_flag(argv[i], "--help") || opt_flag(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		if (opt_flag(argv[i], "--json")) {
			json = 1;
			continue;
		}
		if (opt_flag(argv[i], "--deep")) {
			deep = 1;
			continue;
		}
		{
			const char *t;
			char *end;

			if ((rc = opt_value(argc, argv, &i, "--threads", &t))) {
				unsigned long v;

				if (rc < 0)
					return EXIT_USAGE;
				v = strtoul(t, &end, 10);
				if (*end || !*t || v < 1 || v > 1024) {
					error("--threads wants a number from 1 to 1024, not '%s'", t);
					return EXIT_USAGE;
				}
				threads = (unsigned)v;
				continue;
			}
		}
		if ((rc = opt_value(argc, argv, &i, "--profile", &profile))) {
			if (rc < 0)
				return EXIT_USAGE;
			continue;
		}
		{
			const char *g;

			if ((rc = opt_value(argc, argv, &i, "--target-gpu", &g))) {
				if (rc < 0)
					return EXIT_USAGE;
				if (ngpus == (int)ARRAY_SIZE(gpus) || gpu_parse(g, &gpus[ngpus]) < 0) {
					error("'%s' is not a GPU for --target-gpu (e.g. sm_121 or 12.1)", g);
					return EXIT_USAGE;
				}
				ngpus++;
				continue;
			}
		}
		if (argv[i][0] != '-' && !wheel) {
			wheel = argv[i];
			continue;
		}
		return opt_unknown("verify", argv[i]);
	}
	if (!wheel) {
		error("no wheel given (see 'bwbuild verify --help')");
		return EXIT_USAGE;
	}
	memset(&p, 0, sizeof(p));
	strvec_init(&sass);
	strvec_init(&ptx);
	if (profile) {
		struct resolve_opts o = { .profile = profile };

		if (resolve_profile(&p, &o) < 0) {
			profile_release(&p);
			return EXIT_USAGE;
		}
		plan_targets(&p, &sass, &ptx);
	}
	{
		struct wheel_expect ex = { profile ? &sass : NULL, profile ? &ptx : NULL, deep,
					   threads };

		if (wheel_verify(&r, wheel, &ex) < 0) {
			profile_release(&p);
			return EXIT_USAGE;
		}
		plan_targets(&p, &sass, &ptx);
	}
	if (json) {
		struct manifest_input mi = { &r, profile ? &p : NULL, NULL, NULL, NULL, NULL };
		struct json *m = manifest_make(&mi);
		json_print_stdout(m);
		json_free(m);
	} else {
		for (k = 0; k < r.nlibs; k++) {
			const struct wheel_lib *l = &r.libs[k];
			size_t j;

			printf("%s:", l->path);
			if (l->ml.min_glibc)
				printf(" manylinux_2_%u", l->ml.min_glibc);
			else if (*l->ml.blocker)
				printf(" no manylinux (%s)", l->ml.blocker);
			if (!l->has_fatbin) {
				printf("; no CUDA code\n");
				continue;
			}
			printf(";");
			printf(" SASS");
			for (j = 0; j < l->sass.n; j++)
				printf(" %s", l->sass.v[j]);
			printf("; PTX");
			for (j = 0; j < l->ptx.n; j++)
				printf(" %s", l->ptx.v[j]);
			if (!l->ptx.n)
				printf(" none");
			if (l->rel_sass.n || l->rel_ptx.n)
				printf(" (+ relocatable code)");
			if (deep)
				printf(" [%u entries decompressed and checked]", l->deep_checked);
			printf("\n");
		}
		for (k = 0; k < r.notes.n; k++)
			note("%s", r.notes.v[k]);
		for (k = 0; k < r.errors.n; k++)
			error("%s", r.errors.v[k]);
		if (!r.errors.n)
			printf("ok: %s (%zu members, every RECORD hash matches)\n", r.filename, r.members);
		else
			printf("FAILED: %s (%zu problem%s)\n", r.filename, r.errors.n,
			       r.errors.n == 1 ? "" : "s");
	}
	for (i = 0; i < ngpus; i++) {
		int cuda_libs = 0, bad = 0;

		for (k = 0; k < r.nlibs; k++) {
			struct buf how = BUF_INIT;
			const struct wheel_lib *l = &r.libs[k];

			if (!l->has_fatbin)
				continue;
			cuda_libs++;
			if (library_runs_on(&l->sass, &l->ptx, gpus[i], &how) < 0) {
				buf_addstr(&how, "SASS ");
				strvec_join(&l->sass, " ", &how);
				buf_addstr(&how, l->ptx.n ? "; PTX " : "; no PTX");
				strvec_join(&l->ptx, " ", &how);
				error("'%s' has no code that runs on sm_%d (it has %s)", l->path, gpus[i],
				      how.s);
				bad++;
			} else if (!json) {
				printf("sm_%d: %s runs (%s)\n", gpus[i], l->path, how.s);
			}
			buf_release(&how);
		}
		if (!json)
			printf("sm_%d: %s\n", gpus[i], !cuda_libs ? "no CUDA libraries in this wheel" :
			       bad ? "NO: the wheel would fail with 'no kernel image is available'" :
				     "yes, every CUDA library runs");
		gpu_fail |= bad > 0;
	}
	ret = r.errors.n || gpu_fail ? EXIT_FAIL : EXIT_OK;
	wheel_report_release(&r);
	strvec_clear(&sass);
	strvec_clear(&ptx);
	profile_release(&p);
	return ret;
}
