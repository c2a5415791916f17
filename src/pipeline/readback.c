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

/* Why CMake turned off an option the tree declares on: the option its condition needs, where it says. */
static void
dropped_why(const struct cmake_option *o, const struct cmake_cache *c, struct buf *why)
{
	const char *s = o->condition;

	if (!strcmp(o->name, "USE_NUMPY")) {
		buf_addstr(why, "the build's Python has no NumPy CMake can find");
		return;
	}
	while (s && (s = strstr(s, "USE_"))) {
		size_t n = 4 + strspn(s + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		char *name = xstrndup(s, n);
		const char *v = configure_effective_value(c, name);

		if (v && !cmake_truthy(v)) {
			buf_addf(why, "it follows %s, which is off (condition '%s')", name, o->condition);
			free(name);
			return;
		}
		free(name);
		s += n;
	}
	if (o->condition)
		buf_addf(why, "its condition '%s' is false, or a later check turned it off",
			 o->condition);
	else
		buf_addstr(why, "a check in the tree's CMake turned it off (logs/configure.log says which)");
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
