#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "diag.h"
#include "json.h"
#include "manifest.h"
#include "util.h"
#include "wheel.h"

static const char usage_text[] =
	"usage: bwbuild manifest WHEEL [-o FILE]\n"
	"\n"
	"Describe what a wheel really contains as JSON (bwbuild-manifest/1): its tags\n"
	"and hash, each library's SASS and PTX targets, the features compiled in (from\n"
	"the build-settings header), version.py, and the verification result.\n"
	"  -o FILE   write to FILE (atomically) instead of standard output\n";

int
cmd_manifest(int argc, char **argv)
{
	const char *wheel = NULL, *out = NULL;
	struct wheel_report r;
	struct manifest_input mi;
	struct json *m;
	char *s;
	int i, ret = EXIT_OK;

	for (i = 1; i < argc; i++) {
		int rc;

		if (opt_flag(argv[i], "--help") || opt_flag(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		if ((rc = opt_value(argc, argv, &i, "-o", &out)) ||
		    (rc = opt_value(argc, argv, &i, "--output", &out))) {
			if (rc < 0)
				return EXIT_USAGE;
			continue;
		}
		if (argv[i][0] != '-' && !wheel) {
			wheel = argv[i];
			continue;
		}
		return opt_unknown("manifest", argv[i]);
	}
	if (!wheel) {
		error("no wheel given (see 'bwbuild manifest --help')");
		return EXIT_USAGE;
	}
	if (wheel_verify(&r, wheel, NULL) < 0)
		return EXIT_USAGE;
	memset(&mi, 0, sizeof(mi));
	mi.wheel = &r;
	m = manifest_make(&mi);
	s = json_print(m, 1);
	if (out) {
		if (write_file_atomic(out, s, strlen(s)) < 0)
			ret = EXIT_FAIL;
	} else {
		fputs(s, stdout);
	}
	free(s);
	json_free(m);
	wheel_report_release(&r);
	return ret;
}
