#ifndef BWBUILD_GIT_H
#define BWBUILD_GIT_H

#include <stddef.h>

struct buf;

/*
 * Source checkouts through libgit2; the only file that includes <git2.h>.
 *
 * Clone `url` into `dir` (or reuse the clone already there), fetching only
 * when `ref` is not known locally, then check out `ref` (tag, branch, full
 * or short commit id) as a detached HEAD, submodules included. Local edits
 * that the checkout would overwrite are refused, never lost. The commit id
 * goes into `commit_out`. -1 after reporting.
 */
int git_checkout(const char *url, const char *ref, const char *dir, struct buf *commit_out);

/*
 * Remove the files git ignores in the work tree at `dir` (build outputs
 * such as a library installed into torch/lib by an earlier configuration),
 * except under the top-level directories named in `keep` (NULL-terminated).
 * Tracked and untracked-but-not-ignored files are never touched.
 */
int git_clean_ignored(const char *dir, const char *const *keep);

/*
 * Apply a git-format patch to the work tree at `dir` (all of it or none),
 * or with `check_only` only check that it would apply. -1 with the file,
 * the hunk and libgit2's reason in `why`.
 */
int git_apply_text(const char *dir, const char *text, size_t len, int check_only, struct buf *why);
/* HEAD's commit id; the id a ref resolves to without fetching. -1 when unknown. */
int git_head_commit(const char *dir, struct buf *out);
int git_resolve_local(const char *dir, const char *ref, struct buf *out);
/* Paths that differ from HEAD in the work tree (modified, new, deleted). */
struct strvec;
int git_changed_paths(const char *dir, struct strvec *paths);

/* libgit2's version, "1.5.1". */
void git_version_string(struct buf *out);

#endif
