#include <stdlib.h>

#include "core/buf.h"
#include "core/relver.h"

/* One number of at most 9 digits at *s; -1 when there is none. */
static int
number(const char **s, unsigned *out)
{
	const char *p = *s;
	unsigned long n = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (p - *s >= 9)
			return -1;
		n = n * 10 + (unsigned long)(*p - '0');
	}
	*out = (unsigned)n;
	*s = p;
	return 0;
}

int
relver_parse(const char *s, struct relver *v, const char **end)
{
	struct relver r = { 0, 0, 0, 0 };
	const char *p = s;

	*v = r;
	if (end)
		*end = s;
	if (!p)
		return -1;
	if (*p == 'v')
		p++;
	if (number(&p, &r.major) < 0 || *p != '.')
		return -1;
	p++;
	if (number(&p, &r.minor) < 0)
		return -1;
	if (*p == '.' && p[1] >= '0' && p[1] <= '9') {
		p++;
		if (number(&p, &r.patch) < 0)
			return -1;
		r.has_patch = 1;
	}
	*v = r;
	if (end)
		*end = p;
	return 0;
}

static int
ucmp(unsigned a, unsigned b)
{
	return a < b ? -1 : a > b;
}

int
relver_cmp(const struct relver *a, const struct relver *b)
{
	int c = ucmp(a->major, b->major);

	if (!c)
		c = ucmp(a->minor, b->minor);
	if (!c && a->has_patch && b->has_patch)
		c = ucmp(a->patch, b->patch);
	return c;
}

int
relver_known(const struct relver *v)
{
	return v->major || v->minor || v->has_patch;
}

void
relver_format(const struct relver *v, int with_patch, struct buf *out)
{
	buf_addf(out, "%u.%u", v->major, v->minor);
	if (with_patch && v->has_patch)
		buf_addf(out, ".%u", v->patch);
}

unsigned
relver_key(const struct relver *v)
{
	return v->major * 100 + v->minor;
}
