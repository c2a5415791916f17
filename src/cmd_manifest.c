#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "buf.h"
#include "diag.h"
#include "json.h"
#include "manifest.h"
#include "util.h"
#include "verify.h"

static const char usage_text[] =
	"usage: bwbuild manifest WHEEL|PKGDIR|MANIFEST.json [--format json|md] [-o FILE]\n"
	"\n"
	"Describe what a wheel really contains as JSON (bwbuild-manifest/1): its tags\n"
	"and hash, each library's SASS and PTX targets, needed libraries and manylinux\n"
	"policy, the features compiled in (from the build-settings header), version.py,\n"
	"and the verification result. PKGDIR is an installed package such as\n"
	"site-packages/torch (with its .dist-info beside it). A manifest written before\n"
	"can be rendered again.\n"
	"  --format md  a Markdown feature table (✅/❌/⚠️) instead of JSON\n"
	"  -o FILE      write to FILE (atomically) instead of standard output\n"
	"Docs: docs/manifest-format.md.\n";

int
cmd_manifest(int argc, char **argv)
{
	const char *wheel = NULL, *out = NULL, *format = "json";
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
		if ((rc = opt_value(argc, argv, &i, "--format", &format))) {
			if (rc < 0)
				return EXIT_USAGE;
			if (strcmp(format, "json") && strcmp(format, "md")) {
				error("--format is json or md, not '%s'", format);
				return EXIT_USAGE;
			}
			continue;
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
	memset(&r, 0, sizeof(r));
	if (ends_with(wheel, ".json")) {
		struct buf text = BUF_INIT, why = BUF_INIT;

		if (read_file(&text, wheel) < 0)
			return EXIT_USAGE;
		m = json_parse(text.s, text.len, &why);
		if (!m)
			error("%s: %s", wheel, why.s);
		buf_release(&text);
		buf_release(&why);
		if (!m)
			return EXIT_USAGE;
	} else {
		if (wheel_verify(&r, wheel, NULL) < 0)
			return EXIT_USAGE;
		memset(&mi, 0, sizeof(mi));
		mi.wheel = &r;
		m = manifest_make(&mi);
	}
	if (!strcmp(format, "md")) {
		struct buf md = BUF_INIT;

		manifest_markdown(m, &md);
		s = buf_detach(&md);
	} else {
		s = json_print(m, 1);
	}
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
