#include <stdint.h>

#include "../../src/core/buf.h"
#include "../../src/formats/tarzst.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
member(void *ctx, const struct tar_member *m)
{
	size_t *n = ctx;

	*n += m->size + (m->link ? 1 : 0);
	return 0;
}

/* A source bundle's container, as bwbuild build --bundle reads it: zstd, and the tar inside. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tar_limits lim = tar_limits_default;
	struct buf why = BUF_INIT;
	size_t n = 0;

	/* small enough that the fuzzer reaches the limits */
	lim.member = 1 << 16;
	lim.total = 1 << 20;
	lim.members = 64;
	lim.window_log = 20;
	tar_read_mem(data, size, &lim, member, &n, &why);
	buf_reset(&why);
	tarzst_read_mem(data, size, &lim, member, &n, &why);
	buf_release(&why);
	return 0;
}
