#include <string.h>

#include "cli/cmd.h"
#include "core/diag.h"
#include "core/strvec.h"
#include "pipeline/build.h"

static const char about[] =
	"Write the profile's source as one file for a machine that reaches no repository:\n"
	"the checkout at the profile's ref with its patches, configured first (as\n"
	"'bwbuild build --until configure' does), then packed as tar.zst with what the\n"
	"configured build never names left out (submodules, docs/, benchmarks/ ...;\n"
	"their licence files kept). Its first member, bwbuild-bundle.json, says what it\n"
	"is: repository, ref, commits, patches, what was left out and why. Build it\n"
	"anywhere with 'bwbuild build --profile P --bundle FILE'.\n";

int
cmd_bundle(int argc, char **argv, const struct command *cmd)
{
	/* static: the --set and --keep values live as long as the command */
	static struct strvec sets = STRVEC_INIT, keep = STRVEC_INIT;
	const char *out = NULL;
	struct build_opts o = { .until = STEP_CONFIGURE, .r.sets = &sets };
	const struct option options[] = {
		OPT_PROFILE_OPTIONS(&o.r, &sets),
		OPT_STRING('o', "output", &out, "FILE", "the bundle to write (required; .tar.zst)"),
		OPT_LIST(0, "keep", &keep, "PATH",
			 "keep this submodule or folder although the build configured here never "
			 "names it (a feature this machine cannot configure, e.g. cuDNN's "
			 "third_party/cudnn_frontend); repeatable"),
		OPT_FLAG(0, "no-preflight", &o.no_preflight,
			 "skip doctor's checks before the configure"),
		OPT_END(),
	};
	int ret;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	if (!out) {
		error("bundle: give the file to write with -o FILE");
		return EXIT_USAGE;
	}
	if (o.r.source_dir) {
		error("a bundle is made from the profile's own checkout; leave out --source");
		return EXIT_USAGE;
	}
	ret = build_run(&o);
	if (ret != EXIT_OK)
		return ret;
	return bundle_make(&o, out, &keep);
}
