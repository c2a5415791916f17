#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../src/pipeline/build.h"
#include "../../src/core/buf.h"
#include "../../src/core/diag.h"
#include "../../src/core/util.h"
#include "t.h"

/* What step_note(step, fmt, arg) writes to stderr (fmt NULL: "%s done in %.1f s"). */
static void
note_fmt(enum step step, const char *fmt, const char *arg, struct buf *out)
{
	const char *path = t_write("diag-note", "");
	int saved = dup(2), fd = open(path, O_WRONLY | O_TRUNC);

	fflush(stderr);
	dup2(fd, 2);
	errno = ENOENT;
	if (fmt)
		step_note(step, fmt, arg);
	else
		step_note(step, "%s done in %.1f s", arg, 1.25);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	buf_reset(out);
	CHECK(read_file(out, path) == 0);
}

static void
note_of(enum step step, const char *arg, struct buf *out)
{
	note_fmt(step, NULL, arg, out);
}

void
t_steps(void)
{
	struct buf b = BUF_INIT;

	/* One name per step, each found again by name: --until, logs and prefixes agree. */
	for (int i = 0; i < STEP__COUNT; i++) {
		CHECK(step_names[i] && *step_names[i]);
		CHECK(step_from_name(step_names[i]) == i);
	}
	CHECK(step_from_name("link") == -1);
	CHECK_STR(step_names[STEP_SMOKE], "smoke");
	note_of(STEP_CONFIGURE, "cmake", &b);
	CHECK_STR(b.s, "configure: cmake done in 1.2 s\n");
	note_of(STEP_PUBLISH, "", &b);
	CHECK_STR(b.s, "publish:  done in 1.2 s\n");
	/* A note's ':' introduces a list: no strerror of whatever errno was left (it read "): No such file"). */
	note_fmt(STEP_CONFIGURE, "requested vs effective (%s):", "x/build", &b);
	CHECK_STR(b.s, "configure: requested vs effective (x/build):\n");
	buf_release(&b);
}
