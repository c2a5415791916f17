#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "wheel/diff.h"
#include "core/json.h"
#include "cli/report.h"

static const char about[] =
	"Compare two builds: features gained and lost, libraries added and removed,\n"
	"SASS/PTX targets gained and lost per library, versions changed. Exit 0 when\n"
	"they agree, 1 when they differ, 2 on error: a CI gate for \"the new build lost\n"
	"nothing\". With runtime results (bwbuild smoke --manifest) on both sides, checks\n"
	"that changed and benchmarks slower than --perf-tolerance are differences too.\n";

int
cmd_diff(int argc, char **argv, const struct command *cmd)
{
	const char *path_a = NULL, *path_b = NULL;
	int json = 0, ret;
	const char *tol = "10%";
	const struct option options[] = {
		OPT_ARG("old build", &path_a, "A",
			"the old build: a manifest (.json), a wheel or an installed package"),
		OPT_ARG("new build", &path_b, "B", "the new build, given the same ways"),
		OPT_FLAG(0, "json", &json, "print the differences as JSON"),
		OPT_STRING(0, "perf-tolerance", &tol, "PERCENT",
			   "a runtime benchmark (bwbuild smoke) slower by more than this is a "
			   "regression (default 10%)"),
		OPT_END(),
	};
	struct json *a = NULL, *b = NULL, *report;
	struct buf text = BUF_INIT;
	size_t n;

	double tolerance;
	char *end;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	tolerance = strtod(tol, &end);
	if (end == tol || (*end && strcmp(end, "%")) || tolerance < 0 || tolerance > 1000) {
		error("--perf-tolerance '%s' is not a percentage such as 10%%", tol);
		return EXIT_USAGE;
	}
	if (!(a = report_manifest(path_a)) || !(b = report_manifest(path_b))) {
		json_free(a);
		return EXIT_USAGE;
	}
	n = manifest_diff(a, b, tolerance, &report, &text);
	if (json)
		json_print_stdout(report);
	else
		printf("%s%s\n", text.s, n ? "builds differ" : "builds agree");
	json_free(report);
	json_free(a);
	json_free(b);
	buf_release(&text);
	return n ? EXIT_FAIL : EXIT_OK;
}
