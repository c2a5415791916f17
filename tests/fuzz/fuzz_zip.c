#include <stdint.h>

#include "../../src/core/buf.h"
#include "../../src/formats/zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf why = BUF_INIT, out = BUF_INIT;
	struct zip z;
	size_t i;

	if (zip_parse(&z, data, size, &why) == 0) {
		for (i = 0; i < z.n; i++) {
			buf_reset(&out);
			zip_read_all(&z, &z.entries[i], &out, 1 << 20, &why);
		}
		zip_close(&z);
	}
	buf_release(&why);
	buf_release(&out);
	return 0;
}
