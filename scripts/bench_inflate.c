/*
 * `make bench-inflate WHEEL=… MEMBER=…`: the inflaters packaged for Debian
 * on one deflated wheel member, in one run: zlib (streaming), Intel ISA-L
 * igzip (streaming, what bwbuild uses) and libdeflate (whole buffer only),
 * plus OpenSSL SHA-256 over the inflated bytes for scale. MB/s of
 * inflated output, best of 3.
 */
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "../src/core/buf.h"
#include "../src/formats/zip.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t
run_zlib(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream zs;
	size_t total = 0;

	memset(&zs, 0, sizeof(zs));
	inflateInit2(&zs, -MAX_WBITS);
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	for (;;) {
		int rc;

		zs.next_out = out;
		zs.avail_out = (uInt)cap;
		rc = inflate(&zs, Z_NO_FLUSH);
		total += cap - zs.avail_out;
		if (rc != Z_OK)
			break;
	}
	inflateEnd(&zs);
	return total;
}

static size_t
run_isal(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	static struct inflate_state st;
	size_t total = 0;

	isal_inflate_init(&st);
	st.crc_flag = ISAL_GZIP_NO_HDR;
	st.next_in = (uint8_t *)in;
	st.avail_in = (uint32_t)n;
	while (st.block_state != ISAL_BLOCK_FINISH) {
		st.next_out = out;
		st.avail_out = (uint32_t)cap;
		if (isal_inflate(&st) < 0)
			break;
		total += cap - st.avail_out;
	}
	return total;
}

int
main(int argc, char **argv)
{
	const struct zip_entry *e;
	struct zip z;
	uint8_t *out, *whole;
	size_t cap = 256 << 10, got = 0;
	double best[4] = { 1e9, 1e9, 1e9, 1e9 };

	if (argc != 3 || zip_open(&z, argv[1]) < 0 || !(e = zip_find(&z, argv[2])) || e->method != 8)
		return fprintf(stderr, "usage: bench_inflate WHEEL DEFLATED-MEMBER\n"), 2;
	out = malloc(cap);
	whole = malloc(e->usize);
	for (int r = 0; r < 3; r++) {
		const uint8_t *in = z.data + e->data_off;
		struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
		EVP_MD_CTX *md = EVP_MD_CTX_new();
		unsigned char h[64];
		unsigned hl;
		double t;

		t = now();
		got = run_zlib(in, e->csize, out, cap);
		best[0] = now() - t < best[0] ? now() - t : best[0];
		t = now();
		got = run_isal(in, e->csize, out, cap);
		best[1] = now() - t < best[1] ? now() - t : best[1];
		t = now();
		libdeflate_deflate_decompress(d, in, e->csize, whole, e->usize, &got);
		best[2] = now() - t < best[2] ? now() - t : best[2];
		t = now();
		EVP_DigestInit_ex(md, EVP_sha256(), NULL);
		EVP_DigestUpdate(md, whole, e->usize);
		EVP_DigestFinal_ex(md, h, &hl);
		best[3] = now() - t < best[3] ? now() - t : best[3];
		libdeflate_free_decompressor(d);
		EVP_MD_CTX_free(md);
	}
	printf("member: %s, %.0f MB deflated to %.0f MB\n", e->name, e->csize / 1e6, e->usize / 1e6);
	printf("| inflater | s | MB/s (inflated) |\n|---|---|---|\n");
	printf("| zlib %s (streaming) | %.3f | %.0f |\n", zlibVersion(), best[0], e->usize / 1e6 / best[0]);
	printf("| ISA-L igzip (streaming; bwbuild) | %.3f | %.0f |\n", best[1], e->usize / 1e6 / best[1]);
	printf("| libdeflate (whole buffer) | %.3f | %.0f |\n", best[2], e->usize / 1e6 / best[2]);
	printf("| for scale: SHA-256 (OpenSSL) | %.3f | %.0f |\n", best[3], e->usize / 1e6 / best[3]);
	return 0;
}
