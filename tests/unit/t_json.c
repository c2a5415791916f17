#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/json.h"
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

	/* DEL and C1 controls (a name's CSI) leave as \u escapes, meaning the same (issue 31). */
	j = json_object();
	json_set(j, "n\x7f", json_string("a\xc2\x9b" "2J\x1b\xc2\xa0\xc2"));
	text = json_print(j, 0);
	CHECK_STR(text, "{\"n\\u007f\":\"a\\u009b2J\\u001b\xc2\xa0\xef\xbf\xbd\"}");
	back = json_parse(text, strlen(text), &why);
	CHECK(back != NULL);
	CHECK_STR(json_str(json_get(back, "n\x7f")), "a\xc2\x9b" "2J\x1b\xc2\xa0\xef\xbf\xbd");
	free(text);
	json_free(j);
	json_free(back);

	/* Bidi and zero-width characters too, as the terminal's escaper shows them (issue 40, F4). */
	j = json_object();
	json_set(j, "k", json_string("gpj.\xe2\x80\xae" "exe\xe2\x80\x8b\xe2\x80\xa8 \xe2\x80\x90"));
	text = json_print(j, 0);
	CHECK_STR(text, "{\"k\":\"gpj.\\u202eexe\\u200b\\u2028 \xe2\x80\x90\"}");
	back = json_parse(text, strlen(text), &why);
	CHECK(back != NULL);
	CHECK_STR(json_str(json_get(back, "k")), "gpj.\xe2\x80\xae" "exe\xe2\x80\x8b\xe2\x80\xa8 \xe2\x80\x90");
	free(text);
	json_free(j);
	json_free(back);

	/* One-pass members and the sorted index: the first of repeated keys, as json_get. */
	{
		const char *doc = "{\"b\": 1, \"a\": 2, \"b\": 3, \"c\": [1, 2]}";
		const struct json **items;
		struct json_index ix;
		size_t n;

		j = json_parse(doc, strlen(doc), &why);
		n = json_items(j, &items);
		CHECK(n == 4);
		if (n == 4) {
			CHECK_STR(json_member_key(items[0]), "b");
			CHECK_STR(json_member_key(items[3]), "c");
		}
		free(items);
		json_index_build(&ix, j);
		CHECK(json_number_value(json_index_get(&ix, "b")) == 1);
		CHECK(json_number_value(json_index_get(&ix, "a")) == 2);
		CHECK(json_len(json_index_get(&ix, "c")) == 2);
		CHECK(json_index_get(&ix, "d") == NULL);
		json_index_release(&ix);
		CHECK(json_items(json_get(j, "a"), &items) == 0 && items == NULL);
		json_free(j);
	}

	/* One value, then only white space: trailing bytes are refused (issue 40, W10). */
	{
		const char *ok = "{\"a\": 1}\n \t\r\n", *junk = "{\"a\": 1}\n{\"b\": 2}";

		j = json_parse(ok, strlen(ok), &why);
		CHECK(j != NULL);
		json_free(j);
		buf_reset(&why);
		CHECK(json_parse(junk, strlen(junk), &why) == NULL);
		CHECK_STR(why.s, "trailing bytes after the JSON value, at byte 9");
		buf_reset(&why);
		CHECK(json_parse("[1] x", 5, &why) == NULL);
		CHECK_STR(why.s, "trailing bytes after the JSON value, at byte 4");
	}
	buf_release(&why);
}
