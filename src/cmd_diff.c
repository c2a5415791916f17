#include <stdio.h>

#include "buf.h"
#include "cmd.h"
#include "diag.h"
#include "diff.h"
#include "json.h"
#include "report.h"

static const char about[] =
	"Compare two builds: features gained and lost, libraries added and removed,\n"
	"SASS/PTX targets gained and lost per library, versions changed. Exit 0 when\n"
	"they agree, 1 when they differ, 2 on error: a CI gate for \"the new build lost\n"
	"nothing\".\n";

int
cmd_diff(int argc, char **argv, const struct command *cmd)
{
	const char *path_a = NULL, *path_b = NULL;
	int json = 0, ret;
	const struct option options[] = {
		OPT_ARG("old build", &path_a, "A",
			"the old build: a manifest (.json), a wheel or an installed package"),
		OPT_ARG("new build", &path_b, "B", "the new build, given the same ways"),
		OPT_FLAG(0, "json", &json, "print the differences as JSON"),
		OPT_END(),
	};
	struct json *a = NULL, *b = NULL, *report;
	struct buf text = BUF_INIT;
	size_t n;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	if (!(a = report_manifest(path_a)) || !(b = report_manifest(path_b))) {
		json_free(a);
		return EXIT_USAGE;
	}
	n = manifest_diff(a, b, &report, &text);
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
