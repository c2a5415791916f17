#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "t.h"

/* The string buffer's invariants: never NULL, always terminated, detach hands over. */

static void
add_via_va(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void
t_buf(void)
{
	struct buf b = BUF_INIT, c;
	char *s, big[3000];
	size_t i;

	/* BUF_INIT: the shared empty string, nothing allocated. */
	CHECK(b.s == buf_empty && b.len == 0 && b.cap == 0);
	CHECK_STR(b.s, "");
	s = buf_detach(&b);
	CHECK(s != NULL && s != buf_empty && *s == '\0');
	free(s);

	buf_addstr(&b, "sm_");
	buf_addf(&b, "%d", 120);
	buf_addch(&b, 'a');
	buf_add(&b, "xyz", 2);
	buf_add(&b, NULL, 0);
	CHECK_STR(b.s, "sm_120axy");
	CHECK(b.len == 9 && b.cap > b.len);

	/* printf growth past the first guess, and the va_list form. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	buf_reset(&b);
	buf_addf(&b, "[%s]", big);
	CHECK(b.len == sizeof(big) + 1 && b.s[0] == '[' && b.s[b.len - 1] == ']');
	CHECK(b.s[b.len] == '\0');
	buf_reset(&b);
	add_via_va(&b, "%s=%u", "jobs", 8u);
	CHECK_STR(b.s, "jobs=8");

	buf_setlen(&b, 4);
	CHECK_STR(b.s, "jobs");
	buf_addstr(&b, " \t\n\n");
	buf_rtrim(&b);
	CHECK_STR(b.s, "jobs");
	CHECK(b.len == 4);
	buf_reset(&b);
	buf_addstr(&b, "   ");
	buf_rtrim(&b);
	CHECK(b.len == 0 && b.s[0] == '\0');

	/* grow reserves without changing the contents. */
	buf_addstr(&b, "abc");
	buf_grow(&b, 10000);
	CHECK(b.cap >= 10004);
	CHECK_STR(b.s, "abc");

	/* many small appends */
	buf_reset(&b);
	for (i = 0; i < 1000; i++)
		buf_addch(&b, 'a' + (int)(i % 26));
	CHECK(b.len == 1000 && b.s[999] == 'a' + 999 % 26 && b.s[1000] == '\0');

	s = buf_detach(&b);
	CHECK(strlen(s) == 1000);
	CHECK(b.s == buf_empty && b.len == 0 && b.cap == 0);
	free(s);

	buf_init(&c);
	CHECK(c.s == buf_empty);
	buf_addstr(&c, "x");
	buf_release(&c);
	CHECK(c.s == buf_empty && c.len == 0);
	buf_release(&b);
}
