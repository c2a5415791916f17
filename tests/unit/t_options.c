#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../src/pipeline/build.h"
#include "../../src/core/buf.h"
#include "../../src/profile/compat.h"
#include "../../src/cli/options.h"
#include "../../src/pipeline/plan.h"
#include "../../src/core/strvec.h"
#include "t.h"

static char out[4096], err[4096];

/* Read back and close a capture file. */
static void
slurp(int fd, char *into, size_t cap)
{
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	n = read(fd, into, cap - 1);
	into[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* Split `line` at spaces into argv after a command name and parse it, keeping its output. */
static int
parse(const char *line, const struct opt_command *cmd, const struct option *opts)
{
	static char words[512];
	static char *argv[32];
	int argc = 0, saved_out, saved_err, fd_out, fd_err, r;

	snprintf(words, sizeof(words), "t %s", line);
	for (char *w = strtok(words, " "); w && argc < 31; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	fd_out = open(t_path("options.out"), O_RDWR | O_CREAT | O_TRUNC, 0666);
	fd_err = open(t_path("options.err"), O_RDWR | O_CREAT | O_TRUNC, 0666);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(fd_out, 1);
	dup2(fd_err, 2);
	r = parse_options(argc, argv, cmd, opts);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	slurp(fd_out, out, sizeof(out));
	slurp(fd_err, err, sizeof(err));
	return r;
}

struct vals {
	int flag, step;
	const char *str, *out, *choice;
	unsigned n;
	uint64_t size;
	struct strvec list;
	struct gpu_list gpus;
};

static const struct opt_command cmd_t = { "t", "What t does.\n", NULL, 0 };

/* Parse `line` against a table of every option kind into a fresh *v. */
static int
parse_kinds(const char *line, struct vals *v)
{
	const struct option opts[] = {
		OPT_FLAG(0, "flag", &v->flag, "a flag"),
		OPT_STRING(0, "str", &v->str, "S", "a string"),
		OPT_STRING('o', "output", &v->out, "FILE", "a file"),
		OPT_CHOICE(0, "choice", &v->choice, "json|md", "a choice"),
		OPT_UNSIGNED(0, "n", &v->n, "N", 1, 8, "a number"),
		OPT_SIZE(0, "size", &v->size, "SIZE", "a size"),
		OPT_LIST(0, "list", &v->list, "X", "a list"),
		OPT_GPU(0, "gpu", &v->gpus, "sm_XY", "a GPU"),
		OPT_STEP(0, "step", &v->step, "STEP", "a step"),
		OPT_END(),
	};

	strvec_clear(&v->list);
	gpu_list_release(&v->gpus);
	memset(v, 0, sizeof(*v));
	strvec_init(&v->list);
	v->step = -1;
	return parse(line, &cmd_t, opts);
}

static void
t_values(void)
{
	struct vals v = { .list = STRVEC_INIT, .gpus = GPU_LIST_INIT };

	CHECK(parse_kinds("--str=a --flag", &v) == PARSE_OK && v.flag);
	CHECK_STR(v.str, "a");
	CHECK(parse_kinds("--str a", &v) == PARSE_OK && !v.flag);
	CHECK_STR(v.str, "a");
	CHECK(parse_kinds("--str=", &v) == PARSE_OK);
	CHECK_STR(v.str, "");
	CHECK(parse_kinds("-o f", &v) == PARSE_OK);
	CHECK_STR(v.out, "f");
	CHECK(parse_kinds("-of --output=g", &v) == PARSE_OK);
	CHECK_STR(v.out, "g");
	CHECK(parse_kinds("--str --flag", &v) == PARSE_OK);
	CHECK_STR(v.str, "--flag");
	CHECK(parse_kinds("--list a --list=b", &v) == PARSE_OK && v.list.n == 2);
	CHECK_STR(v.list.v[0], "a");
	CHECK_STR(v.list.v[1], "b");
	CHECK(parse_kinds("--size 16G --n 8 --choice md", &v) == PARSE_OK);
	CHECK(v.size == 16ULL << 30 && v.n == 8);
	CHECK_STR(v.choice, "md");
	CHECK(parse_kinds("--step compile --gpu sm_121 --gpu 9.0", &v) == PARSE_OK);
	CHECK(v.step == STEP_COMPILE && v.gpus.n == 2 && v.gpus.cc[0] == 121 && v.gpus.cc[1] == 90);
	CHECK(!strcmp(err, "") && !strcmp(out, ""));
	strvec_clear(&v.list);
	gpu_list_release(&v.gpus);
}

static void
t_errors(void)
{
	struct vals v = { .list = STRVEC_INIT, .gpus = GPU_LIST_INIT };

	CHECK(parse_kinds("--str", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: option '--str' needs a value\n");
	CHECK(parse_kinds("-o", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: option '-o' needs a value\n");
	CHECK(parse_kinds("--flag --nope=1", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: unknown option '--nope=1'; see 'bwbuild t --help'\n");
	CHECK(parse_kinds("--fla", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: unknown option '--fla'; see 'bwbuild t --help'\n"
		       "hint: did you mean '--flag'?\n");
	CHECK(parse_kinds("--sizr=1G", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: unknown option '--sizr=1G'; see 'bwbuild t --help'\n"
		       "hint: did you mean '--size'?\n");
	CHECK(parse_kinds("--flag=1", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: option '--flag' takes no value\n");
	CHECK(parse_kinds("stray", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: unexpected argument 'stray'; see 'bwbuild t --help'\n");
	CHECK(parse_kinds("-- --flag", &v) == PARSE_ERROR && !v.flag);
	CHECK_STR(err, "error: unexpected argument '--flag'; see 'bwbuild t --help'\n");
	CHECK(parse_kinds("--size 0", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: '0' is not a memory size for --size (e.g. 16G, 512M)\n");
	CHECK(parse_kinds("--size=lots", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: 'lots' is not a memory size for --size (e.g. 16G, 512M)\n");
	CHECK(parse_kinds("--n 0", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: --n wants a number from 1 to 8, not '0'\n");
	CHECK(parse_kinds("--n 9", &v) == PARSE_ERROR && parse_kinds("--n -1", &v) == PARSE_ERROR &&
	      parse_kinds("--n 3x", &v) == PARSE_ERROR && parse_kinds("--n=", &v) == PARSE_ERROR);
	CHECK(parse_kinds("--n 99999999999999999999", &v) == PARSE_ERROR);
	CHECK(parse_kinds("--choice xml", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: --choice is json or md, not 'xml'\n");
	CHECK(parse_kinds("--choice js", &v) == PARSE_ERROR);
	CHECK(parse_kinds("--step link", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: unknown step 'link' for --step (fetch, configure, compile, wheel, repair, "
		       "verify, smoke, publish)\n");
	CHECK(parse_kinds("--gpu sm120x", &v) == PARSE_ERROR);
	CHECK_STR(err, "error: 'sm120x' is not a GPU for --gpu (e.g. sm_121 or 12.1)\n");
	CHECK(parse_kinds("--flag -h --nope", &v) == PARSE_HELP && !strcmp(err, ""));
	CHECK(!strncmp(out, "usage: bwbuild t [--flag] [--str S] [-o FILE]", 45));
	strvec_clear(&v.list);
	gpu_list_release(&v.gpus);
}

static void
t_positional(void)
{
	const char *a = NULL, *b = NULL;
	char **rest = NULL;
	int flag = 0;
	const struct option two[] = {
		OPT_ARG("first", &a, "A", "one"),
		OPT_ARG("second", &b, "B", "two"),
		OPT_FLAG(0, "flag", &flag, "a flag"),
		OPT_END(),
	};
	const struct option tail[] = {
		OPT_FLAG(0, "flag", &flag, "a flag"),
		OPT_REST("compiler", &rest, "COMPILER ARGS...", "the command"),
		OPT_END(),
	};

	CHECK(parse("x --flag y", &cmd_t, two) == PARSE_OK && flag);
	CHECK_STR(a, "x");
	CHECK_STR(b, "y");
	CHECK(parse("-- -x -", &cmd_t, two) == PARSE_OK);
	CHECK_STR(a, "-x");
	CHECK_STR(b, "-");
	CHECK(parse("x", &cmd_t, two) == PARSE_ERROR);
	CHECK_STR(err, "error: no second given (see 'bwbuild t --help')\n");
	CHECK(parse("x y z", &cmd_t, two) == PARSE_ERROR);
	CHECK_STR(err, "error: unexpected argument 'z'; see 'bwbuild t --help'\n");

	flag = 0;
	CHECK(parse("cc -c --flag x.c", &cmd_t, tail) == PARSE_OK && !flag && rest);
	CHECK(rest && !strcmp(rest[0], "cc") && !strcmp(rest[2], "--flag") && !rest[4]);
	CHECK(parse("--flag -- --help", &cmd_t, tail) == PARSE_OK && flag);
	CHECK(rest && !strcmp(rest[0], "--help") && !rest[1]);
	CHECK(parse("--", &cmd_t, tail) == PARSE_ERROR);
	CHECK_STR(err, "error: no compiler given (see 'bwbuild t --help')\n");
}

static void
t_required(void)
{
	const char *profile = NULL;
	const struct opt_command need = { "b", NULL, "profile", 1 };
	const struct option opts[] = {
		OPT_STRING(0, "profile", &profile, "NAME", "which"),
		OPT_END(),
	};
	struct buf b = BUF_INIT;

	CHECK(parse("", &need, opts) == PARSE_ERROR);
	CHECK_STR(err, "error: no profile given; use --profile NAME (see 'bwbuild b --help')\n");
	CHECK(parse("--profile=x", &need, opts) == PARSE_OK);
	CHECK_STR(profile, "x");
	usage_with_options(&b, &need, opts);
	CHECK_STR(b.s, "usage: bwbuild b --profile NAME\n"
		       "       bwbuild --profile NAME [...]\n"
		       "\n"
		       "  --profile NAME  which\n");
	buf_release(&b);
}

static void
t_help(void)
{
	const char *s = NULL;
	int f = 0;
	struct strvec l = STRVEC_INIT;
	const struct option opts[] = {
		OPT_ARG("file", &s, "FILE", "the file"),
		OPT_FLAG(0, "json", &f, "print JSON"),
		OPT_STRING('o', "output", &s, "FILE", "write there"),
		OPT_LIST(0, "set", &l, "K=V",
			 "a description long enough that it has to be wrapped onto a second line "
			 "under itself"),
		OPT_FLAG(0, "a-very-long-option-name", &f, "on its own line"),
		OPT_END(),
	};
	struct buf b = BUF_INIT;

	usage_with_options(&b, &cmd_t, opts);
	CHECK_STR(b.s, "usage: bwbuild t FILE [--json] [-o FILE] [--set K=V]...\n"
		       "                 [--a-very-long-option-name]\n"
		       "\n"
		       "What t does.\n"
		       "\n"
		       "  FILE                  the file\n"
		       "  --json                print JSON\n"
		       "  -o, --output FILE     write there\n"
		       "  --set K=V             a description long enough that it has to be wrapped\n"
		       "                        onto a second line under itself\n"
		       "  --a-very-long-option-name\n"
		       "                        on its own line\n");
	CHECK(parse("--help", &cmd_t, opts) == PARSE_HELP);
	CHECK_STR(out, b.s);
	buf_release(&b);
}

void
t_options(void)
{
	t_write("options.err", "");
	t_values();
	t_errors();
	t_positional();
	t_required();
	t_help();
}
