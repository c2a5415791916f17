#ifndef BWBUILD_DIFF_H
#define BWBUILD_DIFF_H

#include <stddef.h>

struct json;
struct buf;

/*
 * Compare two manifests (bwbuild-manifest/1): features gained and lost,
 * libraries added and removed, SASS/PTX gained and lost per library and
 * overall, versions changed, and when both ran `bwbuild smoke`, runtime
 * checks that changed and benchmarks slower by more than `tolerance`
 * percent. Writes a JSON report to *out (caller frees)
 * and a human-readable one to `text`; returns the number of differences.
 */
size_t manifest_diff(const struct json *a, const struct json *b, double tolerance,
		     struct json **out, struct buf *text);

#endif
