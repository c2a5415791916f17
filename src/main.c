#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "diag.h"

#ifndef BWBUILD_VERSION
#define BWBUILD_VERSION "0.1.0"
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "build", cmd_build, "build a wheel from a profile, verify it, write its manifest" },
	{ "plan", cmd_plan, "show what a build of a profile would do, touching nothing" },
	{ "verify", cmd_verify, "check a wheel: RECORD hashes, tags, zip hygiene, CUDA archs" },
	{ "manifest", cmd_manifest, "describe what a wheel really contains, as JSON" },
	{ "diff", cmd_diff, "compare two builds (manifests or wheels): features, archs, versions" },
	{ "doctor", cmd_doctor, "preflight checklist: toolchain, libraries, disk, memory, GPUs" },
	{ "profiles", cmd_profiles, "list the profiles found, with descriptions and paths" },
	{ "launch", cmd_launch, "compiler launcher with memory admission control (set by build)" },
};

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: bwbuild --profile NAME [build options]\n"
		   "       bwbuild <command> [options]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'bwbuild <command> --help' describes a command; 'bwbuild --version' prints "
		   "the version.\nExit status: 0 success, 1 a failed check or build, 2 usage or bad "
		   "input.\n");
}

int
main(int argc, char **argv)
{
	size_t i;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("bwbuild %s\n", BWBUILD_VERSION);
		return EXIT_OK;
	}
	/* "bwbuild --profile X ..." is "bwbuild build --profile X ...". */
	if (argv[1][0] == '-') {
		ret = cmd_build(argc, argv);
		goto done;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			ret = commands[i].fn(argc - 1, argv + 1);
			goto done;
		}
	}
	error("'%s' is not a bwbuild command; see 'bwbuild --help'", argv[1]);
	return EXIT_USAGE;
done:
	/* A plan or manifest cut short by a full disk must not look like success. */
	if (fflush(stdout) || ferror(stdout)) {
		error("cannot write to standard output:");
		return EXIT_FAIL;
	}
	return ret;
}
