#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "core/answers.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/suggest.h"
#include "core/proc.h"
#include "profile/profile.h"
#include "sources/repourl.h"
#include "core/util.h"
#include "core/version.h"

static const struct command commands[] = {
	{ "build", cmd_build, "build a wheel from a profile, verify it, write its manifest",
	  CMD_NEEDS_PROFILE | CMD_DEFAULT },
	{ "plan", cmd_plan, "show what a build of a profile would do, touching nothing",
	  CMD_NEEDS_PROFILE },
	{ "verify", cmd_verify, "check a wheel: RECORD hashes, tags, zip hygiene, CUDA archs", 0 },
	{ "repair", cmd_repair, "copy into a wheel the libraries it needs (auditwheel repair)", 0 },
	{ "smoke", cmd_smoke, "run a wheel on the GPU: every feature checked, benchmarks", 0 },
	{ "archs", cmd_archs, "list each library's SASS and PTX targets (cuobjdump --list-elf)", 0 },
	{ "manifest", cmd_manifest, "describe what a wheel really contains, as JSON", 0 },
	{ "diff", cmd_diff, "compare two builds (manifests or wheels): features, archs, versions",
	  0 },
	{ "doctor", cmd_doctor, "preflight checklist: toolchain, libraries, disk, memory, GPUs",
	  0 },
	{ "bundle", cmd_bundle, "the profile's source as one file, for a machine with no network", 0 },
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
		   "'bwbuild --version' prints the version; 'bwbuild help exit-codes' what\n"
		   "each exit status means.\n");
}

static const char help_about[] =
	"Without an argument, list the commands; with a command, print its help (the\n"
	"same text as 'bwbuild COMMAND --help'); with exit-codes, the exit statuses\n"
	"every command keeps to.\n";

static const char *help_topic;
static const struct opt_command help_cmd = { "help", help_about, NULL, 0 };
static const struct option help_opts[] = {
	OPT_ARG("topic", &help_topic, "[COMMAND|exit-codes]",
		"a command of 'bwbuild help', or exit-codes: the exit statuses"),
	OPT_END(),
};

static void
exit_codes_text(struct buf *out)
{
	buf_addstr(out, "exit statuses of every bwbuild command ('bwbuild launch' exits with "
		   "the compiler's):\n");
	for (const struct exit_code *e = exit_codes; e->name; e++)
		buf_addf(out, "  %-4d %-12s %s\n", e->code, e->name, e->meaning);
}

/* The generated parts of the docs (scripts/gen-docs.sh): one per format. */
/*
 * The keys --set takes, for the bash completion: "KEY=" to go on with a
 * value, "KEY." for a map of names (cmake., build.env.), and the on/off ones.
 */
static void
bash_set_keys(void)
{
	printf("_bwbuild_set_keys=\"");
	for (size_t i = 0; i < profile_nkeys; i++) {
		const struct profile_key *k = &profile_keys[i];
		int map = k->kind == KEY_MAP || k->kind == KEY_ENV;

		if (k->kind == KEY_EXTENDS)
			continue;
		printf("%s%s%s%s%s", i ? " " : "", k->section ? k->section : "",
		       k->section ? "." : "", k->key, map ? "." : "=");
	}
	printf("\"\n_bwbuild_set_onoff=\"");
	for (size_t i = 0, n = 0; i < profile_nkeys; i++) {
		const struct profile_key *k = &profile_keys[i];

		if (k->kind == KEY_FEATURE || k->kind == KEY_SWITCH)
			printf("%s%s%s%s", n++ ? " " : "", k->section ? k->section : "",
			       k->section ? "." : "", k->key);
	}
	printf("\"\n");
}

static int
help_doc(const char *format)
{
	static char help_option[] = "--help";
	struct buf b = BUF_INIT;
	size_t i;

	if (!strcmp(format, "md") || !strcmp(format, "man") || !strcmp(format, "bash")) {
		help_format = !strcmp(format, "md") ? HELP_MD : !strcmp(format, "man") ? HELP_MAN :
			      HELP_BASH;
		if (help_format == HELP_BASH) {
			printf("_bwbuild_commands=\"");
			for (i = 0; i < ARRAY_SIZE(commands); i++)
				printf("%s ", commands[i].name);
			printf("help\"\n_bwbuild_value_opts=\" \"\n");
			bash_set_keys();
		}
		for (i = 0; i < ARRAY_SIZE(commands); i++) {
			char *argv[3] = { (char *)commands[i].name, help_option, NULL };

			fflush(stdout);
			commands[i].fn(2, argv, &commands[i]);
		}
		if (help_format == HELP_MD) {
			usage_markdown(&b, &help_cmd, help_opts);
			buf_addstr(&b, "### Exit status\n\n| status | name | meaning |\n|---|---|---|\n");
			for (const struct exit_code *e = exit_codes; e->name; e++)
				buf_addf(&b, "| %d | `%s` | %s |\n", e->code, e->name, e->meaning);
			buf_addstr(&b, "\n`bwbuild launch` exits with the compiler's status.\n");
		} else if (help_format == HELP_MAN) {
			usage_man(&b, &help_cmd, help_opts);
		}
		fputs(b.s, stdout);
		buf_release(&b);
		help_format = HELP_TEXT;
		return EXIT_OK;
	}
	if (!strcmp(format, "man-exit")) {
		for (const struct exit_code *e = exit_codes; e->name; e++) {
			buf_addf(&b, ".TP\n.B %d\n%s: ", e->code, e->name);
			man_escape(&b, e->meaning, strlen(e->meaning));
			buf_addch(&b, '\n');
		}
		buf_addstr(&b, ".PP\n.B launch\nexits with the compiler's status.\n");
		fputs(b.s, stdout);
		buf_release(&b);
		return EXIT_OK;
	}
	if (!strcmp(format, "keys")) {
		for (i = 0; i < profile_nkeys; i++)
			printf("%s%s%s\n", profile_keys[i].section ? profile_keys[i].section : "",
			       profile_keys[i].section ? "." : "", profile_keys[i].key);
		return EXIT_OK;
	}
	error("--doc is md, man, man-exit, bash or keys, not '%s'", format);
	return EXIT_USAGE;
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

/*
 * "bwbuild help" lists the commands; "bwbuild help CMD" is "bwbuild CMD
 * --help"; "bwbuild help exit-codes" the contract of diag.h.
 */
static int
help(int argc, char **argv)
{
	static char help_option[] = "--help";
	const struct command *c;
	char *help_argv[3];
	struct buf b = BUF_INIT;

	if (argc < 3) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argc > 3) {
		error("unexpected argument '%s'; see 'bwbuild help help'", argv[3]);
		return EXIT_USAGE;
	}
	if (!strncmp(argv[2], "--doc=", 6))
		return help_doc(argv[2] + 6);
	if (!strcmp(argv[2], "help") || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
		usage_with_options(&b, &help_cmd, help_opts);
		fputs(b.s, stdout);
		buf_release(&b);
		return EXIT_OK;
	}
	if (!strcmp(argv[2], "exit-codes")) {
		exit_codes_text(&b);
		fputs(b.s, stdout);
		buf_release(&b);
		return EXIT_OK;
	}
	if (!(c = find_command(argv[2])))
		return EXIT_USAGE;
	help_argv[0] = argv[2];
	help_argv[1] = help_option;
	help_argv[2] = NULL;
	return c->fn(2, help_argv, c);
}

/*
 * Answers of the tools about themselves kept beside the mirrors
 * (src/core/answers.h): a run then starts no cmake, nvcc or compiler only
 * to learn its version again. The cache is checked where it is used.
 */
static void
keep_answers(void)
{
	struct buf dir = BUF_INIT;

	repo_cache_dir(&dir);
	answers_keep_in(dir.len ? dir.s : NULL);
	buf_release(&dir);
}

int
main(int argc, char **argv)
{
	const struct command *c;
	int ret;

	keep_answers();
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
	/* Stopped by Ctrl-C or a TERM, whichever command ran: 128 + the signal. */
	return proc_interrupted ? EXIT_SIGNAL + proc_interrupted : ret;
}
