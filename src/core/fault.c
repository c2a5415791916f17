#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fault.h"

void
fault_point(const char *name)
{
	static unsigned hits;
	const char *want = getenv("BWBUILD_FAULT");
	size_t n;
	unsigned nth = 1;

	if (!want || !*want)
		return;
	if (!strcmp(want, "list")) {
		fprintf(stderr, "fault point: %s\n", name);
		return;
	}
	n = strcspn(want, ":");
	if (strlen(name) != n || strncmp(want, name, n))
		return;
	if (want[n] == ':')
		nth = (unsigned)strtoul(want + n + 1, NULL, 10);
	if (++hits == nth) {
		fflush(stderr);
		raise(SIGKILL);
	}
}

void
fault_truncate(const char *name, const char *path)
{
	const char *want = getenv("BWBUILD_FAULT");
	struct stat st;

	int regrow = want && !strncmp(want, "regrow:", 7) && !strcmp(want + 7, name);

	if (!regrow && (!want || strncmp(want, "truncate:", 9) || strcmp(want + 9, name)))
		return;
	if (stat(path, &st) < 0)
		return;
	if (!regrow) {
		if (truncate(path, st.st_size / 2) < 0)
			perror(path);
		return;
	}
	/*
	 * regrow: the second half overwritten with zeros, the size kept. Never
	 * shorter, not even for a moment: a cut and an extension would let a
	 * reader's other thread (verify hashes the whole wheel beside the
	 * members) touch a mapped page past the end, and SIGBUS would tell
	 * another story than the rewrite this stands for.
	 */
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	static const char zeros[4096];

	for (off_t at = st.st_size / 2; fd >= 0 && at < st.st_size;) {
		size_t n = (size_t)(st.st_size - at < (off_t)sizeof(zeros) ? st.st_size - at : (off_t)sizeof(zeros));
		ssize_t w = pwrite(fd, zeros, n, at);

		if (w <= 0) {
			perror(path);
			break;
		}
		at += w;
	}
	if (fd < 0)
		perror(path);
	else
		close(fd);
}

int
fault_fail(const char *name)
{
	const char *want = getenv("BWBUILD_FAULT");

	return want && !strncmp(want, "fail:", 5) && !strcmp(want + 5, name);
}
