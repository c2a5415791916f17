#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "profile/compat.h"
#include "core/strvec.h"
#include "core/util.h"

int
gpu_parse(const char *text, int *cc)
{
	const char *p = text;
	char *end;
	long v;

	if (!strncmp(p, "sm_", 3))
		p += 3;
	else if (!strncmp(p, "compute_", 8))
		p += 8;
	if (!isdigit((unsigned char)*p))
		return -1;
	v = strtol(p, &end, 10);
	if (*end == '.' && isdigit((unsigned char)end[1]) && !end[2] && v < 100) {
		*cc = (int)(v * 10 + (end[1] - '0'));
		return 0;
	}
	if ((*end == '\0' || ((*end == 'a' || *end == 'f') && !end[1])) && v >= 10 && v < 1000) {
		*cc = (int)v;
		return 0;
	}
	return -1;
}

int
gpu_list_add(struct gpu_list *l, const char *text)
{
	int cc;

	if (gpu_parse(text, &cc) < 0)
		return -1;
	ALLOC_GROW(l->cc, l->n + 1, l->cap);
	l->cc[l->n++] = cc;
	return 0;
}

void
gpu_list_release(struct gpu_list *l)
{
	free(l->cc);
	l->cc = NULL;
	l->n = l->cap = 0;
}

int
target_runs_on(const char *target, int cc)
{
	int is_sass = !strncmp(target, "sm_", 3), t;
	const char *digits = target + (is_sass ? 3 : 8);
	char *end;
	char variant;

	if (!is_sass && strncmp(target, "compute_", 8))
		return 0;
	t = (int)strtol(digits, &end, 10);
	variant = *end;
	if (variant == 'a')
		return cc == t;
	if (variant == 'f' || is_sass)
		return cc / 10 == t / 10 && cc % 10 >= t % 10;
	return cc >= t; /* plain PTX JIT-compiles forward */
}

int
library_runs_on(const struct strvec *sass, const struct strvec *ptx, int cc, struct buf *how)
{
	size_t i;

	for (i = 0; i < sass->n; i++) {
		if (target_runs_on(sass->v[i], cc)) {
			buf_addf(how, "SASS %s", sass->v[i]);
			return 0;
		}
	}
	for (i = 0; i < ptx->n; i++) {
		if (target_runs_on(ptx->v[i], cc)) {
			buf_addf(how, "PTX JIT from %s", ptx->v[i]);
			return 0;
		}
	}
	return -1;
}
