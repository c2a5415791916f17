#ifndef BWBUILD_BUF_H
#define BWBUILD_BUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A growable string buffer in the manner of git's strbuf.
 *
 * Invariants: `s` is never NULL and always NUL-terminated; an initialised
 * buffer with no allocation points at a shared empty string, so BUF_INIT
 * costs nothing. buf_detach() is the only way to take ownership of `s`.
 */
struct buf {
	char *s;
	size_t len;
	size_t cap;
};

extern char buf_empty[];
#define BUF_INIT { buf_empty, 0, 0 }

void buf_init(struct buf *b);
/* Free the contents and return to the BUF_INIT state. */
void buf_release(struct buf *b);
/* Take the string; the buffer is left empty. Never returns NULL. */
char *buf_detach(struct buf *b);
void buf_reset(struct buf *b);
void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *data, size_t len);
void buf_addstr(struct buf *b, const char *s);
void buf_addch(struct buf *b, int c);
void buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap);
void buf_setlen(struct buf *b, size_t len);
/* Remove trailing whitespace. */
void buf_rtrim(struct buf *b);

#endif
