#include <fcntl.h>
#include <openssl/evp.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/hash.h"

int
digest_init(struct digest *d, const char *algo)
{
	const EVP_MD *md;

	if (!strcmp(algo, "sha256"))
		md = EVP_sha256();
	else if (!strcmp(algo, "sha384"))
		md = EVP_sha384();
	else if (!strcmp(algo, "sha512"))
		md = EVP_sha512();
	else
		return -1;
	d->ctx = EVP_MD_CTX_new();
	if (!d->ctx || !EVP_DigestInit_ex(d->ctx, md, NULL))
		die("cannot initialise %s", algo);
	d->size = (size_t)EVP_MD_size(md);
	return 0;
}

void
digest_update(struct digest *d, const void *data, size_t n)
{
	if (!EVP_DigestUpdate(d->ctx, data, n))
		die("digest update failed");
}

void
digest_final(struct digest *d, uint8_t *out)
{
	unsigned int len = 0;

	if (!EVP_DigestFinal_ex(d->ctx, out, &len))
		die("digest finalisation failed");
	EVP_MD_CTX_free(d->ctx);
	d->ctx = NULL;
}

void
digest_abort(struct digest *d)
{
	EVP_MD_CTX_free(d->ctx);
	d->ctx = NULL;
}

void
base64url_nopad(struct buf *out, const uint8_t *data, size_t n)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];

		buf_addch(out, tbl[v >> 18 & 63]);
		buf_addch(out, tbl[v >> 12 & 63]);
		buf_addch(out, tbl[v >> 6 & 63]);
		buf_addch(out, tbl[v & 63]);
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)data[i] << 16;

		buf_addch(out, tbl[v >> 18 & 63]);
		buf_addch(out, tbl[v >> 12 & 63]);
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8;

		buf_addch(out, tbl[v >> 18 & 63]);
		buf_addch(out, tbl[v >> 12 & 63]);
		buf_addch(out, tbl[v >> 6 & 63]);
	}
}

void
hex_encode(struct buf *out, const uint8_t *data, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf_addf(out, "%02x", data[i]);
}

void
sha256_hex(struct buf *out, const void *data, size_t n)
{
	struct digest d;
	uint8_t md[DIGEST_MAX];

	digest_init(&d, "sha256");
	digest_update(&d, data, n);
	digest_final(&d, md);
	hex_encode(out, md, 32);
}
