#ifndef BWBUILD_DIFF_H
#define BWBUILD_DIFF_H

#include <stddef.h>

struct json;
struct buf;

/* What a difference may be left out of the count as (`bwbuild diff --ignore`). */
enum {
	/* the release: the wheel's version and local label, torch's version, the commit */
	DIFF_IGNORE_VERSION = 1 << 0,
	/* features, libraries and SASS/PTX targets gained (a loss always counts) */
	DIFF_IGNORE_GAINS = 1 << 1,
};

struct diff_opts {
	double tolerance;   /* percent a benchmark may be slower when its noise is unknown */
	unsigned ignore;    /* DIFF_IGNORE_* */
};

/*
 * Compare two manifests (bwbuild-manifest/1): features gained and lost,
 * libraries added and removed, SASS/PTX gained and lost per library and
 * overall, versions changed, and when both ran `bwbuild smoke`, runtime
 * checks that changed and benchmarks slower than their noise allows (or
 * than `tolerance` percent). Writes a JSON report to *out (caller frees)
 * and a human-readable one to `text`, every difference in both; returns
 * the number of those counted: the ones o->ignore does not leave out
 * (the report's "ignored_differences" are the others).
 */
size_t manifest_diff(const struct json *a, const struct json *b, const struct diff_opts *o,
		     struct json **out, struct buf *text);

/*
 * The verdict of manifest_diff's `report` in words: "builds differ" when a
 * difference counts, "nothing lost" when only gains and versions were left
 * out (gains among them), "builds agree" otherwise.
 */
const char *diff_verdict(const struct json *report);

/* The report's --ignore words as the option takes them: "version,gains", or "none". */
void diff_ignored_words(const struct json *report, struct buf *out);

/*
 * The comparison as Markdown for a pull request's comment: a heading
 * naming the profile (a's and b's manifest's profile.name, else the
 * wheel's name) and the verdict, then sections each headed with that
 * name: the builds side by side, every feature of either with a mark per
 * side, the libraries and SASS/PTX gained and lost, the versions, the
 * runtime differences. `report` is manifest_diff's.
 */
void diff_markdown(const struct json *a, const struct json *b, const struct json *report,
		   struct buf *md);

#endif
