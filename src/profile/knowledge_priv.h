#ifndef BWBUILD_KNOWLEDGE_PRIV_H
#define BWBUILD_KNOWLEDGE_PRIV_H

/*
 * Between knowledge.c (the profile's checks against the release rows) and
 * knowledge_tree.c (the checks of a source tree); theirs alone.
 */

#include "profile/profile.h"

struct arch;
struct buf;
struct cmakearch;
struct parch;

/* "12.0a" (what reaches the tree once "+PTX" is stripped) and "120a" (what -gencode keeps). */
void kb_arch_entry(const struct arch *a, struct buf *entry, struct buf *digits);
/* The feature whose switch is `option`, or FEAT__COUNT. */
enum feature kb_feature_of_option(const char *option);
/*
 * The tree's select_compute_arch.cmake under src, run by CMake for CUDA
 * `cuda` with the entries of `p`'s archs (each variant's plain form too;
 * `p` NULL: none) and Blackwell: 1 (r filled, path the file), 0 no such
 * file or one without the function, -1 CMake could not run it (why says
 * which, for each). Never reports.
 */
int kb_tree_rules_run(const char *src, const struct profile *p, unsigned cuda,
		      struct cmakearch *r, struct buf *path, struct buf *why);
/* One arch against what CMake made of it; 0 when it was not asked (the table then judges). */
int kb_check_arch_tree(const struct parch *pa, const struct cmakearch *r, const char *path);

#endif
