#include <string.h>

#include "../../src/buf.h"
#include "../../src/hash.h"
#include "../../src/record.h"
#include "t.h"

void
t_record(void)
{
	const char *text =
		"demo/__init__.py,sha256=Crrh4K5yghbuRJk8Wjp1X4scOH2Uf8TE9yyrDkqEIUs,6\r\n"
		"\"a,b.py\",sha256=x,1\n"
		"\n"
		"\"q\"\"uote\",,\n"
		"demo-0.1.dist-info/RECORD,,";
	struct record_row *rows;
	size_t n;
	struct buf why = BUF_INIT, b = BUF_INIT;

	CHECK(record_parse(text, strlen(text), &rows, &n, &why) == 0);
	CHECK(n == 4);
	if (n == 4) {
		CHECK_STR(rows[0].fields[0], "demo/__init__.py");
		CHECK_STR(rows[0].fields[2], "6");
		CHECK_STR(rows[1].fields[0], "a,b.py");
		CHECK_STR(rows[2].fields[0], "q\"uote");
		CHECK(rows[2].nfields == 3);
		CHECK(rows[3].nfields == 3);
		CHECK(rows[3].line == 5);
	}
	record_free(rows, n);
	CHECK(record_parse("\"open,1,2", 9, &rows, &n, &why) < 0);
	CHECK(strstr(why.s, "unterminated") != NULL);

	/* RECORD's digest encoding: sha256 of "print('hi')\n"... of "hello\n". */
	{
		struct digest d;
		uint8_t md[DIGEST_MAX];

		CHECK(digest_init(&d, "sha256") == 0);
		digest_update(&d, "hello\n", 6);
		digest_final(&d, md);
		base64url_nopad(&b, md, 32);
		CHECK_STR(b.s, "WJG1tSLV3whtD_CxEPvZ0hu0_HFjrzTQgoai6Eb2vgM");
		CHECK(digest_init(&d, "md5") < 0);
	}
	buf_release(&why);
	buf_release(&b);
}
