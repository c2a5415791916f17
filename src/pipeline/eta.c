/*
 * The compile step's ETA (eta.h): the work ahead of ninja, weighted by
 * kind and by learned times. The pipeline's, not the launcher's: the
 * launcher never reads it; the heavy kernels are the launcher's one list
 * (memmodel.h).
 * May include: core/, launch/memmodel.h, pipeline/eta.h.
 */
#include <stdlib.h>
#include <string.h>

#include "launch/memmodel.h"
#include "pipeline/eta.h"
#include "core/buf.h"
#include "core/proc.h"
#include "core/strvec.h"
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
	if (starts_with(desc, "Building CUDA object"))
		return launch_is_heavy(desc) ? 60 : 15;
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

/* Sort the descriptions and weigh them. */
static size_t
plan_finish(struct eta_plan *e)
{
	if (e->n)
		qsort(e->desc, e->n, sizeof(*e->desc), cmp_str);
	e->w = xmalloc((e->n ? e->n : 1) * sizeof(*e->w));
	e->known_s = xcalloc(e->n ? e->n : 1, sizeof(*e->known_s));
	e->fin = xcalloc(e->n ? e->n : 1, sizeof(*e->fin));
	for (size_t i = 0; i < e->n; i++) {
		e->w[i] = eta_weight(e->desc[i]);
		e->total += e->w[i];
	}
	return e->n;
}

size_t
eta_plan_parse(struct eta_plan *e, const char *text)
{
	size_t cap = 0;

	memset(e, 0, sizeof(*e));
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		const char *close = memchr(p, ']', len);

		if (len > 4 && p[0] == '[' && close && (size_t)(close - p) + 2 <= len && close[1] == ' ') {
			ALLOC_GROW(e->desc, e->n + 1, cap);
			e->desc[e->n++] = xstrndup(close + 2, len - (size_t)(close - p) - 2);
			/* CMake's description of the edge that regenerates build.ninja. */
			e->regen |= starts_with(e->desc[e->n - 1], "Re-running CMake");
		}
		p += len + (p[len] == '\n');
	}
	return plan_finish(e);
}

/* "RULE: DESCRIPTION" lines (a rule without one: "RULE"), sorted by rule, for bsearch. */
struct rule_descs {
	char **line; /* the lines, each cut after its rule name */
	size_t n;
};

static void
rules_parse(struct rule_descs *r, const char *text)
{
	size_t cap = 0;

	memset(r, 0, sizeof(*r));
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		const char *colon = memchr(p, ':', len);
		/* two NULs after the text: a line without ": DESCRIPTION" reads as an empty one */
		char *l = xcalloc(len + 3, 1);

		memcpy(l, p, len);
		if (colon)
			l[colon - p] = '\0';
		ALLOC_GROW(r->line, r->n + 1, cap);
		r->line[r->n++] = l;
		p += len + (p[len] == '\n');
	}
	if (r->n)
		qsort(r->line, r->n, sizeof(*r->line), cmp_str);
}

/* The description of `rule` ("" when it has none), or NULL for a rule not listed. */
static const char *
rules_find(const struct rule_descs *r, const char *rule)
{
	char **hit = r->n ? bsearch(&rule, r->line, r->n, sizeof(*r->line), cmp_str) : NULL;
	const char *d;

	if (!hit)
		return NULL;
	d = *hit + strlen(*hit);
	/* the name was cut at its ':'; the description follows ": " when there is one */
	return d[1] == ' ' ? d + 2 : "";
}

static void
rules_release(struct rule_descs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->line[i]);
	free(r->line);
}

/* `desc` with ninja's $out (and CMake's $TARGET_FILE) as `out`; whether it named either. */
static int
describe(const char *desc, const char *out, struct buf *b)
{
	static const char *const vars[] = { "${out}", "$out", "${TARGET_FILE}", "$TARGET_FILE", NULL };
	int named = 0;

	buf_reset(b);
	while (*desc) {
		size_t i;

		for (i = 0; vars[i] && !starts_with(desc, vars[i]); i++)
			;
		if (vars[i]) {
			buf_addstr(b, out);
			desc += strlen(vars[i]);
			named = 1;
		} else {
			buf_addch(b, *desc++);
		}
	}
	return named;
}

/* Whether an edge's output is already there (relative to the build directory). */
static int
output_exists(const char *build_dir, const char *out, struct buf *path)
{
	if (!build_dir)
		return 0;
	buf_reset(path);
	if (*out == '/')
		buf_addstr(path, out);
	else
		buf_addf(path, "%s/%s", build_dir, out);
	return path_exists(path->s);
}

size_t
eta_plan_parse_targets(struct eta_plan *e, const char *targets, const char *rules,
		       const char *build_dir)
{
	struct rule_descs r;
	struct buf out = BUF_INIT, rule = BUF_INIT, prev = BUF_INIT, desc = BUF_INIT, path = BUF_INIT;
	size_t cap = 0;

	memset(e, 0, sizeof(*e));
	rules_parse(&r, rules);
	for (const char *p = targets, *next; p && *p; p = next) {
		size_t len = strcspn(p, "\n");
		const char *sep = NULL, *d;
		int same;

		next = p + len + (p[len] == '\n');

		/* the rule follows the last ": " (an output may hold one) */
		for (const char *q = p; q + 1 < p + len; q++)
			if (q[0] == ':' && q[1] == ' ')
				sep = q;
		if (!sep)
			continue;
		buf_reset(&out);
		buf_add(&out, p, (size_t)(sep - p));
		buf_reset(&rule);
		buf_add(&rule, sep + 2, len - (size_t)(sep + 2 - p));
		same = !strcmp(prev.s, rule.s);
		buf_reset(&prev);
		buf_addstr(&prev, rule.s);
		d = rules_find(&r, rule.s);
		if (!d || !strcmp(rule.s, "phony") || !strcmp(out.s, "build.ninja"))
			continue;
		/* An edge described by its own variables (a custom command's DESC) cannot be matched. */
		if ((!describe(d, out.s, &desc) && same) || strchr(desc.s, '$') ||
		    output_exists(build_dir, out.s, &path))
			continue;
		ALLOC_GROW(e->desc, e->n + 1, cap);
		e->desc[e->n++] = buf_detach(&desc);
	}
	rules_release(&r);
	buf_release(&out);
	buf_release(&rule);
	buf_release(&prev);
	buf_release(&desc);
	buf_release(&path);
	return plan_finish(e);
}

/* `ninja ARGS...` in `dir`, its standard output into `out`; 0 when it exits 0. */
static int
ninja_capture(const char *dir, const struct strvec *args, struct buf *out)
{
	struct proc pr = PROC_INIT;
	int rc;

	pr.dir = dir;
	strvec_push(&pr.args, "ninja");
	for (size_t i = 0; i < args->n; i++)
		strvec_push(&pr.args, args->v[i]);
	rc = proc_run_capture(&pr, out);
	proc_release(&pr);
	return rc;
}

void
eta_plan_ninja(struct eta_plan *e, const char *build_dir, const struct strvec *targets)
{
	struct strvec args = STRVEC_INIT;
	struct buf out = BUF_INIT, rules = BUF_INIT;
	struct eta_plan m;

	memset(e, 0, sizeof(*e));
	memset(&m, 0, sizeof(m));
	strvec_push(&args, "-n");
	for (size_t i = 0; targets && i < targets->n; i++)
		strvec_push(&args, targets->v[i]);
	if (ninja_capture(build_dir, &args, &out) == 0)
		eta_plan_parse(e, out.s);
	if (!e->regen)
		goto out;
	strvec_clear(&args);
	strvec_pushl(&args, "-t", "rules", "-d", NULL);
	if (ninja_capture(build_dir, &args, &rules) != 0)
		goto out;
	strvec_clear(&args);
	strvec_pushl(&args, "-t", "targets", "all", NULL);
	buf_reset(&out);
	if (ninja_capture(build_dir, &args, &out) != 0 ||
	    !eta_plan_parse_targets(&m, out.s, rules.s, build_dir))
		goto out;
	/* The manifest's edges are everything's: with --targets, those the targets need. */
	if (targets && targets->n) {
		strvec_clear(&args);
		strvec_pushl(&args, "-t", "inputs", NULL);
		for (size_t i = 0; i < targets->n; i++)
			strvec_push(&args, targets->v[i]);
		buf_reset(&out);
		if (ninja_capture(build_dir, &args, &out) != 0)
			goto out;
		for (size_t i = 0; i < targets->n; i++)
			buf_addf(&out, "%s\n", targets->v[i]);
		if (!eta_plan_only(&m, out.s))
			goto out;
	}
	m.pre = e->n;
	eta_plan_release(e);
	*e = m;
	memset(&m, 0, sizeof(m));
out:
	eta_plan_release(&m);
	strvec_clear(&args);
	buf_release(&out);
	buf_release(&rules);
}

void
eta_plan_done(struct eta_plan *e, const char *desc)
{
	char **hit = e->n ? bsearch(&desc, e->desc, e->n, sizeof(*e->desc), cmp_str) : NULL;
	double w = hit ? e->w[hit - e->desc] : eta_weight(desc);

	e->done += w;
	if (hit && e->hits < e->n) {
		size_t i = (size_t)(hit - e->desc);

		/* Of equal descriptions, the first not finished yet. */
		while (i > 0 && !strcmp(e->desc[i - 1], desc))
			i--;
		while (i + 1 < e->n && e->fin[i] && !strcmp(e->desc[i + 1], desc))
			i++;
		e->fin[i] = 1;
		e->hit_w += w;
		e->hits++;
	}
}

/* The longest learned time of an unfinished edge, less the `t` seconds this run of ninja has run. */
static double
pole_left(const struct eta_plan *e, double t)
{
	double most = 0;

	for (size_t i = 0; i < e->n; i++)
		if (!e->fin[i] && e->known_s[i] - t > most)
			most = e->known_s[i] - t;
	return most;
}

/* The last word of an edge's description: the file it makes, as CMake names it. */
static const char *
desc_output(const char *desc)
{
	const char *sp = strrchr(desc, ' ');

	return sp ? sp + 1 : desc;
}

size_t
eta_plan_only(struct eta_plan *e, const char *inputs)
{
	struct strvec need = STRVEC_INIT;
	size_t kept = 0;

	for (const char *p = inputs; p && *p;) {
		size_t len = strcspn(p, "\n");

		if (len)
			strvec_push_nodup(&need, xstrndup(p, len));
		p += len + (p[len] == '\n');
	}
	strvec_sort(&need);
	for (size_t i = 0; i < e->n; i++) {
		const char *out = desc_output(e->desc[i]);

		if (need.n && bsearch(&out, need.v, need.n, sizeof(*need.v), cmp_str))
			e->desc[kept++] = e->desc[i];
		else
			free(e->desc[i]);
	}
	e->n = kept;
	free(e->w);
	free(e->known_s);
	free(e->fin);
	e->total = 0;
	plan_finish(e);
	strvec_clear(&need);
	return kept;
}

void
eta_plan_step(struct eta_plan *e, const char *desc, double elapsed, int total)
{
	if (total != e->phase_total) {
		/* The new run began when the last edge of the one before it finished. */
		e->phase_total = total;
		e->phase_t0 = e->last_elapsed;
		e->phase_done0 = e->done;
	}
	e->last_elapsed = elapsed;
	eta_plan_done(e, desc);
}

double
eta_seconds(const struct eta_plan *e, double elapsed, int done, int total)
{
	double mean, wdone, t, rate_left, pole;

	if (!e || e->regen || e->done <= 0 || e->hits >= e->n || done > total)
		return done > 0 ? elapsed * (total - done) / done : -1;
	/* Until ninja restarts on the regenerated manifest its count and its time are the regeneration's. */
	if (total > 0 && (size_t)total <= e->pre)
		return -1;
	wdone = e->done - e->phase_done0;
	t = elapsed - e->phase_t0;
	if (wdone < e->total * ETA_MIN_SHARE || wdone <= 0 || t <= 0)
		return -1;
	mean = (e->total - e->hit_w) / (double)(e->n - e->hits);
	rate_left = t * mean * (double)(total - done) / wdone;
	pole = pole_left(e, t);
	return pole > rate_left ? pole : rate_left;
}

/* One learned time: its source (the key before '#') and its milliseconds. */
struct src_ms {
	char *src;
	double ms;
};

static int
cmp_src(const void *a, const void *b)
{
	return strcmp(((const struct src_ms *)a)->src, ((const struct src_ms *)b)->src);
}

/*
 * The source an object of CMake's "Building <LANG> object DIR/CMakeFiles/
 * T.dir/REL.o" was compiled from, relative to the source tree: DIR/REL
 * with its "__/" as "../", resolved ("caffe2/../aten/x.cpp" is
 * "aten/x.cpp"). 0 when the description names no such object.
 */
static int
object_source(const char *desc, struct buf *out)
{
	const char *obj = strstr(desc, " object "), *cm, *dir, *end;
	struct buf raw = BUF_INIT;

	buf_reset(out);
	if (!obj)
		return 0;
	obj += strlen(" object ");
	if (!(cm = strstr(obj, "CMakeFiles/")) || !(dir = strstr(cm, ".dir/")))
		return 0;
	end = obj + strlen(obj);
	if (end - obj > 2 && !strcmp(end - 2, ".o"))
		end -= 2;
	buf_add(&raw, obj, (size_t)(cm - obj));
	for (const char *p = dir + strlen(".dir/"); p < end;) {
		if (starts_with(p, "__/")) {
			buf_addstr(&raw, "../");
			p += 3;
		} else {
			size_t n = strcspn(p, "/");

			if (p + n > end)
				n = (size_t)(end - p);
			buf_add(&raw, p, n);
			p += n;
			if (p < end && *p == '/')
				buf_addch(&raw, *p++);
		}
	}
	path_normalize(out, raw.s);
	buf_release(&raw);
	return out->len && !starts_with(out->s, "../");
}

void
eta_plan_learned(struct eta_plan *e, const char *times)
{
	struct src_ms *v = NULL;
	size_t n = 0, cap = 0;
	struct buf src = BUF_INIT, gen = BUF_INIT;

	for (const char *p = times; p && *p;) {
		size_t len = strcspn(p, "\n");
		const char *hash = memchr(p, '#', len), *sp = memchr(p, ' ', len);

		/* A unit's own time: not the long pole's (pole:) nor a host's (remote:). */
		if (hash && sp && hash < sp && !memchr(p, ':', (size_t)(hash - p))) {
			ALLOC_GROW(v, n + 1, cap);
			v[n].src = xstrndup(p, (size_t)(hash - p));
			v[n].ms = strtod(sp + 1, NULL);
			n++;
		}
		p += len + (p[len] == '\n');
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_src);
	for (size_t i = 0; n && i < e->n; i++) {
		struct src_ms key, *hit;

		if (!object_source(e->desc[i], &src))
			continue;
		key.src = src.s;
		hit = bsearch(&key, v, n, sizeof(*v), cmp_src);
		/* A generated source is compiled from the build directory. */
		if (!hit) {
			buf_reset(&gen);
			buf_addf(&gen, "build/%s", src.s);
			key.src = gen.s;
			hit = bsearch(&key, v, n, sizeof(*v), cmp_src);
		}
		if (hit && hit->ms > 0) {
			e->total += hit->ms / ETA_MS_PER_WEIGHT - e->w[i];
			e->w[i] = hit->ms / ETA_MS_PER_WEIGHT;
			e->known_s[i] = hit->ms / 1000.0;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].src);
	free(v);
	buf_release(&src);
	buf_release(&gen);
}

void
eta_plan_release(struct eta_plan *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->desc[i]);
	free(e->desc);
	free(e->w);
	free(e->known_s);
	free(e->fin);
	memset(e, 0, sizeof(*e));
}
