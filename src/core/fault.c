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

	/* regrow: cut to half and back to the full size, the second half zeros (rewritten in place). */
	if (!regrow && (!want || strncmp(want, "truncate:", 9) || strcmp(want + 9, name)))
		return;
	if (stat(path, &st) == 0 &&
	    (truncate(path, st.st_size / 2) < 0 || (regrow && truncate(path, st.st_size) < 0)))
		perror(path);
}

int
fault_fail(const char *name)
{
	const char *want = getenv("BWBUILD_FAULT");

	return want && !strncmp(want, "fail:", 5) && !strcmp(want + 5, name);
}
