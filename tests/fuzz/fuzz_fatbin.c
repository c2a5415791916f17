#include <stdint.h>

#include "../../src/buf.h"
#include "../../src/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
touch(void *ctx, const struct fatbin_entry *e)
{
	struct buf *b = ctx;

	fatbin_entry_name(e, b);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf why = BUF_INIT, names = BUF_INIT;

	fatbin_walk(data, size, touch, &names, &why);
	buf_release(&why);
	buf_release(&names);
	return 0;
}
