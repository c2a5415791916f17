#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/util.h"

char buf_empty[1];

void
buf_init(struct buf *b)
{
	b->s = buf_empty;
	b->len = 0;
	b->cap = 0;
}

void
buf_release(struct buf *b)
{
	if (b->cap)
		free(b->s);
	buf_init(b);
}

char *
buf_detach(struct buf *b)
{
	char *s = b->cap ? b->s : xstrdup("");

	buf_init(b);
	return s;
}

void
buf_reset(struct buf *b)
{
	buf_setlen(b, 0);
}

void
buf_grow(struct buf *b, size_t extra)
{
	size_t need;

	if (b->len + extra + 1 < b->len)
		die("string buffer size overflow");
	need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	if (!b->cap)
		b->s = NULL;
	b->cap = b->cap ? b->cap * 2 : 64;
	if (b->cap < need)
		b->cap = need;
	b->s = xrealloc(b->s, b->cap);
	if (!b->len)
		b->s[0] = '\0';
}

void
buf_setlen(struct buf *b, size_t len)
{
	if (len > b->len)
		BUG("buf_setlen beyond length");
	b->len = len;
	if (b->cap)
		b->s[len] = '\0';
}

void
buf_add(struct buf *b, const void *data, size_t len)
{
	if (!len)
		return;
	buf_grow(b, len);
	memcpy(b->s + b->len, data, len);
	b->len += len;
	b->s[b->len] = '\0';
}

void
buf_addstr(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addch(struct buf *b, int c)
{
	char ch = (char)c;

	buf_add(b, &ch, 1);
}

void
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("bad format string");
	buf_grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void
buf_rtrim(struct buf *b)
{
	size_t n = b->len;

	while (n && strchr(" \t\r\n", b->s[n - 1]))
		n--;
	buf_setlen(b, n);
}
