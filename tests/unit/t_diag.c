#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "../../src/core/diag.h"
#include "t.h"

static char err[4096];

/* Run the reports of `fn` with stderr captured into err. */
static void
capture(void (*fn)(void))
{
	int saved, fd;
	ssize_t n;

	fflush(stderr);
	fd = open("tests/tmp/unit/diag.err", O_RDWR | O_CREAT | O_TRUNC, 0666);
	saved = dup(2);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, err, sizeof(err) - 1);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* In the order a validator finds them: merged tree first, checks after. */
static void
unsorted(void)
{
	struct loc b8 = { "b.yaml", 8, 9 }, a10 = { "a.yaml", 10, 3 }, a5 = { "a.yaml", 5, 3 };
	struct loc a5c1 = { "a.yaml", 5, 1 }, parent = { "p.yaml", 4, 16 };

	diag_collect_begin();
	error_at(&b8, "b8");
	error_at(&a10, "a10");
	hint("for a10");
	warning("no place");
	error_at(&a5, "a5");
	note_at(&parent, "set here");
	diag_collect_begin();
	error_at(&a5, "a5 again");
	diag_collect_end();
	error_at(&a5c1, "a5c1");
	diag_collect_end();
}

static void
plain(void)
{
	struct loc b8 = { "b.yaml", 8, 9 }, a5 = { "a.yaml", 5, 3 };

	error_at(&b8, "b8");
	error_at(&a5, "a5");
}

void
t_diag(void)
{
	int errors = diag_errors, warnings = diag_warnings;

	capture(unsorted);
	/* By file, line and column; equals as they came; a note or hint stays with its report. */
	CHECK_STR(err, "a.yaml:5:1: error: a5c1\n"
		       "a.yaml:5:3: error: a5\n"
		       "p.yaml:4:16: note: set here\n"
		       "a.yaml:5:3: error: a5 again\n"
		       "a.yaml:10:3: error: a10\n"
		       "hint: for a10\n"
		       "b.yaml:8:9: error: b8\n"
		       "warning: no place\n");
	CHECK(diag_errors == errors + 5 && diag_warnings == warnings + 1);
	/* Outside a collection: as they come. */
	capture(plain);
	CHECK_STR(err, "b.yaml:8:9: error: b8\na.yaml:5:3: error: a5\n");
}
