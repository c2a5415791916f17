#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "build.h"
#include "resolve.h"
#include "cmd.h"
#include "diag.h"
#include "host.h"
#include "json.h"
#include "knowledge.h"
#include "patch.h"
#include "plan.h"
#include "profile.h"
#include "strvec.h"
#include "util.h"

static const char usage_text[] =
	"usage: bwbuild plan --profile NAME [--set KEY=VALUE]... [--strict] [--json]\n"
	"                    [--out DIR] [--work DIR] [--mem-budget SIZE]\n"
	"\n"
	"Print the resolved profile, the exact environment and CMake cache entries the\n"
	"build will use, the job count with its arithmetic, and the steps. Touches\n"
	"nothing. --set KEY=VALUE overrides a profile value (dotted key, applied last);\n"
	"--strict makes knowledge-base warnings (e.g. no +PTX on the newest arch) errors.\n";

/* The patches the profile's release will get, from patches/<project>/index.yaml. */
static int
print_patches(const struct profile *p)
{
	struct patch_set ps;
	unsigned v = kb_parse_version(p->source_ref.str);
	size_t i, n = 0;

	if (patch_set_load(&ps, p->source_patches.str) < 0) {
		patch_set_release(&ps);
		return -1;
	}
	printf("\npatches (%s, for %s)\n", ps.index, v ? p->source_ref.str : "an unknown release: "
	       "only patches without 'when'");
	for (i = 0; i < ps.n; i++) {
		if (!patch_selected(&ps.v[i], v))
			continue;
		printf("  %s  (when %s)  %.12s\n", ps.v[i].file, ps.v[i].when ? ps.v[i].when : "always",
		       ps.v[i].sha256);
		n++;
	}
	if (!n)
		printf("  none for this release\n");
	patch_set_release(&ps);
	return 0;
}

int
cmd_plan(int argc, char **argv)
{
	/* static: the --set values live as long as the command (and stay reachable) */
	static struct strvec sets = STRVEC_INIT;
	struct build_opts o = { .until = STEP_PUBLISH, .r.sets = &sets };
	struct profile p;
	struct plan pl;
	int json = 0, i, ret = EXIT_OK;

	for (i = 1; i < argc; i++) {
		const char *v;
		int r;

		if (opt_flag(argv[i], "--help") || opt_flag(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		if (opt_flag(argv[i], "--json")) {
			json = 1;
			continue;
		}
		if ((r = opt_profile(argc, argv, &i, &o, &sets)) ||
		    (r = opt_value(argc, argv, &i, "--out", &o.r.out_dir))) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--mem-budget", &v))) {
			if (r < 0 || parse_size(v, &o.r.mem_budget) < 0 || !o.r.mem_budget) {
				if (r > 0)
					error("'%s' is not a memory size for --mem-budget", v);
				return EXIT_USAGE;
			}
			continue;
		}
		return opt_unknown("plan", argv[i]);
	}
	if (!o.r.profile) {
		error("no profile given; use --profile NAME (see 'bwbuild plan --help')");
		return EXIT_USAGE;
	}
	memset(&p, 0, sizeof(p));
	memset(&pl, 0, sizeof(pl));
	if (resolve_profile(&p, &o.r) < 0 || resolve_plan(&pl, &p, &o.r) < 0) {
		ret = EXIT_USAGE;
	} else if (json) {
		struct json *j = plan_json(&pl);
		json_print_stdout(j);
		json_free(j);
	} else {
		struct buf b = BUF_INIT;

		plan_format(&pl, &b);
		fputs(b.s, stdout);
		buf_release(&b);
		if (p.source_patches.str && *p.source_patches.str && print_patches(&p) < 0)
			ret = EXIT_USAGE;
	}
	plan_release(&pl);
	profile_release(&p);
	return ret;
}
