#ifndef BWBUILD_GIT_PRIV_H
#define BWBUILD_GIT_PRIV_H

/*
 * What the libgit2 wrapper family shares: src/sources/git*.c (git.c,
 * git_mirror.c, git_checkout.c, git_submodule.c) are the only files that
 * use libgit2, and the only files that may include this header, which
 * brings <git2.h> with it (`make layers` refuses either anywhere else).
 * Everything outside the family goes through git.h. Shared here: the
 * error and ref helpers of git.c, where objects come from (git_mirror.c),
 * the checkout context that git_checkout.c and git_submodule.c both walk
 * a tree with, and the functions each lends the others; each is specified
 * at its definition.
 */
#include <git2.h>
#include <stddef.h>

#include "core/strvec.h"

/* libgit2's *_OPTIONS_INIT macros leave trailing fields implicit. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* git.h's, by name only: git.h including this header's module would be a circle */
struct buf;
struct repo_checkout_opts;
struct repo_tree_info;

/* ---- git.c ---- */

/* error("<what> '<subject>': <libgit2's last error>"); -1. */
int git_fail(const char *what, const char *subject);
/* A git_submodule_foreach callback: each submodule's name into the strvec `payload`. */
int git_collect_name(git_submodule *sm, const char *name, void *payload);
/* The commit `ref` names (as given, a tag, a branch, origin's branch); -1 when none. */
int git_resolve(git_repository *repo, const char *ref, git_oid *out);

/* ---- git_mirror.c ---- */

/*
 * Where each repository's objects come from: a repository of the mirror
 * directories (used as it is, read only: never fetched into, repaired or
 * removed), else the cache's mirror of the URL after the user's
 * url.<base>.insteadOf rules (fetched when it lacks what is wanted).
 */
struct sources {
	const char *cache;
	const struct strvec *dirs;
	struct strvec rules;   /* url.<base>.insteadOf: base, prefix, base, prefix, ... */
	int refresh;
	/*
	 * The real path of the tree being checked out (NULL: not there yet): a
	 * repository of the mirror directories inside it (its own .git, a
	 * submodule's) is not used; it borrows its objects from a mirror, so
	 * taken as its own mirror it lost them ("bad object HEAD").
	 */
	const char *tree;
	const struct src_progress *progress; /* the checkout's, for fetch lines */
};

int git_source_ensure(const struct sources *s, const char *url, const char *ref, const git_oid *want,
		      git_oid *out, struct buf *objects, int *cached, struct strvec *tried);
/* Each cache mirror (objects/ directories) read back, a damaged one removed: how many. */
int git_repair_mirrors(const struct strvec *mirrors);

/* ---- git_checkout.c ---- */

/* One checkout of a tree and its submodules, from repo_checkout to its report. */
struct checkout_ctx {
	const struct repo_checkout_opts *o;
	struct repo_tree_info *out;
	struct strvec *mirrors;  /* the objects/ of every cache mirror used, for repair */
	int force;               /* --force, or finishing a checkout that was cut short */
	const char *mark;        /* CHECKOUT_MARK's path, written before the first file changes */
	int marked;
	struct sources src;
	struct strvec absent;    /* files not checked out: their blobs are missing from the mirrors */
	struct strvec left_out;  /* submodules left out by source.submodules.exclude */
	size_t files, repos;
	double start;
};

int git_ensure_alternate(git_repository *repo, const char *objects);
int git_ensure_origin(git_repository *repo, const char *url);
void git_tree_info_add(struct repo_tree_info *ti, const char *path, const char *url, const git_oid *oid);
int git_checkout_commit(struct checkout_ctx *c, git_repository *repo, const git_oid *oid, const char *what,
			const char *prefix, const char *workdir, const char *objects, int force);
int git_checkout_begin(struct checkout_ctx *c);

/* ---- git_submodule.c ---- */

int git_checkout_submodules(struct checkout_ctx *c, git_repository *repo, const char *url,
			    const char *prefix, int depth);
int git_attach_submodules(struct checkout_ctx *c, git_repository *repo, const char *url, const char *prefix,
			  int depth);
void git_describe_submodules(git_repository *repo, const char *url, const char *prefix,
			     struct repo_tree_info *out, int depth);

#endif
