#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "cmd.h"
#include "diag.h"
#include "host.h"
#include "json.h"
#include "manifest.h"
#include "plan.h"
#include "profile.h"
#include "wheel.h"

static const char usage_text[] =
	"usage: bwbuild verify WHEEL [--profile NAME] [--json]\n"
	"\n"
	"Check a wheel the way installers do not: every RECORD hash and size against\n"
	"the decompressed bytes, the WHEEL tags against the file name, member names and\n"
	"zip hygiene; list each ELF library's SASS and PTX targets from its .nv_fatbin\n"
	"section. With --profile, every CUDA library must carry each arch of the\n"
	"profile. --json prints the full report (the manifest). Exit 1 on any failure.\n";

int
cmd_verify(int argc, char **argv)
{
	const char *wheel = NULL, *profile = NULL;
	struct wheel_report r;
	struct profile p;
	struct plan pl;
	struct host h;
	int json = 0, i, ret;
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
		if ((rc = opt_value(argc, argv, &i, "--profile", &profile))) {
			if (rc < 0)
				return EXIT_USAGE;
			continue;
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
	memset(&pl, 0, sizeof(pl));
	if (profile) {
		struct build_opts o = { profile, "/nonexistent", "/nonexistent", STEP_VERIFY, 0 };

		if (build_prepare(&p, &pl, &h, &o) < 0) {
			plan_release(&pl);
			profile_release(&p);
			return EXIT_USAGE;
		}
	}
	{
		struct wheel_expect ex = { &pl.sass, &pl.ptx };

		if (wheel_verify(&r, wheel, profile ? &ex : NULL) < 0) {
			plan_release(&pl);
			profile_release(&p);
			return EXIT_USAGE;
		}
	}
	if (json) {
		struct manifest_input mi = { &r, profile ? &p : NULL, NULL, NULL, NULL, NULL };
		struct json *m = manifest_make(&mi);
		char *s = json_print(m, 1);

		fputs(s, stdout);
		free(s);
		json_free(m);
	} else {
		for (k = 0; k < r.nlibs; k++) {
			const struct wheel_lib *l = &r.libs[k];
			size_t j;

			printf("%s:", l->path);
			if (!l->has_fatbin) {
				printf(" no CUDA code\n");
				continue;
			}
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
	ret = r.errors.n ? EXIT_FAIL : EXIT_OK;
	wheel_report_release(&r);
	plan_release(&pl);
	profile_release(&p);
	return ret;
}
