#include <stdint.h>

#include "../../src/core/buf.h"
#include "../../src/formats/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf why = BUF_INIT, text = BUF_INIT;
	struct record_row *rows;
	struct wheel_file wf;
	size_t n;

	if (record_parse((const char *)data, size, &rows, &n, &why) == 0)
		record_free(rows, n);
	/* As verify reads a wheel's: rows bounded by its members. */
	if (record_parse_max((const char *)data, size, 8, &rows, &n, &why) == 0)
		record_free(rows, n);
	/* The same outside bytes as a WHEEL file. */
	buf_add(&text, data, size);
	wheel_file_parse(&wf, text.s);
	wheel_file_release(&wf);
	buf_release(&why);
	buf_release(&text);
	return 0;
}
