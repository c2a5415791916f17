#ifndef BWBUILD_OPTIONS_H
#define BWBUILD_OPTIONS_H

/*
 * Declarative command-line options, after git's parse-options and
 * libgit2's CLI tables: a command lists one row per option and per
 * positional argument, and that one table gives the parser, the usage
 * line and the option list of --help, so the help cannot drift from
 * what is accepted.
 *
 *	const struct option options[] = {
 *		OPT_ARG("wheel", &wheel, "WHEEL", "the wheel to check"),
 *		OPT_UNSIGNED(0, "threads", &threads, "N", 1, 1024, "hash on N threads"),
 *		OPT_FLAG(0, "json", &json, "print JSON"),
 *		OPT_END(),
 *	};
 *
 * Options are `--name VALUE` or `--name=VALUE`, `-s VALUE` or `-sVALUE`;
 * they may come before, between or after the positional arguments, and
 * `--` ends them. `--help` and `-h` print the help.
 */

#include <stddef.h>

struct buf;

enum option_kind {
	OPTION_END,
	OPTION_FLAG,     /* int: set to 1 */
	OPTION_STRING,   /* const char *: the value as given */
	OPTION_CHOICE,   /* const char *: one of the '|'-separated words of the placeholder */
	OPTION_UNSIGNED, /* unsigned: a decimal number from min to max */
	OPTION_SIZE,     /* uint64_t: a memory size (util.h's parse_size), not 0 */
	OPTION_LIST,     /* struct strvec: each value pushed; repeatable */
	OPTION_GPU,      /* struct gpu_list (compat.h): each value a GPU; repeatable */
	OPTION_STEP,     /* int: a build step by name (pipeline/build.h's enum step) */
	OPTION_ARG,      /* const char *: the next positional argument; required */
	OPTION_REST,     /* char **: the first positional argument and all after it, verbatim */
	OPTION_ARGS,     /* struct strvec: this and every later positional argument; one or more */
};

struct option {
	enum option_kind kind;
	int short_name;        /* 'o', or 0 */
	const char *long_name; /* "mem-budget"; for a positional argument its name in messages */
	void *value;           /* where the value goes; the kind says its type */
	const char *argh;      /* the value's placeholder ("SIZE"); NULL for a flag */
	const char *help;      /* one sentence, wrapped into the option list */
	unsigned min, max;     /* OPTION_UNSIGNED's range */
};

/* The conditional makes the compiler check the destination's type against the kind's. */
#define OPT_DEST_(v, type) (1 ? (v) : (type)0)

#define OPT_END() { .kind = OPTION_END }
#define OPT_FLAG(s, l, v, h)                                                                \
	{ .kind = OPTION_FLAG, .short_name = (s), .long_name = (l),                        \
	  .value = OPT_DEST_(v, int *), .help = (h) }
#define OPT_STRING(s, l, v, a, h)                                                           \
	{ .kind = OPTION_STRING, .short_name = (s), .long_name = (l),                      \
	  .value = OPT_DEST_(v, const char **), .argh = (a), .help = (h) }
#define OPT_CHOICE(s, l, v, a, h)                                                           \
	{ .kind = OPTION_CHOICE, .short_name = (s), .long_name = (l),                      \
	  .value = OPT_DEST_(v, const char **), .argh = (a), .help = (h) }
#define OPT_UNSIGNED(s, l, v, a, lo, hi, h)                                                 \
	{ .kind = OPTION_UNSIGNED, .short_name = (s), .long_name = (l),                    \
	  .value = OPT_DEST_(v, unsigned *), .argh = (a), .help = (h), .min = (lo), .max = (hi) }
#define OPT_SIZE(s, l, v, a, h)                                                             \
	{ .kind = OPTION_SIZE, .short_name = (s), .long_name = (l),                        \
	  .value = OPT_DEST_(v, uint64_t *), .argh = (a), .help = (h) }
#define OPT_LIST(s, l, v, a, h)                                                             \
	{ .kind = OPTION_LIST, .short_name = (s), .long_name = (l),                        \
	  .value = OPT_DEST_(v, struct strvec *), .argh = (a), .help = (h) }
#define OPT_GPU(s, l, v, a, h)                                                              \
	{ .kind = OPTION_GPU, .short_name = (s), .long_name = (l),                         \
	  .value = OPT_DEST_(v, struct gpu_list *), .argh = (a), .help = (h) }
#define OPT_STEP(s, l, v, a, h)                                                             \
	{ .kind = OPTION_STEP, .short_name = (s), .long_name = (l),                        \
	  .value = OPT_DEST_(v, int *), .argh = (a), .help = (h) }
#define OPT_ARG(name, v, a, h)                                                              \
	{ .kind = OPTION_ARG, .long_name = (name), .value = OPT_DEST_(v, const char **),   \
	  .argh = (a), .help = (h) }
#define OPT_ARGS(name, v, a, h)                                                             \
	{ .kind = OPTION_ARGS, .long_name = (name), .value = OPT_DEST_(v, struct strvec *), \
	  .argh = (a), .help = (h) }
#define OPT_REST(name, v, a, h)                                                             \
	{ .kind = OPTION_REST, .long_name = (name), .value = OPT_DEST_(v, char ***),       \
	  .argh = (a), .help = (h) }

/* What the parser and the help need to know about the command itself. */
struct opt_command {
	const char *name;     /* "verify": 'bwbuild verify' in the usage line and in messages */
	const char *about;    /* what the command does: lines printed under the usage line */
	const char *required; /* long name of an option that must be given, or NULL */
	int is_default;       /* 'bwbuild --option ...' runs this command too */
};

enum parse_result {
	PARSE_ERROR = -1, /* reported */
	PARSE_OK = 0,     /* every value is in place */
	PARSE_HELP = 1,   /* --help: the help is on standard output */
};

/*
 * Parse argv[1] to argv[argc - 1] into the table's destinations, which
 * keep their values for what is not given. Values point into argv.
 */
enum parse_result parse_options(int argc, char **argv, const struct opt_command *cmd,
				const struct option *opts);

/* The help --help prints: usage line, the command's text, the aligned option list. */
void usage_with_options(struct buf *out, const struct opt_command *cmd, const struct option *opts);

/*
 * What --help prints: the help (HELP_TEXT), or, for the generator of the
 * docs ('bwbuild help --doc=FORMAT', scripts/gen-docs.sh), the same table
 * as a Markdown section of docs/bwbuild.md, a man page section of
 * docs/bwbuild.1, or the bash completion's option list of the command.
 */
enum help_format { HELP_TEXT, HELP_MD, HELP_MAN, HELP_BASH };
extern enum help_format help_format;
void usage_markdown(struct buf *out, const struct opt_command *cmd, const struct option *opts);
void usage_man(struct buf *out, const struct opt_command *cmd, const struct option *opts);
void usage_bash(struct buf *out, const struct opt_command *cmd, const struct option *opts);
/* groff text: backslashes, dashes and a leading '.' or '\'' escaped, other UTF-8 as \[uXXXX]. */
void man_escape(struct buf *out, const char *s, size_t n);

#endif
