#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/formats/ldconf.h"
#include "../../src/wheel/repair.h"
#include "t.h"

static void
t_hashed_names(void)
{
	struct buf b = BUF_INIT;

	/* auditwheel's names: the stem, '-', 8 hex digits of the sha256, then the .so part. */
	repair_hashed_name("libgomp.so.1", "a34b3233ffff", &b);
	CHECK_STR(b.s, "libgomp-a34b3233.so.1");
	buf_reset(&b);
	repair_hashed_name("libopenblas.so.0", "0123456789", &b);
	CHECK_STR(b.s, "libopenblas-01234567.so.0");
	buf_reset(&b);
	repair_hashed_name("libfoo", "deadbeef00", &b);
	CHECK_STR(b.s, "libfoo-deadbeef");
	buf_release(&b);
}

static int
has(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

/*
 * Issue 40 W8 and U6: an ld.so.conf over 64 KiB was skipped whole and
 * silently; include globs walked the file system without bound (one line
 * 20 s) and a self-including glob ran past 60 s.
 */
static void
t_ldconf_bounds(void)
{
	struct strvec dirs = STRVEC_INIT;
	struct buf big = BUF_INIT, f = BUF_INIT;
	const char *conf, *e, *d = t_tmpdir("ldconf");
	time_t t0;

	buf_addstr(&big, "/first\n");
	while (big.len < 70000)
		buf_addf(&big, "/dir/%06zu\n", big.len);
	buf_addstr(&big, "/last\n");
	conf = t_write("big.conf", big.s);
	t_stderr_begin();
	ldconf_search_dirs(conf, &dirs);
	e = t_stderr_end();
	CHECK(has(&dirs, "/first") && !has(&dirs, "/last"));
	buf_reset(&f);
	buf_addf(&f, "warning: '%s' is %zu bytes; bwbuild reads the loader's directories from "
		 "its first 64 KiB only (%zu bytes, to the end of a line), so a library found "
		 "only in a directory named after that is not found", conf, big.len,
		 (size_t)((const char *)memrchr(big.s, '\n', 65536) - big.s) + 1);
	CHECK(strstr(e, f.s) != NULL);
	strvec_clear(&dirs);

	/* Each file includes every file of the directory, itself too: each read once. */
	for (int i = 0; i < 3; i++) {
		buf_reset(&f);
		buf_addf(&f, "%s/%d.conf", d, i);
		buf_reset(&big);
		buf_addf(&big, "include *.conf\n/lib/%d\n", i);
		CHECK(write_file_atomic(f.s, big.s, big.len) == 0);
	}
	t0 = time(NULL);
	t_stderr_begin();
	ldconf_search_dirs(f.s, &dirs);
	e = t_stderr_end();
	CHECK(has(&dirs, "/lib/0") && has(&dirs, "/lib/1") && has(&dirs, "/lib/2"));
	CHECK_STR(e, "");

	/* 4,200 entries for one pattern: 4,096 looked at, then said. */
	buf_reset(&f);
	buf_addf(&f, "%s/many", d);
	mkdir_p(f.s);
	for (int i = 0; i < 4200; i++) {
		buf_reset(&f);
		buf_addf(&f, "%s/many/%04d", d, i);
		fclose(fopen(f.s, "w"));
	}
	buf_reset(&big);
	buf_addf(&big, "include many/*/x /*/*/*/*/*/*/*\n");
	conf = t_write("ldconf/walk.conf", big.s);
	t_stderr_begin();
	ldconf_search_dirs(conf, &dirs);
	e = t_stderr_end();
	buf_reset(&f);
	buf_addf(&f, "warning: the include patterns of '%s' looked at 4096 directory entries, "
		 "bwbuild's bound; files they match past that are not read", conf);
	CHECK(strstr(e, f.s) != NULL);
	CHECK(time(NULL) - t0 < 10);
	strvec_clear(&dirs);
	buf_release(&big);
	buf_release(&f);
	remove_tree(d);
}

void
t_ldconf(void)
{
	struct strvec dirs = STRVEC_INIT, inc = STRVEC_INIT;
	static const char text[] =
		"# comment\n"
		"include ld.so.conf.d/*.conf\n"
		"/usr/local/lib   # trailing comment\n"
		"/opt/a:/opt/b,/opt/c\t/opt/d/\n"
		"relative/dir\n"
		"hwcap 1 nosegneg\n"
		"/usr/local/lib\n"
		"include /abs/*.conf other.conf\n"
		"\r\n";

	ldconf_parse(text, sizeof(text) - 1, "/etc", 64, &dirs, &inc);
	CHECK(dirs.n == 5);
	if (dirs.n == 5) {
		CHECK_STR(dirs.v[0], "/usr/local/lib");
		CHECK_STR(dirs.v[1], "/opt/a");
		CHECK_STR(dirs.v[2], "/opt/b");
		CHECK_STR(dirs.v[3], "/opt/c");
		CHECK_STR(dirs.v[4], "/opt/d");
	}
	CHECK(inc.n == 3);
	if (inc.n == 3) {
		CHECK_STR(inc.v[0], "/etc/ld.so.conf.d/*.conf");
		CHECK_STR(inc.v[1], "/abs/*.conf");
		CHECK_STR(inc.v[2], "/etc/other.conf");
	}
	strvec_clear(&dirs);
	strvec_clear(&inc);

	/* A NUL inside a word names nothing; the rest of the line still counts. */
	ldconf_parse("/a\0b /c\n", 8, "/etc", 64, &dirs, &inc);
	CHECK(dirs.n == 1 && !strcmp(dirs.v[0], "/c"));
	strvec_clear(&dirs);

	/* At most `max` taken, whatever the text claims. */
	ldconf_parse("/1 /2 /3 /4 /5\ninclude a b c d\n", 30, "/etc", 2, &dirs, &inc);
	CHECK(dirs.n == 2 && inc.n == 2);
	strvec_clear(&dirs);
	strvec_clear(&inc);

	/* A file with an include of itself ends (depth and file limits) and keeps its directories once. */
	{
		const char *conf = t_write("self.conf", "include self.conf\n/self/lib\n");

		ldconf_search_dirs(conf, &dirs);
		CHECK(dirs.n > 1 && !strcmp(dirs.v[0], "/self/lib"));
		for (size_t i = 1; i < dirs.n; i++)
			CHECK(strcmp(dirs.v[i], "/self/lib"));
		strvec_clear(&dirs);
	}
	/* No file: the defaults only. */
	ldconf_search_dirs("/nonexistent/ld.so.conf", &dirs);
	CHECK(dirs.n == 8 && !strcmp(dirs.v[0], "/lib/x86_64-linux-gnu"));
	strvec_clear(&dirs);
	t_hashed_names();
	t_ldconf_bounds();
}
