#ifndef BWBUILD_RELEASES_H
#define BWBUILD_RELEASES_H

#include <stddef.h>

#include "core/relver.h"

struct buf;

/*
 * One row per PyTorch minor release, every fact bwbuild keeps of it
 * (releases.c, sources in docs/design/pytorch.md §10): a new release is a
 * new row, and what the knowledge base, the companion check, the plan and
 * the build environment say of a release is read from its row. Strings
 * are for people; once the tree is here its own files decide.
 */

/* CUDA 13 moved CUB under include/cccl: what the release's FindCUB.cmake does. */
enum release_cub {
	RELEASE_CUB_FINDS,      /* finds it (or taken to: the first release with CUDA 13 builds) */
	RELEASE_CUB_LOST,       /* looks in include/ only: "Cannot find CUB." (read) */
	RELEASE_CUB_UNVERIFIED, /* between the two, not read: warned, not refused */
};

struct torch_release {
	struct relver torch;       /* {2, 11}: every 2.11.x */
	const char *era;           /* pipeline/era.c's row that builds it: "setup-helpers" */
	struct relver torchvision; /* the companions released with it: 0.26 */
	struct relver torchaudio;  /* 2.11 */
	const char *python;        /* "3.10-3.14"; NULL: the matrix was not read for it */
	const char *cuda;          /* its official wheels: "12.6, 12.8, 13.0" */
	unsigned cuda_blackwell;   /* the first of them with sm_100/sm_120 (1208) */
	/* TORCH_CUDA_ARCH_LIST forms its select_compute_arch.cmake takes: 'a' (9.0a),
	 * 'M' (a two-digit major, 10.0), 'f' (10.0f); those known to be refused; the
	 * others are not known either way */
	const char *arch_forms, *arch_forms_refused;
	enum release_cub cub;
	const char *switches[3];   /* of the switches only some releases have, its own */
	const char *renamed[2];    /* a switch renamed in this release: old, new */
	const char *setuptools;    /* the setuptools its build needs: ">=70.1" (NULL: any) */
	const char *loadtime;      /* the module setup.py imports at load time that needs it */
	const char *configure;     /* how its setup.py is told to configure only (NULL: not read) */
	const char *provisional;   /* NULL; else why the row is not read from a released tree */
	const char *evidence;
};

/* The rows, oldest first, and their number. */
const struct torch_release *release_rows(size_t *n);
/* The row of `v` (any patch level), or NULL outside the table. */
const struct torch_release *release_find(const struct relver *v);
/* The row of `v`; below the table the first row, above it the last (a newer keeps what it gained). */
const struct torch_release *release_nearest(const struct relver *v);
/* "2.4 to 2.12": the span of the table, for messages. */
void release_span(struct buf *out);
/* Why bwbuild takes a release to accept or refuse an arch form ('a', 'M', 'f'). */
const char *release_arch_form_why(char kind);

/*
 * The release of a tree, by one precedence for every caller:
 *  1. the first line of <src>/version.txt ("2.6.0a0" is 2.6.0), when `src`
 *     is given and has one: the tree is what is built. Where `ref` names
 *     the same minor release with a patch level (the tag v2.6.1), that
 *     patch level: release branches keep "X.Y.0a0" through their patch
 *     releases;
 *  2. else `ref` when it opens with a version ("v2.6.1", "v2.9.0-rc3",
 *     "2.6"): before the fetch, the release asked for;
 *  3. else none (a branch or commit, no tree yet): `out` zeroed.
 * A --source tree is built as it is, whatever the profile's ref: its
 * callers pass no ref. Returns what decided, "version.txt" or
 * "source.ref", or NULL.
 */
const char *tree_version(const char *ref, const char *src, struct relver *out);

#endif
