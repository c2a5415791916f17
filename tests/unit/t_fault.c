#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/fault.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/* BWBUILD_FAULT: NAME[:N] kills at the Nth pass, fail:NAME fails, truncate:/regrow: cut a file. */

/* The signal that ended a child which passed `name` `times` times, 0 when it exited. */
static int
killed_by(const char *name, int times)
{
	pid_t pid;
	int status, i;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < times; i++)
			fault_point(name);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static long
size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

void
t_fault(void)
{
	const char *dir = t_tmpdir("fault");
	char path[600];
	const char *e;

	unsetenv("BWBUILD_FAULT");
	fault_point("publish-rename");   /* nothing happens without the variable */
	CHECK(!fault_fail("write"));
	CHECK(killed_by("publish-rename", 3) == 0);

	setenv("BWBUILD_FAULT", "publish-rename", 1);
	CHECK(killed_by("publish-rename", 1) == SIGKILL);
	CHECK(killed_by("publish", 5) == 0);          /* a prefix is not the point */
	setenv("BWBUILD_FAULT", "publish-rename:3", 1);
	CHECK(killed_by("publish-rename", 2) == 0);
	CHECK(killed_by("publish-rename", 3) == SIGKILL);

	setenv("BWBUILD_FAULT", "list", 1);
	t_stderr_begin();
	fault_point("configure-stamp");
	e = t_stderr_end();
	CHECK_STR(e, "fault point: configure-stamp\n");

	setenv("BWBUILD_FAULT", "fail:write", 1);
	CHECK(fault_fail("write"));
	CHECK(!fault_fail("writer"));
	CHECK(!fault_fail("read"));

	snprintf(path, sizeof(path), "%s/wheel.whl", dir);
	CHECK(write_file_atomic(path, "0123456789", 10) == 0);
	setenv("BWBUILD_FAULT", "truncate:zip-read", 1);
	fault_truncate("zip-open", path);
	CHECK(size_of(path) == 10);
	fault_truncate("zip-read", path);
	CHECK(size_of(path) == 5);
	setenv("BWBUILD_FAULT", "regrow:zip-read", 1);
	fault_truncate("zip-read", path);
	CHECK(size_of(path) == 5);      /* its size then: 5 */
	remove(path);
	CHECK(write_file_atomic(path, "abcdefgh", 8) == 0);
	{
		struct buf b = BUF_INIT;
		struct stat before, after;
		int fd = open(path, O_RDONLY);

		CHECK(fd >= 0 && fstat(fd, &before) == 0);
		fault_truncate("zip-read", path);
		/* Rewritten in place: the same file, never cut (a reader's mapping keeps its pages). */
		CHECK(stat(path, &after) == 0 && after.st_ino == before.st_ino);
		CHECK(size_of(path) == 8);
		CHECK(read_file(&b, path) == 0);
		CHECK(b.len == 8 && !memcmp(b.s, "abcd\0\0\0\0", 8));
		close(fd);
		buf_release(&b);
	}
	unsetenv("BWBUILD_FAULT");
	remove_tree(dir);
}
