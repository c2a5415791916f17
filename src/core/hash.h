#ifndef BWBUILD_HASH_H
#define BWBUILD_HASH_H

#include <stddef.h>
#include <stdint.h>

struct buf;

/*
 * Streaming digests through libcrypto: sha256, sha384, sha512 (the
 * algorithms a wheel's RECORD may use).
 */
struct digest {
	void *ctx;
	size_t size;
};

#define DIGEST_MAX 64

/* -1 if `algo` is not one of the allowed names. */
int digest_init(struct digest *d, const char *algo);
void digest_update(struct digest *d, const void *data, size_t n);
/* Writes `d->size` bytes and frees the context. */
void digest_final(struct digest *d, uint8_t *out);
void digest_abort(struct digest *d);

/* RFC 4648 §5 urlsafe base64 without padding (RECORD's encoding). */
void base64url_nopad(struct buf *out, const uint8_t *data, size_t n);
void hex_encode(struct buf *out, const uint8_t *data, size_t n);

/* Hex SHA-256 of bytes in memory. */
void sha256_hex(struct buf *out, const void *data, size_t n);

#endif
