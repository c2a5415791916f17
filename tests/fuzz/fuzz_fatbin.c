#include <stdint.h>

#include "../../src/core/buf.h"
#include "../../src/formats/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ctx {
	const uint8_t *data;
	size_t size;
	struct buf names;
	struct fatbin_budget budget;
};

/* Name every entry and run the deep check (decompression, cubin header) on it. */
static int
touch(void *vctx, const struct fatbin_entry *e)
{
	struct ctx *c = vctx;
	struct buf why = BUF_INIT;

	fatbin_entry_name(e, &c->names);
	fatbin_entry_check(c->data, c->size, e, &c->budget, &why);
	buf_release(&why);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = { data, size, BUF_INIT, { 0, 0 } };
	struct buf why = BUF_INIT;

	fatbin_budget_init(&c.budget, size);
	fatbin_walk(data, size, touch, &c, &why);
	buf_release(&why);
	buf_release(&c.names);
	return 0;
}
