#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/build.h"
#include "core/buf.h"
#include "profile/compat.h"
#include "core/diag.h"
#include "cli/options.h"
#include "pipeline/plan.h"
#include "core/strvec.h"
#include "core/suggest.h"
#include "core/util.h"

enum {
	WIDTH = 79,      /* longest help line */
	MAX_COLUMN = 24, /* where option descriptions start, at most */
};

static int
is_positional(const struct option *o)
{
	return o->kind == OPTION_ARG || o->kind == OPTION_REST || o->kind == OPTION_ARGS;
}

static int
is_repeatable(const struct option *o)
{
	return o->kind == OPTION_LIST || o->kind == OPTION_GPU;
}

static int
is_required(const struct opt_command *cmd, const struct option *o)
{
	return cmd->required && !is_positional(o) && !strcmp(o->long_name, cmd->required);
}

/* The row of the command's required option, or NULL when it has none. */
static const struct option *
required_option(const struct opt_command *cmd, const struct option *opts)
{
	for (; opts->kind != OPTION_END; opts++)
		if (is_required(cmd, opts))
			return opts;
	if (cmd->required)
		BUG("'%s' requires option '%s', which it does not have", cmd->name, cmd->required);
	return NULL;
}

static const struct option *
next_positional(const struct option *o)
{
	for (; o->kind != OPTION_END; o++)
		if (is_positional(o))
			return o;
	return NULL;
}

/* The row for "--name", "--name=VALUE", "-s" or "-sVALUE"; *inline_value set when attached. */
static const struct option *
lookup(const struct option *opts, const char *arg, const char **inline_value)
{
	const struct option *o;

	*inline_value = NULL;
	for (o = opts; o->kind != OPTION_END; o++) {
		if (is_positional(o))
			continue;
		if (arg[1] == '-') {
			size_t n = strlen(o->long_name);

			if (strncmp(arg + 2, o->long_name, n) || (arg[2 + n] && arg[2 + n] != '='))
				continue;
			if (arg[2 + n] == '=')
				*inline_value = arg + 3 + n;
			return o;
		}
		if (o->short_name && arg[1] == o->short_name) {
			if (arg[2])
				*inline_value = arg + 2;
			return o;
		}
	}
	return NULL;
}

/* "json|md" -> 1 if `v` is one of the words. */
static int
is_choice(const char *choices, const char *v)
{
	size_t n = strlen(v);

	for (const char *c = choices;; c++) {
		if (!strncmp(c, v, n) && (c[n] == '|' || !c[n]))
			return 1;
		if (!(c = strchr(c, '|')))
			return 0;
	}
}

/* "json|md" -> "json or md"; "a|b|c" -> "a, b or c". */
static void
choices_text(struct buf *out, const char *choices)
{
	const char *last = strrchr(choices, '|');

	for (const char *c = choices; *c; c++) {
		if (*c != '|')
			buf_addch(out, *c);
		else
			buf_addstr(out, c == last ? " or " : ", ");
	}
}

static int
bad_choice(const struct option *o, const char *v)
{
	struct buf words = BUF_INIT;

	choices_text(&words, o->argh);
	error("--%s is %s, not '%s'", o->long_name, words.s, v);
	buf_release(&words);
	return -1;
}

static int
bad_step(const struct option *o, const char *v)
{
	struct buf names = BUF_INIT;

	for (int s = 0; s < STEP__COUNT; s++)
		buf_addf(&names, "%s%s", s ? ", " : "", step_names[s]);
	error("unknown step '%s' for --%s (%s)", v, o->long_name, names.s);
	buf_release(&names);
	return -1;
}

static int
take_unsigned(const struct option *o, const char *v)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = isdigit((unsigned char)*v) ? strtoul(v, &end, 10) : 0;
	if (!isdigit((unsigned char)*v) || *end || errno || n < o->min || n > o->max)
		return error("--%s wants a number from %u to %u, not '%s'", o->long_name, o->min,
			     o->max, v);
	*(unsigned *)o->value = (unsigned)n;
	return 0;
}

/* Store an option's value; -1 after reporting a bad one. */
static int
take(const struct option *o, const char *v)
{
	uint64_t size;
	int step;

	switch (o->kind) {
	case OPTION_FLAG:
		*(int *)o->value = 1;
		return 0;
	case OPTION_STRING:
		/* `--work ''` would mean the current directory, whose files bwbuild would rewrite. */
		if (o->argh && !strcmp(o->argh, "DIR") && !*v)
			return error("--%s is empty; give it a directory of its own (e.g. --%s %s/NAME)",
				     o->long_name, o->long_name, o->long_name);
		*(const char **)o->value = v;
		return 0;
	case OPTION_CHOICE:
		if (!is_choice(o->argh, v))
			return bad_choice(o, v);
		*(const char **)o->value = v;
		return 0;
	case OPTION_UNSIGNED:
		return take_unsigned(o, v);
	case OPTION_SIZE:
		if (parse_size(v, &size) < 0 || !size)
			return error("'%s' is not a memory size for --%s (e.g. 16G, 512M)", v,
				     o->long_name);
		*(uint64_t *)o->value = size;
		return 0;
	case OPTION_LIST:
		strvec_push(o->value, v);
		return 0;
	case OPTION_GPU:
		if (gpu_list_add(o->value, v) < 0)
			return error("'%s' is not a GPU for --%s (e.g. sm_121 or 12.1)", v,
				     o->long_name);
		return 0;
	case OPTION_STEP:
		if ((step = step_from_name(v)) < 0)
			return bad_step(o, v);
		*(int *)o->value = step;
		return 0;
	default:
		BUG("option '%s' of kind %d", o->long_name, (int)o->kind);
	}
}

/* "hint: did you mean '--profile'?" for a mistyped long option (its "=VALUE" aside). */
static void
suggest_option(const struct option *opts, const char *arg)
{
	struct suggest s;
	char *word;

	if (arg[1] != '-')
		return;
	word = xstrndup(arg + 2, strcspn(arg + 2, "="));
	suggest_init(&s, word);
	for (const struct option *o = opts; o->kind != OPTION_END; o++)
		if (!is_positional(o))
			suggest_add(&s, o->long_name);
	suggest_add(&s, "help");
	if (suggest_best(&s))
		hint("did you mean '--%s'?", suggest_best(&s));
	free(word);
}

/* The option at argv[*i] with its value stored (a separate value advances *i); NULL after reporting. */
static const struct option *
parse_option(int argc, char **argv, int *i, const struct opt_command *cmd,
	     const struct option *opts)
{
	const char *arg = argv[*i], *v;
	const struct option *o = lookup(opts, arg, &v);

	if (!o) {
		error("unknown option '%s'; see 'bwbuild %s --help'", arg, cmd->name);
		suggest_option(opts, arg);
		return NULL;
	}
	if (o->kind == OPTION_FLAG && v) {
		error("option '%.*s' takes no value", (int)(v - arg - (arg[1] == '-')), arg);
		return NULL;
	}
	if (o->kind != OPTION_FLAG && !v) {
		if (*i + 1 >= argc) {
			error("option '%s' needs a value", arg);
			return NULL;
		}
		v = argv[++*i];
	}
	return take(o, v) < 0 ? NULL : o;
}

/* After the arguments: a positional argument or a required option missing. */
static int
check_complete(const struct opt_command *cmd, const struct option *opts,
	       const struct option *pos, int required_given)
{
	const struct option *o = required_option(cmd, opts);

	if (pos && !(pos->kind == OPTION_ARGS && ((const struct strvec *)pos->value)->n))
		return error("no %s given (see 'bwbuild %s --help')", pos->long_name, cmd->name);
	if (!o || required_given)
		return 0;
	return error("no %s given; use --%s %s (see 'bwbuild %s --help')", o->long_name,
		     o->long_name, o->argh, cmd->name);
}

enum help_format help_format = HELP_TEXT;

static void
print_help(const struct opt_command *cmd, const struct option *opts)
{
	struct buf b = BUF_INIT;

	if (help_format == HELP_MD)
		usage_markdown(&b, cmd, opts);
	else if (help_format == HELP_MAN)
		usage_man(&b, cmd, opts);
	else if (help_format == HELP_BASH)
		usage_bash(&b, cmd, opts);
	else
		usage_with_options(&b, cmd, opts);
	fputs(b.s, stdout);
	buf_release(&b);
}

enum parse_result
parse_options(int argc, char **argv, const struct opt_command *cmd, const struct option *opts)
{
	const struct option *pos = next_positional(opts), *o;
	int i, dashdash = 0, required_given = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (dashdash || a[0] != '-' || !a[1]) {
			if (!pos) {
				error("unexpected argument '%s'; see 'bwbuild %s --help'", a, cmd->name);
				return PARSE_ERROR;
			}
			if (pos->kind == OPTION_REST) {
				*(char ***)pos->value = argv + i;
				pos = NULL;
				break;
			}
			if (pos->kind == OPTION_ARGS) {
				/* Stays the current positional: it takes every one after it too. */
				strvec_push(pos->value, a);
				continue;
			}
			*(const char **)pos->value = a;
			pos = next_positional(pos + 1);
		} else if (!strcmp(a, "--")) {
			dashdash = 1;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_help(cmd, opts);
			return PARSE_HELP;
		} else {
			if (!(o = parse_option(argc, argv, &i, cmd, opts)))
				return PARSE_ERROR;
			required_given |= is_required(cmd, o);
		}
	}
	return check_complete(cmd, opts, pos, required_given) < 0 ? PARSE_ERROR : PARSE_OK;
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t
columns(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t k = 0; k < n; k++)
		w += ((unsigned char)s[k] & 0xc0) != 0x80;
	return w;
}

/* Append the `sep`-separated words of `text` at column *col, breaking lines to `indent`. */
static void
add_wrapped(struct buf *out, size_t *col, size_t indent, const char *text, const char *sep)
{
	text += strspn(text, sep);
	while (*text) {
		size_t n = strcspn(text, sep), w = columns(text, n);

		if (*col > indent && *col + 1 + w > WIDTH) {
			buf_addf(out, "\n%*s", (int)indent, "");
			*col = indent;
		} else if (*col > indent) {
			buf_addch(out, ' ');
			(*col)++;
		}
		buf_add(out, text, n);
		*col += w;
		text += n;
		text += strspn(text, sep);
	}
}

static void
synopsis_token(struct buf *tok, const struct opt_command *cmd, const struct option *o)
{
	int required = is_required(cmd, o);

	if (o->kind == OPTION_REST) {
		buf_addf(tok, "-- %s", o->argh);
		return;
	}
	if (o->kind == OPTION_ARG || o->kind == OPTION_ARGS) {
		buf_addf(tok, "%s%s", o->argh, o->kind == OPTION_ARGS ? "..." : "");
		return;
	}
	if (!required)
		buf_addch(tok, '[');
	if (o->short_name)
		buf_addf(tok, "-%c", o->short_name);
	else
		buf_addf(tok, "--%s", o->long_name);
	if (o->argh)
		buf_addf(tok, " %s", o->argh);
	if (!required)
		buf_addch(tok, ']');
	if (is_repeatable(o))
		buf_addstr(tok, "...");
}

/*
 * The usage line: positional arguments, then the options in table order,
 * then the verbatim rest; wrapped under the first argument. Tokens are
 * separated by tabs so that "[--out DIR]" never breaks inside.
 */
static void
add_synopsis(struct buf *out, const struct opt_command *cmd, const struct option *opts)
{
	struct buf tokens = BUF_INIT, tok = BUF_INIT;
	size_t col, indent;
	int pass;

	for (pass = 0; pass < 3; pass++) {
		for (const struct option *o = opts; o->kind != OPTION_END; o++) {
			if ((o->kind == OPTION_ARG || o->kind == OPTION_ARGS) != (pass == 0) ||
			    (o->kind == OPTION_REST) != (pass == 2))
				continue;
			buf_reset(&tok);
			synopsis_token(&tok, cmd, o);
			buf_addf(&tokens, "%s%s", tokens.len ? "\t" : "", tok.s);
		}
	}
	buf_addf(out, "usage: bwbuild %s%s", cmd->name, tokens.len ? " " : "");
	indent = col = strlen("usage: bwbuild  ") + strlen(cmd->name);
	add_wrapped(out, &col, indent, tokens.s, "\t");
	buf_addch(out, '\n');
	if (cmd->is_default) {
		const struct option *o = required_option(cmd, opts);

		buf_reset(&tok);
		if (o)
			synopsis_token(&tok, cmd, o);
		buf_addf(out, "       bwbuild %s [...]\n", o ? tok.s : "[options]");
	}
	buf_release(&tokens);
	buf_release(&tok);
}

static void
option_left(struct buf *out, const struct option *o)
{
	if (is_positional(o)) {
		buf_addf(out, "  %s", o->argh);
		return;
	}
	buf_addstr(out, "  ");
	if (o->short_name)
		buf_addf(out, "-%c, ", o->short_name);
	buf_addf(out, "--%s", o->long_name);
	if (o->argh)
		buf_addf(out, " %s", o->argh);
}

/* "  -o, --output FILE   help wrapped under itself": the column fits the longest left part. */
static void
add_option_list(struct buf *out, const struct option *opts)
{
	struct buf left = BUF_INIT;
	size_t column = 0;
	const struct option *o;

	for (o = opts; o->kind != OPTION_END; o++) {
		buf_reset(&left);
		option_left(&left, o);
		if (left.len + 2 > column)
			column = left.len + 2;
	}
	if (column > MAX_COLUMN)
		column = MAX_COLUMN;
	for (o = opts; o->kind != OPTION_END; o++) {
		size_t col;

		if (!o->help)
			continue;
		buf_reset(&left);
		option_left(&left, o);
		buf_addstr(out, left.s);
		col = columns(left.s, left.len);
		if (col + 2 > column)
			buf_addf(out, "\n%*s", (int)column, "");
		else
			buf_addf(out, "%*s", (int)(column - col), "");
		col = column;
		add_wrapped(out, &col, column, o->help, " ");
		buf_addch(out, '\n');
	}
	buf_release(&left);
}

void
usage_with_options(struct buf *out, const struct opt_command *cmd, const struct option *opts)
{
	add_synopsis(out, cmd, opts);
	if (cmd->about)
		buf_addf(out, "\n%s", cmd->about);
	if (opts->kind != OPTION_END)
		buf_addch(out, '\n');
	add_option_list(out, opts);
}

/* The reference of docs/bwbuild.md is what --help prints, so the two cannot differ. */
void
usage_markdown(struct buf *out, const struct opt_command *cmd, const struct option *opts)
{
	buf_addf(out, "### bwbuild %s\n\n```text\n", cmd->name);
	usage_with_options(out, cmd, opts);
	buf_addstr(out, "```\n\n");
}

void
man_escape(struct buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c == '.' || c == '\'') && (!out->len || out->s[out->len - 1] == '\n'))
			buf_addstr(out, "\\&");
		if (c == '\\') {
			buf_addstr(out, "\\e");
		} else if (c == '-') {
			buf_addstr(out, "\\-");
		} else if (c >= 0xc0) {
			unsigned cp = 0;
			int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;

			cp = c & (0x3f >> more);
			for (; more && i + 1 < n; more--)
				cp = cp << 6 | ((unsigned char)s[++i] & 0x3f);
			/* Variation selectors only pick a glyph's style. */
			if (cp != 0xfe0f)
				buf_addf(out, "\\[u%04X]", cp);
		} else {
			buf_addch(out, (char)c);
		}
	}
}

static void
man_escape_str(struct buf *out, const char *s)
{
	man_escape(out, s, strlen(s));
}

/* ".BI --name \" VALUE\"" or ".B --name" for the option's term line. */
static void
man_term(struct buf *out, const struct option *o)
{
	if (is_positional(o)) {
		buf_addstr(out, ".I \"");
		man_escape_str(out, o->argh);
		buf_addstr(out, "\"\n");
		return;
	}
	buf_addstr(out, o->argh ? ".BI \"" : ".B \"");
	if (o->short_name)
		buf_addf(out, "\\-%c, ", o->short_name);
	buf_addstr(out, "\\-\\-");
	man_escape_str(out, o->long_name);
	if (o->argh) {
		buf_addstr(out, "\" \" ");
		man_escape_str(out, o->argh);
	}
	buf_addstr(out, "\"\n");
}

/* ".SS NAME", the usage line, the command's text, then a .TP per option (docs/bwbuild.1). */
void
usage_man(struct buf *out, const struct opt_command *cmd, const struct option *opts)
{
	struct buf syn = BUF_INIT;
	const char *nl;

	buf_addf(out, ".SS %s\n.nf\n", cmd->name);
	add_synopsis(&syn, cmd, opts);
	man_escape(out, syn.s, syn.len);
	buf_addstr(out, ".fi\n");
	if (cmd->about) {
		buf_addstr(out, ".PP\n");
		for (const char *l = cmd->about; *l; l = nl + 1) {
			if (!(nl = strchr(l, '\n')))
				nl = l + strlen(l);
			man_escape(out, l, (size_t)(nl - l));
			buf_addch(out, '\n');
			if (!*nl)
				break;
		}
	}
	for (const struct option *o = opts; o->kind != OPTION_END; o++) {
		if (!o->help)
			continue;
		buf_addstr(out, ".TP\n");
		man_term(out, o);
		man_escape_str(out, o->help);
		buf_addch(out, '\n');
	}
	buf_release(&syn);
}

/*
 * "_bwbuild_opts_CMD=\"--a --b --help\"" and, on a second line, the
 * options of the command that take a value, added to the completion's
 * _bwbuild_value_opts.
 */
void
usage_bash(struct buf *out, const struct opt_command *cmd, const struct option *opts)
{
	struct buf v = BUF_INIT;

	buf_addf(out, "_bwbuild_opts_%s=\"", cmd->name);
	for (const struct option *o = opts; o->kind != OPTION_END; o++) {
		if (o->kind == OPTION_REST)
			buf_addstr(out, "-- ");
		if (is_positional(o))
			continue;
		buf_addf(out, "--%s ", o->long_name);
		if (o->kind != OPTION_FLAG) {
			buf_addf(&v, "--%s ", o->long_name);
			if (o->short_name)
				buf_addf(&v, "-%c ", o->short_name);
		}
	}
	buf_addstr(out, "--help\"\n");
	if (v.len)
		buf_addf(out, "_bwbuild_value_opts+=\"%s\"\n", v.s);
	buf_release(&v);
}
