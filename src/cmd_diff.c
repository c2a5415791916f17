#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmd.h"
#include "diag.h"
#include "diff.h"
#include "json.h"
#include "manifest.h"
#include "util.h"
#include "verify.h"

static const char usage_text[] =
	"usage: bwbuild diff A B [--json]\n"
	"\n"
	"Compare two builds, each given as a manifest (.json) or a wheel (.whl):\n"
	"features gained and lost, libraries added and removed, SASS/PTX targets\n"
	"gained and lost per library, versions changed. Exit 0 when they agree,\n"
	"1 when they differ, 2 on error: a CI gate for \"the new build lost nothing\".\n";

/* A manifest from a .whl (made now) or a manifest file; NULL after reporting. */
static struct json *
load(const char *path)
{
	if (ends_with(path, ".whl")) {
		struct wheel_report r;
		struct manifest_input mi;
		struct json *m;

		if (wheel_verify(&r, path, NULL) < 0)
			return NULL;
		memset(&mi, 0, sizeof(mi));
		mi.wheel = &r;
		m = manifest_make(&mi);
		wheel_report_release(&r);
		return m;
	} else {
		struct buf text = BUF_INIT, why = BUF_INIT;
		struct json *m;
		const char *schema;

		if (read_file(&text, path) < 0)
			return NULL;
		m = json_parse(text.s, text.len, &why);
		buf_release(&text);
		if (!m) {
			error("'%s' is not a manifest: %s", path, why.s);
			buf_release(&why);
			return NULL;
		}
		buf_release(&why);
		schema = json_str(json_get(m, "schema"));
		if (!schema || strcmp(schema, "bwbuild-manifest/1")) {
			error("'%s' is not a bwbuild manifest (schema '%s', expected "
			      "'bwbuild-manifest/1')", path, schema ? schema : "none");
			json_free(m);
			return NULL;
		}
		return m;
	}
}

int
cmd_diff(int argc, char **argv)
{
	const char *files[2] = { NULL, NULL };
	struct json *a = NULL, *b = NULL, *report;
	struct buf text = BUF_INIT;
	int json = 0, nfiles = 0, i, ret;
	size_t n;

	for (i = 1; i < argc; i++) {
		if (opt_flag(argv[i], "--help") || opt_flag(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		if (opt_flag(argv[i], "--json")) {
			json = 1;
			continue;
		}
		if (argv[i][0] != '-' && nfiles < 2) {
			files[nfiles++] = argv[i];
			continue;
		}
		return opt_unknown("diff", argv[i]);
	}
	if (nfiles != 2) {
		error("diff needs two manifests or wheels (see 'bwbuild diff --help')");
		return EXIT_USAGE;
	}
	if (!(a = load(files[0])) || !(b = load(files[1]))) {
		json_free(a);
		return EXIT_USAGE;
	}
	n = manifest_diff(a, b, &report, &text);
	if (json) {
		json_print_stdout(report);
	} else {
		fputs(text.s, stdout);
		printf("%s\n", n ? "builds differ" : "builds agree");
	}
	ret = n ? EXIT_FAIL : EXIT_OK;
	json_free(report);
	json_free(a);
	json_free(b);
	buf_release(&text);
	return ret;
}
