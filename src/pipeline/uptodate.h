#ifndef BWBUILD_UPTODATE_H
#define BWBUILD_UPTODATE_H

struct build;

/*
 * "Up to date means no work": <work>/last-build.json holds the inputs
 * hash of the last build that was published, its wheel and manifest, the
 * wheel's sha256 and the toolchain's identities (stat of each program).
 *
 * uptodate_check computes this build's inputs the way the build would
 * (src/pipeline/inputs.c) without starting any process: the ref resolved in the
 * cached mirror, the work tree's HEAD and changes read by libgit2, the
 * patch series hashed, each tool located and stat-ed (its version recalled
 * when its file is unchanged). When the hash matches and the wheel and
 * manifest in THIS --out are the ones recorded (their sha256) and the
 * wheel still verifies, it prints "up to date" with the wheel and manifest
 * and returns 1; so it does, after publishing them again, when they are
 * not there but the pair kept beside the wheel in <work>/dist still is; 0
 * when the build must run (the reason printed when there was a last
 * build: for changed inputs, the first few that changed, as
 * "profile.resolved.features.flash_attention: true -> false", from the
 * inputs the record keeps); never -1: a doubt means building.
 */
int uptodate_check(const struct build *b);

/* After a publish: remember it, with its inputs, for the next uptodate_check. -1 after reporting. */
int uptodate_record(const struct build *b, const char *inputs_hash, const char *wheel,
		    const char *manifest, const char *manifest_sha256, const char *work_manifest);

#endif
