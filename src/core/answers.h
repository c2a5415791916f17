#ifndef BWBUILD_ANSWERS_H
#define BWBUILD_ANSWERS_H

#include <stddef.h>

struct buf;

/*
 * Answers kept across runs (src/core/answers.c): what a program said
 * about itself or about a file's contents, in <cache>/answers/, one file
 * per question named by its SHA-256. A question names everything its
 * answer depends on (the program's path and file identity, its
 * arguments, the contents of the files it read), so a kept answer is
 * never stale: another program, version or file is another question.
 *
 * Best effort and quiet: a cache or answers/ that is missing, not this
 * user's or writable by others, or an answers/ that is a link, is not used, and a failed write
 * is left unsaid (the question is asked again next time).
 */

/*
 * Keep answers in `cache`/answers (made when first needed), or with NULL
 * nowhere. Checked at each use, not here: a run that never asks pays
 * nothing.
 */
void answers_keep_in(const char *cache);

/* The kept answer to `question` into `out` (appended): 0, or -1 when none. */
int answers_get(const char *question, struct buf *out);

/* Keep `answer` (len bytes) for `question`, replacing any. */
void answers_put(const char *question, const char *answer, size_t len);

/*
 * Whether the program at `path` is an ELF executable, whose answers about
 * itself (--version) depend on its file alone; a script's may read
 * anything. 1 or 0.
 */
int answers_program_fixed(const char *path);

#endif
