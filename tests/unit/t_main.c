#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

int t_failures;
int t_checks;
int t_skips;

static const struct suite {
	const char *name;
	void (*fn)(void);
} suites[] = {
#define SUITE(name) { #name, t_##name },
#include "unit-suites.h"
#undef SUITE
};

#define NSUITES (sizeof(suites) / sizeof(suites[0]))

static const char *current_suite = "";

/*
 * TESTTMP (tests/run.sh sets it; `make asan` to obj-asan/tmp), else
 * tests/tmp: two builds' unit runs at once must not share a file.
 */
static const char *
tmp_root(void)
{
	const char *t = getenv("TESTTMP");

	return t && *t ? t : "tests/tmp";
}

/* A TESTTMP so long that a test's path would be cut: cut, it would name another file. */
static void
too_long(const char *name)
{
	fprintf(stderr, "error: the path of '%s' under TESTTMP '%s' is too long\n", name, tmp_root());
	exit(1);
}

/* The unit suites' scratch directory (tests/run.sh empties it before a run). */
static const char *
tmp_dir(void)
{
	static char dir[512];

	if (!dir[0] && (size_t)snprintf(dir, sizeof(dir), "%s/unit", tmp_root()) >= sizeof(dir))
		too_long("unit");
	return dir;
}

const char *
t_path(const char *name)
{
	/* Enough for every path a test holds at once. */
	static char paths[64][512];
	static unsigned next;
	char *p = paths[next++ % 64];

	if ((size_t)snprintf(p, sizeof(paths[0]), "%s/%s", tmp_dir(), name) >= sizeof(paths[0]))
		too_long(name);
	return p;
}

const char *
t_write(const char *name, const char *text)
{
	const char *path = t_path(name);
	FILE *f;

	mkdir_p(tmp_dir());
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	return path;
}

const char *
t_tmpdir(const char *name)
{
	static char path[512];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", tmp_dir(), name) >= sizeof(path))
		too_long(name);
	if (remove_tree(path) < 0 || mkdir_p(path) < 0) {
		fprintf(stderr, "error: cannot make a fresh '%s'\n", path);
		exit(1);
	}
	return path;
}

static int saved_stderr = -1;
static struct buf captured = BUF_INIT;

void
t_stderr_begin(void)
{
	const char *path = t_write("stderr.txt", "");
	int fd = open(path, O_WRONLY | O_TRUNC);

	fflush(stderr);
	saved_stderr = dup(2);
	if (fd < 0 || saved_stderr < 0 || dup2(fd, 2) < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
}

const char *
t_stderr_end(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	buf_reset(&captured);
	if (read_file(&captured, t_path("stderr.txt")) < 0)
		exit(1);
	return captured.s;
}

const char *
t_wheels(void)
{
	static char dir[512];
	struct buf cmd = BUF_INIT;
	struct stat st;

	if (dir[0])
		return dir;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/wheels", tmp_root()) >= sizeof(dir))
		too_long("wheels");
	/* tests/run.sh empties TESTTMP/wheels before a run; a suite run alone makes its own. */
	buf_addf(&cmd, "%s/good", dir);
	if (stat(cmd.s, &st) < 0) {
		mkdir_p(tmp_root());
		buf_reset(&cmd);
		buf_addf(&cmd, "python3 tests/fixtures/wheels/make_wheels.py '%s' >&2", dir);
		if (system(cmd.s)) {
			fprintf(stderr, "error: tests/fixtures/wheels/make_wheels.py failed\n");
			exit(1);
		}
	}
	buf_release(&cmd);
	return dir;
}

const char *
t_wheel(const char *name)
{
	/* As t_path's: enough for every path a test holds at once. */
	static char paths[16][512];
	static unsigned next;
	char *p = paths[next++ % 16];

	if ((size_t)snprintf(p, sizeof(paths[0]), "%s/%s", t_wheels(), name) >= sizeof(paths[0]))
		too_long(name);
	return p;
}

int
t_has(const char *text, const char *fmt, ...)
{
	struct buf want = BUF_INIT;
	va_list ap;
	int found;

	va_start(ap, fmt);
	buf_vaddf(&want, fmt, ap);
	va_end(ap);
	found = text && strstr(text, want.s) != NULL;
	buf_release(&want);
	return found;
}

void
t_skip(const char *why)
{
	t_skips++;
	printf("skip: %s: %s\n", current_suite, why);
}

static int
wanted(const char *name, int argc, char **argv)
{
	int i;

	if (argc == 0)
		return 1;
	for (i = 0; i < argc; i++)
		if (strstr(name, argv[i]))
			return 1;
	return 0;
}

int
main(int argc, char **argv)
{
	struct stat st;
	size_t i;
	int list = 0, ran = 0, bad = 0, empty = 0;

	if (argc > 1 && !strcmp(argv[1], "--list")) {
		list = 1;
		argc--;
		argv++;
	}
	if (argc > 1 && argv[1][0] == '-') {
		fprintf(stderr, "usage: unit [--list] [SUITE-SUBSTRING...]\n");
		return 2;
	}
	for (i = 0; i < NSUITES; i++) {
		int checks = t_checks, failures = t_failures, skips = t_skips;

		if (!wanted(suites[i].name, argc - 1, argv + 1))
			continue;
		ran++;
		if (list) {
			puts(suites[i].name);
			continue;
		}
		if (ran == 1 && stat("tests/fixtures", &st) < 0) {
			fprintf(stderr, "error: no tests/fixtures here; run the unit tests from the top of the tree\n");
			return 2;
		}
		current_suite = suites[i].name;
		suites[i].fn();
		if (t_checks == checks) {
			/* A suite that checks nothing would pass whatever the code does. */
			bad++;
			empty++;
			printf("FAIL %-12s no check ran\n", suites[i].name);
		} else if (t_failures > failures) {
			bad++;
			printf("FAIL %-12s %d of %d checks failed\n", suites[i].name, t_failures - failures,
			       t_checks - checks);
		} else {
			printf("ok   %-12s %d checks%s\n", suites[i].name, t_checks - checks,
			       t_skips > skips ? ", some skipped" : "");
		}
		fflush(stdout);
	}
	if (!ran) {
		fprintf(stderr, "error: no unit suite matches");
		for (i = 1; i < (size_t)argc; i++)
			fprintf(stderr, " '%s'", argv[i]);
		fprintf(stderr, "; see unit --list\n");
		return 2;
	}
	if (list)
		return 0;
	/* tests/run.sh reads the last line. */
	printf("unit: %d suites, %d failed; %d passed, %d failed, %d skipped\n", ran, bad,
	       t_checks - t_failures, t_failures + empty, t_skips);
	return t_failures || empty ? 1 : 0;
}
