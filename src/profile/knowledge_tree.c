/*
 * The knowledge base's checks of a source tree (knowledge.h): the tree's
 * own select_compute_arch.cmake run by cmake -P for the profile's archs
 * (kb_check_source, and kb_arch_source's words for plan), its CUB lookup
 * under CUDA 13's include/cccl, and the profile's features and cmake:
 * entries against the options its CMake files declare (kb_check_tree).
 * The profile's own checks against the release rows are knowledge.c's.
 * May include: core/, formats/, host/, profile/.
 */
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/relver.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/cmakeopts.h"
#include "host/cmakearch.h"
#include "profile/arch.h"
#include "profile/knowledge.h"
#include "profile/knowledge_priv.h"
#include "profile/profile.h"
#include "profile/releases.h"

int
kb_tree_rules_run(const char *src, const struct profile *p, unsigned cuda, struct cmakearch *r,
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
		kb_arch_entry(&p->archs[i].arch, &e, &d);
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
	int tree = src && kb_tree_rules_run(src, NULL, cuda, &r, &path, &why) == 1;

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

int
kb_check_arch_tree(const struct parch *pa, const struct cmakearch *r, const char *path)
{
	struct buf entry = BUF_INIT, digits = BUF_INIT, plain = BUF_INIT, sm = BUF_INIT;
	const struct cmakearch_entry *e, *pe;
	int judged = 1;

	kb_arch_entry(&pa->arch, &entry, &digits);
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

		int got = kb_tree_rules_run(src, p, cuda, &r, &path, &why);

		if (got == 1) {
			for (size_t i = 0; i < p->narchs; i++)
				kb_check_arch_tree(&p->archs[i], &r, path.s);
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
				of = kb_feature_of_option(older);
				error_at(l, "%s has no option %s: this release still calls it %s (renamed "
					 "%s in %u.%u); use 'features.%s' for this tree", tree, name, older,
					 newer, vmaj, vmin,
					 of < FEAT__COUNT ? feature_table[of].key : older);
				done = 1;
			} else if (!strcmp(older, name) && cmakeopts_find(opts, newer)) {
				of = kb_feature_of_option(newer);
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
