#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "pipeline/plan.h"
#include "profile/profile.h"
#include "cli/report.h"
#include "pipeline/resolve.h"
#include "core/strvec.h"

static const char about[] =
	"Print the resolved profile, the exact environment and CMake cache entries the\n"
	"build will use, the job count with its arithmetic, the Python environment the\n"
	"tree's build needs and how it is met, the patches and the steps. Touches\n"
	"nothing.\n";

int
cmd_plan(int argc, char **argv, const struct command *cmd)
{
	/* static: the --set values live as long as the command (and stay reachable) */
	static struct strvec sets = STRVEC_INIT;
	const char *remote = NULL;
	struct resolve_opts o = { .sets = &sets };
	int json = 0, ret = EXIT_OK;
	const struct option options[] = {
		OPT_PROFILE_OPTIONS(&o, &sets),
		OPT_REMOTE(&remote),
		OPT_OUT(&o.out_dir),
		OPT_MEM_BUDGET(&o.mem_budget),
		OPT_STRING(0, "source", &o.source_dir, "PATH",
			   "plan a build of this local tree (its own CMake judges the archs)"),
		OPT_FLAG(0, "json", &json, "print the plan as JSON"),
		OPT_END(),
	};
	struct buf text = BUF_INIT;
	struct profile p;
	struct plan pl;
	struct plan_view v;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	if (remote)
		strvec_pushf(&sets, "build.remote=%s", remote);
	memset(&p, 0, sizeof(p));
	memset(&pl, 0, sizeof(pl));
	memset(&v, 0, sizeof(v));
	/* What the build refuses before its first step, the plan refuses too (exit 2). */
	if (resolve_profile(&p, &o) < 0 || resolve_plan(&pl, &p, &o) < 0 ||
	    plan_view_make(&v, &pl, &p) < 0) {
		ret = EXIT_USAGE;
	} else if (json) {
		report_json(plan_view_json(&v));
	} else {
		plan_view_text(&v, &text);
		diag_write(stdout, text.s, text.len);
	}
	plan_view_release(&v);
	buf_release(&text);
	plan_release(&pl);
	profile_release(&p);
	return ret;
}
