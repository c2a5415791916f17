#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "wheel/diff.h"
#include "core/json.h"
#include "cli/report.h"
#include "core/strvec.h"
#include "core/util.h"

static const char about[] =
	"Compare two builds: features gained and lost, libraries added and removed,\n"
	"SASS/PTX targets gained and lost per library, versions changed; with runtime\n"
	"results (bwbuild smoke --manifest) on both sides, checks that changed and\n"
	"benchmarks slower than their noise (or --perf-tolerance) allow. Every\n"
	"difference is shown; the exit status counts those --ignore does not leave out:\n"
	"0 none, 1 at least one, 2 an input that cannot be read. By default a new\n"
	"release's version (the wheel's version and local label, torch's version, the\n"
	"commit) is expected to change and not counted (--ignore none counts it; the\n"
	"other words add to it); a CI gate for \"the new build lost nothing\" is\n"
	"--ignore version,gains.\n";

/*
 * --ignore's words into DIFF_IGNORE_* bits, on top of the default
 * (version), which only "none" takes away: a gate that adds gains must
 * not start counting every release's new version. -1 after reporting.
 */
static int
parse_ignore(const struct strvec *words, unsigned *out)
{
	*out = DIFF_IGNORE_VERSION;
	for (size_t i = 0; i < words->n; i++) {
		char *list = xstrdup(words->v[i]), *save = NULL;

		for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			if (!strcmp(w, "version")) {
				*out |= DIFF_IGNORE_VERSION;
			} else if (!strcmp(w, "gains")) {
				*out |= DIFF_IGNORE_GAINS;
			} else if (!strcmp(w, "none")) {
				*out = 0;
			} else {
				error("--ignore '%s': give version, gains or none (comma-separated "
				      "or repeated)", w);
				free(list);
				return -1;
			}
		}
		free(list);
	}
	return 0;
}

int
cmd_diff(int argc, char **argv, const struct command *cmd)
{
	/* static: the --ignore values live as long as the command (and stay reachable) */
	static struct strvec ignore = STRVEC_INIT;
	const char *path_a = NULL, *path_b = NULL, *format = "text";
	int json = 0, ret;
	const char *tol = "10%";
	const struct option options[] = {
		OPT_ARG("old build", &path_a, "A",
			"the old build: a manifest (.json), a wheel or an installed package"),
		OPT_ARG("new build", &path_b, "B", "the new build, given the same ways"),
		OPT_CHOICE(0, "format", &format, "text|json|md",
			   "md: Markdown for a pull request's comment, the profile named in every "
			   "heading; json: as --json"),
		OPT_FLAG(0, "json", &json, "print the differences as JSON"),
		OPT_LIST(0, "ignore", &ignore, "WHAT",
			 "differences shown but not counted in the exit status, on top of version "
			 "(always, unless none: the wheel's version and local label, torch's "
			 "version, the commit): gains (features, libraries and targets gained), "
			 "none (count everything); comma-separated or repeated"),
		OPT_STRING(0, "perf-tolerance", &tol, "PERCENT",
			   "a runtime benchmark (bwbuild smoke) slower by more than this is a "
			   "regression (default 10%)"),
		OPT_END(),
	};
	struct json *a = NULL, *b = NULL, *report;
	struct buf text = BUF_INIT, md = BUF_INIT;
	struct diff_opts o;
	size_t n, ignored;
	char *end;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	o.tolerance = strtod(tol, &end);
	if (end == tol || (*end && strcmp(end, "%")) || o.tolerance < 0 || o.tolerance > 1000) {
		error("--perf-tolerance '%s' is not a percentage such as 10%%", tol);
		return EXIT_USAGE;
	}
	if (parse_ignore(&ignore, &o.ignore) < 0)
		return EXIT_USAGE;
	if (json)
		format = "json";
	if (!(a = report_manifest(path_a)) || !(b = report_manifest(path_b))) {
		json_free(a);
		return EXIT_USAGE;
	}
	n = manifest_diff(a, b, &o, &report, &text);
	ignored = (size_t)json_number_value(json_get(report, "ignored_differences"));
	if (!strcmp(format, "json")) {
		json_print_stdout(report);
	} else if (!strcmp(format, "md")) {
		diff_markdown(a, b, report, &md);
		diag_write(stdout, md.s, md.len);
	} else {
		diag_printf(stdout, "%s%s", text.s, diff_verdict(report));
		if (ignored) {
			struct buf words = BUF_INIT;

			diff_ignored_words(report, &words);
			printf(" (%zu difference%s not counted: --ignore %s)", ignored,
			       ignored == 1 ? "" : "s", words.s);
			buf_release(&words);
		}
		putchar('\n');
	}
	json_free(report);
	json_free(a);
	json_free(b);
	buf_release(&text);
	buf_release(&md);
	return n ? EXIT_FAIL : EXIT_OK;
}
