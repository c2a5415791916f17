#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "formats/elfscan.h"
#include "core/json.h"
#include "wheel/manifest.h"
#include "profile/profview.h"
#include "profile/profile.h"
#include "core/util.h"
#include "wheel/verify.h"
#include "core/version.h"

struct json *
macros_h_parse(const char *text)
{
	struct json *o = json_object();
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *q = p;

		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q + 2 < end && q[0] == '{' && q[1] == '"') {
			const char *k = q + 2, *ke = memchr(k, '"', (size_t)(end - k));

			if (ke && ke + 4 <= end && !strncmp(ke, "\", \"", 4)) {
				const char *v = ke + 4, *ve = v;

				/* The value runs to the last "} on the line. */
				for (const char *t = v; t + 1 < end; t++)
					if (t[0] == '"' && t[1] == '}')
						ve = t;
				if (ve > v || (ve == v && v[0] == '"')) {
					char *key = xstrndup(k, (size_t)(ke - k));
					char *val = xstrndup(v, (size_t)(ve - v));

					json_set(o, key, json_string(val));
					free(key);
					free(val);
				}
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return o;
}

static int
truthy(const char *v)
{
	static const char *const on[] = { "ON", "1", "TRUE", "YES", "Y" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(on); i++)
		if (!strcasecmp(v, on[i]))
			return 1;
	return 0;
}

static int
has_define(const char *flags, const char *name)
{
	size_t n = strlen(name);
	const char *p = flags;

	while ((p = strstr(p, name))) {
		int start = p == flags || p[-1] == ' ';
		int stop = p[n] == '\0' || p[n] == ' ' || p[n] == '=';

		if (start && stop)
			return 1;
		p += n;
	}
	return 0;
}

struct json *
features_from_settings(const struct json *settings)
{
	/*
	 * Evidence per feature: the build-settings key named as its option, or,
	 * for these, which macros.h does not record, a -D of it in CXX_FLAGS.
	 */
	static const char in_flags[FEAT__COUNT] = {
		[FEAT_FBGEMM] = 1, [FEAT_FLASH_ATTENTION] = 1, [FEAT_MEM_EFF_ATTENTION] = 1,
		[FEAT_MSLK] = 1, [FEAT_FBGEMM_GENAI] = 1, [FEAT_KINETO] = 1,
	};
	struct json *o = json_object();
	const char *flags = json_str(json_get(settings, "CXX_FLAGS"));
	struct buf define = BUF_INIT;

	for (size_t f = 0; f < FEAT__COUNT; f++) {
		const char *key = feature_table[f].key, *option = feature_table[f].option;

		if (!in_flags[f]) {
			const char *v = json_str(json_get(settings, option));

			if (v)
				json_set(o, key, json_bool(truthy(v)));
		} else if (flags) {
			buf_reset(&define);
			buf_addf(&define, "-D%s", option);
			json_set(o, key, json_bool(has_define(flags, define.s)));
		}
	}
	buf_release(&define);
	return o;
}

/* The library exporting kernels of `feature`, or NULL; *cuda says whether any library has CUDA code. */
static const char *
kernel_library(const struct wheel_report *w, const char *feature, int *cuda)
{
	for (size_t i = 0; i < w->nlibs; i++) {
		*cuda |= w->libs[i].has_fatbin;
		for (size_t k = 0; k < w->libs[i].kernels.n; k++)
			if (!strcmp(w->libs[i].kernels.v[k], feature))
				return w->libs[i].path;
	}
	return NULL;
}

void
features_crosscheck(const struct wheel_report *w, const struct json *effective,
		    struct strvec *errors)
{
	struct json *settings = w->macros_h ? macros_h_parse(w->macros_h) : json_object();
	struct json *evidence = features_from_settings(settings);

	for (size_t i = 0; i < json_len(effective); i++) {
		const char *key = json_key_at(effective, i);
		const struct json *e = json_at(effective, i), *said = json_get(evidence, key);
		const struct json *v = json_get(e, "effective");
		const char *option = json_str(json_get(e, "option"));
		const char *lib;
		int on, cuda = 0;

		if (!json_is_bool(v) || !option)
			continue;
		on = json_is_true(v);
		/*
		 * Kernel families are judged by their kernels alone: torch sets
		 * -DUSE_FLASH_ATTENTION on its CUDA targets, not in CXX_FLAGS.
		 */
		if (said && json_is_bool(said) && json_is_true(said) != on &&
		    !elfscan_kernel_family(key))
			strvec_pushf(errors, "configure ended with %s=%s, but the wheel's build "
				     "settings (%s) say %s (features)", option, on ? "ON" : "OFF",
				     w->macros_h_path ? w->macros_h_path : "macros.h",
				     on ? "it is off" : "it is on");
		if (!elfscan_kernel_family(key))
			continue;
		lib = kernel_library(w, key, &cuda);
		if (on && !lib && cuda)
			strvec_pushf(errors, "configure ended with %s=ON, but no library of the "
				     "wheel exports %s kernels (features)", option, key);
		else if (!on && lib)
			strvec_pushf(errors, "configure ended with %s=OFF, but '%s' exports %s "
				     "kernels (features)", option, lib, key);
	}
	json_free(evidence);
	json_free(settings);
}

/* Values of `name = '...'` / `name: T = '...'` lines in version.py. */
struct json *
version_py_parse(const char *text)
{
	static const char *const keys[] = { "__version__", "cuda", "git_version", "hip", "rocm",
					    "xpu", "debug" };
	struct json *o = json_object();
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), i;
		char *line = xstrndup(p, len);

		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			size_t kl = strlen(keys[i]);
			const char *name = strcmp(keys[i], "__version__") ? keys[i] : "version";
			char *eq, *v;

			if (strncmp(line, keys[i], kl) || (line[kl] != ' ' && line[kl] != ':' &&
							   line[kl] != '='))
				continue;
			eq = strchr(line, '=');
			if (!eq)
				continue;
			for (v = eq + 1; *v == ' '; v++)
				;
			if (*v == '\'' || *v == '"') {
				char q = *v, *e = strchr(v + 1, q);

				if (e) {
					*e = '\0';
					json_set(o, name, json_string(v + 1));
				}
			} else if (!strncmp(v, "None", 4)) {
				json_set(o, name, json_null());
			} else if (!strncmp(v, "True", 4) || !strncmp(v, "False", 5)) {
				json_set(o, name, json_bool(v[0] == 'T'));
			}
		}
		free(line);
		p = nl ? nl + 1 : NULL;
	}
	return o;
}

static struct json *
strvec_json(const struct strvec *sv)
{
	return json_string_array(sv->v, sv->n);
}

static struct json *
str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static struct json *
wheel_json(const struct wheel_report *w)
{
	struct json *wheel = json_object();

	json_set(wheel, "file", json_string(w->filename));
	json_set(wheel, "name", json_string(w->name));
	json_set(wheel, "version", json_string(w->version));
	json_set(wheel, "tags", strvec_json(&w->tags));
	json_set(wheel, "sha256", *w->sha256 ? json_string(w->sha256) : json_null());
	json_set(wheel, "installed", json_bool(!*w->sha256));
	json_set(wheel, "members", json_number((double)w->members));
	json_set(wheel, "uncompressed_bytes", json_number((double)w->bytes));
	return wheel;
}

static struct json *
manylinux_json(const struct manylinux_need *ml)
{
	struct json *o = json_object();

	json_set(o, "glibc", *ml->glibc ? json_string(ml->glibc) : json_null());
	json_set(o, "glibcxx", *ml->glibcxx ? json_string(ml->glibcxx) : json_null());
	json_set(o, "cxxabi", *ml->cxxabi ? json_string(ml->cxxabi) : json_null());
	json_set(o, "gcc", *ml->gcc ? json_string(ml->gcc) : json_null());
	if (ml->min_glibc) {
		struct buf t = BUF_INIT;

		buf_addf(&t, "manylinux_2_%u", ml->min_glibc);
		json_set(o, "policy", json_string(t.s));
		buf_release(&t);
	} else {
		json_set(o, "policy", json_null());
		json_set(o, "blocker", json_string(ml->blocker));
	}
	return o;
}

static struct json *
library_json(const struct wheel_lib *l)
{
	struct json *o = json_object(), *rel = json_object();

	json_set(o, "path", json_string(l->path));
	json_set(o, "sass", strvec_json(&l->sass));
	json_set(o, "ptx", strvec_json(&l->ptx));
	json_set(rel, "sass", strvec_json(&l->rel_sass));
	json_set(rel, "ptx", strvec_json(&l->rel_ptx));
	json_set(o, "relocatable", rel);
	json_set(o, "codecs", strvec_json(&l->codecs));
	json_set(o, "fatbin_containers", json_number(l->containers));
	json_set(o, "fatbin_entries", json_number(l->entries));
	json_set(o, "kernels", strvec_json(&l->kernels));
	json_set(o, "needed", strvec_json(&l->needed));
	json_set(o, "soname", str_or_null(l->soname));
	json_set(o, "runpath", str_or_null(l->runpath));
	json_set(o, "manylinux", manylinux_json(&l->ml));
	return o;
}

/* The wheel's policy: the newest glibc any library needs; null if one has none. */
static struct json *
wheel_policy_json(const struct wheel_report *w)
{
	struct buf t = BUF_INIT;
	struct json *j;
	unsigned min_glibc = 0;

	for (size_t i = 0; i < w->nlibs; i++) {
		const struct manylinux_need *ml = &w->libs[i].ml;

		if (!ml->min_glibc && *ml->blocker)
			return json_null();
		if (ml->min_glibc > min_glibc)
			min_glibc = ml->min_glibc;
	}
	if (!w->nlibs)
		return json_null();
	buf_addf(&t, "manylinux_2_%u", min_glibc);
	j = json_string(t.s);
	buf_release(&t);
	return j;
}

/* Features from the build settings, and each kernel family found in a library. */
static struct json *
features_json(const struct wheel_report *w, const struct json *settings)
{
	struct json *features = features_from_settings(settings);

	for (size_t i = 0; i < w->nlibs; i++)
		for (size_t k = 0; k < w->libs[i].kernels.n; k++)
			json_set(features, w->libs[i].kernels.v[k], json_bool(1));
	return features;
}

static struct json *
version_py_json(const struct wheel_report *w, const struct json *torch)
{
	struct json *ver = json_object();

	json_set(ver, "source", str_or_null(w->version_py_path));
	json_set(ver, "version", str_or_null(json_str(json_get(torch, "version"))));
	json_set(ver, "cuda", str_or_null(json_str(json_get(torch, "cuda"))));
	json_set(ver, "git_version", str_or_null(json_str(json_get(torch, "git_version"))));
	return ver;
}

static struct json *
verify_json(const struct wheel_report *w)
{
	struct json *v = json_object();

	json_set(v, "ok", json_bool(w->errors.n == 0));
	json_set(v, "errors", strvec_json(&w->errors));
	json_set(v, "notes", strvec_json(&w->notes));
	return v;
}

struct json *
manifest_make(const struct manifest_input *in)
{
	const struct wheel_report *w = in->wheel;
	struct json *m = json_object(), *gen = json_object(), *wheel = wheel_json(w);
	struct json *libs = json_array(), *archs = json_object(), *bs = json_object();
	struct json *src = json_object(), *settings, *torch;
	const char *commit = in->source_commit;

	json_set(m, "schema", json_string("bwbuild-manifest/1"));
	json_set(gen, "name", json_string("bwbuild"));
	json_set(gen, "version", json_string(BWBUILD_VERSION));
	json_set(m, "generator", gen);
	json_set(wheel, "manylinux", wheel_policy_json(w));
	json_set(m, "wheel", wheel);
	for (size_t i = 0; i < w->nlibs; i++)
		json_push(libs, library_json(&w->libs[i]));
	json_set(m, "libraries", libs);
	json_set(archs, "sass", strvec_json(&w->sass));
	json_set(archs, "ptx", strvec_json(&w->ptx));
	json_set(m, "archs", archs);

	settings = w->macros_h ? macros_h_parse(w->macros_h) : json_object();
	json_set(m, "features", features_json(w, settings));
	json_set(bs, "source", str_or_null(w->macros_h_path));
	json_set(bs, "values", settings);
	json_set(m, "build_settings", bs);

	torch = w->version_py ? version_py_parse(w->version_py) : json_object();
	json_set(m, "version_py", version_py_json(w, torch));
	if (!commit)
		commit = json_str(json_get(torch, "git_version"));
	json_set(m, "profile", in->profile ? profile_json(in->profile) : json_null());
	json_set(src, "repo", str_or_null(in->source_repo));
	json_set(src, "ref", str_or_null(in->source_ref));
	json_set(src, "commit", str_or_null(commit));
	json_set(m, "source", src);
	json_free(torch);

	json_set(m, "verify", verify_json(w));
	json_set(m, "build", in->build ? in->build : json_null());
	return m;
}

/*
 * The members diff and the Markdown read, and the type each must have where
 * present (docs/manifest-format.md); 'n' allows null too.
 */
static const struct {
	const char *key;
	char type;      /* 'o' object, 'a' array, 's' string */
	char null_ok;
} manifest_shape[] = {
	{ "generator", 'o', 0 }, { "wheel", 'o', 0 }, { "libraries", 'a', 0 },
	{ "archs", 'o', 0 }, { "features", 'o', 0 }, { "build_settings", 'o', 0 },
	{ "version_py", 'o', 0 }, { "profile", 'o', 1 }, { "source", 'o', 0 },
	{ "verify", 'o', 0 }, { "build", 'o', 1 }, { "torch", 'o', 0 },
	{ "runtime", 'o', 0 }, { "features_effective", 'o', 1 }, { "inputs", 'o', 0 },
	{ "inputs_hash", 's', 0 },
};

int
manifest_check_shape(const struct json *m, struct buf *why)
{
	static const char *const want[] = { ['o'] = "an object", ['a'] = "an array",
					    ['s'] = "a string" };
	const struct json **items;
	size_t n;

	for (size_t i = 0; i < ARRAY_SIZE(manifest_shape); i++) {
		const struct json *v = json_get(m, manifest_shape[i].key);
		char t = manifest_shape[i].type;

		if (!v || (manifest_shape[i].null_ok && !strcmp(json_type_name(v), "null")) ||
		    (t == 'o' && json_is_object(v)) || (t == 'a' && json_is_array(v)) ||
		    (t == 's' && json_str(v)))
			continue;
		buf_addf(why, "'%s' is %s, not %s", manifest_shape[i].key, json_type_name(v),
			 want[(unsigned char)t]);
		return -1;
	}
	/* A feature's value decides gained and lost: a string would read as "off". */
	n = json_items(json_get(m, "features"), &items);
	for (size_t i = 0; i < n; i++) {
		if (json_is_bool(items[i]))
			continue;
		buf_addf(why, "'features.%s' is %s, not true or false", json_member_key(items[i]),
			 json_type_name(items[i]));
		free(items);
		return -1;
	}
	free(items);
	n = json_items(json_get(m, "libraries"), &items);
	for (size_t i = 0; i < n; i++) {
		if (json_is_object(items[i]))
			continue;
		buf_addf(why, "'libraries[%zu]' is %s, not an object", i, json_type_name(items[i]));
		free(items);
		return -1;
	}
	free(items);
	return 0;
}

/* The manifest at `path`, or NULL when there is none to read: the callers' answer is then "no". */
static struct json *
manifest_load(const char *path)
{
	struct buf text = BUF_INIT, why = BUF_INIT;
	struct json *m = NULL;

	if (is_regular(path) && read_file(&text, path) == 0)
		m = json_parse(text.s, text.len, &why);
	buf_release(&text);
	buf_release(&why);
	return m;
}

/* The manifest's profile.cuda.ptx is "none": the profile that made the wheel asked for no PTX. */
int
manifest_ptx_none(const char *path)
{
	struct json *m = manifest_load(path);
	const char *ptx = json_str(json_get(json_get(json_get(m, "profile"), "cuda"), "ptx"));
	int none = ptx && !strcmp(ptx, "none");

	json_free(m);
	return none;
}

int
manifest_cuda_off(const char *path)
{
	struct json *m = manifest_load(path);
	const struct json *asked = json_get(json_get(json_get(m, "profile"), "features"), "cuda");
	const struct json *built = json_get(json_get(m, "features"), "cuda");
	/* The profile's word first; without one, what the build settings showed. */
	const struct json *cuda = asked ? asked : built;
	int off = json_is_bool(cuda) && !json_is_true(cuda);

	json_free(m);
	return off;
}
