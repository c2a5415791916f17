/*
 * Wheel verification, the verdict over the libraries found: what each
 * needs (in the wheel, on the manylinux or CUDA allow-lists, or provided
 * by torch), RUNPATHs, the platform tag against the ELF machine and the
 * glibc its libraries need (manylinux policy, formats/manylinux.h), the
 * C++ ABI, and the SASS/PTX coverage the profile asks for with its
 * verify.exceptions. What is an error here and what only a note.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "formats/elf.h"
#include "formats/elfscan.h"
#include "formats/manylinux.h"
#include "profile/profile.h"
#include "core/strvec.h"
#include "core/util.h"
#include "wheel/verify.h"
#include "wheel/verify_parts.h"

/* ---- libraries: what they need, and what the platform tag claims ---- */


static int
by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * What sets a library's manylinux policy, for messages: "GLIBC 2.34", or
 * the C++ runtime's version that rules out an older policy ("CXXABI_1.3.9,
 * with GLIBC 2.14"): naming the glibc then would send people the wrong way.
 */
static void
need_text(const struct wheel_lib *l, struct buf *out)
{
	const char *d = l->ml.decides;

	if (*d && strncmp(d, "GLIBC_", 6))
		buf_addf(out, "%s, with GLIBC %s", d, *l->ml.glibc ? l->ml.glibc : "-");
	else
		buf_addf(out, "GLIBC %s", *l->ml.glibc ? l->ml.glibc : "-");
}

/* 1 when the C++ runtime, not glibc, sets the library's policy. */
static int
cxx_decides(const struct wheel_lib *l)
{
	return *l->ml.decides && strncmp(l->ml.decides, "GLIBC_", 6);
}

/* 1 when the library needs glibc: a versioned glibc symbol, or libc.so.6 itself. */
static int
needs_glibc(const struct wheel_lib *l)
{
	for (size_t j = 0; j < l->needed.n; j++)
		if (!strcmp(l->needed.v[j], "libc.so.6"))
			return 1;
	return *l->ml.glibc != 0;
}

/*
 * What CPython on the tag's platform would not import: an extension whose
 * file name is for another architecture ("_C.cpython-311-x86_64-linux-gnu.so"
 * in an aarch64 wheel: the interpreter looks only for its own suffix) or
 * another libc.
 */
static void
check_suffix(struct wheel_report *r, const struct wheel_lib *l, const char *platform,
	     const char *arch, int musl)
{
	int for_musl;
	const char *named = manylinux_suffix_arch(l->path, &for_musl);

	if (!named || !arch)
		return;
	if (strcmp(named, arch))
		verify_error(r, "'%s' is named for CPython on %s, but the platform tag is '%s': "
			  "CPython on %s does not import it; build it with CPython on %s (platform)", l->path,
			  named, platform, arch, arch);
	else if (for_musl != musl)
		verify_error(r, "'%s' is named for CPython on %s, but the platform tag is '%s' "
			  "(platform)", l->path, for_musl ? "musl" : "glibc", platform);
}

static void
check_platform(struct wheel_report *r, const char *platform)
{
	const char *arch;
	unsigned claim = manylinux_tag_glibc(platform, &arch), machine = manylinux_arch_machine(arch);
	int musl = platform_is_musl(platform);
	struct buf why = BUF_INIT;
	char a[32], b[32];
	size_t i;

	if (manylinux_tag_exists(platform, &why) < 0) {
		verify_error(r, "%s (platform)", why.s);
		buf_release(&why);
		return;
	}
	buf_release(&why);
	for (i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		if (machine && l->machine && l->machine != machine)
			verify_error(r, "'%s' is built for %s, but the platform tag '%s' is for %s "
				  "(platform)", l->path, elf_machine_name(l->machine, a, sizeof(a)),
				  platform, elf_machine_name(machine, b, sizeof(b)));
		check_suffix(r, l, platform, arch, musl);
		if (musl && needs_glibc(l))
			verify_error(r, "'%s' needs glibc (%s%s), but the platform tag '%s' is for "
				  "musl systems, which cannot load it; tag it manylinux (platform)",
				  l->path, *l->ml.glibc ? "GLIBC_" : "libc.so.6",
				  l->ml.glibc, platform);
		if (!claim)
			continue;
		if (!l->ml.min_glibc)
			verify_error(r, "'%s' needs %s, which no manylinux policy allows, yet the wheel "
				  "claims '%s' (manylinux)", l->path, l->ml.blocker, platform);
		else if (l->ml.min_glibc > claim) {
			struct buf needs = BUF_INIT;

			need_text(l, &needs);
			verify_error(r, "'%s' needs %s, so it satisfies manylinux_2_%u at best, yet the "
				  "wheel claims '%s'; build it %s (manylinux)", l->path, needs.s,
				  l->ml.min_glibc, platform, cxx_decides(l) ?
				  "with an older compiler's libstdc++" : "on an older glibc");
			buf_release(&needs);
		}
	}
}

int
wheel_platform_earned(const struct wheel_report *r, unsigned require, struct buf *tag,
		      struct buf *why)
{
	const char *platform = r->tags.n ? strrchr(r->tags.v[0], '-') : NULL, *arch = NULL;
	const struct wheel_lib *worst = NULL;
	unsigned need = 0;

	if (platform)
		manylinux_tag_glibc(platform + 1, &arch);
	if (!arch) {
		buf_addf(why, "the wheel's platform tag names no architecture");
		return -1;
	}
	for (size_t i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		if (!l->ml.min_glibc) {
			buf_addf(why, "'%s' needs %s, which no manylinux policy allows", l->path,
				 l->ml.blocker);
			return -1;
		}
		if (l->ml.min_glibc > need) {
			need = l->ml.min_glibc;
			worst = l;
		}
	}
	if (!need)
		need = 17; /* no libraries: the oldest policy PyPI still takes */
	if (require && need > require) {
		buf_addf(why, "'%s' needs ", worst->path);
		need_text(worst, why);
		buf_addf(why, " (manylinux_2_%u), newer than manylinux_2_%u allows", need, require);
		return -1;
	}
	buf_reset(tag);
	buf_addf(tag, "manylinux_2_%u_%s", require ? require : need, arch);
	if (worst) {
		buf_addf(why, "'%s' needs ", worst->path);
		need_text(worst, why);
	}
	return 0;
}

/*
 * _GLIBCXX_USE_CXX11_ABI: what the libraries' std::string symbols say, what
 * the build settings header (CXX_FLAGS) says, and what the profile asks
 * for must agree; mixing the two ABIs fails at import with an undefined
 * symbol, or worse, at run time.
 */
void
verify_cxx_abi(struct wheel_report *r, int expect)
{
	const char *flag = r->macros_h ? strstr(r->macros_h, "_GLIBCXX_USE_CXX11_ABI=") : NULL;
	int settings = flag ? flag[strlen("_GLIBCXX_USE_CXX11_ABI=")] == '0' ? 2 : 1 : 0;
	const struct wheel_lib *newest = NULL, *oldest = NULL;

	/*
	 * Only a library with one ABI's names tells: torch 2.11.0+cu130's
	 * libtorch.so, built with the C++11 ABI, also references the old
	 * string's _ZNSs4_Rep20_S_empty_rep_storageE (measured).
	 */
	for (size_t i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		if (l->cxx_abi == ELF_OLD_ABI && !oldest)
			oldest = l;
		else if (l->cxx_abi == ELF_CXX11_ABI && !newest)
			newest = l;
	}
	if (!expect)
		expect = settings ? settings : newest ? 1 : 0;
	if (settings && settings != expect)
		verify_error(r, "the build settings (%s) say _GLIBCXX_USE_CXX11_ABI=%d, but %d is "
			  "expected (build.cxx11_abi; cxx11 abi)", r->macros_h_path, settings == 1,
			  expect == 1);
	if (expect == 1 && oldest)
		verify_error(r, "'%s' uses the pre-C++11 std::string ABI (%s), but the wheel is built "
			  "with _GLIBCXX_USE_CXX11_ABI=1; rebuild it with the same flag (cxx11 abi)",
			  oldest->path, oldest->old_abi_symbol);
	if (expect == 2 && newest)
		verify_error(r, "'%s' uses the C++11 std::string ABI (std::__cxx11), but the wheel is "
			  "built with _GLIBCXX_USE_CXX11_ABI=0 (cxx11 abi)", newest->path);
}

void
verify_libraries(struct wheel_report *r, char *const *paths, size_t npaths,
		const struct strvec *provided)
{
	struct strvec platforms = STRVEC_INIT;
	char **members = xcalloc(npaths ? npaths : 1, sizeof(*members));
	size_t i, j, unresolved = 0;

	for (i = 0; i < npaths; i++) {
		members[i] = (char *)path_tail(paths[i]);
		if (soname_origin(members[i]) == SONAME_DRIVER)
			verify_error(r, "'%s' bundles the NVIDIA driver's library; it must come from the "
				  "installed driver (bundled driver)", paths[i]);
	}
	qsort(members, npaths, sizeof(*members), by_string);
	for (i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		for (j = 0; j < l->needed.n; j++) {
			const char *need = l->needed.v[j];

			if (bsearch(&need, members, npaths, sizeof(*members), by_string) ||
			    soname_origin(need) != SONAME_UNKNOWN || (provided && strset_has(provided, need)))
				continue;
			verify_error(r, "'%s' needs '%s', which is neither in the wheel nor on the manylinux "
				  "or CUDA allow-lists (needed)", l->path, need);
			unresolved++;
		}
		if (l->runpath) {
			const char *p = l->runpath;

			while (*p) {
				size_t n = strcspn(p, ":");

				if (n && !elf_origin_len(p, n))
					verify_error(r, "'%s' has RUNPATH entry '%.*s', a path on the build "
						  "machine; use $ORIGIN-relative entries (runpath)", l->path,
						  (int)n, p);
				p += n + (p[n] == ':');
			}
		}
	}
	free(members);
	/* Which sonames a torch provides is read from that torch, so the wheel alone cannot say. */
	if (unresolved && !provided)
		strvec_pushf(&r->notes, "if this is an extension built on torch, it takes torch's "
			     "libraries from it: check it with --against TORCH_WHEEL|site-packages/torch");
	for (i = 0; i < r->tags.n; i++) {
		const char *platform = strrchr(r->tags.v[i], '-');

		if (platform && !strset_has(&platforms, platform + 1)) {
			strset_add(&platforms, platform + 1);
			check_platform(r, platform + 1);
		}
	}
	strvec_clear(&platforms);
}

/* The exception that lets library `path` lack `target`, or NULL. */
static const struct wheel_exception *
excepted(const struct wheel_expect *opts, const char *path, const char *target)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	for (size_t i = 0; i < opts->nexceptions; i++) {
		const struct wheel_exception *e = &opts->exceptions[i];

		if (strcmp(e->library, path) && strcmp(e->library, base))
			continue;
		for (size_t j = 0; j < e->nmissing; j++)
			if (!strcmp(e->missing[j], target))
				return e;
	}
	return NULL;
}

static void
missing_target(struct wheel_report *r, const struct wheel_expect *opts,
	       const struct wheel_lib *l, const char *kind, const char *target)
{
	const struct wheel_exception *e = excepted(opts, l->path, target);

	if (e)
		strvec_pushf(&r->notes, "'%s' has no %s for %s: allowed by the profile's "
			     "verify.exceptions (%s)", l->path, kind, target, e->reason);
	else
		verify_error(r, "'%s' has no %s for %s, which the profile asks for (coverage)",
			  l->path, kind, target);
}

/* An exception the wheel does not need any more is said, so profiles stay true. */
static void
check_exceptions_used(struct wheel_report *r, const struct wheel_expect *opts)
{
	for (size_t i = 0; i < opts->nexceptions; i++) {
		const struct wheel_exception *e = &opts->exceptions[i];
		const struct wheel_lib *l = NULL;

		for (size_t k = 0; k < r->nlibs && !l; k++) {
			const char *p = r->libs[k].path, *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;

			if (!strcmp(e->library, p) || !strcmp(e->library, base))
				l = &r->libs[k];
		}
		if (!l) {
			strvec_pushf(&r->notes, "verify.exceptions names '%s', which is not a library "
				     "of this wheel", e->library);
			continue;
		}
		for (size_t j = 0; j < e->nmissing; j++)
			if (strset_has(&l->sass, e->missing[j]) || strset_has(&l->ptx, e->missing[j]))
				strvec_pushf(&r->notes, "verify.exceptions lets '%s' lack %s, but it "
					     "carries it: the exception can go", l->path, e->missing[j]);
	}
}

/* Every CUDA library must carry each SASS and PTX target the profile asks for. */
void
verify_coverage(struct wheel_report *r, const struct wheel_expect *opts)
{
	size_t i, j;

	if (!opts->sass)
		return;
	for (i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];

		if (!l->has_fatbin)
			continue;
		for (j = 0; j < opts->sass->n; j++)
			if (!strset_has(&l->sass, opts->sass->v[j]))
				missing_target(r, opts, l, "SASS", opts->sass->v[j]);
		for (j = 0; opts->ptx && j < opts->ptx->n; j++)
			if (!strset_has(&l->ptx, opts->ptx->v[j]))
				missing_target(r, opts, l, "PTX", opts->ptx->v[j]);
		for (j = 0; j < l->sass.n; j++)
			if (!strset_has(opts->sass, l->sass.v[j]))
				strvec_pushf(&r->notes, "'%s' also carries %s, which the profile "
					     "does not list", l->path, l->sass.v[j]);
	}
	check_exceptions_used(r, opts);
}

void
wheel_lib_targets(const struct wheel_lib *l, struct buf *out)
{
	buf_addstr(out, "SASS");
	for (size_t j = 0; j < l->sass.n; j++)
		buf_addf(out, " %s", l->sass.v[j]);
	buf_addstr(out, "; PTX");
	for (size_t j = 0; j < l->ptx.n; j++)
		buf_addf(out, " %s", l->ptx.v[j]);
	if (!l->ptx.n)
		buf_addstr(out, " none");
}

struct wheel_exception *
plan_exceptions(const struct profile *p, size_t *n)
{
	struct wheel_exception *e = p->nexceptions ? xcalloc(p->nexceptions, sizeof(*e)) : NULL;

	for (size_t i = 0; i < p->nexceptions; i++) {
		e[i].library = p->exceptions[i].library;
		e[i].missing = p->exceptions[i].missing;
		e[i].nmissing = p->exceptions[i].nmissing;
		e[i].reason = p->exceptions[i].reason;
	}
	*n = p->nexceptions;
	return e;
}
