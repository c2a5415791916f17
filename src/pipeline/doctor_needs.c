/*
 * The doctor's checks of what a build of the tree needs beyond the
 * toolchain (doctor.h), where a build would otherwise lose it
 * silently or late: NumPy in the build's interpreter, the BLAS, and the
 * patches a --source tree (built as it is) must already have. The same
 * NumPy judgement serves the build's own check before anything compiles.
 * May include: core/, formats/, host/, profile/, sources/, pipeline/.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pipeline/configure.h"
#include "pipeline/doctor.h"
#include "pipeline/plan.h"
#include "core/buf.h"
#include "core/proc.h"
#include "core/diag.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/cmakecache.h"
#include "formats/cmakeopts.h"
#include "host/host.h"
#include "profile/profile.h"
#include "profile/releases.h"
#include "sources/patch.h"

int
numpy_wanted(const struct profile *p, const struct cmake_options *opts, int real, struct buf *why)
{
	const struct cmake_option *o = opts ? cmakeopts_find(opts, "USE_NUMPY") : NULL;
	const struct loc *l = &p->feature_loc[FEAT_NUMPY];

	if (p->features[FEAT_NUMPY] == TRI_ON) {
		buf_addf(why, "features.numpy is on (%s:%d)", l->file, l->line);
		return 1;
	}
	if (p->features[FEAT_NUMPY] == TRI_OFF)
		return 0;
	if (o && o->def && cmake_truthy(o->def)) {
		buf_addf(why, "the tree builds with NumPy unless told not to (%s:%u: USE_NUMPY "
			 "defaults %s) and the profile does not say", o->file, o->line, o->def);
		return 1;
	}
	if (!opts && real) {
		buf_addstr(why, "PyTorch builds with NumPy unless told not to (USE_NUMPY defaults "
			   "on) and the profile does not say");
		return 1;
	}
	return 0;
}

/*
 * Whether numpy is there (as find_spec finds modules for every other
 * check) and then whether it imports, as CMake's configure will need: an
 * installed NumPy that fails to import (a missing libopenblas, a NumPy
 * built for another Python) was found, and only the configure, minutes
 * later, turned USE_NUMPY off with "no NumPy".
 */
static const char numpy_probe[] =
	"import importlib.util, sys\n"
	"try:\n"
	"    found = importlib.util.find_spec('numpy') is not None\n"
	"except Exception:\n"
	"    found = False\n"
	"if not found:\n"
	"    print('missing')\n"
	"    sys.exit(0)\n"
	"try:\n"
	"    import numpy\n"
	"    numpy.get_include()\n"
	"except BaseException as e:\n"
	"    lines = [l.strip() for l in str(e).splitlines() if l.strip()]\n"
	"    why = [l for l in lines if l.startswith('Original error')] or lines or ['']\n"
	"    print(('broken %s: %s' % (type(e).__name__, why[0]))[:400])\n"
	"    sys.exit(0)\n"
	"print('ok')\n";

/*
 * Whether `python` can import numpy: 1 yes, 0 no (what its import said in
 * `err`, empty when numpy is not there at all), -1 when it cannot be asked.
 * Asked once a run (proc_query): a build asks for its own check, its
 * preflight's and its fetch's, and each start imports numpy.
 */
static int
python_has_numpy(const char *python, struct buf *err)
{
	const char *argv[] = { python, "-c", numpy_probe, NULL };
	struct buf out = BUF_INIT;
	int rc = -1;

	if (proc_query(argv, NULL, &out) == 0 && out.len) {
		buf_setlen(&out, strcspn(out.s, "\n"));
		if (!strcmp(out.s, "ok"))
			rc = 1;
		else if (!strcmp(out.s, "missing"))
			rc = 0;
		else if (starts_with(out.s, "broken ")) {
			buf_addstr(err, out.s + 7);
			rc = 0;
		}
	}
	buf_release(&out);
	return rc;
}

static const char numpy_fix[] =
	"install python3-numpy (pip: numpy) for that interpreter, or set 'features.numpy: off' "
	"for a wheel without NumPy interop";
static const char numpy_broken_fix[] =
	"repair that NumPy (what it needs, or reinstall it for this interpreter), or set "
	"'features.numpy: off' for a wheel without NumPy interop";

/* "cannot import numpy" or, when it is there, what its import said. */
static void
numpy_failure(const char *python, const struct buf *err, struct buf *out)
{
	if (err->len)
		buf_addf(out, "'%s' has NumPy, but importing it fails (%s)", python, err->s);
	else
		buf_addf(out, "'%s' cannot import numpy", python);
}

int
numpy_check(const struct profile *p, const struct cmake_options *opts, const char *python)
{
	struct buf why = BUF_INIT, err = BUF_INIT, what = BUF_INIT;
	int rc = 0;

	if (numpy_wanted(p, opts, 0, &why) && python_has_numpy(python, &err) == 0) {
		numpy_failure(python, &err, &what);
		if (p->features[FEAT_NUMPY] == TRI_ON)
			rc = error_at(&p->feature_loc[FEAT_NUMPY], "%s, and %s: CMake would turn "
				      "USE_NUMPY off and build a torch without NumPy (torch.from_numpy, "
				      ".numpy()); %s", what.s, why.s, err.len ? numpy_broken_fix : numpy_fix);
		else
			rc = error("%s, and %s: CMake would turn USE_NUMPY off and build a torch "
				   "without NumPy (torch.from_numpy, .numpy()); %s", what.s, why.s,
				   err.len ? numpy_broken_fix : numpy_fix);
	}
	buf_release(&why);
	buf_release(&err);
	buf_release(&what);
	return rc;
}

/* NumPy in the build's interpreter, where the build would use it. */
void
doctor_check_numpy(struct doctor *d, const struct profile *p, const char *py, const char *src)
{
	struct cmake_options opts;
	struct buf why = BUF_INIT, err = BUF_INIT;
	int scanned = src && !profile_is_extension(p) && cmakeopts_scan_tree(&opts, src) == 0;
	int has;

	if (numpy_wanted(p, scanned ? &opts : NULL, doctor_real_tree(p, src), &why)) {
		has = python_has_numpy(py, &err);
		if (has == 1)
			doctor_add(d, CHECK_OK, "numpy", "%s imports numpy: %s", py, why.s);
		else if (has == 0 && err.len)
			doctor_add(d, CHECK_FAIL, "numpy", "%s has NumPy, but importing it fails (%s), "
				   "and %s: CMake would turn USE_NUMPY off and the wheel lack NumPy "
				   "interop; %s", py, err.s, why.s, numpy_broken_fix);
		else if (has == 0)
			doctor_add(d, CHECK_FAIL, "numpy", "%s cannot import numpy, and %s: CMake would turn "
				   "USE_NUMPY off and the wheel lack NumPy interop; %s", py, why.s, numpy_fix);
	}
	if (scanned)
		cmakeopts_release(&opts);
	buf_release(&why);
	buf_release(&err);
}

/*
 * Where CMake's find_library looks for a BLAS besides its own system
 * directories: CMAKE_LIBRARY_PATH, CMAKE_PREFIX_PATH/lib (the environment's
 * and the profile's cmake entries), and the Find module's own hint
 * (OpenBLAS_HOME, MKLROOT).
 */
static void
blas_lib_dirs(const struct profile *p, const struct blas_lib *l, const struct doctor_host *h,
	      struct strvec *dirs)
{
	static const char *const sys[] = { "/usr/lib64", "/usr/lib", "/usr/local/lib", "/lib64",
					   "/opt/OpenBLAS/lib", NULL };
	const char *triplet = host_triplet_of(h->machine);
	static const char *const vars[] = { "CMAKE_LIBRARY_PATH", "CMAKE_PREFIX_PATH", NULL };
	struct strvec v = STRVEC_INIT;
	const char *home = getenv(!strcmp(l->name, "MKL") ? "MKLROOT" : "OpenBLAS_HOME");

	for (size_t i = 0; vars[i]; i++) {
		const char *e = getenv(vars[i]);

		strvec_clear(&v);
		if (e && *e)
			doctor_push_fields(&v, e, ':');
		for (size_t k = 0; k < p->ncmake; k++)
			if (!strcmp(p->cmake[k].key, vars[i]))
				doctor_push_fields(&v, p->cmake[k].val, ';');
		for (size_t k = 0; k < v.n; k++)
			strvec_pushf(dirs, i ? "%s/lib" : "%s", v.v[k]);
	}
	if (home && *home) {
		strvec_push(dirs, home);
		strvec_pushf(dirs, "%s/lib", home);
		strvec_pushf(dirs, "%s/lib/intel64", home);
	}
	if (triplet)
		strvec_pushf(dirs, "%s/usr/lib/%s", h->root, triplet);
	for (size_t i = 0; sys[i]; i++)
		strvec_pushf(dirs, "%s%s", h->root, sys[i]);
	strvec_clear(&v);
}

/*
 * What to do for OpenBLAS instead of MKL, into `out` (reset): only set the
 * key where libopenblas.so is there already, else install it first.
 */
static void
openblas_hint(const struct profile *p, const struct doctor_host *h, struct buf *out)
{
	const struct blas_lib *ob = blas_lib_find("OpenBLAS");
	struct strvec dirs = STRVEC_INIT;
	struct buf f = BUF_INIT;
	int found = 0;

	buf_reset(out);
	blas_lib_dirs(p, ob, h, &dirs);
	for (size_t i = 0; i < dirs.n && !found; i++) {
		buf_reset(&f);
		buf_addf(&f, "%s/%s", dirs.v[i], ob->lib);
		found = path_exists(f.s);
	}
	if (found)
		buf_addf(out, "OpenBLAS is installed (%s): set 'cmake.BLAS: OpenBLAS'", f.s);
	else
		buf_addf(out, "apt-get install %s and set 'cmake.BLAS: OpenBLAS'", ob->package);
	strvec_clear(&dirs);
	buf_release(&f);
}

/*
 * The BLAS the build will link: the profile's cmake.BLAS, installed; or,
 * where a real PyTorch tree is left to its default (MKL), whether MKL is
 * there. PyTorch falls back to Eigen's BLAS without one (v2.6.0's CPU build:
 * slow matmuls, and only its configure log said so).
 */
void
doctor_check_blas(struct doctor *d, const struct profile *p, const char *src,
		  const struct doctor_host *h)
{
	const struct pkv *want = profile_blas(p);
	const char *name = want ? want->val : "MKL";
	const struct blas_lib *l = blas_lib_find(name);
	struct strvec dirs = STRVEC_INIT;
	struct buf f = BUF_INIT, where = BUF_INIT;
	int found = 0;

	if (profile_is_extension(p) || (!want && !doctor_real_tree(p, src)))
		return;
	if (!l) {
		if (!strcasecmp(name, "Eigen"))
			doctor_add(d, CHECK_OK, "blas", "cmake.BLAS is Eigen (%s:%d): Eigen's own BLAS, as asked "
				   "(matmuls slower than OpenBLAS's)", want->loc.file, want->loc.line);
		else
			doctor_add(d, CHECK_WARN, "blas", "cmake.BLAS is %s (%s:%d), which bwbuild cannot look "
				   "for on Linux; without it the build fails or falls back to Eigen's BLAS",
				   name, want->loc.file, want->loc.line);
		return;
	}
	/* MKL is Intel's, for x86-64 only: on aarch64 its absence says nothing. */
	if (!want && strcmp(h->machine, "x86_64")) {
		openblas_hint(p, h, &f);
		doctor_add(d, CHECK_WARN, "blas", "no cmake.BLAS, and PyTorch's default, MKL, exists "
			   "only for x86-64, not %s: the build falls back to Eigen's BLAS, several "
			   "times slower; %s, as PyTorch's own aarch64 wheels do", h->machine, f.s);
		buf_release(&f);
		return;
	}
	blas_lib_dirs(p, l, h, &dirs);
	for (size_t i = 0; i < dirs.n && !found; i++) {
		buf_reset(&f);
		buf_addf(&f, "%s/%s", dirs.v[i], l->lib);
		found = path_exists(f.s);
	}
	strvec_join(&dirs, ", ", &where);
	if (found)
		doctor_add(d, CHECK_OK, "blas", "%s%s: %s", want ? "cmake.BLAS " : "", l->name, f.s);
	else if (want)
		doctor_add(d, CHECK_FAIL, "blas", "cmake.BLAS is %s (%s:%d) but no %s was found (in %s): "
			   "configure stops or falls back to Eigen's BLAS, several times slower; apt-get "
			   "install %s, or name its directory in CMAKE_LIBRARY_PATH", l->name, want->loc.file,
			   want->loc.line, l->lib, where.s, l->package);
	else {
		openblas_hint(p, h, &f);
		doctor_add(d, CHECK_WARN, "blas", "no cmake.BLAS, and PyTorch's default, MKL (%s), is not "
			   "installed (not in %s): the build falls back to Eigen's BLAS, several times "
			   "slower; %s", l->lib, where.s, f.s);
	}
	strvec_clear(&dirs);
	buf_release(&f);
	buf_release(&where);
}

/* What a --source tree lacks of its release's patches, with what to do. */
static void
patches_lacking(struct doctor *d, const struct profile *p, const char *src, const struct relver *v,
		const struct buf *missing, size_t n, size_t of)
{
	const char *series = p->source_patches.str;
	int cuda = p->features[FEAT_CUDA] != TRI_OFF;

	doctor_add(d, cuda ? CHECK_FAIL : CHECK_WARN, "patches", "%s (torch %u.%u by its version.txt) "
		   "lacks %zu of the %zu patch%s that source.patches '%s' applies to %u.%u, and a --source "
		   "tree is built as it is: apply them there (git -C %s apply%s) or build without "
		   "--source, which applies them%s", src, v->major, v->minor, n, of, of == 1 ? "" : "es",
		   series, v->major, v->minor, src, missing->s, cuda ? "" : " (only a warning: features.cuda "
		   "is off, and what they fix may be CUDA code alone)");
}

/*
 * A --source tree is built as it is, so the patches of the profile's
 * series for its release (by its version.txt) must be in it already: an
 * unpatched v2.6.0 with CUDA 13 passes every other check here and stops
 * in SortStable.cu (patch 0003) an hour into the build.
 */
void
doctor_check_patches(struct doctor *d, const struct profile *p, const struct plan *pl,
		     const char *src)
{
	const char *series = p ? p->source_patches.str : NULL;
	struct buf missing = BUF_INIT, odd = BUF_INIT, why = BUF_INIT;
	struct patch_set ps;
	size_t selected = 0, nmissing = 0;
	struct relver v;

	if (!pl || !pl->local_source || !src || !series || !*series || profile_is_extension(p))
		return;
	memset(&ps, 0, sizeof(ps));
	if (patch_set_load(&ps, series) < 0) {
		doctor_add(d, CHECK_FAIL, "patches", "source.patches '%s' cannot be read (the error above "
			   "says why)", series);
		goto out;
	}
	tree_version(NULL, src, &v);
	for (size_t i = 0; i < ps.n; i++) {
		if (!patch_selected(&ps.v[i], &v))
			continue;
		selected++;
		buf_reset(&why);
		switch (patch_state(&ps.v[i], src, &why)) {
		case PATCH_APPLIED:
			break;
		case PATCH_MISSING: {
			/* absolute: the hint runs git in the tree */
			char *abs = realpath(ps.v[i].path, NULL);

			buf_addf(&missing, " %s", abs ? abs : ps.v[i].path);
			free(abs);
			nmissing++;
			break;
		}
		case PATCH_NEITHER:
			buf_addf(&odd, "%s%s (%s)", odd.len ? "; " : "", ps.v[i].file, why.s);
			break;
		}
	}
	if (nmissing)
		patches_lacking(d, p, src, &v, &missing, nmissing, selected);
	if (odd.len)
		doctor_add(d, CHECK_WARN, "patches", "of source.patches '%s', neither applied to %s nor "
			   "applicable there: %s; the build takes the tree as it is", series, src, odd.s);
	if (!nmissing && !odd.len && selected)
		doctor_add(d, CHECK_OK, "patches", "%s has the %zu patch%s source.patches '%s' applies to "
			   "torch %u.%u", src, selected, selected == 1 ? "" : "es", series, v.major, v.minor);
	else if (!selected && relver_known(&v))
		doctor_add(d, CHECK_OK, "patches", "source.patches '%s' has none for torch %u.%u (%s's "
			   "version.txt)", series, v.major, v.minor, src);
	else if (!selected)
		doctor_add(d, CHECK_OK, "patches", "%s has no version.txt, and source.patches '%s' has no "
			   "patch for every release", src, series);
out:
	patch_set_release(&ps);
	buf_release(&missing);
	buf_release(&odd);
	buf_release(&why);
}

