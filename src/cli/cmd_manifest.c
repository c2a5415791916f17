#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "core/json.h"
#include "wheel/manifest.h"
#include "cli/report.h"
#include "core/safefile.h"
#include "core/util.h"

static const char about[] =
	"Describe what a wheel really contains as JSON (bwbuild-manifest/1): its tags\n"
	"and hash, each library's SASS and PTX targets, needed libraries and manylinux\n"
	"policy, the features compiled in (from the build-settings header), version.py,\n"
	"and the verification result. Docs: docs/manifest-format.md.\n";

int
cmd_manifest(int argc, char **argv, const struct command *cmd)
{
	const char *path = NULL, *out = NULL, *format = "json", *against = NULL;
	const struct option options[] = {
		OPT_ARG("wheel", &path, "WHEEL|PKGDIR|MANIFEST.json",
			"a wheel; an installed package such as site-packages/torch (with its "
			".dist-info beside it); or a manifest written before, rendered again"),
		OPT_CHOICE(0, "format", &format, "json|md",
			   "md: a Markdown feature table (with check, cross and warning marks) instead of JSON"),
		OPT_STRING(0, "against", &against, "TORCH",
			   "an extension wheel: verified against the torch it was built for (its "
			   "wheel, or site-packages/torch), which the manifest records"),
		OPT_STRING('o', "output", &out, "FILE",
			   "write to FILE (atomically) instead of standard output"),
		OPT_END(),
	};
	struct buf text = BUF_INIT;
	struct json *m;
	int ret = EXIT_OK;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	if (!(m = report_manifest_against(path, against)))
		return EXIT_USAGE;
	if (!strcmp(format, "md")) {
		manifest_markdown(m, &text);
	} else {
		char *s = json_print(m, 1);

		buf_addstr(&text, s);
		free(s);
	}
	/* An output that cannot be written is no verdict on the wheel (diag.h). */
	if (out && write_file_atomic(out, text.s, text.len) < 0)
		ret = EXIT_USAGE;
	else if (!out)
		diag_write(stdout, text.s, text.len);
	buf_release(&text);
	json_free(m);
	return ret;
}
