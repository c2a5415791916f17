#include <string.h>

#include "buf.h"
#include "diff.h"
#include "json.h"
#include "strvec.h"
#include "verify.h"

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

static void
strings_of(const struct json *arr, struct strvec *out)
{
	size_t i;

	for (i = 0; i < json_len(arr); i++)
		if (json_str(json_at(arr, i)))
			strvec_push(out, json_str(json_at(arr, i)));
}

/* gained = in b not a; lost = in a not b. Returns the count of both. */
static size_t
set_diff(const struct json *ja, const struct json *jb, struct json *gained, struct json *lost,
	 struct buf *line)
{
	struct strvec a = STRVEC_INIT, b = STRVEC_INIT;
	size_t i, n = 0;

	strings_of(ja, &a);
	strings_of(jb, &b);
	for (i = 0; i < b.n; i++) {
		if (!strset_has(&a, b.v[i])) {
			json_push(gained, json_string(b.v[i]));
			buf_addf(line, " +%s", b.v[i]);
			n++;
		}
	}
	for (i = 0; i < a.n; i++) {
		if (!strset_has(&b, a.v[i])) {
			json_push(lost, json_string(a.v[i]));
			buf_addf(line, " -%s", a.v[i]);
			n++;
		}
	}
	strvec_clear(&a);
	strvec_clear(&b);
	return n;
}

static const struct json *
find_lib(const struct json *libs, const char *path)
{
	size_t i;

	for (i = 0; i < json_len(libs); i++) {
		const char *p = json_str(json_get(json_at(libs, i), "path"));

		if (p && !strcmp(p, path))
			return json_at(libs, i);
	}
	return NULL;
}

static const char *
bool_word(const struct json *v)
{
	return !v ? "unknown" : json_is_true(v) ? "on" : "off";
}

/* Features: every key of either side, turned on or off. */
static struct json *
diff_features(const struct json *fa, const struct json *fb, struct buf *text, size_t *n)
{
	struct json *feat = json_object(), *fg = json_array(), *fl = json_array();
	size_t i;

	for (i = 0; i < json_len(fa) + json_len(fb); i++) {
		const char *k = i < json_len(fa) ? json_key_at(fa, i) : json_key_at(fb, i - json_len(fa));
		const struct json *va = json_get(fa, k), *vb = json_get(fb, k);

		if (i >= json_len(fa) && va)
			continue; /* already seen from a's side */
		if (json_is_true(va) == json_is_true(vb) && !va == !vb)
			continue;
		if (json_is_true(vb) && !json_is_true(va))
			json_push(fg, json_string(k));
		else if (json_is_true(va) && !json_is_true(vb))
			json_push(fl, json_string(k));
		else
			continue;
		buf_addf(text, "feature %s: %s -> %s\n", k, bool_word(va), bool_word(vb));
		(*n)++;
	}
	json_set(feat, "gained", fg);
	json_set(feat, "lost", fl);
	return feat;
}

/*
 * SASS and PTX gained and lost between two manifest entries with SASS and
 * PTX lists (a library, or archs), into `o` and after `line`. Returns the
 * number of targets gained and lost.
 */
static size_t
diff_targets(const struct json *a, const struct json *b, struct json *o, struct buf *line,
	     const char *sass_label, const char *ptx_label)
{
	struct json *sg = json_array(), *sl = json_array(), *pg = json_array(), *pl = json_array();
	size_t k;

	buf_addstr(line, sass_label);
	k = set_diff(json_get(a, "sass"), json_get(b, "sass"), sg, sl, line);
	buf_addstr(line, ptx_label);
	k += set_diff(json_get(a, "ptx"), json_get(b, "ptx"), pg, pl, line);
	json_set(o, "sass_gained", sg);
	json_set(o, "sass_lost", sl);
	json_set(o, "ptx_gained", pg);
	json_set(o, "ptx_lost", pl);
	return k;
}

/* Libraries added, removed, and changed in their SASS/PTX targets. */
static struct json *
diff_libraries(const struct json *la, const struct json *lb, struct buf *text, size_t *n)
{
	struct json *libs = json_object(), *added = json_array(), *removed = json_array();
	struct json *changed = json_array();
	struct buf line = BUF_INIT;
	size_t i;

	for (i = 0; i < json_len(la); i++) {
		const char *p = json_str(json_get(json_at(la, i), "path"));
		const struct json *other = p ? find_lib(lb, p) : NULL;
		struct json *c;
		size_t k;

		if (!p)
			continue;
		if (!other) {
			json_push(removed, json_string(p));
			buf_addf(text, "library removed: %s\n", p);
			(*n)++;
			continue;
		}
		c = json_object();
		json_set(c, "path", json_string(p));
		buf_reset(&line);
		k = diff_targets(json_at(la, i), other, c, &line, " sass", "; ptx");
		if (!k) {
			json_free(c);
			continue;
		}
		json_push(changed, c);
		buf_addf(text, "library %s:%s\n", p, line.s);
		*n += k;
	}
	for (i = 0; i < json_len(lb); i++) {
		const char *p = json_str(json_get(json_at(lb, i), "path"));

		if (p && !find_lib(la, p)) {
			json_push(added, json_string(p));
			buf_addf(text, "library added: %s\n", p);
			(*n)++;
		}
	}
	buf_release(&line);
	json_set(libs, "added", added);
	json_set(libs, "removed", removed);
	json_set(libs, "changed", changed);
	return libs;
}

/* The version fields that differ. */
static struct json *
diff_versions(const struct json *a, const struct json *b, struct buf *text, size_t *n)
{
	static const char *const version_fields[][3] = {
		{ "wheel", "version", NULL },
		{ "version_py", "cuda", NULL },
		{ "build_settings", "values", "TORCH_VERSION" },
		{ "build_settings", "values", "CUDA_VERSION" },
		{ "build_settings", "values", "CUDNN_VERSION" },
		{ "source", "commit", NULL },
	};
	struct json *vers = json_array();

	for (size_t i = 0; i < sizeof(version_fields) / sizeof(version_fields[0]); i++) {
		const char *const *f = version_fields[i];
		const char *va = json_str(path_get(a, f[0], f[1], f[2]));
		const char *vb = json_str(path_get(b, f[0], f[1], f[2]));
		struct buf name = BUF_INIT;
		struct json *v;

		if ((!va && !vb) || (va && vb && !strcmp(va, vb)))
			continue;
		buf_addf(&name, "%s.%s%s%s", f[0], f[1], f[2] ? "." : "", f[2] ? f[2] : "");
		v = json_object();
		json_set(v, "field", json_string(name.s));
		json_set(v, "a", va ? json_string(va) : json_null());
		json_set(v, "b", vb ? json_string(vb) : json_null());
		json_push(vers, v);
		buf_addf(text, "%s: %s -> %s\n", name.s, va ? va : "(none)", vb ? vb : "(none)");
		buf_release(&name);
		(*n)++;
	}
	return vers;
}

static const struct json *
find_named(const struct json *arr, const char *name)
{
	for (size_t i = 0; i < json_len(arr); i++) {
		const char *n = json_str(json_get(json_at(arr, i), "name"));

		if (n && !strcmp(n, name))
			return json_at(arr, i);
	}
	return NULL;
}

/*
 * bwbuild smoke's results (the manifests' "runtime"): every check whose
 * status changed, and benchmarks that moved by more than `tolerance`
 * percent; a slower one is a difference (a regression), a faster one is
 * only said.
 */
static struct json *
diff_runtime(const struct json *a, const struct json *b, double tolerance, struct buf *text,
	     size_t *n)
{
	const struct json *ca = json_get(a, "checks"), *cb = json_get(b, "checks");
	const struct json *ba = json_get(a, "benchmarks"), *bb = json_get(b, "benchmarks");
	struct json *o = json_object(), *checks = json_array(), *benches = json_array();

	for (size_t i = 0; i < json_len(cb); i++) {
		const char *name = json_str(json_get(json_at(cb, i), "name"));
		const char *sb = json_str(json_get(json_at(cb, i), "status"));
		const char *sa = name ? json_str(json_get(find_named(ca, name), "status")) : NULL;
		struct json *c;

		if (!name || !sb || (sa && !strcmp(sa, sb)) || !a)
			continue;
		c = json_object();
		json_set(c, "name", json_string(name));
		json_set(c, "a", sa ? json_string(sa) : json_null());
		json_set(c, "b", json_string(sb));
		json_push(checks, c);
		buf_addf(text, "runtime check %s: %s -> %s\n", name, sa ? sa : "(not run)", sb);
		(*n)++;
	}
	for (size_t i = 0; i < json_len(bb); i++) {
		const struct json *jb = json_at(bb, i);
		const char *name = json_str(json_get(jb, "name"));
		const struct json *ja = name ? find_named(ba, name) : NULL;
		double va = json_number_value(json_get(ja, "value"));
		double vb = json_number_value(json_get(jb, "value")), change;
		struct json *c;

		if (!ja || va <= 0)
			continue;
		change = (vb - va) / va * 100;
		if (change >= -tolerance && change <= tolerance)
			continue;
		c = json_object();
		json_set(c, "name", json_string(name));
		json_set(c, "a", json_number(va));
		json_set(c, "b", json_number(vb));
		json_set(c, "change_percent", json_number((double)(long)(change * 10) / 10));
		json_set(c, "regression", json_bool(change < 0));
		json_push(benches, c);
		buf_addf(text, "runtime benchmark %s: %.1f -> %.1f %s (%+.1f %%%s)\n", name, va, vb,
			 json_str(json_get(jb, "unit")) ? json_str(json_get(jb, "unit")) : "",
			 change, change < 0 ? ", slower than the tolerance allows" : "");
		if (change < 0)
			(*n)++;
	}
	json_set(o, "checks", checks);
	json_set(o, "benchmarks", benches);
	return o;
}

size_t
manifest_diff(const struct json *a, const struct json *b, double tolerance, struct json **out,
	      struct buf *text)
{
	struct json *o = json_object(), *archs = json_object();
	struct buf line = BUF_INIT;
	size_t n = 0;

	json_set(o, "features",
		 diff_features(json_get(a, "features"), json_get(b, "features"), text, &n));
	json_set(o, "libraries", diff_libraries(json_get(a, "libraries"), json_get(b, "libraries"),
						text, &n));
	/* Already counted per library: the overall archs are a summary. */
	diff_targets(json_get(a, "archs"), json_get(b, "archs"), archs, &line, "", "");
	if (line.len)
		buf_addf(text, "archs (all libraries):%s\n", line.s);
	json_set(o, "archs", archs);
	json_set(o, "versions", diff_versions(a, b, text, &n));
	if (json_is_object(json_get(b, "runtime")))
		json_set(o, "runtime", diff_runtime(json_get(a, "runtime"), json_get(b, "runtime"),
						    tolerance, text, &n));
	json_set(o, "equal", json_bool(n == 0));
	json_set(o, "differences", json_number((double)n));
	buf_release(&line);
	*out = o;
	return n;
}
