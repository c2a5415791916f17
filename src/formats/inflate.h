#ifndef BWBUILD_INFLATE_H
#define BWBUILD_INFLATE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Raw deflate (RFC 1951, as zip members store it) through Intel ISA-L's
 * igzip, which inflates 2-3x faster than zlib on torch's libraries, with
 * the zip CRC-32 (the gzip polynomial) of the output computed in the
 * same pass. Only src/formats/inflate.c includes ISA-L's header.
 */
struct raw_inflate;

struct raw_inflate *raw_inflate_new(void);
void raw_inflate_free(struct raw_inflate *r);

/* More compressed input; the previous input must have been used up. */
void raw_inflate_input(struct raw_inflate *r, const uint8_t *in, size_t len);
/* Input not consumed yet. */
size_t raw_inflate_pending(const struct raw_inflate *r);

/*
 * Inflate into out[0..cap): *produced bytes. Returns 1 at the end of the
 * deflate stream, 0 when it needs more input or room, -1 on corrupt data
 * (a reason in *err).
 */
int raw_inflate_step(struct raw_inflate *r, uint8_t *out, size_t cap, size_t *produced,
		     const char **err);

/* CRC-32 of everything produced so far. */
uint32_t raw_inflate_crc(const struct raw_inflate *r);

#endif
