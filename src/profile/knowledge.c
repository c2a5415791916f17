/*
 * The knowledge base: facts about toolkits, archs and features, kept as
 * data so that a new CUDA release is a new row, not new code, and the
 * checks of a profile (and of its source tree) against them. What bwbuild
 * knows of each torch release (its arch forms, CUB lookup, switches and
 * renames) is its row in releases.c; the checks here derive from the rows.
 * Sources: docs/design/pytorch.md §5-7 and docs/design/users.md §1. Facts
 * used outside those checks (GPU peaks, companion releases) are kbfacts.c's.
 *
 * The checks of a source tree (its select_compute_arch.cmake run by
 * cmake -P, its CUB lookup, its options) are knowledge_tree.c's.
 * May include: core/, formats/, host/, profile/.
 */
#include <string.h>

#include "profile/arch.h"
#include "core/buf.h"
#include "core/relver.h"
#include "host/cmakearch.h"
#include "profile/compat.h"
#include "core/diag.h"
#include "profile/knowledge.h"
#include "profile/knowledge_priv.h"
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

void
kb_arch_entry(const struct arch *a, struct buf *entry, struct buf *digits)
{
	struct arch plain = *a;

	plain.ptx = 0;
	arch_format(&plain, entry);
	buf_addf(digits, "%d%d", a->major, a->minor);
	if (a->variant)
		buf_addch(digits, a->variant);
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
	kb_arch_entry(&pa->arch, &entry, &digits);
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
	int got = ctx->src_dir ? kb_tree_rules_run(ctx->src_dir, p, ctx->cuda, &r, &path, &why) : 0;
	int tree = got == 1;

	if (got < 0 && p->narchs)
		warning("%s; the archs are judged by bwbuild's table only", why.s);
	for (size_t i = 0; i < p->narchs; i++)
		if (!tree || !kb_check_arch_tree(&p->archs[i], &r, path.s))
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

enum feature
kb_feature_of_option(const char *option)
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
	enum feature o = other ? kb_feature_of_option(other) : FEAT__COUNT;
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
