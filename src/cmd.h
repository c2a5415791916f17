#ifndef BWBUILD_CMD_H
#define BWBUILD_CMD_H

/*
 * Subcommands. Each lives in src/cmd_<name>.c, parses its own options,
 * calls an engine module and returns the exit status (diag.h). To add
 * one: write cmd_<name>.c with a --help, declare it here, add a row to
 * the table in main.c.
 */
int cmd_build(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_manifest(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_profiles(int argc, char **argv);
int cmd_launch(int argc, char **argv);

/*
 * Option helpers: `--name VALUE` or `--name=VALUE`. opt_value returns 1
 * and sets *out when argv[*i] is that option (advancing *i past a separate
 * value), 0 when it is not, -1 (reported) when the value is missing.
 */
int opt_value(int argc, char **argv, int *i, const char *name, const char **out);
int opt_flag(const char *arg, const char *name);
/*
 * The profile options of build, plan and doctor: --profile, --work,
 * --set KEY=VALUE (pushed onto `sets`) and --strict. Returns like
 * opt_value.
 */
struct build_opts;
struct strvec;
int opt_profile(int argc, char **argv, int *i, struct build_opts *o, struct strvec *sets);
/* Report an unknown option or extra argument; returns EXIT_USAGE. */
int opt_unknown(const char *cmd, const char *arg);

#endif
