#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "core/diag.h"
#include "core/suggest.h"
#include "core/util.h"
#include "core/version.h"

static const struct command commands[] = {
	{ "build", cmd_build, "build a wheel from a profile, verify it, write its manifest",
	  CMD_NEEDS_PROFILE | CMD_DEFAULT },
	{ "plan", cmd_plan, "show what a build of a profile would do, touching nothing",
	  CMD_NEEDS_PROFILE },
	{ "verify", cmd_verify, "check a wheel: RECORD hashes, tags, zip hygiene, CUDA archs", 0 },
	{ "smoke", cmd_smoke, "run a wheel on the GPU: every feature checked, benchmarks", 0 },
	{ "archs", cmd_archs, "list each library's SASS and PTX targets (cuobjdump --list-elf)", 0 },
	{ "manifest", cmd_manifest, "describe what a wheel really contains, as JSON", 0 },
	{ "diff", cmd_diff, "compare two builds (manifests or wheels): features, archs, versions",
	  0 },
	{ "doctor", cmd_doctor, "preflight checklist: toolchain, libraries, disk, memory, GPUs",
	  0 },
	{ "provenance", cmd_provenance, "in-toto / SLSA provenance statement for a built wheel", 0 },
	{ "profiles", cmd_profiles, "list the profiles found, with descriptions and paths", 0 },
	{ "launch", cmd_launch, "compiler launcher with memory admission control (set by build)",
	  0 },
};

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: bwbuild --profile NAME [build options]\n"
		   "       bwbuild <command> [options]\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'bwbuild help <command>' or 'bwbuild <command> --help' describes a command;\n"
		   "'bwbuild --version' prints the version.\n"
		   "Exit status: 0 success, 1 a failed check or build, 2 usage or bad input.\n");
}

static const struct command *
find_command(const char *name)
{
	struct suggest s;
	size_t i;

	suggest_init(&s, name);
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(name, commands[i].name))
			return &commands[i];
		suggest_add(&s, commands[i].name);
	}
	suggest_add(&s, "help");
	error("'%s' is not a bwbuild command; see 'bwbuild --help'", name);
	if (suggest_best(&s))
		hint("did you mean '%s'?", suggest_best(&s));
	return NULL;
}

static const struct command *
default_command(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].flags & CMD_DEFAULT)
			return &commands[i];
	BUG("no command is CMD_DEFAULT");
}

/* "bwbuild help" lists the commands; "bwbuild help CMD" is "bwbuild CMD --help". */
static int
help(int argc, char **argv)
{
	static char help_option[] = "--help";
	const struct command *c;
	char *help_argv[3];

	if (argc < 3) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argc > 3) {
		error("unexpected argument '%s'; see 'bwbuild --help'", argv[3]);
		return EXIT_USAGE;
	}
	if (!(c = find_command(argv[2])))
		return EXIT_USAGE;
	help_argv[0] = argv[2];
	help_argv[1] = help_option;
	help_argv[2] = NULL;
	return c->fn(2, help_argv, c);
}

int
main(int argc, char **argv)
{
	const struct command *c;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		ret = help(argc, argv);
	} else if (!strcmp(argv[1], "--version")) {
		printf("bwbuild %s\n", BWBUILD_VERSION);
		ret = EXIT_OK;
	} else if (argv[1][0] == '-') {
		/* "bwbuild --profile X ..." is "bwbuild build --profile X ...". */
		c = default_command();
		ret = c->fn(argc, argv, c);
	} else if ((c = find_command(argv[1]))) {
		ret = c->fn(argc - 1, argv + 1, c);
	} else {
		return EXIT_USAGE;
	}
	/*
	 * A plan or manifest cut short by a full disk must not look like
	 * success, nor like a verdict: for diff, 1 means "they differ".
	 */
	if (fflush(stdout) || ferror(stdout)) {
		error("cannot write to standard output:");
		return EXIT_USAGE;
	}
	return ret;
}
