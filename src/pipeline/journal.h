#ifndef BWBUILD_JOURNAL_H
#define BWBUILD_JOURNAL_H

#include <stddef.h>

/* <work>/publish.journal: the names a publish is about to write into --out. */
#define PUBLISH_JOURNAL "publish.journal"

/*
 * The wheel `wheel` (named `wname` in --out) and the manifest text into
 * the directory `out` as a pair, under its lock, with <work>/publish.journal
 * (src/pipeline/journal.c). 0, or -1 after reporting with `out` as it was.
 */
int publish_pair(const char *work, const char *out, const char *wheel, const char *wname,
		 const char *mtext, size_t mlen);

#endif
