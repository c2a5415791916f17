#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/formats/cmakelex.h"
#include "t.h"

/*
 * The CMake-language lexer under cmakeopts.c: commands and their lines,
 * the three argument forms, comments, escapes and the argument cap.
 */

static void
lexer(struct cmakelex *lx, const char *s, size_t cap)
{
	memset(lx, 0, sizeof(*lx));
	lx->s = s;
	lx->len = strlen(s);
	lx->line = 1;
	lx->cap = cap;
}

/* The arguments of the command the lexer is in, up to its ')', joined by '|'. */
static const char *
args(struct cmakelex *lx)
{
	static struct buf out = BUF_INIT;
	struct buf a = BUF_INIT;
	int c;

	buf_reset(&out);
	while ((c = cmakelex_at(lx, 0)) >= 0 && c != ')') {
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			cmakelex_advance(lx, 1);
			continue;
		}
		if (c == '#') {
			cmakelex_comment(lx);
			continue;
		}
		buf_reset(&a);
		cmakelex_argument(lx, &a);
		buf_addf(&out, "%s%s", out.len ? "|" : "", a.s ? a.s : "");
	}
	buf_release(&a);
	return out.s ? out.s : "";
}

void
t_cmakelex(void)
{
	static const char text[] =
		"# a comment (with a paren\n"
		"#[[ a bracket comment\n option(NOT_ME \"x\" ON) ]]\n"
		"set(A \"quoted ${x} \\\"q\\\"\" unquoted [==[bracket ]] text]==])\n"
		"\n"
		"  option (USE_X \"Use X\" ON # trailing\n"
		"    )\n"
		"if(\"a\\tb\" \\; c\\d)\n";
	struct cmakelex lx;
	size_t start, n;
	unsigned line;
	struct buf b = BUF_INIT;

	lexer(&lx, text, 0);
	CHECK(cmakelex_command(&lx, &start, &n, &line) == 1);
	CHECK(n == 3 && !strncmp(text + start, "set", 3) && line == 4);
	CHECK_STR(args(&lx), "A|quoted ${x} \"q\"|unquoted|bracket ]] text");
	CHECK(cmakelex_command(&lx, &start, &n, &line) == 1);
	CHECK(n == 6 && !strncmp(text + start, "option", 6) && line == 6);
	CHECK_STR(args(&lx), "USE_X|Use X|ON");
	CHECK(lx.line == 7);
	CHECK(cmakelex_command(&lx, &start, &n, &line) == 1);
	CHECK(!strncmp(text + start, "if", 2) && line == 8);
	/* every escape is the character escaped */
	CHECK_STR(args(&lx), "atb|;|cd");
	CHECK(cmakelex_command(&lx, &start, &n, &line) == 0);

	/* The cap: an argument keeps its first bytes; the rest is read and dropped. */
	lexer(&lx, "x(abcdefgh \"ijklmnop\" z)", 4);
	CHECK(cmakelex_command(&lx, &start, &n, &line) == 1);
	CHECK_STR(args(&lx), "abcd|ijkl|z");

	/* Brackets: the level, and one that is no bracket. */
	lexer(&lx, "[==[x]=]y]==]", 0);
	CHECK(cmakelex_bracket_level(&lx) == 2);
	cmakelex_bracket(&lx, 2, &b);
	CHECK_STR(b.s, "x]=]y");
	CHECK(cmakelex_at(&lx, 0) == -1);
	lexer(&lx, "[=x", 0);
	CHECK(cmakelex_bracket_level(&lx) == -1);

	/* Unterminated: read to the end, never past it. */
	lexer(&lx, "x(\"open", 0);
	CHECK(cmakelex_command(&lx, &start, &n, &line) == 1);
	buf_reset(&b);
	cmakelex_argument(&lx, &b);
	CHECK_STR(b.s, "open");
	CHECK(cmakelex_at(&lx, 0) == -1 && cmakelex_at(&lx, 5) == -1);
	cmakelex_advance(&lx, 10);
	CHECK(lx.i == lx.len);
	buf_release(&b);
}
