#include <stdint.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/hash.h"
#include "t.h"

static void
b64(const char *data, size_t n, const char *want)
{
	struct buf b = BUF_INIT;

	base64url_nopad(&b, (const uint8_t *)data, n);
	CHECK_STR(b.len ? b.s : "", want);
	buf_release(&b);
}

static void
digest_b64(const char *algo, const char *data, const char *want)
{
	struct digest d;
	struct buf b = BUF_INIT;
	uint8_t md[DIGEST_MAX];

	CHECK(digest_init(&d, algo) == 0);
	digest_update(&d, data, strlen(data));
	digest_final(&d, md);
	base64url_nopad(&b, md, d.size);
	CHECK_STR(b.s, want);
	buf_release(&b);
}

void
t_hash(void)
{
	struct digest d;
	struct buf b = BUF_INIT;

	/* RFC 4648 §10 vectors, every tail length; '-' and '_' for '+' and '/'. */
	b64("", 0, "");
	b64("f", 1, "Zg");
	b64("fo", 2, "Zm8");
	b64("foo", 3, "Zm9v");
	b64("foob", 4, "Zm9vYg");
	b64("fooba", 5, "Zm9vYmE");
	b64("foobar", 6, "Zm9vYmFy");
	b64("\xfb\xff", 2, "-_8");

	/* RECORD's digest encoding, as sha256sum / openssl dgst compute them. */
	digest_b64("sha256", "hello\n", "WJG1tSLV3whtD_CxEPvZ0hu0_HFjrzTQgoai6Eb2vgM");
	digest_b64("sha384", "hello\n",
		   "HQ8oTv4-3qS5yjvVFPoTSxfq42HMx6Hu_v-AG5vWYE4B8h9r8knvAwWZ8MIY8rqM");
	/* RECORD may not use the weak ones. */
	CHECK(digest_init(&d, "md5") < 0);
	CHECK(digest_init(&d, "sha1") < 0);

	sha256_hex(&b, "", 0);
	CHECK_STR(b.s, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	buf_release(&b);
}
