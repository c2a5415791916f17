#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../src/core/buf.h"
#include "../../src/formats/inflate.h"
#include "t.h"

/* Raw deflate from zlib (as zip members hold it) inflated back, with its CRC-32. */

static size_t
deflate_raw(const uint8_t *in, size_t n, uint8_t *out, size_t cap, int level)
{
	z_stream z;
	size_t got;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		return 0;
	}
	got = z.total_out;
	deflateEnd(&z);
	return got;
}

/* Inflate `in`, fed `feed` bytes at a time into a `room`-byte window. */
static int
inflate_all(const uint8_t *in, size_t n, size_t feed, size_t room, struct buf *out, uint32_t *crc,
	    const char **err)
{
	struct raw_inflate *r = raw_inflate_new();
	uint8_t *win = malloc(room);
	size_t off = 0, produced;
	int rc = 0;

	*err = NULL;
	while (rc == 0) {
		if (!raw_inflate_pending(r) && off < n) {
			size_t k = n - off < feed ? n - off : feed;

			raw_inflate_input(r, in + off, k);
			off += k;
		}
		produced = 0;
		rc = raw_inflate_step(r, win, room, &produced, err);
		buf_add(out, win, produced);
		if (rc == 0 && !produced && !raw_inflate_pending(r) && off == n) {
			rc = -2;   /* truncated stream: no more input to give */
			break;
		}
	}
	*crc = raw_inflate_crc(r);
	raw_inflate_free(r);
	free(win);
	return rc;
}

void
t_inflate(void)
{
	size_t n = 300000, clen, i;
	uint8_t *plain = malloc(n), *comp = malloc(n + 1024);
	struct buf out = BUF_INIT;
	uint32_t crc;
	const char *err;
	unsigned seed = 1;

	/* Text-like and random-ish bytes, so both literals and matches are decoded. */
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		plain[i] = i < n / 2 ? (uint8_t)"torch.cuda sm_120 "[i % 18] : (uint8_t)(seed >> 16);
	}
	clen = deflate_raw(plain, n, comp, n + 1024, 6);
	CHECK(clen > 0 && clen < n);

	CHECK(inflate_all(comp, clen, clen, 1 << 16, &out, &crc, &err) == 1);
	CHECK(out.len == n && !memcmp(out.s, plain, n));
	CHECK(crc == (uint32_t)crc32(0, plain, (uInt)n));

	/* Input a few bytes at a time, output into a small window: the same bytes. */
	buf_reset(&out);
	CHECK(inflate_all(comp, clen, 7, 100, &out, &crc, &err) == 1);
	CHECK(out.len == n && !memcmp(out.s, plain, n));
	CHECK(crc == (uint32_t)crc32(0, plain, (uInt)n));

	/* Stored blocks (level 0) and an empty stream. */
	buf_reset(&out);
	clen = deflate_raw(plain, 1000, comp, n + 1024, 0);
	CHECK(inflate_all(comp, clen, clen, 4096, &out, &crc, &err) == 1);
	CHECK(out.len == 1000 && !memcmp(out.s, plain, 1000));
	buf_reset(&out);
	clen = deflate_raw(plain, 0, comp, n + 1024, 9);
	CHECK(inflate_all(comp, clen, clen, 4096, &out, &crc, &err) == 1);
	CHECK(out.len == 0 && crc == 0);

	/* A stream cut short asks for more input; a bad block type is corrupt. */
	buf_reset(&out);
	clen = deflate_raw(plain, n, comp, n + 1024, 6);
	CHECK(inflate_all(comp, clen / 2, clen, 1 << 16, &out, &crc, &err) == -2);
	CHECK(out.len < n);
	buf_reset(&out);
	{
		const uint8_t bad[] = { 0x07, 0x00, 0x00, 0x00 };   /* BFINAL=1, BTYPE=11 (reserved) */

		CHECK(inflate_all(bad, sizeof(bad), sizeof(bad), 64, &out, &crc, &err) == -1);
		CHECK(err != NULL && *err);
	}
	buf_release(&out);
	free(plain);
	free(comp);
}
