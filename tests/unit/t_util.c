#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/safefile.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "t.h"

static void
norm(const char *path, const char *want)
{
	struct buf b = BUF_INIT;

	path_normalize(&b, path);
	CHECK_STR(b.s, want);
	buf_release(&b);
}

static int
size_is(const char *text, uint64_t want)
{
	uint64_t v = 12345;

	return parse_size(text, &v) == 0 && v == want;
}

static int
size_bad(const char *text)
{
	uint64_t v;

	return parse_size(text, &v) < 0;
}

static void
t_parse_size(void)
{
	CHECK(size_is("1073741824", 1ULL << 30));
	CHECK(size_is("24G", 24ULL << 30));
	CHECK(size_is("512M", 512ULL << 20));
	CHECK(size_is("512m", 512ULL << 20));
	CHECK(size_is("4k", 4096));
	CHECK(size_is("2T", 2ULL << 40));
	CHECK(size_is("1.5GiB", 3ULL << 29));
	CHECK(size_is("1.5gib", 3ULL << 29));
	CHECK(size_is("8GB", 8ULL << 30)); /* binary units whatever the spelling */
	CHECK(size_is("8Gi", 8ULL << 30));
	CHECK(size_is("5 G", 5ULL << 30));
	CHECK(size_is("0.5K", 512));
	/* Zero parses; the callers refuse a zero budget themselves. */
	CHECK(size_is("0", 0));
	CHECK(size_is("0G", 0));
	/* The largest that fits, and the first that does not. */
	CHECK(size_is("16777215T", 16777215ULL << 40));
	CHECK(size_bad("16777216T"));
	CHECK(size_bad("17179869184G"));
	CHECK(size_bad("18446744073709551615"));
	CHECK(size_bad("1e400"));
	CHECK(size_bad("inf"));
	CHECK(size_bad("nan"));
	/* Garbage. */
	CHECK(size_bad(""));
	CHECK(size_bad("G"));
	CHECK(size_bad("-1G"));
	CHECK(size_bad("12X"));
	CHECK(size_bad("12GX"));
	CHECK(size_bad("12GiBs"));
	CHECK(size_bad("12B")); /* a suffix B only after a unit */
	CHECK(size_bad("12iB"));
	CHECK(size_bad("12G "));
}

static void
t_format_size(void)
{
	struct buf b = BUF_INIT;

	format_size(&b, 1023);
	CHECK_STR(b.s, "1023 B");
	buf_reset(&b);
	format_size(&b, 3ULL << 29);
	CHECK_STR(b.s, "1.5 GiB");
	buf_reset(&b);
	format_size(&b, 2048ULL << 40);
	CHECK_STR(b.s, "2048.0 TiB");
	buf_release(&b);
}

/* An extension's PYTHONPATH and CMAKE_PREFIX_PATH: its torch first, the caller's after. */
static void
t_env_prepend_path(void)
{
	struct strvec env = STRVEC_INIT;

	unsetenv("BWBUILD_T_PATH");
	strvec_env_prepend_path(&env, "BWBUILD_T_PATH", "/site");
	CHECK_STR(strvec_env_get(&env, "BWBUILD_T_PATH"), "/site");
	setenv("BWBUILD_T_PATH", "", 1);
	strvec_env_prepend_path(&env, "BWBUILD_T_PATH", "/site");
	CHECK_STR(strvec_env_get(&env, "BWBUILD_T_PATH"), "/site");
	setenv("BWBUILD_T_PATH", "/a:/b", 1);
	strvec_env_prepend_path(&env, "BWBUILD_T_PATH", "/site");
	CHECK_STR(strvec_env_get(&env, "BWBUILD_T_PATH"), "/site:/a:/b");
	CHECK(env.n == 1);
	unsetenv("BWBUILD_T_PATH");
	strvec_clear(&env);
}

/* SOURCE_DATE_EPOCH: decimal seconds or refused, named; unset or empty leaves the default (W11). */
static void
t_source_date_epoch(void)
{
	char *old = t_env_save("SOURCE_DATE_EPOCH");
	long long t = 42;
	const char *e;

	unsetenv("SOURCE_DATE_EPOCH");
	CHECK(source_date_epoch(&t) == 0 && t == 42);
	setenv("SOURCE_DATE_EPOCH", "", 1);
	CHECK(source_date_epoch(&t) == 0 && t == 42);
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
	CHECK(source_date_epoch(&t) == 1 && t == 1700000000);
	setenv("SOURCE_DATE_EPOCH", "253402300799", 1);
	CHECK(source_date_epoch(&t) == 1 && t == 253402300799LL);
	t = 42;
	for (const char *const *v = (const char *const[]){ "1e9", "-5", " 17", "17\n", "253402300800",
							     "99999999999999999999", NULL }; *v; v++) {
		setenv("SOURCE_DATE_EPOCH", *v, 1);
		t_stderr_begin();
		CHECK(source_date_epoch(&t) == -1 && t == 42);
		e = t_stderr_end();
		CHECK(strstr(e, "error: SOURCE_DATE_EPOCH is '") && strstr(e, "', not a number of "
		      "seconds since 1970 (0 to 253402300799)"));
	}
	t_env_restore("SOURCE_DATE_EPOCH", old);
}

/* data_find: the first directory with the file, or the last with last_wins; "SUBDIR/NAME" when none. */
static void
t_data_find(void)
{
	char *dir = path_absolute(t_tmpdir("data-find"));
	char *old = t_env_save("BWBUILD_T_DATA");
	struct buf env = BUF_INIT, out = BUF_INIT, want = BUF_INIT;

	t_put(dir, "a/f.txt", "a", 0);
	t_put(dir, "b/f.txt", "b", 0);
	t_put(dir, "b/g.txt", "b", 0);
	buf_addf(&env, "%s/a:%s/b", dir, dir);
	setenv("BWBUILD_T_DATA", env.s, 1);
	CHECK(data_find("bw-no-such-dir", "BWBUILD_T_DATA", "f.txt", 0, &out) == 0);
	buf_addf(&want, "%s/a/f.txt", dir);
	CHECK_STR(out.s, want.s);
	CHECK(data_find("bw-no-such-dir", "BWBUILD_T_DATA", "f.txt", 1, &out) == 0);
	buf_reset(&want);
	buf_addf(&want, "%s/b/f.txt", dir);
	CHECK_STR(out.s, want.s);
	CHECK(data_find("bw-no-such-dir", "BWBUILD_T_DATA", "g.txt", 0, &out) == 0);
	CHECK(ends_with(out.s, "/b/g.txt"));
	CHECK(data_find("bw-no-such-dir", "BWBUILD_T_DATA", "h.txt", 0, &out) == -1);
	CHECK_STR(out.s, "bw-no-such-dir/h.txt");
	t_env_restore("BWBUILD_T_DATA", old);
	remove_tree(dir);
	free(dir);
	buf_release(&env);
	buf_release(&out);
	buf_release(&want);
}

void
t_util(void)
{
	norm("/a/b/../c/./d/", "/a/c/d");
	norm("/a/../../b", "/b");
	norm("a/../../b", "../b");
	norm("/", "/");
	norm(".", ".");
	norm("/work/main/profiles/../build/example/minitorch.git", "/work/main/build/example/minitorch.git");

	t_parse_size();
	t_format_size();
	t_env_prepend_path();
	t_source_date_epoch();
	t_data_find();
}
