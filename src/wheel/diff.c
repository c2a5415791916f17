/*
 * Bounds (docs/design/bounds.md): manifests come from outside, so every
 * comparison here is sort + binary search, O(n log n) in the members of
 * the lists it compares (10,000 libraries, a 100,000-key feature map);
 * walking one list for each member of the other was O(n^2) and took
 * minutes.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "wheel/diff.h"
#include "core/json.h"
#include "core/strvec.h"
#include "core/util.h"
#include "wheel/manifest.h"
#include "wheel/verify.h"

static const struct json *
path_get(const struct json *j, const char *a, const char *b, const char *c)
{
	j = json_get(j, a);
	if (b)
		j = json_get(j, b);
	if (c)
		j = json_get(j, c);
	return j;
}

/*
 * What a comparison has found so far: the differences counted (the exit
 * status) and those shown but not counted (--ignore), by kind.
 */
enum diff_kind { KIND_CHANGE, KIND_GAIN, KIND_VERSION };

struct diff_ctx {
	const struct diff_opts *o;
	struct buf *text;
	size_t counted, ignored, ignored_gains;
	/* A line's names from the manifests, each escaped to one line (diag_name). */
	struct buf name[3];
};

/* One difference of `kind`, `n` times: 1 when it counts, 0 when --ignore leaves it out. */
static int
tally(struct diff_ctx *c, enum diff_kind kind, size_t n)
{
	unsigned off = kind == KIND_GAIN ? DIFF_IGNORE_GAINS :
		       kind == KIND_VERSION ? DIFF_IGNORE_VERSION : 0;

	if (c->o->ignore & off) {
		c->ignored += n;
		if (kind == KIND_GAIN)
			c->ignored_gains += n;
		return 0;
	}
	c->counted += n;
	return 1;
}

/*
 * gained = in b not a; lost = in a not b, each in its list's order, their
 * counts into *ng and *nl. Returns the count of both.
 */
static size_t
set_diff(const struct json *ja, const struct json *jb, struct json *gained, struct json *lost,
	 struct buf *line, size_t *ng, size_t *nl)
{
	struct json_index a, b;
	const struct json **items;
	struct buf esc = BUF_INIT;
	size_t i, n = 0, m;

	json_index_by(&a, ja, NULL);
	json_index_by(&b, jb, NULL);
	m = json_items(jb, &items);
	for (i = 0; i < m; i++) {
		const char *k = json_str(items[i]);

		if (k && !json_index_find(&a, k)) {
			json_push(gained, json_string(k));
			buf_addf(line, " +%s", diag_name(&esc, k));
			n++;
			(*ng)++;
		}
	}
	free(items);
	m = json_items(ja, &items);
	for (i = 0; i < m; i++) {
		const char *k = json_str(items[i]);

		if (k && !json_index_find(&b, k)) {
			json_push(lost, json_string(k));
			buf_addf(line, " -%s", diag_name(&esc, k));
			n++;
			(*nl)++;
		}
	}
	free(items);
	json_index_release(&a);
	json_index_release(&b);
	buf_release(&esc);
	return n;
}

static const char *
bool_word(const struct json *v)
{
	return !v ? "unknown" : json_is_true(v) ? "on" : "off";
}

/* Features: every key of either side, turned on or off. */
static struct json *
diff_features(const struct json *fa, const struct json *fb, struct diff_ctx *c)
{
	struct json *feat = json_object(), *fg = json_array(), *fl = json_array();
	const struct json **ia, **ib;
	size_t na = json_items(fa, &ia), nb = json_items(fb, &ib), i;
	struct json_index xa, xb;

	json_index_by(&xa, fa, "");
	json_index_by(&xb, fb, "");
	for (i = 0; i < na + nb; i++) {
		const char *k = json_member_key(i < na ? ia[i] : ib[i - na]);
		const struct json_index_ent *ka, *kb;
		const struct json *va, *vb;

		if (!k)
			continue;
		ka = json_index_find(&xa, k);
		kb = json_index_find(&xb, k);
		va = ka ? ka->member : NULL;
		vb = kb ? kb->member : NULL;
		if (i >= na && va)
			continue; /* already seen from a's side */
		if ((i < na && ka->at != i) || (i >= na && kb->at != i - na))
			continue; /* a key repeated: its first value counts, once */
		if (json_is_true(va) == json_is_true(vb) && !va == !vb)
			continue;
		if (json_is_true(vb) && !json_is_true(va))
			json_push(fg, json_string(k));
		else if (json_is_true(va) && !json_is_true(vb))
			json_push(fl, json_string(k));
		else
			continue;
		buf_addf(c->text, "feature %s: %s -> %s%s\n", diag_name(&c->name[0], k), bool_word(va), bool_word(vb),
			 tally(c, json_is_true(vb) ? KIND_GAIN : KIND_CHANGE, 1) ? "" :
			 " (a gain: not counted, --ignore gains)");
	}
	free(ia);
	free(ib);
	json_index_release(&xa);
	json_index_release(&xb);
	json_set(feat, "gained", fg);
	json_set(feat, "lost", fl);
	return feat;
}

/*
 * SASS and PTX gained and lost between two manifest entries with SASS and
 * PTX lists (a library, or archs), into `o` and after `line`, their
 * counts added to *ng and *nl. Returns the number of targets gained and lost.
 */
static size_t
diff_targets(const struct json *a, const struct json *b, struct json *o, struct buf *line,
	     const char *sass_label, const char *ptx_label, size_t *ng, size_t *nl)
{
	struct json *sg = json_array(), *sl = json_array(), *pg = json_array(), *pl = json_array();
	struct buf sass = BUF_INIT, ptx = BUF_INIT;
	size_t k;

	k = set_diff(json_get(a, "sass"), json_get(b, "sass"), sg, sl, &sass, ng, nl);
	k += set_diff(json_get(a, "ptx"), json_get(b, "ptx"), pg, pl, &ptx, ng, nl);
	/* A label only before what changed; the ptx label's "; " only after a sass part. */
	if (sass.len)
		buf_addf(line, "%s%s", sass_label, sass.s);
	if (ptx.len)
		buf_addf(line, "%s%s", sass.len ? ptx_label : ptx_label + strspn(ptx_label, ";"),
			 ptx.s);
	buf_release(&sass);
	buf_release(&ptx);
	json_set(o, "sass_gained", sg);
	json_set(o, "sass_lost", sl);
	json_set(o, "ptx_gained", pg);
	json_set(o, "ptx_lost", pl);
	return k;
}

/*
 * Libraries added, removed, and changed in their SASS/PTX targets; their
 * number and the targets changed added to *targets (they explain a change
 * of the archs overall).
 */
static struct json *
diff_libraries(const struct json *la, const struct json *lb, struct diff_ctx *c, size_t *targets)
{
	struct json *libs = json_object(), *added = json_array(), *removed = json_array();
	struct json *changed = json_array();
	struct buf line = BUF_INIT;
	const struct json **ia, **ib;
	size_t na = json_items(la, &ia), nb = json_items(lb, &ib), i;
	struct json_index xa, xb;

	json_index_by(&xa, la, "path");
	json_index_by(&xb, lb, "path");
	for (i = 0; i < na; i++) {
		const char *p = json_str(json_get(ia[i], "path"));
		const struct json_index_ent *other = p ? json_index_find(&xb, p) : NULL;
		struct json *lc;
		size_t k, ng = 0, nl = 0;

		if (!p)
			continue;
		if (!other) {
			json_push(removed, json_string(p));
			buf_addf(c->text, "library removed: %s\n", diag_name(&c->name[0], p));
			tally(c, KIND_CHANGE, 1);
			(*targets)++;
			continue;
		}
		lc = json_object();
		json_set(lc, "path", json_string(p));
		buf_reset(&line);
		k = diff_targets(ia[i], other->member, lc, &line, " sass", "; ptx", &ng, &nl);
		if (!k) {
			json_free(lc);
			continue;
		}
		json_push(changed, lc);
		tally(c, KIND_CHANGE, nl);
		buf_addf(c->text, "library %s:%s%s\n", diag_name(&c->name[0], p), line.s,
			 ng && !tally(c, KIND_GAIN, ng) ? " (gains not counted: --ignore gains)" : "");
		*targets += k;
	}
	for (i = 0; i < nb; i++) {
		const char *p = json_str(json_get(ib[i], "path"));

		if (p && !json_index_find(&xa, p)) {
			json_push(added, json_string(p));
			buf_addf(c->text, "library added: %s%s\n", diag_name(&c->name[0], p),
				 tally(c, KIND_GAIN, 1) ? "" : " (a gain: not counted, --ignore gains)");
			(*targets)++;
		}
	}
	free(ia);
	free(ib);
	json_index_release(&xa);
	json_index_release(&xb);
	buf_release(&line);
	json_set(libs, "added", added);
	json_set(libs, "removed", removed);
	json_set(libs, "changed", changed);
	return libs;
}

/*
 * The version fields that differ. The release itself (the wheel's version
 * with its local label, torch's version, the commit) is what every new
 * release changes: KIND_VERSION, which --ignore version (the default)
 * shows without counting; the CUDA and cuDNN a build was made with count.
 */
static struct json *
diff_versions(const struct json *a, const struct json *b, struct diff_ctx *c)
{
	static const struct {
		const char *f[3];
		enum diff_kind kind;
	} version_fields[] = {
		{ { "wheel", "version", NULL }, KIND_VERSION },
		{ { "version_py", "cuda", NULL }, KIND_CHANGE },
		{ { "build_settings", "values", "TORCH_VERSION" }, KIND_VERSION },
		{ { "build_settings", "values", "CUDA_VERSION" }, KIND_CHANGE },
		{ { "build_settings", "values", "CUDNN_VERSION" }, KIND_CHANGE },
		{ { "source", "commit", NULL }, KIND_VERSION },
	};
	struct json *vers = json_array();

	for (size_t i = 0; i < sizeof(version_fields) / sizeof(version_fields[0]); i++) {
		const char *const *f = version_fields[i].f;
		const char *va = json_str(path_get(a, f[0], f[1], f[2]));
		const char *vb = json_str(path_get(b, f[0], f[1], f[2]));
		struct buf name = BUF_INIT;
		struct json *v;
		int counts;

		if ((!va && !vb) || (va && vb && !strcmp(va, vb)))
			continue;
		buf_addf(&name, "%s.%s%s%s", f[0], f[1], f[2] ? "." : "", f[2] ? f[2] : "");
		v = json_object();
		json_set(v, "field", json_string(name.s));
		json_set(v, "a", va ? json_string(va) : json_null());
		json_set(v, "b", vb ? json_string(vb) : json_null());
		counts = tally(c, version_fields[i].kind, 1);
		json_set(v, "counted", json_bool(counts));
		json_push(vers, v);
		buf_addf(c->text, "%s: %s -> %s%s\n", name.s, diag_name(&c->name[0], va ? va : "(none)"),
			 diag_name(&c->name[1], vb ? vb : "(none)"),
			 counts ? "" : " (a new release's: not counted, --ignore version)");
		buf_release(&name);
	}
	return vers;
}

/*
 * The perf gate's noise: a benchmark measured as the median of repetitions
 * carries their spread ((max - min) / median, percent). Run to run, an
 * unchanged wheel's medians differ by less than the larger of the two
 * spreads; a change is judged against NOISE_TIMES that, never less than
 * NOISE_FLOOR; one whose allowance would reach NOISE_GATE (the 10 % a gate
 * must catch) is reported as not judged. Measured on an H100 (issue 24,
 * tests/fixtures/perf/): docs/smoke.md.
 */
#define NOISE_TIMES 2.0
#define NOISE_FLOOR 3.0
#define NOISE_GATE 10.0

/* The larger spread of the two, in percent; -1 when either lacks one of 2+ repetitions (--tolerance then). */
static double
bench_noise(const struct json *a, const struct json *b)
{
	const struct json *sa = json_get(a, "spread_percent"), *sb = json_get(b, "spread_percent");
	double x, y;

	/* One measurement has no spread to speak of: the tolerance judges it. */
	if (!sa || !sb || json_number_value(json_get(a, "reps")) < 2 ||
	    json_number_value(json_get(b, "reps")) < 2)
		return -1;
	x = json_number_value(sa);
	y = json_number_value(sb);
	return x > y ? x : y;
}

/* A check that changed status, as JSON and as a line of the text. */
static void
check_changed(struct diff_ctx *ctx, struct json *checks, const char *label, const char *name,
	      const char *sa, const char *sb)
{
	struct buf *e = ctx->name;
	struct json *c = json_object();

	json_set(c, "name", json_string(name));
	json_set(c, "a", sa ? json_string(sa) : json_null());
	json_set(c, "b", sb ? json_string(sb) : json_null());
	json_push(checks, c);
	if (sb)
		buf_addf(ctx->text, "runtime %scheck %s: %s -> %s\n", label, diag_name(&e[0], name),
			 diag_name(&e[1], sa ? sa : "(not run)"), diag_name(&e[2], sb));
	else
		buf_addf(ctx->text, "runtime check %s: %s -> (not run)\n", diag_name(&e[0], name),
			 diag_name(&e[1], sa));
	ctx->counted++;
}

/* Checks whose status changed, and those the old run had that the new one never ran. */
static void
diff_runtime_checks(const struct json *a, const struct json *b, const char *label,
		    struct diff_ctx *ctx, struct json *checks)
{
	const struct json *ca = json_get(a, "checks"), *cb = json_get(b, "checks");
	const struct json **ia, **ib;
	size_t na = json_items(ca, &ia), nb = json_items(cb, &ib);
	struct json_index xa, xb;

	json_index_by(&xa, ca, "name");
	json_index_by(&xb, cb, "name");
	for (size_t i = 0; a && i < na; i++) {
		const char *name = json_str(json_get(ia[i], "name"));
		const char *sa = json_str(json_get(ia[i], "status"));

		if (name && sa && !json_index_find(&xb, name))
			check_changed(ctx, checks, label, name, sa, NULL);
	}
	for (size_t i = 0; a && i < nb; i++) {
		const char *name = json_str(json_get(ib[i], "name"));
		const char *sb = json_str(json_get(ib[i], "status"));
		const struct json_index_ent *ka = name ? json_index_find(&xa, name) : NULL;
		const char *sa = ka ? json_str(json_get(ka->member, "status")) : NULL;

		if (name && sb && !(sa && !strcmp(sa, sb)))
			check_changed(ctx, checks, label, name, sa, sb);
	}
	free(ia);
	free(ib);
	json_index_release(&xa);
	json_index_release(&xb);
}

/* One benchmark of both runs: said or judged against its allowance (above). */
static void
diff_runtime_bench(const struct json *ja, const struct json *jb, const char *label,
		   struct diff_ctx *ctx, struct json *benches)
{
	struct buf *text = ctx->text, *e = ctx->name;
	const char *name = json_str(json_get(jb, "name"));
	const char *unit = json_str(json_get(jb, "unit")) ? json_str(json_get(jb, "unit")) : "";
	double va = json_number_value(json_get(ja, "value"));
	double vb = json_number_value(json_get(jb, "value")), change, noise, allowed;
	struct json *c;

	if (va <= 0)
		return;
	change = (vb - va) / va * 100;
	noise = bench_noise(ja, jb);
	allowed = noise < 0 ? ctx->o->tolerance : noise * NOISE_TIMES > NOISE_FLOOR ?
		noise * NOISE_TIMES : NOISE_FLOOR;
	if (noise >= 0 && allowed >= NOISE_GATE) {
		/* Too noisy to tell a 10 % change from its own noise: said, never a verdict. */
		buf_addf(text, "runtime %sbenchmark %s: %.1f -> %.1f (%+.1f %%) not judged: its "
			 "repetitions spread %.1f %%; measure it with more --reps\n", label,
			 diag_name(&e[0], name), va, vb, change, noise);
		return;
	}
	if (change >= -allowed && change <= allowed)
		return;
	c = json_object();
	json_set(c, "name", json_string(name));
	json_set(c, "a", json_number(va));
	json_set(c, "b", json_number(vb));
	json_set(c, "change_percent", json_number((double)(long)(change * 10) / 10));
	json_set(c, "allowed_percent", json_number((double)(long)(allowed * 10) / 10));
	json_set(c, "noise_percent", noise >= 0 ? json_number(noise) : json_null());
	json_set(c, "regression", json_bool(change < 0));
	json_push(benches, c);
	if (noise >= 0)
		buf_addf(text, "runtime %sbenchmark %s: %.1f -> %.1f %s (%+.1f %%, beyond %.1f %%: "
			 "%.0fx its noise of %.1f %%%s)\n", label, diag_name(&e[0], name), va, vb,
			 diag_name(&e[1], unit), change, allowed, NOISE_TIMES, noise,
			 change < 0 ? ", a regression" : "");
	else
		buf_addf(text, "runtime %sbenchmark %s: %.1f -> %.1f %s (%+.1f %%%s)\n", label,
			 diag_name(&e[0], name), va, vb, diag_name(&e[1], unit), change,
			 change < 0 ? ", slower than the tolerance allows" : "");
	if (change < 0)
		ctx->counted++;
}

/*
 * bwbuild smoke's results (the manifests' "runtime"): every check whose
 * status changed, and benchmarks that moved beyond their allowance: their
 * own measured noise (above), else `tolerance` percent; a slower one is a
 * difference (a regression), a faster one is only said.
 */
static struct json *
diff_runtime_part(const struct json *a, const struct json *b, const char *label,
		  struct diff_ctx *ctx)
{
	struct buf *e = ctx->name;
	const char *sa = json_str(json_get(a, "status")), *sb = json_str(json_get(b, "status"));
	const struct json *ba = json_get(a, "benchmarks");
	struct json *o = json_object(), *checks = json_array(), *benches = json_array();
	const struct json **ib;
	size_t nb = json_items(json_get(b, "benchmarks"), &ib);
	struct json_index xa;

	/* A run without a GPU (no_gpu) or a failed one is never "the same" as one that ran. */
	if (a && sa && sb && strcmp(sa, sb)) {
		json_set(o, "status", json_string(sb));
		buf_addf(ctx->text, "runtime status: %s -> %s\n", diag_name(&e[0], sa),
			 diag_name(&e[1], sb));
		ctx->counted++;
	}
	diff_runtime_checks(a, b, label, ctx, checks);
	json_index_by(&xa, ba, "name");
	for (size_t i = 0; i < nb; i++) {
		const char *name = json_str(json_get(ib[i], "name"));
		const struct json_index_ent *ka = name ? json_index_find(&xa, name) : NULL;

		if (ka)
			diff_runtime_bench(ka->member, ib[i], label, ctx, benches);
	}
	free(ib);
	json_index_release(&xa);
	json_set(o, "checks", checks);
	json_set(o, "benchmarks", benches);
	return o;
}

/* A runtime's per-GPU runs: smoke --gpu all's "gpus", or the single-GPU runtime itself. */
static size_t
runtime_runs(const struct json *rt, const struct json ***out)
{
	if (json_is_array(json_get(rt, "gpus")))
		return json_items(json_get(rt, "gpus"), out);
	if (!json_is_object(rt)) {
		*out = NULL;
		return 0;
	}
	*out = xmalloc(sizeof(**out));
	(*out)[0] = rt;
	return 1;
}

/*
 * bwbuild smoke's results on both sides; with --gpu all on either, GPU i
 * against GPU i (a single-GPU runtime is GPU 0), then across GPUs.
 */
static struct json *
diff_runtime(const struct json *a, const struct json *b, struct diff_ctx *c)
{
	const struct json **ra, **rb;
	struct json *o, *per;
	size_t na, nb;

	if (!json_is_array(json_get(a, "gpus")) && !json_is_array(json_get(b, "gpus")))
		return diff_runtime_part(a, b, "", c);
	o = json_object();
	per = json_array();
	na = runtime_runs(a, &ra);
	nb = runtime_runs(b, &rb);
	for (size_t i = 0; i < nb; i++) {
		const char *vis = json_str(json_get(rb[i], "visible"));
		struct buf label = BUF_INIT;
		struct json *part;

		if (vis)
			buf_addf(&label, "gpu %s ", diag_name(&c->name[0], vis));
		else
			buf_addf(&label, "gpu #%zu ", i);
		part = diff_runtime_part(i < na ? ra[i] : NULL, rb[i], label.s, c);
		json_set(part, "gpu", vis ? json_string(vis) : json_number((double)i));
		json_push(per, part);
		buf_release(&label);
	}
	json_set(o, "gpus", per);
	if (json_is_object(json_get(b, "cross_gpu")))
		json_set(o, "cross_gpu", diff_runtime_part(json_get(a, "cross_gpu"),
							   json_get(b, "cross_gpu"),
							   "across GPUs ", c));
	free(ra);
	free(rb);
	return o;
}

size_t
manifest_diff(const struct json *a, const struct json *b, const struct diff_opts *opts,
	      struct json **out, struct buf *text)
{
	struct json *o = json_object(), *archs = json_object(), *ignored = json_array();
	struct buf line = BUF_INIT;
	struct diff_ctx c = { opts, text, 0, 0, 0, { BUF_INIT, BUF_INIT, BUF_INIT } };
	size_t k, targets = 0, ng = 0, nl = 0;

	json_set(o, "features", diff_features(json_get(a, "features"), json_get(b, "features"), &c));
	json_set(o, "libraries",
		 diff_libraries(json_get(a, "libraries"), json_get(b, "libraries"), &c, &targets));
	/*
	 * Counted per library already when a library's targets changed; when
	 * none did, a target gained or lost overall is a difference of its own
	 * (libraries the manifest does not list): never "builds agree" after it.
	 */
	k = diff_targets(json_get(a, "archs"), json_get(b, "archs"), archs, &line, "", "", &ng, &nl);
	if (k && !targets) {
		tally(&c, KIND_CHANGE, nl);
		if (ng && !tally(&c, KIND_GAIN, ng))
			buf_addstr(&line, " (gains not counted: --ignore gains)");
	}
	if (line.len)
		buf_addf(text, "archs (all libraries):%s\n", line.s);
	json_set(o, "archs", archs);
	json_set(o, "versions", diff_versions(a, b, &c));
	if (json_is_object(json_get(b, "runtime")))
		json_set(o, "runtime", diff_runtime(json_get(a, "runtime"), json_get(b, "runtime"), &c));
	if (opts->ignore & DIFF_IGNORE_VERSION)
		json_push(ignored, json_string("version"));
	if (opts->ignore & DIFF_IGNORE_GAINS)
		json_push(ignored, json_string("gains"));
	json_set(o, "equal", json_bool(c.counted == 0));
	json_set(o, "differences", json_number((double)c.counted));
	json_set(o, "ignored", ignored);
	json_set(o, "ignored_differences", json_number((double)c.ignored));
	json_set(o, "ignored_gains", json_number((double)c.ignored_gains));
	buf_release(&line);
	for (size_t i = 0; i < ARRAY_SIZE(c.name); i++)
		buf_release(&c.name[i]);
	*out = o;
	return c.counted;
}

/* The strings of two JSON lists (the second may be NULL) into a cell, joined by spaces; `none` when empty. */
static void
md_cell_list(struct buf *md, const struct json *list, const struct json *more, const char *none)
{
	const struct json **items;
	size_t shown = 0;

	for (int k = 0; k < 2; k++) {
		size_t n = json_items(k ? more : list, &items);

		for (size_t i = 0; i < n; i++) {
			if (!json_str(items[i]))
				continue;
			if (shown++)
				buf_addch(md, ' ');
			manifest_md_cell(md, json_str(items[i]));
		}
		free(items);
	}
	if (!shown)
		buf_addstr(md, none);
}

/* Who the comparison is about: the profiles' names ("sm120", "sm120 → sm120-next"), else the wheels'. */
static void
md_subject(const struct json *a, const struct json *b, struct buf *out)
{
	const char *na = json_str(path_get(a, "profile", "name", NULL));
	const char *nb = json_str(path_get(b, "profile", "name", NULL));

	if (!na)
		na = json_str(path_get(a, "wheel", "name", NULL));
	if (!nb)
		nb = json_str(path_get(b, "wheel", "name", NULL));
	if (na && nb && strcmp(na, nb)) {
		manifest_md_cell(out, na);
		buf_addstr(out, " → ");
		manifest_md_cell(out, nb);
	} else {
		manifest_md_cell(out, nb ? nb : na ? na : "build");
	}
}

/* Every feature of either side, a mark each, and whether it was gained or lost. */
static void
md_features(const struct json *a, const struct json *b, const char *who, struct buf *md)
{
	const struct json *fa = json_get(a, "features"), *fb = json_get(b, "features");
	const struct json **ia, **ib;
	size_t na = json_items(fa, &ia), nb = json_items(fb, &ib);
	struct json_index xa, xb;

	buf_addf(md, "\n### %s: features\n\n| feature | A | B | |\n|---|---|---|---|\n", who);
	json_index_by(&xa, fa, "");
	json_index_by(&xb, fb, "");
	for (size_t i = 0; i < na + nb; i++) {
		const char *k = json_member_key(i < na ? ia[i] : ib[i - na]);
		const struct json_index_ent *ka, *kb;
		const struct json *va, *vb;

		if (!k)
			continue;
		ka = json_index_find(&xa, k);
		kb = json_index_find(&xb, k);
		/* Each key once: from a's side where it is there, its first value. */
		if ((i >= na && ka) || (i < na && ka->at != i) || (i >= na && kb->at != i - na))
			continue;
		va = ka ? ka->member : NULL;
		vb = kb ? kb->member : NULL;
		buf_addstr(md, "| ");
		manifest_md_cell(md, k);
		buf_addf(md, " | %s | %s | %s |\n", !va ? "–" : json_is_true(va) ? "✅" : "❌",
			 !vb ? "–" : json_is_true(vb) ? "✅" : "❌",
			 json_is_true(va) == json_is_true(vb) ? "" : json_is_true(vb) ? "gained" :
			 "**lost**");
	}
	if (!na && !nb)
		buf_addstr(md, "| no build-settings header on either side | | | |\n");
	free(ia);
	free(ib);
	json_index_release(&xa);
	json_index_release(&xb);
}

/* Libraries added and removed, and per library (then overall) the targets gained and lost. */
static void
md_libraries(const struct json *report, const char *who, struct buf *md)
{
	const struct json *libs = json_get(report, "libraries"), *archs = json_get(report, "archs");
	const struct json **items;
	size_t n = json_items(json_get(libs, "changed"), &items);

	buf_addf(md, "\n### %s: libraries and SASS/PTX\n\n| library | gained | lost |\n"
		 "|---|---|---|\n", who);
	buf_addstr(md, "| (all libraries) | ");
	md_cell_list(md, json_get(archs, "sass_gained"), json_get(archs, "ptx_gained"), "–");
	buf_addstr(md, " | ");
	md_cell_list(md, json_get(archs, "sass_lost"), json_get(archs, "ptx_lost"), "–");
	buf_addstr(md, " |\n");
	for (size_t i = 0; i < n; i++) {
		buf_addstr(md, "| ");
		manifest_md_cell(md, json_str(json_get(items[i], "path")));
		buf_addstr(md, " | ");
		md_cell_list(md, json_get(items[i], "sass_gained"), json_get(items[i], "ptx_gained"),
			     "–");
		buf_addstr(md, " | ");
		md_cell_list(md, json_get(items[i], "sass_lost"), json_get(items[i], "ptx_lost"), "–");
		buf_addstr(md, " |\n");
	}
	free(items);
	buf_addstr(md, "| libraries | ");
	md_cell_list(md, json_get(libs, "added"), NULL, "–");
	buf_addstr(md, " | ");
	md_cell_list(md, json_get(libs, "removed"), NULL, "–");
	buf_addstr(md, " |\n");
}

/* The versions that changed, each counted or not, and the runtime's differences. */
static void
md_versions_runtime(const struct json *report, const char *who, struct buf *md)
{
	const struct json **items;
	size_t n = json_items(json_get(report, "versions"), &items);

	if (n)
		buf_addf(md, "\n### %s: versions\n\n| field | A | B | counted |\n|---|---|---|---|\n",
			 who);
	for (size_t i = 0; i < n; i++) {
		buf_addstr(md, "| ");
		manifest_md_cell(md, json_str(json_get(items[i], "field")));
		buf_addstr(md, " | ");
		manifest_md_cell(md, json_str(json_get(items[i], "a")));
		buf_addstr(md, " | ");
		manifest_md_cell(md, json_str(json_get(items[i], "b")));
		buf_addf(md, " | %s |\n", json_is_true(json_get(items[i], "counted")) ? "yes" :
			 "no (a new release's)");
	}
	free(items);
	n = json_items(json_get(json_get(report, "runtime"), "benchmarks"), &items);
	if (n)
		buf_addf(md, "\n### %s: runtime benchmarks beyond their noise\n\n"
			 "| benchmark | A | B | change | allowed |\n|---|---|---|---|---|\n", who);
	for (size_t i = 0; i < n; i++) {
		buf_addstr(md, "| ");
		manifest_md_cell(md, json_str(json_get(items[i], "name")));
		buf_addf(md, " | %.1f | %.1f | %+.1f %%%s | %.1f %% |\n",
			 json_number_value(json_get(items[i], "a")),
			 json_number_value(json_get(items[i], "b")),
			 json_number_value(json_get(items[i], "change_percent")),
			 json_is_true(json_get(items[i], "regression")) ? " **slower**" : "",
			 json_number_value(json_get(items[i], "allowed_percent")));
	}
	free(items);
}

const char *
diff_verdict(const struct json *report)
{
	if (json_number_value(json_get(report, "differences")))
		return "builds differ";
	/* "agree" would hide what was gained; a new version alone is the same build. */
	if (json_number_value(json_get(report, "ignored_gains")))
		return "nothing lost";
	return "builds agree";
}

void
diff_ignored_words(const struct json *report, struct buf *out)
{
	const struct json *words = json_get(report, "ignored");
	size_t n = json_len(words);

	if (!n)
		buf_addstr(out, "none");
	for (size_t i = 0; i < n; i++)
		buf_addf(out, "%s%s", i ? "," : "", json_str(json_at(words, i)));
}

void
diff_markdown(const struct json *a, const struct json *b, const struct json *report,
	      struct buf *md)
{
	struct buf who = BUF_INIT;
	double counted = json_number_value(json_get(report, "differences"));
	double ignored = json_number_value(json_get(report, "ignored_differences"));

	md_subject(a, b, &who);
	buf_addf(md, "## %s: %s\n\n", who.s, diff_verdict(report));
	buf_addf(md, "%.0f difference%s counted", counted, counted == 1 ? "" : "s");
	if (ignored) {
		buf_addf(md, ", %.0f not counted (`--ignore ", ignored);
		diff_ignored_words(report, md);
		buf_addstr(md, "`)");
	}
	buf_addf(md, ".\n\n### %s: builds\n\n| | A | B |\n|---|---|---|\n| wheel | ", who.s);
	manifest_md_cell(md, json_str(path_get(a, "wheel", "file", NULL)));
	buf_addstr(md, " | ");
	manifest_md_cell(md, json_str(path_get(b, "wheel", "file", NULL)));
	buf_addstr(md, " |\n| version | ");
	manifest_md_cell(md, json_str(path_get(a, "wheel", "version", NULL)));
	buf_addstr(md, " | ");
	manifest_md_cell(md, json_str(path_get(b, "wheel", "version", NULL)));
	buf_addstr(md, " |\n| CUDA | ");
	manifest_md_cell(md, json_str(path_get(a, "version_py", "cuda", NULL)));
	buf_addstr(md, " | ");
	manifest_md_cell(md, json_str(path_get(b, "version_py", "cuda", NULL)));
	buf_addstr(md, " |\n");
	md_features(a, b, who.s, md);
	md_libraries(report, who.s, md);
	md_versions_runtime(report, who.s, md);
	buf_release(&who);
}
