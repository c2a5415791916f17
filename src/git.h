#ifndef BWBUILD_GIT_H
#define BWBUILD_GIT_H

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

/* libgit2's version, "1.5.1". */
void git_version_string(struct buf *out);

#endif
