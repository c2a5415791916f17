#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/relver.h"
#include "t.h"

static struct relver
rv(const char *s)
{
	struct relver v;

	relver_parse(s, &v, NULL);
	return v;
}

static int
cmp(const char *a, const char *b)
{
	struct relver x = rv(a), y = rv(b);

	return relver_cmp(&x, &y);
}

/* The one release-version type: parse, compare (patch levels, suffixes), format. */
void
t_relver(void)
{
	struct relver v;
	struct buf b = BUF_INIT;
	const char *end;

	CHECK(relver_parse("v2.11.1", &v, &end) == 0 && v.major == 2 && v.minor == 11 &&
	      v.patch == 1 && v.has_patch && !*end);
	CHECK(relver_parse("2.6", &v, &end) == 0 && v.minor == 6 && !v.has_patch && !*end);
	/* A suffix is the release it names; `end` shows it. */
	CHECK(relver_parse("2.6.0a0+gitabc", &v, &end) == 0 && v.patch == 0 && v.has_patch &&
	      !strcmp(end, "a0+gitabc"));
	CHECK(relver_parse("2.11.0+cu130", &v, &end) == 0 && v.minor == 11 && !strcmp(end, "+cu130"));
	CHECK(relver_parse("v2.9.0-rc3", &v, &end) == 0 && v.minor == 9 && !strcmp(end, "-rc3"));
	CHECK(relver_parse("13.0.88", &v, NULL) == 0 && relver_key(&v) == 1300);
	CHECK(relver_parse("0.26", &v, NULL) == 0 && relver_known(&v));
	CHECK(relver_parse("2.", &v, NULL) < 0 && !relver_known(&v));
	CHECK(relver_parse("main", &v, NULL) < 0 && relver_parse("a1b2c3d", &v, NULL) < 0);
	CHECK(relver_parse(NULL, &v, NULL) < 0 && relver_parse("2", &v, NULL) < 0);
	CHECK(relver_parse("1234567890.1", &v, NULL) < 0); /* no overflow */

	CHECK(cmp("2.10", "2.9") > 0 && cmp("2.9", "2.10") < 0);
	CHECK(cmp("2.6.1", "2.6.0") > 0 && cmp("2.6.0", "2.6.1") < 0);
	/* No patch level on one side: the whole minor release. */
	CHECK(cmp("2.6", "2.6.3") == 0 && cmp("2.6.3", "2.6") == 0);
	CHECK(cmp("2.6.0a0+gitabc", "2.6.0") == 0 && cmp("2.6.0+cu130", "2.6.1") < 0);
	CHECK(cmp("3.0", "2.99.9") > 0);

	v = rv("2.11.1");
	relver_format(&v, 0, &b);
	buf_addch(&b, ' ');
	relver_format(&v, 1, &b);
	buf_addch(&b, ' ');
	v = rv("2.12");
	relver_format(&v, 1, &b);
	CHECK_STR(b.s, "2.11 2.11.1 2.12");
	buf_release(&b);
}
