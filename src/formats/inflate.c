#include <isa-l/igzip_lib.h>
#include <stdlib.h>
#include <string.h>

#include "formats/inflate.h"
#include "core/util.h"

struct raw_inflate {
	struct inflate_state st;
};

struct raw_inflate *
raw_inflate_new(void)
{
	struct raw_inflate *r = xcalloc(1, sizeof(*r));

	isal_inflate_init(&r->st);
	/* Raw deflate, and the gzip CRC-32 of the output: zip's CRC. */
	r->st.crc_flag = ISAL_GZIP_NO_HDR;
	return r;
}

void
raw_inflate_free(struct raw_inflate *r)
{
	free(r);
}

void
raw_inflate_input(struct raw_inflate *r, const uint8_t *in, size_t len)
{
	r->st.next_in = (uint8_t *)(uintptr_t)in;
	r->st.avail_in = (uint32_t)len;
}

size_t
raw_inflate_pending(const struct raw_inflate *r)
{
	return r->st.avail_in;
}

int
raw_inflate_step(struct raw_inflate *r, uint8_t *out, size_t cap, size_t *produced,
		 const char **err)
{
	int rc;

	r->st.next_out = out;
	r->st.avail_out = (uint32_t)(cap > UINT32_MAX ? UINT32_MAX : cap);
	rc = isal_inflate(&r->st);
	*produced = (size_t)(r->st.next_out - out);
	if (rc < 0) {
		*err = rc == ISAL_INVALID_BLOCK ? "invalid block" :
		       rc == ISAL_INVALID_SYMBOL ? "invalid symbol" :
		       rc == ISAL_INVALID_LOOKBACK ? "invalid distance too far back" :
						     "invalid deflate data";
		return -1;
	}
	return r->st.block_state == ISAL_BLOCK_FINISH;
}

uint32_t
raw_inflate_crc(const struct raw_inflate *r)
{
	return r->st.crc;
}
