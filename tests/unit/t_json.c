#include <stdlib.h>
#include <string.h>

#include "../../src/buf.h"
#include "../../src/json.h"
#include "t.h"

/* A string that is not UTF-8 (a --work path, say) still makes valid JSON. */
void
t_json(void)
{
	struct json *j = json_object(), *back;
	struct buf why = BUF_INIT;
	char *text;

	json_set(j, "bad", json_string("/work/\xff\xfe-caf\xc3\xa9-\xed\xa0\x80-\xc3"));
	json_set(j, "good", json_string("caf\xc3\xa9 \xf0\x9f\x9a\x80"));
	text = json_print(j, 0);
	back = json_parse(text, strlen(text), &why);
	CHECK(back != NULL);
	CHECK_STR(json_str(json_get(back, "bad")),
		  "/work/\xef\xbf\xbd\xef\xbf\xbd-caf\xc3\xa9-\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd-\xef\xbf\xbd");
	CHECK_STR(json_str(json_get(back, "good")), "caf\xc3\xa9 \xf0\x9f\x9a\x80");
	free(text);
	json_free(j);
	json_free(back);
	buf_release(&why);
}
