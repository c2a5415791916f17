/*
 * The CMake-language lexer (cmake-language(7)) that finds command
 * invocations and their arguments without running CMake; cmakeopts.c
 * reads on top of it. May include: core/, formats/cmakelex.h.
 *
 *   file        := (space | newline | comment | invocation | other)*
 *   comment     := '#' bracket-open ... bracket-close     (bracket comment)
 *                | '#' ... end of line                    (line comment)
 *   invocation  := identifier [ \t]* '(' arguments ')'
 *   identifier  := [A-Za-z_][A-Za-z0-9_]*
 *   arguments   := (space | newline | comment | argument | '(' arguments ')')*
 *   argument    := bracket-open ... bracket-close          (bracket argument, verbatim)
 *                | '"' (char | '\' escape)* '"'            (quoted argument)
 *                | (char other than space ( ) # " \ | '\' escape)+  (unquoted argument)
 *   bracket-open  := '[' '='{n} '['   and bracket-close := ']' '='{n} ']'
 *
 * An escape is the character escaped; '\' newline in a quoted argument
 * continues the line. The arguments' parentheses are left to the reader:
 * cmakeopts.c keeps only the top level. (select_compute_arch.cmake, which
 * needs CMake's own escapes and regexes, is run by CMake: host/cmakearch.c.)
 */
#include <ctype.h>
#include <string.h>

#include "core/buf.h"
#include "formats/cmakelex.h"

int
cmakelex_at(const struct cmakelex *lx, size_t k)
{
	return lx->i + k < lx->len ? (unsigned char)lx->s[lx->i + k] : -1;
}

void
cmakelex_advance(struct cmakelex *lx, size_t n)
{
	while (n-- && lx->i < lx->len) {
		if (lx->s[lx->i] == '\n')
			lx->line++;
		lx->i++;
	}
}

static void
add(const struct cmakelex *lx, struct buf *out, int c)
{
	if (out && (!lx->cap || out->len < lx->cap))
		buf_addch(out, (char)c);
}

long
cmakelex_bracket_level(const struct cmakelex *lx)
{
	size_t k = 1;

	if (cmakelex_at(lx, 0) != '[')
		return -1;
	while (cmakelex_at(lx, k) == '=')
		k++;
	return cmakelex_at(lx, k) == '[' ? (long)(k - 1) : -1;
}

void
cmakelex_bracket(struct cmakelex *lx, long n, struct buf *out)
{
	cmakelex_advance(lx, (size_t)n + 2);
	while (lx->i < lx->len) {
		if (cmakelex_at(lx, 0) == ']') {
			long k = 1;

			while (cmakelex_at(lx, (size_t)k) == '=')
				k++;
			if (k - 1 == n && cmakelex_at(lx, (size_t)k) == ']') {
				cmakelex_advance(lx, (size_t)k + 1);
				return;
			}
		}
		add(lx, out, lx->s[lx->i]);
		cmakelex_advance(lx, 1);
	}
}

void
cmakelex_comment(struct cmakelex *lx)
{
	long n;

	cmakelex_advance(lx, 1);
	if ((n = cmakelex_bracket_level(lx)) >= 0) {
		cmakelex_bracket(lx, n, NULL);
		return;
	}
	while (lx->i < lx->len && lx->s[lx->i] != '\n')
		cmakelex_advance(lx, 1);
}

/*
 * At '\': one escape into out, as the escaped character (cmakeopts.c
 * judges only option names and defaults); a lone '\' at the end kept,
 * and in a quoted argument '\' newline (or CR LF) continues the line.
 */
static void
escape(struct cmakelex *lx, struct buf *out, int quoted)
{
	int c = cmakelex_at(lx, 1);

	if (c < 0) {
		add(lx, out, '\\');
		cmakelex_advance(lx, 1);
	} else if (quoted && c == '\n') {
		cmakelex_advance(lx, 2);
	} else if (quoted && c == '\r' && cmakelex_at(lx, 2) == '\n') {
		cmakelex_advance(lx, 3);
	} else {
		add(lx, out, c);
		cmakelex_advance(lx, 2);
	}
}

void
cmakelex_quoted(struct cmakelex *lx, struct buf *out)
{
	cmakelex_advance(lx, 1);
	while (lx->i < lx->len && cmakelex_at(lx, 0) != '"') {
		if (cmakelex_at(lx, 0) == '\\') {
			escape(lx, out, 1);
			continue;
		}
		add(lx, out, lx->s[lx->i]);
		cmakelex_advance(lx, 1);
	}
	cmakelex_advance(lx, 1); /* the closing quote, if any */
}

void
cmakelex_unquoted(struct cmakelex *lx, struct buf *out)
{
	while (lx->i < lx->len) {
		int c = cmakelex_at(lx, 0);

		if (isspace(c) || c == '(' || c == ')' || c == '#' || c == '"')
			break;
		if (c == '\\') {
			escape(lx, out, 0);
			continue;
		}
		add(lx, out, c);
		cmakelex_advance(lx, 1);
	}
}

void
cmakelex_argument(struct cmakelex *lx, struct buf *out)
{
	long n;

	if (cmakelex_at(lx, 0) == '"')
		cmakelex_quoted(lx, out);
	else if ((n = cmakelex_bracket_level(lx)) >= 0)
		cmakelex_bracket(lx, n, out);
	else
		cmakelex_unquoted(lx, out);
}

int
cmakelex_command(struct cmakelex *lx, size_t *start, size_t *n, unsigned *line)
{
	while (lx->i < lx->len) {
		int c = cmakelex_at(lx, 0);

		if (c == '#') {
			cmakelex_comment(lx);
			continue;
		}
		if (c == '"') {
			struct buf junk = BUF_INIT;

			cmakelex_quoted(lx, &junk);
			buf_release(&junk);
			continue;
		}
		if (!(isalpha(c) || c == '_')) {
			cmakelex_advance(lx, 1);
			continue;
		}
		*start = lx->i;
		*line = lx->line;
		while (isalnum(cmakelex_at(lx, 0)) || cmakelex_at(lx, 0) == '_')
			cmakelex_advance(lx, 1);
		*n = lx->i - *start;
		while (cmakelex_at(lx, 0) == ' ' || cmakelex_at(lx, 0) == '\t')
			cmakelex_advance(lx, 1);
		if (cmakelex_at(lx, 0) != '(')
			continue;
		cmakelex_advance(lx, 1);
		return 1;
	}
	return 0;
}
