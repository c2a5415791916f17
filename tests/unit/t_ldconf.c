#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
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
}
