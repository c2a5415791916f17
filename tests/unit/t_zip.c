#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/formats/zip.h"
#include "t.h"

void
t_zip(void)
{
	struct zip z;
	struct buf out = BUF_INIT, why = BUF_INIT, path = BUF_INIT;
	const struct zip_entry *e;
	const char *w = t_wheels();

	buf_addf(&path, "%s/good/tiny-1.0-py3-none-any.whl", w);
	CHECK(zip_open(&z, path.s) == 0);
	CHECK(z.n == 4);
	e = zip_find(&z, "tiny/__init__.py");
	CHECK(e != NULL);
	if (e) {
		CHECK(zip_read_all(&z, e, &out, 1 << 20, &why) == 0);
		CHECK_STR(out.s, "print('hi')\n");
	}
	zip_close(&z);

	/* Python writes zip64 extras for a member from 2 GiB - 1 on; force one. */
	buf_reset(&out);
	buf_reset(&path);
	buf_addf(&path, "%s/good/zip64-1.0-py3-none-any.whl", w);
	CHECK(zip_open(&z, path.s) == 0);
	e = zip_find(&z, "zip64/data.bin");
	CHECK(e != NULL);
	if (e) {
		CHECK(e->usize == 100000);
		CHECK(zip_read_all(&z, e, &out, 1 << 20, &why) == 0);
		CHECK(out.len == 100000);
	}
	zip_close(&z);

	CHECK(zip_parse(&z, (const uint8_t *)"PK\5\6", 4, &why) < 0);

	/* Bounds: a size deflate cannot produce, and entries sharing one member's bytes. */
	buf_reset(&out);
	buf_reset(&why);
	CHECK(read_file(&out, "tests/fuzz/corpus/zip/zip64-lie.whl") == 0);
	CHECK(zip_parse(&z, (const uint8_t *)out.s, out.len, &why) < 0);
	CHECK(strstr(why.s, "claims 1099511627776 bytes from 68 compressed") != NULL);
	buf_reset(&out);
	buf_reset(&why);
	CHECK(read_file(&out, "tests/fuzz/corpus/zip/overlap.whl") == 0);
	CHECK(zip_parse(&z, (const uint8_t *)out.s, out.len, &why) < 0);
	CHECK(strstr(why.s, "members 'bomb/z00.bin' and 'bomb/z01.bin' share bytes") != NULL);
	buf_release(&out);
	buf_release(&why);
	buf_release(&path);
}
