#ifndef BWBUILD_BUNDLE_H
#define BWBUILD_BUNDLE_H

#include <stddef.h>

#include "core/strvec.h"

struct buf;
struct json;
struct tar_limits;

/*
 * A source bundle (src/sources/bundle.c): one tar.zst file holding a
 * checkout as a profile's build reads it, for a machine that reaches no
 * repository. Its first member, bwbuild-bundle.json, says what it is (the
 * repository, ref and commit, each submodule's commit, the patch series,
 * what was left out and why, the digest of the files); the tree follows
 * under src/.
 */

#define BUNDLE_FORMAT "bwbuild-bundle/1"
#define BUNDLE_META "bwbuild-bundle.json"

/* A submodule or folder the configured build never names, left out (licences kept), or kept by --keep. */
struct bundle_cut {
	char *path;
	int submodule;
	int kept;
	int inner; /* a submodule inside a left-out one: not a cut of its own, its top build files stay */
	char *why;
	size_t files;
	unsigned long long bytes;
};

struct bundle_cuts {
	struct bundle_cut *v;
	size_t n, alloc;
};
void bundle_cuts_release(struct bundle_cuts *c);

/*
 * Whether the text of the configured build's files (build.ninja,
 * CMakeCache.txt, compile_commands.json) names `rel`, a directory of the
 * tree at `src`: "<src>/<rel>" or, from a build directory inside the tree,
 * "../<rel>" with a path delimiter after it. Pure.
 */
int bundle_named(const char *text, size_t len, const char *src, const char *rel);

/*
 * The cuts for a tree whose files (from the top) are `files`: each
 * submodule in `subs` (parents before nested ones) and each folder that
 * only documents, benchmarks or ports the tree (docs/, benchmarks/,
 * android/, ios/, examples/, .../test/data; never a Python package's) that
 * `text` never names is left out, unless `keep` names it. Pure.
 */
void bundle_decide(const char *src, const char *text, size_t len, const struct strvec *files,
		   const struct strvec *subs, const struct strvec *keep, struct bundle_cuts *out);

/* Whether the file `rel` goes into the bundle under the cuts (licence files of cut trees do). */
int bundle_keeps(const struct bundle_cuts *cuts, const char *rel);

/*
 * Write the bundle `out` (a new file, through a temporary renamed into
 * place): `meta` (which gets "format", "files", "bytes", "tree_sha256"
 * and "left_out" added) and the files of `src` named in `files` that the
 * cuts keep, sorted, with `mtime`. -1 after reporting.
 */
int bundle_write(const char *out, const char *src, struct strvec *files,
		 const struct bundle_cuts *cuts, struct json *meta, long long mtime);

/*
 * Extract the bundle `file` into the new directory `dest` (made through a
 * temporary renamed into place; nothing is written outside it), its files
 * checked against the digest it carries; `dest`/.git answers `git
 * rev-parse HEAD` with the bundle's commit (HEAD only: no objects). The
 * metadata into *meta. -1 after reporting; `dest` is then not made.
 */
int bundle_extract(const char *file, const char *dest, const struct tar_limits *lim,
		   struct json **meta);

/* Only the metadata of the bundle `file` (its first member). -1 after reporting. */
int bundle_read_meta(const char *file, struct json **meta);

/* Check a bundle's metadata: the fields a build reads, with their types. NULL, or what is wrong. */
const char *bundle_meta_problem(const struct json *meta);

#endif
