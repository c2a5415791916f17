#include <stdint.h>
#include <string.h>

#include "pipeline/build.h"
#include "cli/cmd.h"
#include "core/diag.h"
#include "pipeline/plan.h"
#include "core/strvec.h"

static const char about[] =
	"Fetch the profile's source, configure and compile it, make a wheel, verify it\n"
	"against the profile and write its manifest next to it. Before anything is\n"
	"fetched, doctor's checks that a build cannot pass run (--no-preflight skips\n"
	"them; with --until fetch, only those a fetch can fail: the host, the disk, a\n"
	"--source tree's patches). Mirrors are cached in $BWBUILD_CACHE_DIR, else\n"
	"$XDG_CACHE_HOME/bwbuild, else ~/.cache/bwbuild.\n";

/*
 * --targets: CMake target names separated by commas, each handed to
 * ninja as it is. An empty name, one ninja or cmake would read as an
 * option ('-j1000', '-t'), and CMake's targets that build nothing but
 * remove, install or run ('clean') are refused, once, naming it.
 */
static int
targets_check(const char *list)
{
	static const char *const not_builds[] = {
		"clean", "install", "package", "package_source", "test", "edit_cache",
		"rebuild_cache", "list_install_components", "help",
	};
	const char *t = list;

	if (!*list || list[strspn(list, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				 "0123456789_.+-,")])
		return error("--targets '%s': give CMake target names separated by commas, "
			     "e.g. --targets c10,c10_cuda", list);
	for (;;) {
		size_t n = strcspn(t, ",");

		if (!n)
			return error("--targets '%s': an empty name (two commas, or one at an end); "
				     "give CMake target names separated by commas, e.g. --targets "
				     "c10,c10_cuda", list);
		if (*t == '-')
			return error("--targets '%s': '%.*s' begins with '-', so ninja would take it "
				     "for an option, not a target", list, (int)n, t);
		for (size_t i = 0; i < sizeof(not_builds) / sizeof(not_builds[0]); i++)
			if (strlen(not_builds[i]) == n && !strncmp(t, not_builds[i], n))
				return error("--targets '%s': CMake's '%s' builds nothing (it removes, "
					     "installs or runs); --targets names what to compile",
					     list, not_builds[i]);
		if (!t[n])
			return 0;
		t += n + 1;
	}
}

int
cmd_build(int argc, char **argv, const struct command *cmd)
{
	/* static: the --set values live as long as the command (and stay reachable) */
	static struct strvec sets = STRVEC_INIT;
	const char *remote = NULL;
	struct build_opts o = { .until = STEP_PUBLISH, .r.sets = &sets };
	const struct option options[] = {
		OPT_PROFILE_OPTIONS(&o.r, &sets),
		OPT_REMOTE(&remote),
		OPT_OUT(&o.r.out_dir),
		OPT_STEP(0, "until", &o.until, "STEP",
			 "stop after fetch, configure, compile, wheel, verify, smoke or publish; "
			 "a build up to publish that is up to date does nothing"),
		OPT_MEM_BUDGET(&o.r.mem_budget),
		OPT_STRING(0, "source", &o.r.source_dir, "PATH",
			   "build this local tree as it is: no checkout, no patches; its commit "
			   "and local changes go into the manifest"),
		OPT_STRING(0, "bundle", &o.r.bundle, "FILE",
			   "build the tree in FILE, made by 'bwbuild bundle': no repository or "
			   "mirror needed, versioned and labelled as from the checkout"),
		OPT_FLAG(0, "force", &o.force,
			 "discard local changes in the work tree's checkout (refused and listed "
			 "otherwise)"),
		OPT_FLAG(0, "fetch", &o.refresh,
			 "fetch the cached mirrors even when they have the ref (a branch that "
			 "moved); otherwise a cached ref needs no network"),
		OPT_FLAG(0, "no-preflight", &o.no_preflight,
			 "skip doctor's checks that a build cannot pass (nvcc and its archs, gcc, "
			 "cmake, ninja, python, cuDNN/NCCL, nvml.h, disk, TMPDIR), which otherwise "
			 "run before anything is fetched"),
		OPT_STRING(0, "targets", &o.targets, "T1,T2",
			   "compile only these CMake targets (e.g. c10,c10_cuda) in the configured "
			   "build directory, under the same launcher, then stop: a part of a build "
			   "makes no wheel"),
		OPT_END(),
	};
	int ret;

	if (cmd_parse(cmd, about, options, argc, argv, &ret))
		return ret;
	if (remote)
		strvec_pushf(&sets, "build.remote=%s", remote);
	if (o.r.source_dir && (o.force || o.refresh)) {
		error("--source builds a tree as it is; --force and --fetch are for the checkout "
		      "bwbuild makes");
		return EXIT_USAGE;
	}
	if (o.targets) {
		if (targets_check(o.targets) < 0)
			return EXIT_USAGE;
		if (o.until > STEP_COMPILE)
			o.until = STEP_COMPILE;
	}
	return build_run(&o);
}
