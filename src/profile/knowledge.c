/*
 * The knowledge base: facts about toolkits, archs and features, kept as
 * data so that a new CUDA release is a new row, not new code, and the
 * checks of a profile (and of its source tree) against them. What bwbuild
 * knows of each torch release (its arch forms, CUB lookup, switches and
 * renames) is its row in releases.c; the checks here derive from the rows.
 * Sources: docs/design/pytorch.md §5-7 and docs/design/users.md §1. Facts
 * used outside those checks (GPU peaks, companion releases) are kbfacts.c's.
 *
 * Over 800 lines because the profile's checks and the tree's checks
 * (tree_rules_run to check_arch_tree, tree_finds_cccl, kb_check_source,
 * kb_check_tree: the tree's select_compute_arch.cmake run by cmake -P and
 * its CUB lookup) share check_arch, the arch entries and the release rows'
 * spans; the tree's checks are the seam to cut into a file of their own.
 * May include: core/, formats/, host/, profile/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/arch.h"
#include "core/buf.h"
#include "core/relver.h"
#include "host/cmakearch.h"
#include "profile/compat.h"
#include "core/diag.h"
#include "formats/cmakeopts.h"
#include "profile/knowledge.h"
#include "profile/profile.h"
#include "profile/releases.h"
#include "core/util.h"

/*
 * CUDA toolkit -> the SASS targets nvcc can build (compute capability
 * major*10+minor, 0-terminated) and the newest gcc it accepts.
 *  12.8 adds 10.0, 10.1, 12.0; 12.9 adds 10.3, 12.1 and the 'f' family
 *  targets; 13.0 renames 10.1 to 11.0 and drops everything below 7.5
 *  (`nvcc --list-gpu-code`: sm_75 80 86 87 88 89 90 100 110 103 120 121).
 *  gcc: CUDA 12.4-12.6 accept gcc <= 13, 12.8/12.9 gcc <= 14 (Spack's
 *  conflicts("%gcc@15:", when="%cuda@:12.9")), 13.0 gcc <= 15
 *  (crt/host_config.h: "#if __GNUC__ > 15").
 */
static const struct cuda_row {
	unsigned cuda;
	unsigned gcc_max;
	int f_family;
	unsigned sass[24];
} cuda_rows[] = {
	{ 1206, 13, 0, { 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 0 } },
	{ 1208, 14, 0, { 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 120, 0 } },
	{ 1209, 14, 1, { 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 120,
			 121, 0 } },
	{ 1300, 15, 1, { 75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121, 0 } },
};

/*
 * torch x CUDA: a toolkit layout the tree's CMake does not know. CUDA 13
 * moved CUB (with Thrust and libcu++) to include/cccl, and a release whose
 * row says RELEASE_CUB_LOST stops configure with "Cannot find CUB."
 * (cmake/Dependencies.cmake); RELEASE_CUB_UNVERIFIED is warned, not
 * refused. The fix: patches/pytorch (when "<2.9") or
 * cmake.CMAKE_INCLUDE_PATH.
 */
static const struct torch_cuda_rule {
	unsigned cuda_from;
	const char *symptom;
	const char *series, *patch;
} cub_rule = {
	1300,
	"configure stops with 'Cannot find CUB.': CUDA 13 moved CUB under include/cccl and "
	"the tree's cmake/Modules/FindCUB.cmake looks only in include/",
	"pytorch", "0002-find-cub-in-cuda13-cccl.patch",
};

/*
 * Not a rule: torch <= 2.11's select_compute_arch.cmake rewrites "2.1" to
 * "2.1(2.0)" (a Fermi leftover) which also turns "12.1" into compute_20,
 * but only in CUDA_DETECT_INSTALLED_GPUS, i.e. when TORCH_CUDA_ARCH_LIST
 * is empty and the build machine's GPU is detected (read in
 * pytorch/pytorch@00afc038 and an older vendored copy; pytorch PR #185933).
 * An explicit "12.1" passes the numeric match untouched, and bwbuild always
 * sets an explicit list (cuda.archs is required), so its builds cannot hit
 * it; patches/pytorch carries the fix for trees used without a list.
 */

unsigned
kb_parse_version(const char *s)
{
	struct relver v;

	if (!s || relver_parse(s + strspn(s, " \t"), &v, NULL) < 0 || v.major > 99 || v.minor > 99)
		return 0;
	return relver_key(&v);
}

static const struct cuda_row *
cuda_row(unsigned cuda)
{
	const struct cuda_row *best = NULL;
	size_t i;

	/* A toolkit between rows behaves as the row below it (12.7 as 12.6). */
	for (i = 0; i < ARRAY_SIZE(cuda_rows); i++)
		if (cuda_rows[i].cuda <= cuda)
			best = &cuda_rows[i];
	return best;
}

unsigned
kb_gcc_max(unsigned cuda)
{
	const struct cuda_row *r = cuda_row(cuda);

	return r ? r->gcc_max : 0;
}

/* An arch some toolkit of the table builds. */
int
kb_arch_known(unsigned cc)
{
	for (size_t i = 0; i < ARRAY_SIZE(cuda_rows); i++)
		for (size_t k = 0; cuda_rows[i].sass[k]; k++)
			if (cuda_rows[i].sass[k] == cc)
				return 1;
	return 0;
}

static unsigned
newest_arch(void)
{
	unsigned top = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cuda_rows); i++)
		for (size_t k = 0; cuda_rows[i].sass[k]; k++)
			if (cuda_rows[i].sass[k] > top)
				top = cuda_rows[i].sass[k];
	return top;
}

int
kb_cuda_builds(unsigned cuda, unsigned cc)
{
	const struct cuda_row *r = cuda_row(cuda);
	size_t i;

	/*
	 * Older than the table (before 12.6): no Blackwell or newer arch
	 * (CUDA 12.8 was the first to build 10.0 and 12.0); older archs are
	 * not judged.
	 */
	if (!r)
		return cc < 100;
	for (i = 0; r->sass[i]; i++)
		if (r->sass[i] == cc)
			return 1;
	return 0;
}

static void
say(int strict, const struct loc *loc, const char *msg)
{
	if (strict)
		error_at(loc, "%s (an error with --strict)", msg);
	else
		warning_at(loc, "%s", msg);
}

static const struct loc *
feature_loc(const struct profile *p, enum feature f)
{
	return p->feature_loc[f].file ? &p->feature_loc[f] : NULL;
}

/* The CUDA releases of the table that build `cc`, as "CUDA 12.8, 12.9 and 13.0"; "" when none. */
static void
arch_builders(unsigned cc, struct buf *out)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cuda_rows); i++)
		n += kb_cuda_builds(cuda_rows[i].cuda, cc);
	for (size_t i = 0; i < ARRAY_SIZE(cuda_rows); i++) {
		if (!kb_cuda_builds(cuda_rows[i].cuda, cc))
			continue;
		buf_addf(out, "%s%u.%u", !k ? "CUDA " : k + 1 == n ? " and " : ", ",
			 cuda_rows[i].cuda / 100, cuda_rows[i].cuda % 100);
		k++;
	}
}

/* One cuda.archs entry against the toolkit (can it build it? 'f' targets?) and the release. */
static void
check_arch(const struct parch *pa, const struct kb_context *ctx)
{
	unsigned cc = (unsigned)(pa->arch.major * 10 + pa->arch.minor);
	struct buf name = BUF_INIT;

	arch_format(&pa->arch, &name);
	if (!kb_arch_known(cc)) {
		error_at(&pa->loc, "no CUDA release builds '%s' (the newest, CUDA %u.%u, builds "
			 "up to %u.%u)", name.s, cuda_rows[ARRAY_SIZE(cuda_rows) - 1].cuda / 100,
			 cuda_rows[ARRAY_SIZE(cuda_rows) - 1].cuda % 100, newest_arch() / 10,
			 newest_arch() % 10);
		buf_release(&name);
		return;
	}
	if (ctx->cuda && !kb_cuda_builds(ctx->cuda, cc)) {
		const char *hint = cc == 101 && ctx->cuda >= 1300 ?
					   "; CUDA 13 renamed 10.1 to 11.0" :
				   cc == 110 && ctx->cuda < 1300 ? "; before CUDA 13 it is 10.1" :
				   cc < 75 && ctx->cuda >= 1300 ?
					   "; CUDA 13 dropped everything below 7.5" :
					   "";

		struct buf can = BUF_INIT;

		arch_builders(cc, &can);
		error_at(&pa->loc, "CUDA %u.%u (%s) cannot build '%s'%s; %s %s it: set cuda.home to "
			 "such a toolkit (and cuda.version to its version)", ctx->cuda / 100,
			 ctx->cuda % 100, ctx->cuda_from, name.s, hint, can.s,
			 strstr(can.s, " and ") ? "build" : "builds");
		buf_release(&can);
	}
	if (ctx->cuda && pa->arch.variant == 'f' && cuda_row(ctx->cuda) &&
	    !cuda_row(ctx->cuda)->f_family)
		error_at(&pa->loc, "'%s' is a family ('f') target, which needs CUDA >= 12.9 "
			 "(this is CUDA %u.%u from %s)", name.s, ctx->cuda / 100,
			 ctx->cuda % 100, ctx->cuda_from);
	buf_release(&name);
}

/* "12.0a" (what reaches the tree once "+PTX" is stripped) and "120a" (what -gencode keeps). */
static void
arch_entry(const struct arch *a, struct buf *entry, struct buf *digits)
{
	struct arch plain = *a;

	plain.ptx = 0;
	arch_format(&plain, entry);
	buf_addf(digits, "%d%d", a->major, a->minor);
	if (a->variant)
		buf_addch(digits, a->variant);
}

/*
 * The tree's select_compute_arch.cmake under src, run by CMake for CUDA
 * `cuda` with the entries of `p`'s archs (each variant's plain form too;
 * `p` NULL: none) and Blackwell: 1 (r filled, path the file), 0 no such
 * file or one without the function, -1 CMake could not run it (why says
 * which, for each). Never reports.
 */
static int
tree_rules_run(const char *src, const struct profile *p, unsigned cuda, struct cmakearch *r,
	       struct buf *path, struct buf *why)
{
	struct strvec entries = STRVEC_INIT;
	struct buf e = BUF_INIT, d = BUF_INIT;
	int ret = 0;

	for (size_t i = 0; cmakearch_paths[i]; i++) {
		buf_reset(path);
		buf_addf(path, "%s/%s", src, cmakearch_paths[i]);
		if (is_regular(path->s))
			break;
		buf_reset(path);
	}
	if (!path->len) {
		buf_addf(why, "'%s' has no %s", src, cmakearch_paths[0]);
		return 0;
	}
	for (size_t i = 0; p && i < p->narchs; i++) {
		buf_reset(&e);
		buf_reset(&d);
		arch_entry(&p->archs[i].arch, &e, &d);
		strvec_push(&entries, e.s);
		if (p->archs[i].arch.variant)
			strvec_pushf(&entries, "%d.%d", p->archs[i].arch.major, p->archs[i].arch.minor);
	}
	strvec_push(&entries, "Blackwell");
	if (cmakearch_run(r, path->s, cuda, &entries, "Blackwell", why) < 0) {
		buf_addf(why, " ('%s' not run)", path->s);
		ret = -1;
	} else if (!r->has_function) {
		buf_addf(why, "'%s' defines no CUDA_SELECT_NVCC_ARCH_FLAGS", path->s);
	} else {
		ret = 1;
	}
	strvec_clear(&entries);
	buf_release(&e);
	buf_release(&d);
	return ret;
}

/* The code= targets of -gencode flags: "sm_100 compute_120". */
static void
flag_targets(const char *flags, struct buf *out)
{
	for (const char *c = flags; (c = strstr(c, "code=")); ) {
		size_t n;

		c += 5;
		n = strcspn(c, " ,");
		buf_addf(out, "%s%.*s", out->len ? " " : "", (int)n, c);
		c += n;
	}
}

/* "; for CUDA 13.0 its All list is ... and Blackwell gives sm_100 (a known name from CUDA 12.7)" */
static void
describe_lists(const struct cmakearch *r, unsigned cuda, struct buf *out)
{
	const struct cmakearch_entry *bw = cmakearch_find(r, "Blackwell");
	struct buf b = BUF_INIT;

	strvec_join(&r->all, " ", &b);
	buf_addf(out, "; for CUDA %u.%u its All list is %s", cuda / 100, cuda % 100,
		 b.len ? b.s : "empty");
	if (bw && !*bw->error) {
		buf_reset(&b);
		flag_targets(bw->flags, &b);
		buf_addf(out, " and Blackwell gives %s", b.len ? b.s : "no targets");
		if (!r->name_from)
			buf_addstr(out, " (not among its known names for any CUDA)");
		else if (r->name_from <= cuda)
			buf_addf(out, " (a known name from CUDA %u.%u)", r->name_from / 100,
				 r->name_from % 100);
		else
			buf_addf(out, " (not among its known names for this CUDA; from CUDA %u.%u)",
				 r->name_from / 100, r->name_from % 100);
	}
	buf_release(&b);
}

int
kb_arch_source(const char *src, const struct relver *torch, const char *torch_from,
	       unsigned cuda, struct buf *out)
{
	struct cmakearch r = CMAKEARCH_INIT;
	struct buf path = BUF_INIT, why = BUF_INIT;
	int tree = src && tree_rules_run(src, NULL, cuda, &r, &path, &why) == 1;

	if (tree) {
		buf_addf(out, "the tree's select_compute_arch.cmake (%s), run by CMake", path.s);
		if (cuda)
			describe_lists(&r, cuda, out);
	} else {
		if (relver_known(torch))
			buf_addf(out, "bwbuild's table for torch %u.%u (%s)", torch->major, torch->minor,
				 torch_from ? torch_from : "source.ref");
		else
			buf_addstr(out, "bwbuild's table (the torch release is not known: only its "
				   "CUDA rules apply)");
		if (src)
			buf_addf(out, "; %s", why.s);
		else
			buf_addstr(out, "; the tree's own select_compute_arch.cmake is read after the "
				   "fetch");
	}
	cmakearch_release(&r);
	buf_release(&path);
	buf_release(&why);
	return tree;
}

/* One arch against what CMake made of it; 0 when it was not asked (the table then judges). */
static int
check_arch_tree(const struct parch *pa, const struct cmakearch *r, const char *path)
{
	struct buf entry = BUF_INIT, digits = BUF_INIT, plain = BUF_INIT, sm = BUF_INIT;
	const struct cmakearch_entry *e, *pe;
	int judged = 1;

	arch_entry(&pa->arch, &entry, &digits);
	buf_addf(&plain, "%d.%d", pa->arch.major, pa->arch.minor);
	buf_addf(&sm, "sm_%s", digits.s);
	if (!(e = cmakearch_find(r, entry.s))) {
		judged = 0;
	} else if (*e->error) {
		struct buf hint = BUF_INIT;

		pe = cmakearch_find(r, plain.s);
		if (pa->arch.variant && pe && !*pe->error)
			buf_addf(&hint, "; it takes '%s'%s", plain.s,
				 pa->arch.variant == 'f' ? " ('f' entries need a tree with PyTorch PR "
							   "#157999)" : "");
		error_at(&pa->loc, "the tree's select_compute_arch.cmake (%s) does not accept '%s': "
			 "CMake stops with \"%s\"%s", path, entry.s, e->error, hint.s ? hint.s : "");
		buf_release(&hint);
	} else if (pa->arch.variant && *e->flags && !strstr(e->flags, sm.s)) {
		struct buf got = BUF_INIT;

		flag_targets(e->flags, &got);
		error_at(&pa->loc, "the tree's select_compute_arch.cmake (%s) accepts '%s' but gives "
			 "'%s': the '%c' would be dropped and sm_%d%d built instead", path, entry.s,
			 got.s ? got.s : "", pa->arch.variant, pa->arch.major, pa->arch.minor);
		buf_release(&got);
	}
	buf_release(&entry);
	buf_release(&digits);
	buf_release(&plain);
	buf_release(&sm);
	return judged;
}

/* The first release of the table whose file takes arch form `kind`. */
static const struct torch_release *
first_taking(char kind)
{
	size_t n;
	const struct torch_release *rows = release_rows(&n);

	for (size_t i = 0; i < n; i++)
		if (strchr(rows[i].arch_forms, kind))
			return &rows[i];
	return &rows[n - 1];
}

/* One arch against the release table's arch forms (the row of ctx->torch, or the nearest). */
static void
check_arch_table(const struct parch *pa, const struct kb_context *ctx, int strict)
{
	static const char kinds[] = "faM";
	const struct torch_release *row;
	struct buf entry = BUF_INIT, digits = BUF_INIT, msg = BUF_INIT;
	unsigned tmaj = ctx->torch.major, tmin = ctx->torch.minor;

	if (!relver_known(&ctx->torch))
		return;
	row = release_nearest(&ctx->torch);
	arch_entry(&pa->arch, &entry, &digits);
	for (size_t i = 0; kinds[i]; i++) {
		char k = kinds[i];

		if (!(k == 'M' ? pa->arch.major >= 10 : pa->arch.variant == k))
			continue;
		if (strchr(row->arch_forms_refused, k)) {
			error_at(&pa->loc, "torch %u.%u (%s) does not accept '%s' in TORCH_CUDA_ARCH_LIST "
				 "(bwbuild's table: %s); use a torch >= %u.%u or drop the '%c'", tmaj,
				 tmin, ctx->torch_from, entry.s, release_arch_form_why(k),
				 first_taking(k)->torch.major, first_taking(k)->torch.minor, k);
			break;
		}
		if (!strchr(row->arch_forms, k)) {
			buf_addf(&msg, "bwbuild's table cannot say whether torch %u.%u (%s) accepts "
				 "'%s' (%s); the tree's own select_compute_arch.cmake decides when it is "
				 "read", tmaj, tmin, ctx->torch_from, entry.s, release_arch_form_why(k));
			say(strict, &pa->loc, msg.s);
			break;
		}
	}
	buf_release(&entry);
	buf_release(&digits);
	buf_release(&msg);
}

/* The profile's archs against the tree (ctx->src_dir) where CMake can run it, else the table. */
static void
check_arch_forms(const struct profile *p, const struct kb_context *ctx, int strict)
{
	struct cmakearch r = CMAKEARCH_INIT;
	struct buf path = BUF_INIT, why = BUF_INIT;
	int got = ctx->src_dir ? tree_rules_run(ctx->src_dir, p, ctx->cuda, &r, &path, &why) : 0;
	int tree = got == 1;

	if (got < 0 && p->narchs)
		warning("%s; the archs are judged by bwbuild's table only", why.s);
	for (size_t i = 0; i < p->narchs; i++)
		if (!tree || !check_arch_tree(&p->archs[i], &r, path.s))
			check_arch_table(&p->archs[i], ctx, strict);
	cmakearch_release(&r);
	buf_release(&path);
	buf_release(&why);
}

/* The last release of the table whose row says `cub`, or NULL. */
static const struct torch_release *
last_with_cub(enum release_cub cub)
{
	size_t n;
	const struct torch_release *rows = release_rows(&n), *last = NULL;

	for (size_t i = 0; i < n; i++)
		if (rows[i].cub == cub)
			last = &rows[i];
	return last;
}

/* The torch x CUDA rule by the release's row, for a tree not here yet (the patch named fixes it). */
static void
check_torch_cuda(const struct profile *p, const struct kb_context *ctx, int strict)
{
	const struct torch_cuda_rule *r = &cub_rule;
	const struct loc *l = p->source_ref.loc.file ? &p->source_ref.loc : NULL;
	const struct torch_release *row, *known;
	unsigned tmaj = ctx->torch.major, tmin = ctx->torch.minor;
	struct buf msg = BUF_INIT;

	if (!relver_known(&ctx->torch) || !ctx->cuda || ctx->cuda < r->cuda_from ||
	    p->features[FEAT_CUDA] == TRI_OFF)
		return;
	row = release_nearest(&ctx->torch);
	if (row->cub == RELEASE_CUB_FINDS)
		return;
	if (p->source_patches.str && !strcmp(p->source_patches.str, r->series))
		return;
	/* the workaround that needs no patch: CMake looks in include/cccl itself */
	for (size_t k = 0; k < p->ncmake; k++)
		if (!strcmp(p->cmake[k].key, "CMAKE_INCLUDE_PATH") && strstr(p->cmake[k].val, "cccl"))
			return;
	buf_addf(&msg, "torch %u.%u (%s) with CUDA %u.%u (%s): %s; set 'source.patches: %s' "
		 "(patches/%s/%s fixes it)", tmaj, tmin, ctx->torch_from, ctx->cuda / 100,
		 ctx->cuda % 100, ctx->cuda_from, r->symptom, r->series, r->series, r->patch);
	if (row->cub == RELEASE_CUB_LOST) {
		if (l)
			error_at(l, "%s", msg.s);
		else
			error("%s", msg.s);
	} else {
		known = last_with_cub(RELEASE_CUB_LOST);
		buf_addf(&msg, " (known for torch <= %u.%u; torch %u.%u is not verified)",
			 known ? known->torch.major : 0, known ? known->torch.minor : 0, tmaj, tmin);
		if (strict && l)
			error_at(l, "%s (an error with --strict)", msg.s);
		else if (strict)
			error("%s (an error with --strict)", msg.s);
		else if (l)
			warning_at(l, "%s", msg.s);
		else
			warning("%s", msg.s);
	}
	buf_release(&msg);
}

/* Whether any of the tree's CUB lookups (or the profile's CMAKE_INCLUDE_PATH) names include/cccl. */
static int
tree_finds_cccl(const struct profile *p, const char *src)
{
	static const char *const files[] = { "cmake/Modules/FindCUB.cmake", "cmake/Dependencies.cmake",
					     "cmake/public/cuda.cmake", NULL };
	struct buf path = BUF_INIT, text = BUF_INIT;
	int found = 0;

	for (size_t i = 0; i < p->ncmake; i++)
		if (!strcmp(p->cmake[i].key, "CMAKE_INCLUDE_PATH") && strstr(p->cmake[i].val, "cccl"))
			return 1;
	for (size_t i = 0; files[i] && !found; i++) {
		buf_reset(&path);
		buf_reset(&text);
		buf_addf(&path, "%s/%s", src, files[i]);
		found = is_regular(path.s) && read_file(&text, path.s) == 0 && text.s &&
			strstr(text.s, "cccl");
	}
	buf_release(&path);
	buf_release(&text);
	return found;
}

int
kb_check_source(const struct profile *p, const char *src, const char *cuda_home, int check_archs,
		struct buf *said)
{
	int before = diag_errors;
	struct buf a = BUF_INIT, b = BUF_INIT;

	if (check_archs && p->features[FEAT_CUDA] != TRI_OFF && p->narchs) {
		struct cmakearch r = CMAKEARCH_INIT;
		struct buf path = BUF_INIT, why = BUF_INIT;
		unsigned cuda = p->cuda_version.str ? kb_parse_version(p->cuda_version.str) : 0;

		int got = tree_rules_run(src, p, cuda, &r, &path, &why);

		if (got == 1) {
			for (size_t i = 0; i < p->narchs; i++)
				check_arch_tree(&p->archs[i], &r, path.s);
			buf_addf(said, "archs checked against the tree's select_compute_arch.cmake "
				 "(%s), run by CMake", path.s);
		} else {
			if (got < 0)
				warning("%s; the archs are judged by bwbuild's table only", why.s);
			buf_addf(said, "archs checked against bwbuild's table only: %s", why.s);
		}
		cmakearch_release(&r);
		buf_release(&path);
		buf_release(&why);
	}
	/* CUDA 13's layout: CUB only under include/cccl. */
	buf_addf(&a, "%s/include/cub/cub.cuh", cuda_home);
	buf_addf(&b, "%s/include/cccl/cub/cub.cuh", cuda_home);
	if (p->features[FEAT_CUDA] != TRI_OFF && !path_exists(a.s) && path_exists(b.s)) {
		buf_reset(&a);
		buf_addf(&a, "%s/cmake/Modules/FindCUB.cmake", src);
		if (is_regular(a.s) && !tree_finds_cccl(p, src)) {
			const struct loc *l = p->source_patches.loc.file ? &p->source_patches.loc :
					      p->source_ref.loc.file ? &p->source_ref.loc : NULL;
			struct buf msg = BUF_INIT;

			buf_addf(&msg, "%s looks for cub/cub.cuh only in the toolkit's include/, and "
				 "%s/include has it only under cccl/ (CUDA 13): configure would stop "
				 "with 'Cannot find CUB.'; patches/pytorch/0002-find-cub-in-cuda13-"
				 "cccl.patch fixes it ('source.patches: pytorch'; a --source tree is "
				 "built as it is: git apply it there), or set "
				 "cmake.CMAKE_INCLUDE_PATH to %s/include/cccl", a.s, cuda_home,
				 cuda_home);
			if (l)
				error_at(l, "%s", msg.s);
			else
				error("%s", msg.s);
			buf_release(&msg);
		}
	}
	buf_release(&a);
	buf_release(&b);
	return diag_errors > before ? -1 : 0;
}

/* 1 if some entry's PTX JIT-compiles for the GPU generation after the newest arch (compat.h's rules). */
static int
ptx_runs_forward(const struct profile *p, const struct parch *top)
{
	struct buf name = BUF_INIT;
	int future = (top->arch.major + 1) * 10, runs = 0;

	for (size_t i = 0; i < p->narchs && !runs; i++) {
		if (!p->archs[i].arch.ptx)
			continue;
		buf_reset(&name);
		arch_ptx_name(&p->archs[i].arch, &name);
		runs = target_runs_on(name.s, future);
	}
	buf_release(&name);
	return runs;
}

/*
 * Without PTX that JIT-compiles forward no newer GPU can run the wheel.
 * What decides is whether any entry's PTX does (compute_120 runs on every
 * later GPU), not whether the newest entry has +PTX: an 'a' entry's PTX
 * (compute_121a) runs on that GPU alone and an 'f' entry's within its
 * family, so '12.1a+PTX' would not help and is never the advice.
 */
static void
check_ptx(const struct profile *p, int strict)
{
	const struct parch *top = NULL, *plain = NULL;
	struct buf b = BUF_INIT, newest = BUF_INIT;

	if (p->cuda_ptx.str && !strcmp(p->cuda_ptx.str, "none")) {
		/* A wheel without PTX on purpose (the official cu130 wheels are so). */
		for (size_t i = 0; i < p->narchs; i++)
			if (p->archs[i].arch.ptx)
				error_at(&p->archs[i].loc, "'%s' asks for PTX, but cuda.ptx is none "
					 "(%s:%d); drop the +PTX or the cuda.ptx line", p->archs[i].text,
					 p->cuda_ptx.loc.file, p->cuda_ptx.loc.line);
		return;
	}
	for (size_t i = 0; i < p->narchs; i++) {
		if (!top || arch_cmp(&p->archs[i].arch, &top->arch) > 0)
			top = &p->archs[i];
		if (!p->archs[i].arch.variant &&
		    (!plain || arch_cmp(&p->archs[i].arch, &plain->arch) > 0))
			plain = &p->archs[i];
	}
	if (!top || ptx_runs_forward(p, top))
		return;
	if (plain != top) {
		struct arch bare = top->arch;

		bare.ptx = 0;
		arch_format(&bare, &newest);
	}
	if (plain == top)
		buf_addf(&b, "the newest arch '%s' has no +PTX, so the wheel will not run on newer "
			 "GPUs; write '%s+PTX' for forward compatibility, or 'cuda.ptx: none' for a "
			 "wheel meant for these GPUs only", top->text, top->text);
	else
		buf_addf(&b, "no entry's PTX runs on GPUs newer than '%s' ('%c' code, PTX too, "
			 "stays on %s), so the wheel will not run on them; write '%d.%d+PTX' for "
			 "forward compatibility, or 'cuda.ptx: none' for a wheel meant for these "
			 "GPUs only", newest.s, top->arch.variant, top->arch.variant == 'a' ?
			 "its own GPU" : "its family", plain ? plain->arch.major : top->arch.major,
			 plain ? plain->arch.minor : top->arch.minor);
	say(strict, plain ? &plain->loc : &top->loc, b.s);
	buf_release(&b);
	buf_release(&newest);
}

/* Flash and memory-efficient attention need an arch >= 8.0. */
static void
check_attention(const struct profile *p)
{
	static const enum feature attn[] = { FEAT_FLASH_ATTENTION, FEAT_MEM_EFF_ATTENTION };
	size_t i;

	for (i = 0; i < p->narchs; i++)
		if (p->archs[i].arch.major * 10 + p->archs[i].arch.minor >= 80)
			return;
	for (i = 0; p->narchs && i < ARRAY_SIZE(attn); i++)
		if (p->features[attn[i]] == TRI_ON && feature_loc(p, attn[i]))
			error_at(feature_loc(p, attn[i]), "'%s' needs an arch >= 8.0 in "
				 "cuda.archs; PyTorch drops it silently otherwise",
				 feature_table[attn[i]].key);
}

/* The feature whose switch is `option`, or FEAT__COUNT. */
static enum feature
feature_of_option(const char *option)
{
	size_t f;

	for (f = 0; f < FEAT__COUNT; f++)
		if (!strcmp(feature_table[f].option, option))
			break;
	return (enum feature)f;
}

/*
 * The releases of the table that have switch `option`: the first, and the
 * last unless the newest has it (then NULL: open). 0 when no row names it,
 * i.e. it is no switch of only some releases.
 */
static int
switch_span(const char *option, const struct torch_release **since,
	    const struct torch_release **until)
{
	size_t n;
	const struct torch_release *rows = release_rows(&n);

	*since = *until = NULL;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ARRAY_SIZE(rows[i].switches) && rows[i].switches[k]; k++)
			if (!strcmp(rows[i].switches[k], option)) {
				if (!*since)
					*since = &rows[i];
				*until = &rows[i];
			}
	if (*until == &rows[n - 1])
		*until = NULL;
	return *since != NULL;
}

/* The other name of a switch renamed between releases, or NULL. */
static const char *
renamed_as(const char *option)
{
	size_t n;
	const struct torch_release *rows = release_rows(&n);

	for (size_t i = 0; i < n; i++) {
		if (!rows[i].renamed[0])
			continue;
		if (!strcmp(rows[i].renamed[0], option))
			return rows[i].renamed[1];
		if (!strcmp(rows[i].renamed[1], option))
			return rows[i].renamed[0];
	}
	return NULL;
}

static int
in_span(const struct relver *t, const struct torch_release *since, const struct torch_release *until)
{
	return since && relver_cmp(t, &since->torch) >= 0 && (!until || relver_cmp(t, &until->torch) <= 0);
}

/* The release a switch of only some releases is missing from: its other name, or none. */
static void
span_release_error(const struct loc *l, enum feature f, const struct torch_release *since,
		   const struct kb_context *ctx)
{
	const char *key = feature_table[f].key, *other = renamed_as(feature_table[f].option);
	enum feature o = other ? feature_of_option(other) : FEAT__COUNT;
	const struct torch_release *os = NULL, *ou = NULL;
	unsigned tmaj = ctx->torch.major, tmin = ctx->torch.minor;

	if (o < FEAT__COUNT)
		switch_span(other, &os, &ou);
	if (o < FEAT__COUNT && in_span(&ctx->torch, os, ou))
		error_at(l, "torch %u.%u (%s) has no %s; its switch there is %s: use "
			 "'features.%s' instead", tmaj, tmin, ctx->torch_from,
			 feature_table[f].option, feature_table[o].option, feature_table[o].key);
	else if (os && relver_cmp(&ctx->torch, &os->torch) < 0 &&
		 relver_cmp(&ctx->torch, &since->torch) < 0)
		error_at(l, "'%s' does not exist in torch %u.%u (%s); it arrived in %u.%u "
			 "as %s (%s from %u.%u)", key, tmaj, tmin, ctx->torch_from,
			 os->torch.major, os->torch.minor, feature_table[o].option,
			 feature_table[f].option, since->torch.major, since->torch.minor);
	else
		error_at(l, "'%s' does not exist in torch %u.%u (%s)", key, tmaj, tmin,
			 ctx->torch_from);
}

/* mslk / fbgemm_genai: a 10.x arch, CUDA >= 12.8, and the release that has the switch. */
static void
check_feature_spans(const struct profile *p, const struct kb_context *ctx)
{
	int has_100 = 0;
	size_t i;

	for (i = 0; i < p->narchs; i++)
		if (p->archs[i].arch.major == 10)
			has_100 = 1;
	for (i = 0; i < FEAT__COUNT; i++) {
		enum feature f = (enum feature)i;
		const char *key = feature_table[f].key;
		const struct loc *l = feature_loc(p, f);
		const struct torch_release *since, *until;

		if (!switch_span(feature_table[f].option, &since, &until))
			continue;
		if (p->features[f] == TRI_UNSET || !l)
			continue;
		if (p->features[f] == TRI_ON && !has_100)
			error_at(l, "'%s' builds only with a 10.x entry (10.0, 10.0a, 10.3...) in "
				 "cuda.archs; PyTorch turns it off otherwise", key);
		if (p->features[f] == TRI_ON && ctx->cuda && ctx->cuda < 1208)
			error_at(l, "'%s' needs CUDA >= 12.8 (this is CUDA %u.%u from %s)", key,
				 ctx->cuda / 100, ctx->cuda % 100, ctx->cuda_from);
		if (relver_known(&ctx->torch) && !in_span(&ctx->torch, since, until))
			span_release_error(l, f, since, ctx);
	}
}

/* `feature` is on but `needs` is set off: at the feature, with a note where. */
static void
needs_error(const struct profile *p, enum feature feature, enum feature needs)
{
	error_at(feature_loc(p, feature), "'%s' needs '%s'", feature_table[feature].key,
		 feature_table[needs].key);
	if (feature_loc(p, needs))
		note_at(feature_loc(p, needs), "'%s' is set off here", feature_table[needs].key);
}

/* nccl needs distributed and cuda; cudnn needs cuda. */
static void
check_feature_needs(const struct profile *p)
{
	if (p->features[FEAT_NCCL] == TRI_ON && feature_loc(p, FEAT_NCCL)) {
		if (p->features[FEAT_DISTRIBUTED] == TRI_OFF)
			needs_error(p, FEAT_NCCL, FEAT_DISTRIBUTED);
		if (p->features[FEAT_CUDA] == TRI_OFF)
			needs_error(p, FEAT_NCCL, FEAT_CUDA);
	}
	if (p->features[FEAT_CUDNN] == TRI_ON && p->features[FEAT_CUDA] == TRI_OFF &&
	    feature_loc(p, FEAT_CUDNN))
		needs_error(p, FEAT_CUDNN, FEAT_CUDA);
}

int
kb_check(const struct profile *p, const struct kb_context *ctx, int strict)
{
	int before = diag_errors;

	for (size_t i = 0; i < p->narchs; i++)
		check_arch(&p->archs[i], ctx);
	check_arch_forms(p, ctx, strict);
	/* A tree already here is judged by its own files at the fetch (kb_check_source). */
	if (!ctx->src_dir)
		check_torch_cuda(p, ctx, strict);
	check_ptx(p, strict);
	check_attention(p);
	check_feature_spans(p, ctx);
	check_feature_needs(p);
	return diag_errors > before ? -1 : 0;
}

int
kb_check_tree(const struct profile *p, const struct cmake_options *opts, const char *tree,
	      int strict)
{
	int before = diag_errors;
	size_t f, i, j, nrows;
	const struct torch_release *rows = release_rows(&nrows);

	for (f = 0; f < FEAT__COUNT; f++) {
		const char *name = feature_table[f].option;
		const struct loc *l = p->features[f] != TRI_UNSET ? &p->feature_loc[f] : NULL;
		int done = 0;

		if (!l || !l->file || cmakeopts_find(opts, name))
			continue;
		for (i = 0; i < nrows && !done; i++) {
			const char *older = rows[i].renamed[0], *newer = rows[i].renamed[1];
			unsigned vmaj = rows[i].torch.major, vmin = rows[i].torch.minor;
			enum feature of;

			if (!older)
				continue;

			if (!strcmp(newer, name) && cmakeopts_find(opts, older)) {
				of = feature_of_option(older);
				error_at(l, "%s has no option %s: this release still calls it %s (renamed "
					 "%s in %u.%u); use 'features.%s' for this tree", tree, name, older,
					 newer, vmaj, vmin,
					 of < FEAT__COUNT ? feature_table[of].key : older);
				done = 1;
			} else if (!strcmp(older, name) && cmakeopts_find(opts, newer)) {
				of = feature_of_option(newer);
				error_at(l, "%s has no option %s: it was renamed %s in %u.%u; use "
					 "'features.%s' for this tree", tree, name, newer, vmaj, vmin,
					 of < FEAT__COUNT ? feature_table[of].key : newer);
				done = 1;
			}
		}
		if (!done)
			error_at(l, "%s has no option %s (none of the %zu options its CMake files "
				 "declare); remove 'features.%s' or build a release that has it", tree,
				 name, opts->n, feature_table[f].key);
	}
	/* cmake: entries that nothing in the tree reads would be forwarded and ignored */
	for (j = 0; j < p->ncmake; j++) {
		const char *name = p->cmake[j].key;

		if (strncmp(name, "USE_", 4) || cmakeopts_find(opts, name) ||
		    strset_has(&opts->mentioned, name))
			continue;
		if (strict)
			error_at(&p->cmake[j].loc, "%s never reads %s: no CMake file, setup.py or "
				 "setup helper mentions it (--strict)", tree, name);
		else
			warning_at(&p->cmake[j].loc, "%s never reads %s: no CMake file, setup.py or "
				   "setup helper mentions it, so it would be ignored", tree, name);
	}
	return diag_errors > before ? -1 : 0;
}
