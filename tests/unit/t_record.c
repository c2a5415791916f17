#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/formats/record.h"
#include "t.h"

static void
t_wheel_file(void)
{
	struct wheel_file wf;

	wheel_file_parse(&wf, "Wheel-Version: 1.0\r\n"
			      "Generator: bdist_wheel (0.45.1)\n"
			      "Root-Is-Purelib:false\n"
			      "no colon here\n"
			      "\n"
			      "Tag:   cp311-cp311-linux_x86_64\r\n"
			      "Tag: cp311-cp311-manylinux_2_28_x86_64\n"
			      "Build: 1: odd\n"
			      "Empty:");
	CHECK(wf.n == 7);
	if (wf.n == 7) {
		CHECK_STR(wf.fields[0].key, "Wheel-Version");
		CHECK_STR(wf.fields[0].value, "1.0");
		CHECK_STR(wf.fields[1].value, "bdist_wheel (0.45.1)");
		CHECK_STR(wf.fields[2].key, "Root-Is-Purelib");
		CHECK_STR(wf.fields[2].value, "false");
		CHECK_STR(wf.fields[3].key, "Tag");
		CHECK_STR(wf.fields[3].value, "cp311-cp311-linux_x86_64");
		CHECK_STR(wf.fields[4].value, "cp311-cp311-manylinux_2_28_x86_64");
		/* Only the first ':' separates. */
		CHECK_STR(wf.fields[5].key, "Build");
		CHECK_STR(wf.fields[5].value, "1: odd");
		CHECK_STR(wf.fields[6].key, "Empty");
		CHECK_STR(wf.fields[6].value, "");
	}
	wheel_file_release(&wf);
	wheel_file_parse(&wf, "");
	CHECK(wf.n == 0);
	wheel_file_release(&wf);
}

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
	struct buf why = BUF_INIT;

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

	/* Rows beyond what the caller can use are refused as they come, not after 8 M of them. */
	buf_reset(&why);
	CHECK(record_parse_max("a,b,1\n,\n,\n,\n", 12, 2, &rows, &n, &why) < 0);
	CHECK(strstr(why.s, "line 3: more than 2 rows") != NULL);
	CHECK(record_parse_max("a,b,1\n,\n", 8, 2, &rows, &n, &why) == 0 && n == 2);
	record_free(rows, n);

	buf_release(&why);
	t_wheel_file();
}
