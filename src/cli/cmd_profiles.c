#include <stdio.h>

#include "core/buf.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "core/json.h"
#include "cli/report.h"

static const char about[] =
	"List the profiles 'bwbuild --profile NAME' can find, in search order:\n"
	"profiles/ here, bwbuild's own profiles/, then each directory of\n"
	"$BWBUILD_PROFILE_PATH. A name found twice is taken from the first place;\n"
	"later ones are marked shadowed. Each is checked as 'bwbuild plan' checks it\n"
	"(keys, values, the knowledge base, an extension's torch profile); an\n"
	"extension whose torch profile has no build here yet is valid, but plan and\n"
	"build wait for that build: the list says so (waits).\n";

int
cmd_profiles(int argc, char **argv, const struct command *cmd)
{
	int json = 0, ret;
	const struct option options[] = {
		OPT_FLAG(0, "json", &json,
			 "print them as JSON: name, path, description, kind (torch or extension), "
			 "torch (as loaded: a path), torch_name (as --profile takes it: sm120), archs, host_arch (build.host_arch, or null), valid, problems, errors, "
			 "warnings (as plan prints them), shadowed, waits (what plan and build wait "
			 "for: an extension's torch profile not built here yet; else null)"),
		OPT_END(),
	};
	struct buf text = BUF_INIT;
	struct json *list;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	list = report_profiles();
	if (json) {
		json_print_stdout(list);
	} else {
		report_profiles_format(list, &text);
		diag_write(stdout, text.s, text.len);
	}
	buf_release(&text);
	json_free(list);
	return EXIT_OK;
}
