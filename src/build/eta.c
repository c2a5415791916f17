#include <stdlib.h>
#include <string.h>

#include "build/eta.h"
#include "core/util.h"

/*
 * Relative costs, one C++ unit of PyTorch ~ 2: measured on v2.6.0
 * (docs/real-pytorch.md, data/peaks/pytorch-2.6.0.seed): a C
 * micro-kernel a few hundred ms, a C++ unit 5-110 s, a CUDA unit 1-8 min
 * per arch, a flash/mem-eff/CUTLASS unit 2-5 min and several GB, a shared
 * library link tens of seconds.
 */
double
eta_weight(const char *desc)
{
	static const char *const heavy[] = { "flash", "mem_eff", "cutlass", "fmha", "mslk",
					     "fbgemm_gpu", NULL };

	if (starts_with(desc, "Building CUDA object")) {
		for (size_t i = 0; heavy[i]; i++)
			if (strstr(desc, heavy[i]))
				return 60;
		return 15;
	}
	if (starts_with(desc, "Building CXX object"))
		return 2;
	if (starts_with(desc, "Building C object") || starts_with(desc, "Building ASM object"))
		return 0.3;
	if (starts_with(desc, "Linking"))
		return 20;
	return 0.2;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t
eta_plan_parse(struct eta_plan *e, const char *text)
{
	size_t cap = 0, i;

	memset(e, 0, sizeof(*e));
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		const char *close = memchr(p, ']', len);

		if (len > 4 && p[0] == '[' && close && (size_t)(close - p) + 2 <= len && close[1] == ' ') {
			ALLOC_GROW(e->desc, e->n + 1, cap);
			e->desc[e->n++] = xstrndup(close + 2, len - (size_t)(close - p) - 2);
		}
		p += len + (p[len] == '\n');
	}
	if (e->n)
		qsort(e->desc, e->n, sizeof(*e->desc), cmp_str);
	e->w = xmalloc((e->n ? e->n : 1) * sizeof(*e->w));
	for (i = 0; i < e->n; i++) {
		e->w[i] = eta_weight(e->desc[i]);
		e->total += e->w[i];
	}
	return e->n;
}

void
eta_plan_done(struct eta_plan *e, const char *desc)
{
	char **hit = e->n ? bsearch(&desc, e->desc, e->n, sizeof(*e->desc), cmp_str) : NULL;

	e->done += hit ? e->w[hit - e->desc] : eta_weight(desc);
	if (e->done > e->total)
		e->total = e->done;
}

double
eta_seconds(const struct eta_plan *e, double elapsed, int done, int total)
{
	if (e && e->total > 0 && e->done > 0)
		return elapsed * (e->total - e->done) / e->done;
	return done > 0 ? elapsed * (total - done) / done : 0;
}

void
eta_plan_release(struct eta_plan *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->desc[i]);
	free(e->desc);
	free(e->w);
	memset(e, 0, sizeof(*e));
}
