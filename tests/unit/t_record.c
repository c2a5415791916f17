#include <string.h>

#include "../../src/buf.h"
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

	buf_release(&why);
}
