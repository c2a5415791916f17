#ifndef BWBUILD_CMD_H
#define BWBUILD_CMD_H

#include "cli/options.h"

/*
 * Subcommands. Each lives in src/cli/cmd_<name>.c: a table of its options
 * (options.h), what it does in a few lines for --help, then calls into
 * the layers below (src/README.md) and returns the exit status (diag.h).
 * To add one: write cmd_<name>.c, declare it here, add a row to the table
 * in main.c.
 */
struct command {
	const char *name;
	int (*fn)(int argc, char **argv, const struct command *cmd);
	const char *summary; /* one line, for 'bwbuild help' */
	unsigned flags;
};

enum {
	CMD_NEEDS_PROFILE = 1 << 0, /* --profile must be given */
	CMD_DEFAULT = 1 << 1,       /* 'bwbuild --option ...' runs this command */
};

int cmd_build(int argc, char **argv, const struct command *cmd);
int cmd_plan(int argc, char **argv, const struct command *cmd);
int cmd_verify(int argc, char **argv, const struct command *cmd);
int cmd_manifest(int argc, char **argv, const struct command *cmd);
int cmd_diff(int argc, char **argv, const struct command *cmd);
int cmd_doctor(int argc, char **argv, const struct command *cmd);
int cmd_profiles(int argc, char **argv, const struct command *cmd);
int cmd_launch(int argc, char **argv, const struct command *cmd);
int cmd_archs(int argc, char **argv, const struct command *cmd);
int cmd_smoke(int argc, char **argv, const struct command *cmd);
int cmd_provenance(int argc, char **argv, const struct command *cmd);
int cmd_bundle(int argc, char **argv, const struct command *cmd);
int cmd_repair(int argc, char **argv, const struct command *cmd);

/*
 * Parse a command's arguments against its table, with `about` as the
 * text of its help. 0 when the command should go on; 1 when it is done,
 * with *status set: EXIT_OK after --help, EXIT_USAGE after a reported
 * usage error.
 */
int cmd_parse(const struct command *cmd, const char *about, const struct option *opts,
	      int argc, char **argv, int *status);

/* Options that mean the same in every command that takes them: one definition each. */
#define OPT_PROFILE(v)                                                                      \
	OPT_STRING(0, "profile", (v), "NAME",                                               \
		   "a name from profiles/ or $BWBUILD_PROFILE_PATH, or a .yaml path")
/*
 * The profile options of build, plan and doctor, over a struct
 * resolve_opts; `sets` is the strvec its `sets` points to.
 */
#define OPT_PROFILE_OPTIONS(r, sets)                                                        \
	OPT_PROFILE(&(r)->profile),                                                         \
	OPT_LIST(0, "set", (sets), "KEY=VALUE",                                             \
		 "override a profile value by its dotted key, e.g. "                        \
		 "features.flash_attention=off; applied after every profile file; "         \
		 "repeatable"),                                                             \
	OPT_FLAG(0, "strict", &(r)->strict,                                                 \
		 "treat the knowledge base's warnings (e.g. no +PTX on the newest arch) "   \
		 "as errors"),                                                                 \
	OPT_STRING(0, "work", &(r)->work_dir, "DIR",                                        \
		   "work tree: checkout, logs, build state (default work/<profile>)")
#define OPT_OUT(v)                                                                          \
	OPT_STRING(0, "out", (v), "DIR", "where the wheel and manifest go (default out/<profile>)")
#define OPT_REMOTE(v)                                                                       \
	OPT_STRING(0, "remote", (v), "HOSTS",                                               \
		   "send host C++ compiles to these distccd hosts ('H:PORT/SLOTS ...' or "  \
		   "./FILE); overrides build.remote")
#define OPT_MEM_BUDGET(v)                                                                   \
	OPT_SIZE(0, "mem-budget", (v), "SIZE",                                              \
		 "memory the compile may use, e.g. 16G (default: build.mem_budget, else "   \
		 "measured)")

#endif
