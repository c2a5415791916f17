/*
 * Answers kept across runs (answers.h). A run of bwbuild asks cmake,
 * nvcc, the compilers and Python for their versions, and CMake to run the
 * tree's select_compute_arch.cmake: about 0.1 CPU s a run that gives the
 * same answers every time, and a test run makes about a thousand runs.
 *
 * <dir>/<sha256 of the question, hex>: the answer's bytes, nothing else,
 * so nothing is parsed. Written to a temporary in the directory and
 * renamed, so a reader sees a whole answer or none. May include: core/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/answers.h"
#include "core/buf.h"
#include "core/hash.h"
#include "core/safefile.h"
#include "core/util.h"

/* No answer is this long (a --version is a few lines); a longer file is not one. */
#define ANSWER_MAX (64 * 1024)

static char *cache_dir, *answers_dir;

void
answers_keep_in(const char *cache)
{
	struct buf b = BUF_INIT;

	free(cache_dir);
	free(answers_dir);
	cache_dir = answers_dir = NULL;
	if (cache && *cache) {
		cache_dir = xstrdup(cache);
		buf_addf(&b, "%s/answers", cache);
		answers_dir = buf_detach(&b);
	}
}

/* A level trusted as the fetch trusts the cache (rule 6): a directory of this user's, others can't write. */
static int
level_trusted(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * 0 when answers/ may be used: the cache (followed, as the fetch follows
 * its top) and answers/ (never a link) trusted; answers/ made when missing
 * and `create`.
 */
static int
dir_usable(int create)
{
	struct stat st;

	if (!answers_dir || stat(cache_dir, &st) < 0 || !level_trusted(&st))
		return -1;
	if (lstat(answers_dir, &st) < 0) {
		if (errno != ENOENT || !create || mkdir(answers_dir, 0755) < 0 ||
		    lstat(answers_dir, &st) < 0)
			return -1;
	}
	return level_trusted(&st) ? 0 : -1;
}

static void
path_of(const char *question, struct buf *path)
{
	struct buf hex = BUF_INIT;

	sha256_hex(&hex, question, strlen(question));
	buf_addf(path, "%s/%s", answers_dir, hex.s);
	buf_release(&hex);
}

int
answers_get(const char *question, struct buf *out)
{
	struct buf path = BUF_INIT;
	char chunk[4096];
	size_t got = 0;
	ssize_t n;
	int fd, rc = -1;

	if (dir_usable(0) < 0)
		return -1;
	path_of(question, &path);
	fd = open_regular(path.s, O_RDONLY | O_CLOEXEC, 0);
	buf_release(&path);
	if (fd < 0)
		return -1;
	size_t start = out->len;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && (got += (size_t)n) <= ANSWER_MAX)
		buf_add(out, chunk, (size_t)n);
	if (n == 0 && got <= ANSWER_MAX)
		rc = 0;
	else
		buf_setlen(out, start);
	close(fd);
	return rc;
}

void
answers_put(const char *question, const char *answer, size_t len)
{
	struct buf path = BUF_INIT, tmp = BUF_INIT;
	int fd;

	if (len > ANSWER_MAX || dir_usable(1) < 0)
		return;
	path_of(question, &path);
	buf_addf(&tmp, "%s.tmp.%ld.", path.s, (long)getpid());
	random_token(&tmp);
	fd = open(tmp.s, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		int ok = write_all(fd, answer, len) == 0;

		if (close(fd) < 0 || !ok || rename(tmp.s, path.s) < 0)
			unlink(tmp.s);
	}
	buf_release(&path);
	buf_release(&tmp);
}

int
answers_program_fixed(const char *path)
{
	unsigned char magic[4];
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	int elf = fd >= 0 && read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
		  !memcmp(magic, "\177ELF", 4);

	if (fd >= 0)
		close(fd);
	return elf;
}
