/*
 * The configure read-back's judgement (configure.h): each feature of the
 * profile against the value configure ended with, the options CMake
 * turned off that the tree defaults on (asked by nobody: NumPy not found,
 * ROCm absent), and the BLAS the build really got (PyTorch falls back to
 * Eigen's when the one it looks for is missing, saying so only in its log).
 * configure.c reads the files; the BLAS libraries' table serves doctor too.
 * May include: core/, formats/, profile/, pipeline/configure.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pipeline/configure.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/json.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/cmakecache.h"
#include "formats/cmakeopts.h"
#include "profile/profile.h"

/* Why a tree turns a feature off by itself, where PyTorch's CMake says so. */
static const char *
off_reason(const struct profile *p, enum feature f, const struct cmake_cache *c)
{
	size_t i;
	int reach80 = 0, has10 = 0;

	for (i = 0; i < p->narchs; i++) {
		reach80 |= p->archs[i].arch.major * 10 + p->archs[i].arch.minor >= 80;
		has10 |= p->archs[i].arch.major == 10;
	}
	if (f == FEAT_NUMPY)
		return "the build's Python has no NumPy CMake can find; install python3-numpy for "
		       "it, or set 'features.numpy: off'";
	if (f != FEAT_CUDA && !cmake_truthy(cmakecache_get(c, "USE_CUDA")))
		return "USE_CUDA is off, which turns every CUDA feature off";
	switch (f) {
	case FEAT_FLASH_ATTENTION:
	case FEAT_MEM_EFF_ATTENTION:
		return reach80 ? NULL : "no arch of 8.0 or newer in TORCH_CUDA_ARCH_LIST";
	case FEAT_CUDNN:
		return "CMake did not find cuDNN (cudnn_version.h); install it or set CUDNN_ROOT";
	case FEAT_NCCL:
		return "CMake did not find NCCL (nccl.h); install libnccl-dev, or set "
		       "NCCL_INCLUDE_DIR with USE_SYSTEM_NCCL=1";
	case FEAT_MSLK:
	case FEAT_FBGEMM_GENAI:
		return has10 ? "it needs CUDA 12.8 or newer" : "it needs a 10.x arch in TORCH_CUDA_ARCH_LIST";
	case FEAT_CUDA:
		return "CMake did not find a CUDA compiler (see CUDACXX and cuda.home)";
	default:
		return NULL;
	}
}

/*
 * A value as configure ended with it. The cache alone can lie: a
 * cmake_dependent_option whose condition failed keeps the user's value
 * as an INTERNAL entry (USE_FLASH_ATTENTION:INTERNAL=1) while the
 * variable CMake used is the forced value, OFF for every USE_* option in
 * PyTorch. The hook's dump (configure_hook) has plain KEY=VALUE lines.
 */
const char *
configure_effective_value(const struct cmake_cache *c, const char *key)
{
	const struct cmake_entry *e = NULL;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].key, key))
			e = &c->v[i];
	if (!e)
		return NULL;
	if (e->type && !strcmp(e->type, "INTERNAL") && starts_with(key, "USE_"))
		return "OFF";
	return e->value;
}

int
tree_default_on(const struct cmake_options *tree, const char *name, const struct cmake_option **o)
{
	const struct cmake_option *found = tree ? cmakeopts_find(tree, name) : NULL;

	if (o)
		*o = found;
	/* A default written as a constant; "${CPU_INTEL}" says nothing without CMake. */
	if (!found || !found->def || strchr(found->def, '$'))
		return -1;
	return cmake_truthy(found->def);
}

/* A feature the profile left to the tree, which defaults it on, ended off: said, with why. */
static void
feature_dropped(const struct profile *p, enum feature f, const struct cmake_option *o,
		const struct cmake_cache *c)
{
	const char *why = off_reason(p, f, c);

	warning("features.%s is not set and the tree defaults %s on (%s:%u), but configure turned "
		"it off%s%s; set 'features.%s: off' to build without it", feature_table[f].key,
		o->name, o->file, o->line, why ? ": " : "", why ? why : "", feature_table[f].key);
}

int
features_effective(const struct profile *p, const struct cmake_cache *c, const char *cache_path,
		   const struct cmake_options *tree, struct json **effective)
{
	struct json *o = json_object();
	int before = diag_errors;
	size_t f;

	for (f = 0; f < FEAT__COUNT; f++) {
		const char *opt = feature_table[f].option;
		const char *v = configure_effective_value(c, opt);
		const struct cmake_option *decl;
		int def = tree_default_on(tree, opt, &decl);
		struct json *e = json_object();
		int eff;

		json_set(e, "requested", p->features[f] == TRI_UNSET ? json_null() :
					 json_string(p->features[f] == TRI_ON ? "on" : "off"));
		json_set(e, "effective", v ? json_bool(cmake_truthy(v)) : json_null());
		json_set(e, "tree_default", def < 0 ? json_null() : json_bool(def));
		json_set(e, "option", json_string(opt));
		json_set(o, feature_table[f].key, e);
		if (!v)
			continue;
		eff = cmake_truthy(v);
		if (p->features[f] == TRI_UNSET && def == 1 && !eff) {
			feature_dropped(p, (enum feature)f, decl, c);
		} else if (p->features[f] == TRI_ON && !eff) {
			const char *why = off_reason(p, (enum feature)f, c);

			error_at(&p->feature_loc[f], "features.%s is on, but the build turned %s off%s%s "
				 "(%s)", feature_table[f].key, opt, why ? ": " : "", why ? why : "",
				 cache_path);
		} else if (p->features[f] == TRI_OFF && eff) {
			error_at(&p->feature_loc[f], "features.%s is off, but the build turned %s on (%s)",
				 feature_table[f].key, opt, cache_path);
		}
	}
	*effective = o;
	return diag_errors > before ? -1 : 0;
}

/*
 * A cmake_dependent_option condition evaluated on the values configure
 * ended with: 1 true, 0 false, -1 unknown. The read-back once said "its
 * condition 'LINUX' is false" on Linux, and "'USE_CUDA' is false" with
 * USE_CUDA on, where a later check (a library not found) was the cause.
 * Only NOT, AND, OR, parentheses and names are evaluated (';' between
 * conditions is AND); a name is a constant, a value of the cache or the
 * hook's dump, or a platform variable of this machine; anything else
 * (STREQUAL, DEFINED, ${...}) makes the whole unknown. Every name met is
 * said in `vals` ("USE_CUDA=ON"), one unknown in `unknown`.
 */
struct cond {
	const char *p;
	const struct cmake_cache *c;
	struct buf *vals, *unknown;
	int bad;      /* more than this evaluates */
	int depth;    /* of parentheses and NOTs: a crafted tree's 100,000 '(' end here */
};

static void
cond_skip(struct cond *k)
{
	while (*k->p == ' ' || *k->p == '\t' || *k->p == '\n')
		k->p++;
}

/* The next token's length: a name, '(', ')' or ';'; 0 at the end. */
static size_t
cond_token(struct cond *k)
{
	size_t n;

	cond_skip(k);
	if (*k->p == '(' || *k->p == ')' || *k->p == ';')
		return 1;
	n = strspn(k->p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");
	if (!n && *k->p)
		k->bad = 1;
	return n;
}

static int
cond_is(struct cond *k, const char *word)
{
	size_t n = cond_token(k);

	if (n != strlen(word) || strncmp(k->p, word, n))
		return 0;
	k->p += n;
	return 1;
}

static int
cond_name(struct cond *k, const char *name)
{
	static const char *const no[] = { "OFF", "0", "FALSE", "NO", "N", "IGNORE", "NOTFOUND", "" };
	static const char *const here_off[] = { "WIN32", "MSVC", "APPLE", "IOS", "ANDROID", "MINGW",
						"CYGWIN", "BSD" };
	const char *v = configure_effective_value(k->c, name);

	if (cmake_truthy(name))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		if (!strcasecmp(name, no[i]))
			return 0;
	if (!v) {
#ifdef __linux__
		if (!strcmp(name, "LINUX") || !strcmp(name, "UNIX"))
			v = "ON";
		for (size_t i = 0; i < ARRAY_SIZE(here_off); i++)
			if (!strcmp(name, here_off[i]))
				v = "OFF";
#endif
	}
	if (!v) {
		if (!k->unknown->len)
			buf_addstr(k->unknown, name);
		return -1;
	}
	buf_addf(k->vals, "%s%s=%s", k->vals->len ? ", " : "", name, v);
	return cmake_truthy(v);
}

static int cond_or(struct cond *k);

static int
cond_unary(struct cond *k)
{
	size_t n;
	char *name;
	int v;

	if (++k->depth > 64)
		k->bad = 1;
	if (k->bad)
		return -1;
	if (cond_is(k, "NOT")) {
		v = cond_unary(k);
		k->depth--;
		return v < 0 ? -1 : !v;
	}
	if (cond_is(k, "(")) {
		v = cond_or(k);
		if (!cond_is(k, ")"))
			k->bad = 1;
		k->depth--;
		return v;
	}
	k->depth--;
	n = cond_token(k);
	if (!n || *k->p == ')' || *k->p == ';' || (n == 3 && !strncmp(k->p, "AND", 3)) ||
	    (n == 2 && !strncmp(k->p, "OR", 2))) {
		k->bad = 1;
		return -1;
	}
	name = xstrndup(k->p, n);
	k->p += n;
	v = cond_name(k, name);
	free(name);
	return v;
}

/* Three-valued AND (`and`) or OR of `a` and `b`. */
static int
cond_join(int and, int a, int b)
{
	if (and)
		return !a || !b ? 0 : a < 0 || b < 0 ? -1 : 1;
	return a == 1 || b == 1 ? 1 : a < 0 || b < 0 ? -1 : 0;
}

static int
cond_and(struct cond *k)
{
	int v = cond_unary(k);

	while (!k->bad && cond_is(k, "AND"))
		v = cond_join(1, v, cond_unary(k));
	return v;
}

static int
cond_or(struct cond *k)
{
	int v = cond_and(k);

	while (!k->bad && cond_is(k, "OR"))
		v = cond_join(0, v, cond_and(k));
	return v;
}

static int
cond_eval(const char *s, const struct cmake_cache *c, struct buf *vals, struct buf *unknown)
{
	struct cond k = { s, c, vals, unknown, 0, 0 };
	int v = cond_or(&k);

	while (!k.bad && cond_is(&k, ";"))
		v = cond_join(1, v, cond_or(&k));
	if (!k.bad && cond_token(&k))
		k.bad = 1;
	return k.bad ? -2 : v;
}

/* Why CMake turned off an option the tree declares on: its condition when the values say so. */
static void
dropped_why(const struct cmake_option *o, const struct cmake_cache *c, struct buf *why)
{
	struct buf vals = BUF_INIT, unknown = BUF_INIT;
	int v;

	if (!strcmp(o->name, "USE_NUMPY")) {
		buf_addstr(why, "the build's Python has no NumPy CMake can find");
		return;
	}
	if (!o->condition || !*o->condition) {
		buf_addstr(why, "a check in the tree's CMake turned it off (logs/configure.log says which)");
		return;
	}
	v = cond_eval(o->condition, c, &vals, &unknown);
	if (v == 0)
		buf_addf(why, "its condition '%s' is false%s%s%s", o->condition, vals.len ? " (" : "",
			 vals.s, vals.len ? ")" : "");
	else if (v == 1)
		buf_addf(why, "its condition '%s' holds%s%s%s, so a later check in the tree's CMake "
			 "turned it off, such as a library not found (logs/configure.log says which)",
			 o->condition, vals.len ? " (" : "", vals.s, vals.len ? ")" : "");
	else
		buf_addf(why, "a check in the tree's CMake turned it off: its condition '%s' (%s%s) "
			 "or a later one, such as a library not found (logs/configure.log says which)",
			 o->condition, v == -2 ? "more than bwbuild evaluates" : unknown.s,
			 v == -2 ? "" : " is in no value bwbuild reads");
	buf_release(&vals);
	buf_release(&unknown);
}

/* Whether `name` was asked for by the plan (the profile) or the environment it inherited. */
static int
asked(const char *name, const struct strvec *env, const struct strvec *inherited)
{
	size_t n = strlen(name);

	return (env && strvec_env_find(env, name, n) >= 0) ||
	       (inherited && strvec_env_find(inherited, name, n) >= 0);
}

size_t
readback_dropped(const struct cmake_cache *c, const struct cmake_options *tree,
		 const struct strvec *env, const struct strvec *inherited, struct strvec *out)
{
	struct buf why = BUF_INIT;
	size_t before = out->n;

	for (size_t i = 0; tree && i < tree->n; i++) {
		const struct cmake_option *o = &tree->v[i];
		const char *v = configure_effective_value(c, o->name);

		if (tree_default_on(tree, o->name, NULL) != 1 || !v || cmake_truthy(v) ||
		    asked(o->name, env, inherited))
			continue;
		buf_reset(&why);
		dropped_why(o, c, &why);
		strvec_pushf(out, "%-24s %s:%u: %s", o->name, o->file, o->line, why.s);
	}
	buf_release(&why);
	return out->n - before;
}

/*
 * The BLAS libraries PyTorch's cmake/Dependencies.cmake takes by name
 * (BLAS=...), each with the library its Find module looks for and the
 * Debian package that has it. Eigen is header-only: nothing to find.
 */
static const struct blas_lib blas_libs[] = {
	{ "OpenBLAS", "libopenblas.so", "libopenblas-dev" },
	{ "MKL", "libmkl_rt.so", "libmkl-dev" },
	{ "BLIS", "libblis.so", "libblis-dev" },
	{ "ATLAS", "libatlas.so", "libatlas-base-dev" },
	{ "FlexiBLAS", "libflexiblas.so", "libflexiblas-dev" },
	{ "Generic", "libblas.so", "libblas-dev" },
};

const struct blas_lib *
blas_lib_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(blas_libs); i++)
		if (!strcasecmp(blas_libs[i].name, name))
			return &blas_libs[i];
	return NULL;
}

/* The profile's cmake.BLAS entry, or NULL. */
const struct pkv *
profile_blas(const struct profile *p)
{
	for (size_t i = 0; i < p->ncmake; i++)
		if (!strcmp(p->cmake[i].key, "BLAS"))
			return &p->cmake[i];
	return NULL;
}

/* What the BLAS fallback means, and what to do, for a message. */
static void
blas_fix(const char *name, struct buf *out)
{
	const struct blas_lib *l = blas_lib_find(name);

	buf_addstr(out, "matmuls run on Eigen's BLAS, several times slower; ");
	if (l && strcmp(l->name, "OpenBLAS"))
		buf_addf(out, "install %s's %s (apt-get install %s), or libopenblas-dev with "
			 "'cmake.BLAS: OpenBLAS'", l->name, l->lib, l->package);
	else
		buf_addstr(out, "apt-get install libopenblas-dev and set 'cmake.BLAS: OpenBLAS'");
}

int
readback_blas(const struct profile *p, const struct cmake_cache *c, const struct strvec *inherited,
	      const char *cache_path, struct buf *row)
{
	const struct pkv *want = profile_blas(p);
	long at = inherited ? strvec_env_find(inherited, "BLAS", 4) : -1;
	const char *asked_for = want ? want->val : at >= 0 ? inherited->v[at] + 5 : NULL;
	const char *set = configure_effective_value(c, "BLAS");
	const char *info = configure_effective_value(c, "BLAS_INFO");
	const char *use = configure_effective_value(c, "USE_BLAS");
	int eigen = cmake_truthy(configure_effective_value(c, "CAFFE2_USE_EIGEN_FOR_BLAS")) ||
		    cmake_truthy(configure_effective_value(c, "USE_EIGEN_FOR_BLAS"));
	int none = use && !cmake_truthy(use), wanted_eigen;
	struct buf msg = BUF_INIT;
	int rc = 0;

	if (!set && !info && !use && !eigen && !asked_for)
		return 0; /* a tree without PyTorch's BLAS choice */
	wanted_eigen = (asked_for ? asked_for : set) && !strcasecmp(asked_for ? asked_for : set,
								    "Eigen");
	buf_addf(row, "  %-20s %-28s %-10s %s\n", "blas", "BLAS", asked_for ? asked_for :
		 set ? "(tree)" : "(unset)", none ? "none" : eigen ? (wanted_eigen ? "Eigen" :
		 "Eigen (fallback)") : info && *info ? info : set ? set : "unset");
	if ((!eigen && !none) || wanted_eigen)
		return 0;
	blas_fix(asked_for ? asked_for : set, &msg);
	if (want)
		rc = error_at(&want->loc, "cmake.BLAS is %s, but configure did not find it and %s "
			      "(%s); %s", want->val, none ? "builds without a BLAS" :
			      "fell back to Eigen's", cache_path, msg.s);
	else
		warning("no BLAS was found: configure %s (BLAS=%s%s was not found; %s); %s",
			none ? "builds without one" : "fell back to Eigen's", set ? set : "?",
			at >= 0 ? " from the environment" : ", the tree's default", cache_path, msg.s);
	buf_release(&msg);
	return rc;
}
