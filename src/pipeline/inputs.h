#ifndef BWBUILD_INPUTS_H
#define BWBUILD_INPUTS_H

struct build;
struct buf;
struct json;

/*
 * What decides a wheel's bytes (the manifest's "inputs",
 * docs/manifest-format.md): the resolved profile without its compile-only
 * settings (jobs, memory budget, launcher, cache), the source (repository,
 * ref, commit, submodule commits, local changes with their sha256), the
 * patch series with hashes, the exact environment given to setup.py
 * (compile-only variables left out; the work and source directories
 * written as ${WORK} and ${SRC}, so two work directories agree), the
 * toolchain (path and version of each compiler and tool, setuptools
 * included) and bwbuild's own version. Built from what the steps left in
 * `b`; reads the work tree for local changes, starts no process.
 */
struct json *inputs_make(const struct build *b);

/* Paths of the tree at `src` that differ from its commit, each with the sha256 of what is there now (null: deleted). */
struct json *inputs_changes(const char *src);

/* sha256 (hex) of the compact serialisation of `inputs`: the manifest's "inputs_hash". */
void inputs_hash(const struct json *inputs, struct buf *hex);

/*
 * The last segment of a wheel's default local label, "h" and 7 hex digits:
 * the sha256 of the inputs as the fetch step knows them (inputs_make;
 * PYTORCH_BUILD_VERSION and _NUMBER left out, being made from them), so
 * two builds that differ in any input (a --set, a local profile of the
 * same name, a shell variable, a compiler, a patch, the commit) never
 * share a wheel name. Appended to `out`.
 */
void inputs_label(const struct build *b, struct buf *out);

#endif
