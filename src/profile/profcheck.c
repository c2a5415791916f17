/*
 * A merged profile validated into struct profile (profile.h): the key
 * table (every section and key, its type and field), what each value may
 * be (arch lists, cache URLs, platform and PTX policies, exceptions,
 * submodules, build_env), the names PyTorch forwards to CMake and the
 * required keys. Reads the node tree of pnode.h; never YAML itself.
 * Just past 800 lines by design: the key table, the checks its rows name
 * and the walk that applies them are one contract, read together when a
 * key is added (docs/profile-format.md); YAML is ydoc.c's, merging
 * profload.c's.
 * May include: core/, formats/, host/, profile/.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/strvec.h"
#include "core/suggest.h"
#include "core/util.h"
#include "profile/hostlist.h"
#include "profile/pnode.h"
#include "profile/profile.h"

const struct feature_info feature_table[FEAT__COUNT] = {
#define FEATURE_INFO(e, key, option) [e] = { key, option },
	PROFILE_FEATURES(FEATURE_INFO)
#undef FEATURE_INFO
};

/*
 * Names that PyTorch's environment forwarding passes to CMake besides the
 * BUILD_/USE_/CMAKE_ prefixes (tools/setup_helpers/cmake.py and
 * cmake/EnvVarForwarding.cmake).
 */
static const char *const forwarded_names[] = {
	"UBSAN_FLAGS", "BLAS", "WITH_BLAS", "CUDA_HOST_COMPILER", "CUDA_NVCC_EXECUTABLE",
	"CUDA_SEPARABLE_COMPILATION", "CUDNN_LIBRARY", "CUDNN_INCLUDE_DIR", "CUDNN_ROOT",
	"EXPERIMENTAL_SINGLE_THREAD_POOL", "INSTALL_TEST", "INTEL_MKL_DIR", "INTEL_OMP_DIR",
	"MKL_THREADING", "MKLDNN_CPU_RUNTIME", "MSVC_Z7_OVERRIDE", "CAFFE2_USE_MSVC_STATIC_RUNTIME",
	"Numa_INCLUDE_DIR", "Numa_LIBRARIES", "ONNX_ML", "ONNX_NAMESPACE", "ATEN_THREADING",
	"WERROR", "OPENSSL_ROOT_DIR", "STATIC_DISPATCH_BACKEND", "SELECTED_OP_LIST",
	"TORCH_XPU_ARCH_LIST", "TRACING_BASED", "NCCL_INCLUDE_DIR", "TORCH_CUDA_ARCH_LIST",
};

int
cmake_name_forwarded(const char *name)
{
	size_t i;

	if (starts_with(name, "USE_") || starts_with(name, "BUILD_") || starts_with(name, "CMAKE_"))
		return 1;
	for (i = 0; i < ARRAY_SIZE(forwarded_names); i++)
		if (!strcmp(name, forwarded_names[i]))
			return 1;
	return 0;
}

/* ---- validation ---- */

static int
want_scalar(const struct pnode *v, const char *what)
{
	if (v->kind != PN_SCALAR)
		return error_at(&v->loc, "'%s' must be a single value", what);
	return 0;
}

static void
set_value(struct pvalue *out, const struct pnode *v, const char *what)
{
	if (want_scalar(v, what) < 0)
		return;
	out->str = v->str;
	out->loc = v->loc;
}

static int
want_map(const struct pnode *v, const char *what)
{
	if (v->kind != PN_MAP)
		return error_at(&v->loc, "'%s' must be a mapping of keys", what);
	return 0;
}

static int
parse_bool(const char *s, enum tri *out)
{
	static const char *on[] = { "on", "true", "yes", "1", "y" };
	static const char *off[] = { "off", "false", "no", "0", "n" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(on); i++) {
		if (!strcasecmp(s, on[i])) {
			*out = TRI_ON;
			return 0;
		}
		if (!strcasecmp(s, off[i])) {
			*out = TRI_OFF;
			return 0;
		}
	}
	return -1;
}

static void
add_arch(struct profile *p, size_t *cap, const char *text, const struct loc *loc)
{
	struct buf why = BUF_INIT;
	struct arch a;
	size_t i;

	if (strlen(text) > PROFILE_ECHO_MAX) {
		error_at(loc, "'%s' is not a TORCH_CUDA_ARCH_LIST entry (expected X.Y, such as "
			 "'12.0')", profile_shown(text));
		return;
	}
	if (arch_parse(&a, text, &why) < 0) {
		error_at(loc, "%s", why.s);
		buf_release(&why);
		return;
	}
	for (i = 0; i < p->narchs; i++) {
		if (!arch_cmp(&p->archs[i].arch, &a)) {
			/* "12.0" and "12.0+PTX" together mean one entry with PTX. */
			p->archs[i].arch.ptx |= a.ptx;
			return;
		}
	}
	ALLOC_GROW(p->archs, p->narchs + 1, *cap);
	p->archs[p->narchs].arch = a;
	p->archs[p->narchs].text = text;
	p->archs[p->narchs].loc = *loc;
	p->narchs++;
}

static int
cmp_parch(const void *a, const void *b)
{
	return arch_cmp(&((const struct parch *)a)->arch, &((const struct parch *)b)->arch);
}

static void
validate_archs(struct profile *p, const struct pnode *v)
{
	size_t cap = 0, i;
	int errors_before = diag_errors;

	if (v->kind == PN_SCALAR) {
		/* One string, separated as TORCH_CUDA_ARCH_LIST is: ';' or blanks. */
		char *copy = xstrdup(v->str), *save = NULL, *tok;

		for (tok = strtok_r(copy, "; \t", &save); tok; tok = strtok_r(NULL, "; \t", &save)) {
			struct loc at = v->loc;

			/* Each entry at its own column where the file shows the text as it is. */
			if (v->text_col)
				at.col = v->text_col + (int)(tok - copy);
			add_arch(p, &cap, profile_keep_str(p, tok), &at);
		}
		free(copy);
	} else if (v->kind == PN_SEQ) {
		for (i = 0; i < v->n; i++) {
			if (want_scalar(v->items[i], "cuda.archs entry") < 0)
				continue;
			add_arch(p, &cap, v->items[i]->str, &v->items[i]->loc);
		}
	} else {
		error_at(&v->loc, "'cuda.archs' must be a list such as [\"10.0\", \"12.0+PTX\"]");
		return;
	}
	p->archs_given = 1;
	if (!p->narchs && diag_errors == errors_before)
		error_at(&v->loc, "'cuda.archs' is empty; an empty TORCH_CUDA_ARCH_LIST makes PyTorch "
			 "guess from the build machine's GPU (list the targets, e.g. [\"12.0\"])");
	if (p->narchs)
		qsort(p->archs, p->narchs, sizeof(*p->archs), cmp_parch);
}

static void
validate_kv_map(const struct pnode *v, const char *what, struct pkv **out, size_t *n)
{
	size_t i;

	if (want_map(v, what) < 0)
		return;
	*out = xcalloc(v->n, sizeof(**out));
	for (i = 0; i < v->n; i++) {
		if (want_scalar(v->items[i], what) < 0)
			continue;
		(*out)[*n].key = v->keys[i];
		(*out)[*n].val = v->items[i]->str;
		(*out)[*n].loc = v->keylocs[i];
		(*n)++;
	}
}

static int
is_cache_kind(const char *s, struct buf *why)
{
	(void)why;
	return !strcmp(s, "ccache") || !strcmp(s, "none");
}

static int
is_cuda_libs_form(const char *s, struct buf *why)
{
	(void)why;
	return !strcmp(s, "pip") || !strcmp(s, "vendor") || !strcmp(s, "system");
}

static int
is_redis_url(const char *s, struct buf *why)
{
	(void)why;
	return starts_with(s, "redis://");
}

/*
 * A host list (profile/hostlist.h), or the path of a file of one, read when
 * the build is planned; a refused list says why (the entry, or the bound it
 * passes), not only what a list is.
 */
static int
is_remote_hosts(const char *s, struct buf *why)
{
	struct remote_hosts h;

	if (remote_is_file(s))
		return 1;
	if (remote_hosts_parse(&h, s, why) < 0)
		return 0;
	remote_hosts_release(&h);
	return 1;
}

static int
is_local_label(const char *s, struct buf *why)
{
	(void)why;
	return *s == '+' && s[1] &&
	       strspn(s + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.") ==
		       strlen(s + 1);
}

int
profile_platform_glibc(const char *s)
{
	char *end;
	unsigned long minor;

	if (!strcmp(s, "auto") || !strcmp(s, "linux"))
		return 0;
	if (!strcmp(s, "manylinux2014"))
		return 17;
	if (strncmp(s, "manylinux_2_", 12))
		return -1;
	minor = strtoul(s + 12, &end, 10);
	return *end || end == s + 12 || minor < 17 || minor > 99 ? -1 : (int)minor;
}

static int
is_platform_policy(const char *s, struct buf *why)
{
	(void)why;
	return profile_platform_glibc(s) >= 0;
}

static int
is_host_arch(const char *s, struct buf *why)
{
	(void)why;
	return !strcmp(s, "x86_64") || !strcmp(s, "aarch64");
}

static int
is_kind(const char *s, struct buf *why)
{
	(void)why;
	return !strcmp(s, "torch") || !strcmp(s, "extension");
}

void
profile_inherit_archs(struct profile *dst, const struct profile *src)
{
	free(dst->archs);
	dst->archs = xcalloc(src->narchs ? src->narchs : 1, sizeof(*dst->archs));
	for (size_t i = 0; i < src->narchs; i++) {
		dst->archs[i] = src->archs[i];
		dst->archs[i].text = profile_keep_str(dst, src->archs[i].text);
		if (src->archs[i].loc.file)
			dst->archs[i].loc.file = profile_keep_str(dst, src->archs[i].loc.file);
	}
	dst->narchs = src->narchs;
	dst->archs_given = src->archs_given;
}

int
profile_torch_is_profile(const struct profile *p)
{
	const char *t = p->torch.str;

	return t && (ends_with(t, ".yaml") || ends_with(t, ".yml") ||
		     (!strchr(t, '/') && !ends_with(t, ".whl")));
}

int
profile_is_extension(const struct profile *p)
{
	return p->kind.str && !strcmp(p->kind.str, "extension");
}

static int
is_ptx_policy(const char *s, struct buf *why)
{
	(void)why;
	return !strcmp(s, "newest") || !strcmp(s, "none");
}

/*
 * build.env: variables PyTorch's build reads that no other key sets. The
 * ones bwbuild derives (archs, features, jobs, launchers, CUDA_HOME) have
 * their own keys, so a profile cannot make the plan say one thing and the
 * build do another.
 */
static const char *const build_env_allowed[] = {
	"TORCH_NVCC_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_PREPEND_FLAGS", "CC", "CXX",
	"CUDAHOSTCXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "CUDAFLAGS", "DEBUG",
	"REL_WITH_DEB_INFO", "BUILD_BUNDLE_PTXAS", "USE_PRIORITIZED_TEXT_FOR_LD",
};

const char *
build_env_refusal(const char *name)
{
	static const struct {
		const char *prefix, *why;
	} own[] = {
		{ "TORCH_CUDA_ARCH_LIST", "bwbuild sets it from cuda.archs" },
		{ "USE_", "bwbuild sets the USE_* switches from features: (or cmake: for others)" },
		{ "BUILD_", "set BUILD_* switches under cmake:" },
		{ "MAX_JOBS", "bwbuild sets it from build.jobs and the memory budget" },
		{ "FLASH_ATTENTION_MAX_JOBS", "bwbuild sets it from the memory budget" },
		{ "CMAKE_", "CMake settings go under cmake:" },
		{ "CUDA_HOME", "bwbuild sets it from cuda.home" },
		{ "CUDACXX", "bwbuild sets it from cuda.home" },
		{ "TMPDIR", "bwbuild puts temporaries under the work directory" },
		{ "CCACHE_", "bwbuild sets ccache's settings from build.cache" },
		{ "PYTORCH_BUILD_", "bwbuild sets it from the tree's version and "
				    "wheel.version_suffix" },
		{ "BWBUILD_", "bwbuild's own settings are not build settings" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(build_env_allowed); i++)
		if (!strcmp(name, build_env_allowed[i]))
			return NULL;
	for (i = 0; i < ARRAY_SIZE(own); i++)
		if (starts_with(name, own[i].prefix))
			return own[i].why;
	return "not a variable bwbuild passes to the build (allowed: TORCH_NVCC_FLAGS, "
	       "NVCC_APPEND_FLAGS, NVCC_PREPEND_FLAGS, CC, CXX, CUDAHOSTCXX, CFLAGS, CXXFLAGS, "
	       "CPPFLAGS, LDFLAGS, CUDAFLAGS, DEBUG, REL_WITH_DEB_INFO, BUILD_BUNDLE_PTXAS, "
	       "USE_PRIORITIZED_TEXT_FOR_LD)";
}

/* A target name as verify reports it: sm_75, sm_100a, compute_120. */
static int
is_target_name(const char *s)
{
	const char *d = starts_with(s, "sm_") ? s + 3 : starts_with(s, "compute_") ? s + 8 : NULL;
	size_t n = d ? strspn(d, "0123456789") : 0;

	return n >= 2 && n <= 3 && (!d[n] || ((d[n] == 'a' || d[n] == 'f') && !d[n + 1]));
}

/* source.submodules: {exclude: [paths]}; each a path inside the tree, nested ones from the top. */
static void
validate_submodules(struct profile *p, const struct pnode *v)
{
	if (want_map(v, "source.submodules") < 0)
		return;
	for (size_t i = 0; i < v->n; i++) {
		const struct pnode *x = v->items[i];
		size_t n = x->kind == PN_SEQ ? x->n : 1;

		if (strcmp(v->keys[i], "exclude")) {
			error_at(&v->keylocs[i], "unknown key '%s' in source.submodules (known keys: "
				 "exclude)", v->keys[i]);
			continue;
		}
		free(p->submodules_exclude);
		p->submodules_exclude = xcalloc(n ? n : 1, sizeof(*p->submodules_exclude));
		p->nsubmodules_exclude = 0;
		for (size_t j = 0; j < n; j++) {
			const struct pnode *e = x->kind == PN_SEQ ? x->items[j] : x;
			const char *s;

			if (want_scalar(e, "source.submodules.exclude entry") < 0)
				continue;
			s = e->str;
			if (!*s || *s == '/' || !strcmp(s, "..") || starts_with(s, "../") ||
			    strstr(s, "/../") || ends_with(s, "/.."))
				error_at(&e->loc, "'%s' is not a submodule path inside the tree, such as "
					 "third_party/fbgemm/third_party/hipify_torch", s);
			else
				p->submodules_exclude[p->nsubmodules_exclude++] = s;
		}
	}
}

static void
validate_exceptions(struct profile *p, const struct pnode *v)
{
	size_t i, j;

	if (v->kind != PN_SEQ) {
		error_at(&v->loc, "'verify.exceptions' must be a list of {library, missing, reason}");
		return;
	}
	p->exceptions = xcalloc(v->n ? v->n : 1, sizeof(*p->exceptions));
	for (i = 0; i < v->n; i++) {
		const struct pnode *m = v->items[i];
		struct pexception *e = &p->exceptions[p->nexceptions];
		const struct pnode *missing = NULL;

		if (want_map(m, "verify.exceptions entry") < 0)
			continue;
		e->loc = m->loc;
		for (j = 0; j < m->n; j++) {
			const char *k = m->keys[j];

			if (!strcmp(k, "library") && !want_scalar(m->items[j], "library"))
				e->library = m->items[j]->str;
			else if (!strcmp(k, "reason") && !want_scalar(m->items[j], "reason"))
				e->reason = m->items[j]->str;
			else if (!strcmp(k, "missing"))
				missing = m->items[j];
			else if (strcmp(k, "library") && strcmp(k, "reason"))
				error_at(&m->keylocs[j], "unknown key '%s' in verify.exceptions (known "
					 "keys: library, missing, reason)", profile_shown(k));
		}
		if (!e->library || !*e->library || !missing || !e->reason || !*e->reason) {
			error_at(&m->loc, "a verify.exceptions entry needs 'library' (e.g. "
				 "libtorch_cuda_linalg.so), 'missing' (e.g. [sm_75]) and 'reason'");
			continue;
		}
		if (missing->kind == PN_SCALAR) {
			e->missing = xcalloc(1, sizeof(*e->missing));
			if (is_target_name(missing->str))
				e->missing[e->nmissing++] = missing->str;
			else
				error_at(&missing->loc, "'%s' is not a target such as sm_75 or "
					 "compute_120", profile_shown(missing->str));
		} else if (missing->kind == PN_SEQ && missing->n) {
			e->missing = xcalloc(missing->n, sizeof(*e->missing));
			for (j = 0; j < missing->n; j++) {
				const struct pnode *t = missing->items[j];

				if (want_scalar(t, "missing entry") < 0)
					continue;
				if (is_target_name(t->str))
					e->missing[e->nmissing++] = t->str;
				else
					error_at(&t->loc, "'%s' is not a target such as sm_75 or "
						 "compute_120", profile_shown(t->str));
			}
		} else {
			error_at(&missing->loc, "'missing' must list targets, e.g. [sm_75]");
		}
		p->nexceptions++;
	}
}

#define AT(field) offsetof(struct profile, field)
#define FEATURE_KEY(e, key, option) { "features", key, KEY_FEATURE, e, 0, NULL, NULL, option },

const struct profile_key profile_keys[] = {
	{ NULL, "name", KEY_STRING, AT(name), 0, NULL, NULL, "the profile's name" },
	{ NULL, "description", KEY_STRING, AT(description), 0, NULL, NULL,
	  "one line, shown by bwbuild profiles" },
	{ NULL, "extends", KEY_EXTENDS, 0, 0, NULL, NULL, "the parent profile" },
	{ NULL, "kind", KEY_STRING, AT(kind), 0, is_kind, "is torch or extension",
	  "what it builds: torch (default), or an extension on a torch" },
	{ NULL, "torch", KEY_STRING, AT(torch), 0, NULL, NULL,
	  "kind: extension: the torch profile, torch wheel or site-packages/torch to build on" },
	{ "source", "repo", KEY_STRING, AT(source_repo), 0, NULL, NULL, "the git repository" },
	{ "source", "ref", KEY_STRING, AT(source_ref), 0, NULL, NULL, "a tag, branch or commit" },
	{ "source", "patches", KEY_STRING, AT(source_patches), 0, NULL, NULL,
	  "the patch series patches/<project>/" },
	{ "source", "mirrors", KEY_STRING, AT(source_mirrors), 0, NULL, NULL,
	  "a directory of bare mirrors searched before the cache" },
	{ "source", "submodules", KEY_SUBMODULES, 0, 0, NULL, NULL,
	  "submodules left out (exclude: [paths])" },
	{ "cuda", "archs", KEY_ARCHS, 0, 0, NULL, NULL, "TORCH_CUDA_ARCH_LIST entries" },
	{ "cuda", "home", KEY_STRING, AT(cuda_home), 0, NULL, NULL, "the toolkit to build with" },
	{ "cuda", "version", KEY_STRING, AT(cuda_version), 0, NULL, NULL,
	  "the CUDA toolkit the profile is meant for" },
	{ "cuda", "ptx", KEY_STRING, AT(cuda_ptx), 0, is_ptx_policy, "is newest or none",
	  "newest: PTX expected on the newest arch; none: no PTX at all" },
	PROFILE_FEATURES(FEATURE_KEY)
	{ NULL, "cmake", KEY_MAP, AT(cmake), AT(ncmake), NULL, NULL,
	  "extra settings passed through the environment" },
	{ "build", "jobs", KEY_JOBS, AT(jobs), AT(jobs_loc), NULL,
	  "must be 'auto' or a number from 1 to 4096", "MAX_JOBS" },
	{ "build", "mem_budget", KEY_SIZE, AT(mem_budget), AT(mem_budget_loc), NULL,
	  "must be 'auto' or a size such as '24G'", "memory the compile may use" },
	{ "build", "python", KEY_STRING, AT(python), 0, NULL, NULL, "the build interpreter" },
	{ "build", "host_arch", KEY_STRING, AT(host_arch), 0, is_host_arch,
	  "must be x86_64 or aarch64", "the machine the build runs on (aarch64: Grace, DGX Spark)" },
	{ "build", "python_path", KEY_STRING, AT(python_path), 0, NULL, NULL,
	  "a directory first on the build's PYTHONPATH (scripts/python-prefix.sh makes one)" },
	{ "build", "launcher", KEY_SWITCH, AT(launcher), AT(launcher_loc), NULL, "is on or off",
	  "admission control by bwbuild launch" },
	{ "build", "split_compile", KEY_SWITCH, AT(split_compile), AT(split_compile_loc), NULL,
	  "is on or off",
	  "a CUDA unit alone with idle cores may get nvcc --split-compile (the objects record it)" },
	{ "build", "cache", KEY_STRING, AT(cache), 0, is_cache_kind, "is ccache or none",
	  "compile through ccache" },
	{ "build", "cache_remote", KEY_STRING, AT(cache_remote), 0, is_redis_url,
	  "must be a redis://HOST:PORT URL", "ccache's remote storage" },
	{ "build", "remote", KEY_STRING, AT(remote), 0, is_remote_hosts,
	  "must be distccd hosts such as '10.0.0.5:3632/8 10.0.0.6/8,mem=32G' (not localhost), "
	  "or a file of them (./hosts)",
	  "send host C++ compiles to these distccd hosts" },
	{ "build", "env", KEY_ENV, AT(build_env), AT(nbuild_env), NULL, NULL,
	  "allowed build variables (TORCH_NVCC_FLAGS, CC, CXX, ...)" },
	{ "build", "cxx11_abi", KEY_SWITCH, AT(cxx11_abi), AT(cxx11_abi_loc), NULL, "is on or off",
	  "_GLIBCXX_USE_CXX11_ABI the libraries must agree with" },
	{ "wheel", "platform", KEY_STRING, AT(platform), 0, is_platform_policy,
	  "must be auto, linux or a manylinux tag such as manylinux_2_28",
	  "the platform tag: auto (what the libraries earn), linux, manylinux_2_X" },
	{ "wheel", "repair", KEY_SWITCH, AT(repair), AT(repair_loc), NULL, "is on or off",
	  "copy into the wheel the libraries it needs from this machine (auditwheel repair)" },
	{ "wheel", "cuda_libs", KEY_STRING, AT(cuda_libs), 0, is_cuda_libs_form,
	  "is pip, vendor or system",
	  "CUDA's libraries: pip (Requires-Dist on nvidia-* and RUNPATH into site-packages/nvidia, "
	  "the default), vendor (copied in) or system (the installing machine's)" },
	{ "wheel", "version_suffix", KEY_STRING, AT(version_suffix), 0, is_local_label,
	  "must be a PEP 440 local label such as '+cu130'", "appended to version.txt" },
	{ "runtime", "env", KEY_MAP, AT(runtime_env), AT(nruntime_env), NULL, NULL,
	  "settings for whoever runs the wheel" },
	{ "verify", "exceptions", KEY_EXCEPTIONS, 0, 0, NULL, NULL,
	  "libraries allowed to lack targets, each with its reason" },
};
const size_t profile_nkeys = ARRAY_SIZE(profile_keys);

#undef FEATURE_KEY
#undef AT

static const struct profile_key *
key_find(const char *section, const char *key)
{
	for (size_t i = 0; i < profile_nkeys; i++) {
		const struct profile_key *k = &profile_keys[i];

		if (!strcmp(k->key, key) &&
		    (section ? k->section && !strcmp(k->section, section) : !k->section))
			return k;
	}
	return NULL;
}

static int
is_section(const char *name)
{
	for (size_t i = 0; i < profile_nkeys; i++)
		if (profile_keys[i].section && !strcmp(profile_keys[i].section, name))
			return 1;
	return 0;
}

static void
unknown_key(const struct pnode *m, size_t i, const char *section)
{
	struct buf known = BUF_INIT;
	const char *last = NULL;
	struct suggest s;

	suggest_init(&s, m->keys[i]);
	for (size_t k = 0; k < profile_nkeys; k++) {
		const struct profile_key *r = &profile_keys[k];
		const char *name;

		if (section)
			name = r->section && !strcmp(r->section, section) ? r->key : NULL;
		else
			name = r->section ? r->section : r->key;
		/* A section's rows are adjacent: its name is listed once. */
		if (!name || (last && !strcmp(name, last)))
			continue;
		buf_addf(&known, "%s%s", known.len ? ", " : "", name);
		suggest_add(&s, name);
		last = name;
	}
	if (section)
		error_at(&m->keylocs[i], "unknown key '%s' in '%s' (known keys: %s)", profile_shown(m->keys[i]),
			 section, known.s);
	else
		error_at(&m->keylocs[i], "unknown key '%s' (known keys: %s)", profile_shown(m->keys[i]),
			 known.s);
	if (suggest_best(&s)) {
		hint("did you mean '%s'?", suggest_best(&s));
	} else {
		/* A key of another section: 'archs:' at the top is cuda.archs. */
		for (size_t k = 0; k < profile_nkeys; k++) {
			const struct profile_key *r = &profile_keys[k];

			if (r->section && !strcmp(r->key, m->keys[i]) &&
			    (!section || strcmp(r->section, section))) {
				hint("did you mean '%s.%s' (the key '%s' under '%s:')?", r->section,
				     r->key, r->key, r->section);
				break;
			}
		}
	}
	buf_release(&known);
}

/* The value of a KEY_SWITCH, KEY_JOBS or KEY_SIZE row into its field; -1 if refused. */
static int
parse_scalar(const struct profile_key *k, void *field, const char *s)
{
	char *end;
	long n;

	switch (k->kind) {
	case KEY_SWITCH:
		return parse_bool(s, field);
	case KEY_JOBS:
		if (!strcmp(s, "auto"))
			return 0;
		errno = 0;
		n = strtol(s, &end, 10);
		if (errno || *end || n < 1 || n > 4096)
			return -1;
		*(long *)field = n;
		return 0;
	case KEY_SIZE:
		if (!strcmp(s, "auto"))
			return 0;
		return parse_size(s, field) < 0 || !*(uint64_t *)field ? -1 : 0;
	default:
		return -1;
	}
}

static void
validate_feature(struct profile *p, enum feature f, const char *key, const struct pnode *v)
{
	if (want_scalar(v, key) < 0)
		return;
	if (parse_bool(v->str, &p->features[f]) < 0) {
		error_at(&v->loc, "'%s' for '%s' is not on or off", profile_shown(v->str), key);
		return;
	}
	p->feature_loc[f] = v->loc;
}

/*
 * Flags and compilers reach the command lines that CMake writes into
 * build.ninja, which ninja runs through /bin/sh: a backtick or '$(' there
 * runs as shell, ';' '|' '&' '<' '>' end or redirect the compile. Values
 * from profiles never reach a shell, so these are refused (quotes and
 * blanks are left: CMake splits flags at blanks as a shell would).
 */
#define SHELL_CHARS "`$;|&<>\n\r"

static void
check_shell_chars(const struct pkv *kv, const char *section)
{
	size_t at = strcspn(kv->val, SHELL_CHARS);
	char c = kv->val[at], what[16];

	if (!c)
		return;
	if (c == '\n' || c == '\r')
		snprintf(what, sizeof(what), "a newline");
	else
		snprintf(what, sizeof(what), "'%c'", c);
	error_at(&kv->loc, "'%s.%s' has %s at byte %zu: flags and compilers go into the command "
		 "lines ninja runs through /bin/sh, where the shell would act on it, so bwbuild refuses "
		 "`$;|&<> and newlines there; pass the value without it (a define's value through "
		 "a header, a path without shell characters)", section, profile_shown(kv->key), what,
		 at + 1);
}

static void
validate_key(struct profile *p, const struct profile_key *k, const struct pnode *v)
{
	struct buf name = BUF_INIT, said = BUF_INIT;
	char *field = (char *)p + k->off, *aux = (char *)p + k->aux;
	struct pvalue *pv = (struct pvalue *)field;

	if (k->section)
		buf_addf(&name, "%s.%s", k->section, k->key);
	else
		buf_addstr(&name, k->key);
	switch (k->kind) {
	case KEY_STRING:
		set_value(pv, v, name.s);
		if (pv->str && k->valid && !k->valid(pv->str, &said)) {
			if (said.len)
				error_at(&v->loc, "'%s' %s: %s", name.s, k->expect, said.s);
			else
				error_at(&v->loc, "'%s' %s, not '%s'", name.s, k->expect,
					 profile_shown(pv->str));
		}
		break;
	case KEY_ARCHS:
		validate_archs(p, v);
		break;
	case KEY_FEATURE:
		validate_feature(p, (enum feature)k->off, k->key, v);
		break;
	case KEY_MAP:
	case KEY_ENV:
		validate_kv_map(v, name.s, (struct pkv **)field, (size_t *)aux);
		for (size_t i = 0; k->kind == KEY_ENV && i < *(size_t *)aux; i++) {
			const struct pkv *kv = &(*(struct pkv **)field)[i];
			const char *why = build_env_refusal(kv->key);

			if (why)
				error_at(&kv->loc, "'%s' cannot be set under %s: %s", profile_shown(kv->key),
					 name.s, why);
			else
				check_shell_chars(kv, name.s);
		}
		break;
	case KEY_EXCEPTIONS:
		validate_exceptions(p, v);
		break;
	case KEY_SUBMODULES:
		validate_submodules(p, v);
		break;
	case KEY_SWITCH:
	case KEY_JOBS:
	case KEY_SIZE:
		if (want_scalar(v, name.s) < 0)
			break;
		*(struct loc *)aux = v->loc;
		if (parse_scalar(k, field, v->str) < 0)
			error_at(&v->loc, "'%s' %s, not '%s'", name.s, k->expect, profile_shown(v->str));
		break;
	case KEY_EXTENDS:
		break;
	}
	buf_release(&name);
	buf_release(&said);
}

/* Validate the keys of `m`: the top level (section NULL) or one section. */
static void
validate_map(struct profile *p, const struct pnode *m, const char *section)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct profile_key *k = key_find(section, m->keys[i]);

		/*
		 * The loader took 'extends' out; one still here came from --set,
		 * which cannot change the parent.
		 */
		if (k && k->kind != KEY_EXTENDS) {
			validate_key(p, k, m->items[i]);
		} else if (!section && !k && is_section(m->keys[i])) {
			if (want_map(m->items[i], m->keys[i]) == 0)
				validate_map(p, m->items[i], m->keys[i]);
		} else {
			unknown_key(m, i, section);
		}
	}
}

/* cmake.NAME entries: not bwbuild's own settings, not features, and forwarded. */
static void
check_cmake_names(const struct profile *p)
{
	for (size_t i = 0; i < p->ncmake; i++) {
		const char *k = p->cmake[i].key;

		if (!strcmp(k, "CMAKE_INSTALL_PREFIX") || !strcmp(k, "TORCH_CUDA_ARCH_LIST"))
			error_at(&p->cmake[i].loc, "'cmake.%s' is set by bwbuild itself%s", profile_shown(k),
				 !strcmp(k, "TORCH_CUDA_ARCH_LIST") ? "; use 'cuda.archs'" : "");
		for (size_t f = 0; f < FEAT__COUNT; f++)
			if (!strcmp(k, feature_table[f].option))
				error_at(&p->cmake[i].loc, "'cmake.%s' duplicates a feature; use "
					 "'features.%s: on|off'", k, feature_table[f].key);
		if (strstr(k, "FLAGS") || strstr(k, "COMPILER") || strstr(k, "LAUNCHER") ||
		    strstr(k, "LINKER"))
			check_shell_chars(&p->cmake[i], "cmake");
		if (!cmake_name_forwarded(k))
			error_at(&p->cmake[i].loc, "'cmake.%s' would not reach CMake: PyTorch forwards "
				 "only USE_*, BUILD_*, CMAKE_* and a fixed list of names from the "
				 "environment", profile_shown(k));
	}
}

static void
check_required(const struct profile *p)
{
	const struct loc *at = &p->root->loc;

	if (!p->source_repo.str)
		error_at(at, "the profile has no 'source.repo' (the git repository to build)");
	if (!p->source_ref.str)
		error_at(at, "the profile has no 'source.ref' (a tag, branch or commit)");
	if (!p->archs_given && p->features[FEAT_CUDA] != TRI_OFF && !profile_is_extension(p))
		error_at(at, "the profile has no 'cuda.archs'; list the GPU targets "
			 "(e.g. archs: [\"12.0\"]) or set 'features.cuda: off'");
	if (profile_is_extension(p) && !p->torch.str)
		error_at(&p->kind.loc, "a 'kind: extension' profile needs 'torch:' (the torch profile "
			 "it builds on, e.g. sm120; a torch wheel; or site-packages/torch)");
}

void
profile_validate(struct profile *p)
{
	validate_map(p, p->root, NULL);
	check_cmake_names(p);
	check_required(p);
}
