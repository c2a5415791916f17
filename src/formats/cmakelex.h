#ifndef BWBUILD_CMAKELEX_H
#define BWBUILD_CMAKELEX_H

#include <stddef.h>

struct buf;

/*
 * The CMake-language lexer under cmakeopts.c (option() calls);
 * cmakelex.c gives the grammar. A lexer over `len` bytes of `s`; `line` counts from 1.
 */
struct cmakelex {
	const char *s;
	size_t len, i;
	unsigned line;
	/* most bytes an argument keeps (the rest is read and dropped); 0: no limit */
	size_t cap;
};

#define CMAKELEX_INIT(text, n) { (text), (n), 0, 1, 0 }

/* The byte k ahead, or -1 past the end. */
int cmakelex_at(const struct cmakelex *lx, size_t k);
/* Move n bytes on (not past the end), counting lines. */
void cmakelex_advance(struct cmakelex *lx, size_t n);
/* At '[': the n of '[' '='{n} '[', or -1 when this is not a bracket opening. */
long cmakelex_bracket_level(const struct cmakelex *lx);
/* A bracket of level n opened here, up to and past its closing; its text into out (may be NULL). */
void cmakelex_bracket(struct cmakelex *lx, long n, struct buf *out);
/* At '#': a bracket or line comment, skipped. */
void cmakelex_comment(struct cmakelex *lx);
/* At '"': a quoted argument up to and past its closing quote (if any). */
void cmakelex_quoted(struct cmakelex *lx, struct buf *out);
/* An unquoted argument, up to a space, '(', ')', '#' or '"'. */
void cmakelex_unquoted(struct cmakelex *lx, struct buf *out);
/* One argument here (not a space, comment or parenthesis): quoted, bracket or unquoted. */
void cmakelex_argument(struct cmakelex *lx, struct buf *out);
/*
 * The next command invocation: its name (`*start`, `*n` bytes into s)
 * and line, the lexer just past its '('. Comments and quoted text
 * between commands are skipped. 0 at the end of the text.
 */
int cmakelex_command(struct cmakelex *lx, size_t *start, size_t *n, unsigned *line);

#endif
