#include <stdint.h>

#include "../../src/buf.h"
#include "../../src/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf why = BUF_INIT;
	struct record_row *rows;
	size_t n;

	if (record_parse((const char *)data, size, &rows, &n, &why) == 0)
		record_free(rows, n);
	buf_release(&why);
	return 0;
}
