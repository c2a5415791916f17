#ifndef BWBUILD_PROVENANCE_H
#define BWBUILD_PROVENANCE_H

struct buf;
struct json;

/*
 * An in-toto Statement v1 (https://in-toto.io/Statement/v1) whose
 * predicate is SLSA Provenance v1 (https://slsa.dev/provenance/v1): the
 * format of PyPI attestations and GitHub's artifact attestations. The
 * subject is the wheel (file name, sha256); buildDefinition holds the
 * profile and source as externalParameters, the environment and
 * toolchain as internalParameters, and the source commit, submodules and
 * patches as resolvedDependencies; runDetails names bwbuild and the
 * manifest's inputs_hash. Built from a build's manifest (its "inputs");
 * NULL with the reason in `why` for a manifest without them.
 */
struct json *provenance_statement(const struct json *manifest, struct buf *why);

#endif
