#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/arch.h"
#include "core/buf.h"

static int
parse_digits(const char **p, int *out)
{
	long v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s - '0');
		if (v > 1000)
			return -1;
		s++;
	}
	*p = s;
	*out = (int)v;
	return 0;
}

/* "120" -> 12.0, "90a" -> 9.0a: the sm_/compute_ spellings users type. */
static int
suggest_from_sm(const char *digits, struct buf *why, const char *orig, int ptx)
{
	const char *p = digits;
	int n;
	char variant = 0;

	if (parse_digits(&p, &n) < 0 || n < 10)
		return 0;
	if (*p == 'a' || *p == 'f')
		variant = *p++;
	if (*p)
		return 0;
	buf_addf(why, "'%s' is not a TORCH_CUDA_ARCH_LIST entry; did you mean '%d.%d", orig,
		 n / 10, n % 10);
	if (variant)
		buf_addch(why, variant);
	buf_addf(why, "%s'?", ptx ? "+PTX" : "");
	return 1;
}

int
arch_parse(struct arch *out, const char *text, struct buf *why)
{
	const char *p = text;
	size_t len = strlen(text);
	struct arch a = { 0, 0, 0, 0 };

	if (!len) {
		buf_addstr(why, "empty arch entry");
		return -1;
	}
	if (strchr(text, ',')) {
		buf_addf(why, "'%s' contains a comma; TORCH_CUDA_ARCH_LIST entries are separated by ';' "
			 "(list them as separate items)", text);
		return -1;
	}
	if (len > 4 && !strcmp(text + len - 4, "+PTX"))
		a.ptx = 1;
	if (!strncmp(text, "sm_", 3) && suggest_from_sm(text + 3, why, text, 0))
		return -1;
	if (!strncmp(text, "compute_", 8) && suggest_from_sm(text + 8, why, text, 1))
		return -1;
	/* "80", "120": an sm number; but "12" is more likely 12 without ".0". */
	if (isdigit((unsigned char)*p) && !(atoi(text) >= 10 && atoi(text) <= 29 && strlen(text) == 2) &&
	    suggest_from_sm(text, why, text, 0))
		return -1;

	if (parse_digits(&p, &a.major) < 0)
		goto bad;
	if (*p != '.') {
		if (!*p)
			buf_addf(why, "'%s' has no minor version; did you mean '%d.0'?", text, a.major);
		else
			goto bad;
		return -1;
	}
	p++;
	if (!isdigit((unsigned char)*p))
		goto bad;
	a.minor = *p++ - '0';
	if (isdigit((unsigned char)*p)) {
		buf_addf(why, "'%s': the minor version is a single digit (as in '12.0')", text);
		return -1;
	}
	if (*p == 'a' || *p == 'f')
		a.variant = *p++;
	if (*p == '.') {
		buf_addf(why, "'%s' has too many components; did you mean '%d.%d'?", text, a.major,
			 a.minor);
		return -1;
	}
	if (a.ptx && !strcmp(p, "+PTX"))
		p += 4;
	if (*p) {
		buf_addf(why, "'%s' has an unknown suffix '%s'; allowed are 'a', 'f' and '+PTX' "
			 "(as in '%d.%d+PTX')", text, p, a.major, a.minor);
		return -1;
	}
	if (a.major < 1 || a.major > 99) {
		buf_addf(why, "'%s' is not a compute capability", text);
		return -1;
	}
	*out = a;
	return 0;
bad:
	buf_addf(why, "'%s' is not a TORCH_CUDA_ARCH_LIST entry (expected X.Y, X.Ya, X.Yf, "
		 "optionally with +PTX, as in '12.0+PTX')", text);
	return -1;
}

void
arch_sass_name(const struct arch *a, struct buf *out)
{
	buf_addf(out, "sm_%d%d", a->major, a->minor);
	if (a->variant)
		buf_addch(out, a->variant);
}

void
arch_ptx_name(const struct arch *a, struct buf *out)
{
	buf_addf(out, "compute_%d%d", a->major, a->minor);
	if (a->variant)
		buf_addch(out, a->variant);
}

void
arch_format(const struct arch *a, struct buf *out)
{
	buf_addf(out, "%d.%d", a->major, a->minor);
	if (a->variant)
		buf_addch(out, a->variant);
	if (a->ptx)
		buf_addstr(out, "+PTX");
}

int
arch_cmp(const struct arch *a, const struct arch *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	return (int)(unsigned char)a->variant - (int)(unsigned char)b->variant;
}
