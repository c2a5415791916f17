#include <stdio.h>
#include <string.h>

#include "build.h"
#include "cmd.h"
#include "diag.h"
#include "plan.h"
#include "strvec.h"
#include "util.h"

static const char usage_text[] =
	"usage: bwbuild build --profile NAME [--out DIR] [--work DIR] [--until STEP]\n"
	"                     [--mem-budget SIZE] [--set KEY=VALUE]... [--strict]\n"
	"                     [--source PATH | --force] [--fetch]\n"
	"       bwbuild --profile NAME [...]\n"
	"\n"
	"Fetch the profile's source, configure and compile it, make a wheel, verify it\n"
	"against the profile and write its manifest next to it.\n"
	"\n"
	"  --profile NAME     a name from profiles/ or $BWBUILD_PROFILE_PATH, or a .yaml path\n"
	"  --out DIR          where the wheel and manifest go (default out/<profile>)\n"
	"  --work DIR         work tree: checkout, logs, build state (default work/<profile>)\n"
	"  --until STEP       stop after fetch, configure, compile, wheel, verify or publish\n"
	"  --mem-budget SIZE  memory the compile may use, e.g. 16G (default: measured)\n"
	"  --set KEY=VALUE    override a profile value, dotted (features.flash_attention=off,\n"
	"                     cuda.archs=10.0;12.0+PTX); applied after every profile file\n"
	"  --strict           treat the knowledge base's warnings as errors\n"
	"  --source PATH      build this local tree as it is: no checkout, no patches; its\n"
	"                     commit and local changes go into the manifest\n"
	"  --force            discard local changes in the work tree's checkout (refused\n"
	"                     and listed otherwise)\n"
	"  --fetch            fetch the cached mirrors even when they have the ref (a\n"
	"                     branch that moved); otherwise a cached ref needs no network\n"
	"\n"
	"Mirrors are cached in $BWBUILD_CACHE_DIR, else $XDG_CACHE_HOME/bwbuild, else\n"
	"~/.cache/bwbuild.\n";

int
cmd_build(int argc, char **argv)
{
	/* static: the --set values live as long as the command (and stay reachable) */
	static struct strvec sets = STRVEC_INIT;
	struct build_opts o = { .until = STEP_PUBLISH, .r.sets = &sets };
	int i;

	for (i = 1; i < argc; i++) {
		const char *v;
		int r;

		if (opt_flag(argv[i], "--help") || opt_flag(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		if ((r = opt_profile(argc, argv, &i, &o, &sets)) ||
		    (r = opt_value(argc, argv, &i, "--out", &o.r.out_dir))) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		if (opt_flag(argv[i], "--force") || opt_flag(argv[i], "--fetch")) {
			*(argv[i][4] == 'r' ? &o.force : &o.refresh) = 1;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--source", &o.r.source_dir))) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--until", &v))) {
			if (r < 0)
				return EXIT_USAGE;
			o.until = step_from_name(v);
			if (o.until < 0) {
				error("unknown step '%s' for --until (fetch, configure, compile, wheel, "
				      "verify, publish)", v);
				return EXIT_USAGE;
			}
			continue;
		}
		if ((r = opt_value(argc, argv, &i, "--mem-budget", &v))) {
			if (r < 0)
				return EXIT_USAGE;
			if (parse_size(v, &o.r.mem_budget) < 0 || !o.r.mem_budget) {
				error("'%s' is not a memory size for --mem-budget (e.g. 16G, 512M)", v);
				return EXIT_USAGE;
			}
			continue;
		}
		return opt_unknown("build", argv[i]);
	}
	if (o.r.source_dir && (o.force || o.refresh)) {
		error("--source builds a tree as it is; --force and --fetch are for the checkout "
		      "bwbuild makes");
		return EXIT_USAGE;
	}
	if (!o.r.profile) {
		error("no profile given; use --profile NAME (see 'bwbuild build --help')");
		return EXIT_USAGE;
	}
	return build_run(&o);
}
