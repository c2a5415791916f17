#ifndef BWBUILD_PATCH_H
#define BWBUILD_PATCH_H

#include <stddef.h>

#include "core/diag.h"
#include "core/relver.h"
#include "core/strvec.h"

struct buf;
struct json;
struct src_progress;

/*
 * Version-keyed patch series: patches/<project>/index.yaml lists patches
 * in order, each with its sha256 and the releases it applies to:
 *
 *	patches:
 *	  - file: 0001-select-compute-arch-autodetect-12.1.patch
 *	    sha256: 9f2c...
 *	    when: ">=2.0,<2.12"
 *	    description: ...
 *
 * The series is found like profiles: patches/ here, bwbuild's own
 * patches/, then $BWBUILD_PATCH_PATH.
 */
/* A path a patch changes, as its headers name it (see patch_check). */
struct patch_target {
	char *path;     /* relative to the tree, checked: no '..', '.git' or leading '/' */
	int line;       /* its section's "diff --git" line in the patch file */
};

struct patch {
	char *file;
	char *path;          /* the patch file itself */
	char *sha256;
	char *when;          /* NULL: every release */
	char *description;
	char *text;
	size_t len;
	struct strvec touches; /* the paths it changes */
	struct patch_target *targets; /* the same, with how it changes them */
	size_t ntargets;
	struct loc loc;        /* its entry in the index */
};

struct patch_set {
	char *project;
	char *index;         /* path of index.yaml */
	struct strvec env;   /* index.yaml's env: NAME=VALUE the package's build needs (a *_FORCE_BUILD switch) */
	struct patch *v;
	size_t n;
};

/* Load and check (hashes, `when` syntax) the series of `project`; -1 after reporting. */
int patch_set_load(struct patch_set *ps, const char *project);
void patch_set_release(struct patch_set *ps);

/* Whether a patch is for release `version` (zero, unknown: what no bound of its `when` excludes). */
int patch_selected(const struct patch *pt, const struct relver *version);
/* The release a tree's series is selected by: tree_version (profile/releases.h) of ref and src. */
struct relver patch_release_for(const char *ref, const char *src);
struct json;
/* The patches of `ps` selected for `version`: [{file, sha256[, status]}]. */
struct json *patch_selected_json(const struct patch_set *ps, const struct relver *version,
				 const char *status);
/*
 * ">=2.9,<2.12" against a release, compared as relver_cmp does: a bound
 * with a patch level (">=2.6.1") is exact, one without (">=2.6") stands
 * for its minor release. -1 with a reason when malformed.
 */
int patch_when_matches(const char *when, const struct relver *version, struct buf *why);

/*
 * Whether `pt` is in the tree at `src`, decided as patches_apply decides:
 * applied (its reverse applies), missing (it applies), or neither (the
 * files differ from what it was made against; `why` says where). A tree
 * that is no git checkout is judged by its text alone (patch_lines_found).
 */
enum patch_state { PATCH_MISSING, PATCH_APPLIED, PATCH_NEITHER };
enum patch_state patch_state(const struct patch *pt, const char *src, struct buf *why);
/*
 * Whether every hunk's old lines (context and removed) are in its file
 * under `src`, wherever they moved (as patch_relocate finds them), and no
 * file it creates is there yet: 1 yes, 0 no (`why` names the file), -1
 * for a binary patch, which only git can judge.
 */
int patch_lines_found(const char *text, size_t len, const char *src, struct buf *why);

/* The reverse of a git-format patch (what undoes it). */
void patch_reverse(const char *text, size_t len, struct buf *out);
/*
 * Move each hunk to where its old lines really are in the files under
 * `src` (nearest to the stated line; every line must match, no fuzz), so a
 * patch made against one release applies to another where the code only
 * moved. git apply itself wants exact line numbers.
 */
int patch_relocate(const char *text, size_t len, const char *src, struct buf *out);
/* The paths a patch changes (its "diff --git" / "+++" headers). */
void patch_paths(const char *text, size_t len, struct strvec *out);

/*
 * Check a git-format patch before libgit2 reads it (docs/design/patches.md):
 * every path it names is plain and inside the tree (no '..', '.git',
 * leading '/', empty or quoted component), it changes no symlink (mode
 * 120000: libgit2 reads through them), and each binary hunk is
 * well-formed: base85 lines of the stated length, zlib data that inflates
 * to exactly the size it declares, both the forward and the reverse hunk.
 * Returns 0, or the 1-based line of the first problem with the reason in
 * `why`. The paths go to `targets` (may be NULL; free with
 * patch_targets_free). Time linear in the text, memory at most its size.
 */
int patch_check(const char *text, size_t len, struct patch_target **targets, size_t *ntargets,
		struct buf *why);
void patch_targets_free(struct patch_target *t, size_t n);
/*
 * Check the tree at `src` before a patch is applied to it: no path the
 * patch changes is or goes through a symlink there (one the upstream tree
 * has, or any other), so nothing is written or read outside the tree.
 * 0, or the line of the offending path's section with the reason in `why`.
 */
int patch_check_tree(const struct patch *pt, const char *src, struct buf *why);

/*
 * Bring the checkout at `src` to "commit + the patches selected for
 * `version`": patches already applied are detected (their reverse applies)
 * and skipped, the others applied in order; a patch that does not apply is
 * reported with its file and hunk, and the patches applied in this run are
 * undone so the tree is as it was. `record` (<work>/patches.applied) lists
 * what is applied. `out` gets [{file, sha256, status}] for the manifest.
 */
int patches_apply(const struct patch_set *ps, const struct relver *version, const char *src,
		  const char *record, struct json *out, const struct src_progress *pr);

/*
 * Before a checkout: undo the recorded patches (in reverse order) so the
 * checkout finds a clean tree. Returns 1 when the tree is already at
 * `commit` with exactly the patches selected for `version` applied and
 * nothing else changed (then nothing is rewritten), 0 when it may check
 * out, -1 after reporting.
 */
int patches_before_checkout(const struct patch_set *ps, const struct relver *version,
			    const char *src, const char *record, const char *commit, int force,
			    const struct src_progress *pr);

#endif
