/*
 * Fatbin walker. Layout (all little-endian; measured on CUDA 13.0 output,
 * see docs/design/formats.md §7 and, for cubins, §8):
 *
 * A region holds containers back to back, each 8-aligned; zero padding
 * between them is skipped in 8-byte steps.
 *
 * Container header, 16 bytes:
 *	0x00 u32 magic 0xBA55ED50
 *	0x04 u16 version (1)
 *	0x06 u16 header_size (>= 16; entries start at container + header_size)
 *	0x08 u64 fat_size (bytes of entries; the entry walk must end exactly there)
 *
 * Entry header, header_size bytes (>= 64; never assume 64):
 *	0x00 u16 kind (1 PTX, 2 ELF cubin; 4 old cubin and 8 NVVM IR defined, unseen)
 *	0x02 u16 entry version (0x0101)
 *	0x04 u32 header_size (payload at entry + header_size)
 *	0x08 u64 payload_size (next entry = entry + header_size + payload_size)
 *	0x10 u32 compressed_size (0 when raw)
 *	0x14 u32 options descriptor offset
 *	0x18 u16 minor, 0x1A u16 major (ELF ABI / PTX ISA version)
 *	0x1C u32 arch (major*10+minor)
 *	0x20 u32 name offset, 0x24 u32 name length
 *	0x28 u64 flags: 0x2000 LZ4, 0x8000 zstd, 0x100000 'a' target, 0x200000 'f' target
 *	0x30 u64 reserved
 *	0x38 u64 uncompressed size (0 when raw)
 *
 * Target names need no decompression: "sm_"/"compute_" + arch + variant.
 *
 * Deep check: a compressed payload's first compressed_size bytes are one
 * zstd frame or one raw LZ4 block (no frame header) that must expand to
 * exactly uncompressed_size bytes. A cubin is ELF64 with e_machine 190
 * (EM_CUDA) at 0x12; e_flags (u32 at 0x30) holds the SM in bits 0-7 when
 * EI_ABIVERSION (byte 8) is 7 and in bits 8-15 when it is 8.
 *
 * Bounds (docs/design/bounds.md): entries are at least 64 bytes each, so a
 * walk is linear in the region; a deep check streams zstd through a fixed
 * window and allocates an LZ4 block's output only up to 255 x its
 * compressed bytes (LZ4's most), never a claimed size beyond that; all
 * entries of one input together decompress no more than its budget
 * (struct fatbin_budget).
 */
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "formats/elf.h"
#include "formats/fatbin.h"
#include "core/span.h"
#include "core/util.h"

#define FATBIN_MAGIC 0xBA55ED50u
#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u
#define FLAG_ARCH_A 0x100000u
#define FLAG_ARCH_F 0x200000u

int
fatbin_walk(const uint8_t *data, size_t len,
	    int (*cb)(void *ctx, const struct fatbin_entry *e), void *ctx, struct buf *why)
{
	struct span s = { data, len };
	uint64_t off = 0;
	unsigned container = 0;

	while (off + 16 <= len) {
		uint32_t magic = 0;
		uint16_t ver = 0, hs = 0;
		uint64_t fs = 0, p, end;

		rd_u32(s, off, &magic);
		if (magic != FATBIN_MAGIC) {
			if (magic != 0) {
				buf_addf(why, "bad fatbin magic 0x%08x at offset 0x%llx", magic,
					 (unsigned long long)off);
				return -1;
			}
			off += 8;
			continue;
		}
		rd_u16(s, off + 4, &ver);
		rd_u16(s, off + 6, &hs);
		rd_u64(s, off + 8, &fs);
		if (ver != 1) {
			buf_addf(why, "fatbin container %u at 0x%llx has version %u (expected 1)",
				 container, (unsigned long long)off, ver);
			return -1;
		}
		if (hs < 16 || add_u64(off, hs, &p) < 0 || add_u64(p, fs, &end) < 0 || end > len) {
			buf_addf(why, "fatbin container %u at 0x%llx runs past the end of its section",
				 container, (unsigned long long)off);
			return -1;
		}
		while (p < end) {
			struct fatbin_entry e;
			uint32_t ehs = 0, csize = 0, arch = 0;
			uint16_t kind = 0;
			uint64_t psz = 0, next;

			if (end - p < 64) {
				buf_addf(why, "truncated fatbin entry header at 0x%llx",
					 (unsigned long long)p);
				return -1;
			}
			rd_u16(s, p, &kind);
			rd_u32(s, p + 4, &ehs);
			rd_u64(s, p + 8, &psz);
			rd_u32(s, p + 0x10, &csize);
			rd_u32(s, p + 0x1C, &arch);
			memset(&e, 0, sizeof(e));
			rd_u64(s, p + 0x28, &e.flags);
			rd_u64(s, p + 0x38, &e.uncompressed_size);
			if (ehs < 64 || add_u64(p, ehs, &next) < 0 || add_u64(next, psz, &next) < 0 ||
			    next > end) {
				buf_addf(why, "fatbin entry at 0x%llx (header %u, payload %llu bytes) "
					 "runs past its container", (unsigned long long)p, ehs,
					 (unsigned long long)psz);
				return -1;
			}
			if (csize > psz) {
				buf_addf(why, "fatbin entry at 0x%llx claims %u compressed bytes in a "
					 "%llu-byte payload", (unsigned long long)p, csize,
					 (unsigned long long)psz);
				return -1;
			}
			e.container = container;
			e.kind = kind;
			e.arch = arch;
			e.variant = (e.flags & FLAG_ARCH_A) ? 'a' : (e.flags & FLAG_ARCH_F) ? 'f' : 0;
			e.codec = (e.flags & FLAG_ZSTD) ? CODEC_ZSTD : (e.flags & FLAG_LZ4) ? CODEC_LZ4
											: CODEC_RAW;
			e.payload_off = p + ehs;
			e.payload_size = psz;
			e.compressed_size = csize;
			if (cb) {
				int rc = cb(ctx, &e);

				if (rc)
					return rc;
			}
			p = next;
		}
		off = end;
		container++;
	}
	if (off < len) {
		/* Fewer than 16 bytes left: only zero padding is allowed. */
		for (; off < len; off++) {
			if (data[off]) {
				buf_addf(why, "stray bytes after the last fatbin container at 0x%llx",
					 (unsigned long long)off);
				return -1;
			}
		}
	}
	return 0;
}

/* A cubin larger than this is refused rather than allocated. */
#define MAX_CUBIN_BYTES (1ULL << 30)
/* An LZ4 block cannot expand by more than this (a 255-byte run per length byte). */
#define LZ4_MAX_RATIO 255u

static int
check_cubin(const uint8_t *p, size_t n, const struct fatbin_entry *e, struct buf *why)
{
	struct span s = { p, n };
	uint16_t machine = 0;
	uint32_t flags = 0;
	unsigned sm;

	if (n < 64 || memcmp(p, "\x7f" "ELF", 4)) {
		buf_addf(why, "sm_%u entry does not hold an ELF cubin", e->arch);
		return -1;
	}
	rd_u16(s, 0x12, &machine);
	rd_u32(s, 0x30, &flags);
	if (machine != EM_CUDA_) {
		char spare[32];

		buf_addf(why, "sm_%u cubin is built for %s (e_machine %u), not CUDA (190)", e->arch,
			 elf_machine_name(machine, spare, sizeof(spare)), machine);
		return -1;
	}
	if (p[8] == 7)
		sm = flags & 0xff;
	else if (p[8] == 8)
		sm = (flags >> 8) & 0xff;
	else {
		buf_addf(why, "sm_%u cubin has unknown ABI version %u", e->arch, p[8]);
		return -1;
	}
	if (sm != e->arch) {
		buf_addf(why, "entry says sm_%u but its cubin is built for sm_%u", e->arch, sm);
		return -1;
	}
	return 0;
}

/*
 * A zstd frame can claim and produce far more than its bytes (an RLE
 * block of 3 bytes makes 128 KiB), so it is streamed through a fixed
 * window: the first 64 bytes are kept for the cubin header, the rest only
 * counted, and the stream is cut the moment it passes its claimed size.
 */
static int
check_zstd(const uint8_t *payload, const struct fatbin_entry *e, struct buf *why)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	ZSTD_inBuffer in = { payload, (size_t)e->compressed_size, 0 };
	size_t cap = ZSTD_DStreamOutSize(), left = 1;
	uint8_t *win = xmalloc(cap), head[64];
	uint64_t total = 0;
	const char *err = NULL;
	int rc = -1;

	if (!dctx)
		die("out of memory");
	while (left) {
		ZSTD_outBuffer out = { win, cap, 0 };

		left = ZSTD_decompressStream(dctx, &out, &in);
		if (ZSTD_isError(left)) {
			err = ZSTD_getErrorName(left);
			break;
		}
		if (total < sizeof(head))
			memcpy(head + total, win,
			       out.pos < sizeof(head) - total ? out.pos : sizeof(head) - (size_t)total);
		total += out.pos;
		if (total > e->uncompressed_size) {
			err = "more than it claims";
			break;
		}
		if (left && in.pos == in.size && out.pos < cap) {
			err = "truncated frame";
			break;
		}
	}
	if (!err && total != e->uncompressed_size)
		err = "wrong length";
	if (err)
		buf_addf(why, "zstd payload of arch %u does not expand to %llu bytes (%s)", e->arch,
			 (unsigned long long)e->uncompressed_size, err);
	else if (e->kind == FATBIN_ELF)
		rc = check_cubin(head, total < sizeof(head) ? (size_t)total : sizeof(head), e, why);
	else
		rc = 0;
	free(win);
	ZSTD_freeDCtx(dctx);
	return rc;
}

void
fatbin_budget_init(struct fatbin_budget *b, uint64_t input_bytes)
{
	b->total = input_bytes > FATBIN_DEEP_MIN / FATBIN_DEEP_RATIO ?
			   input_bytes * FATBIN_DEEP_RATIO : FATBIN_DEEP_MIN;
	if (input_bytes > UINT64_MAX / FATBIN_DEEP_RATIO)
		b->total = UINT64_MAX;
	b->left = b->total;
}

/* Take `n` bytes from the budget; 0 when fewer are left (nothing taken then). */
static int
budget_take(struct fatbin_budget *b, uint64_t n)
{
	uint64_t left = __atomic_load_n(&b->left, __ATOMIC_RELAXED);

	do {
		if (left < n)
			return 0;
	} while (!__atomic_compare_exchange_n(&b->left, &left, left - n, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 1;
}

int
fatbin_entry_check(const uint8_t *region, size_t len, const struct fatbin_entry *e,
		   struct fatbin_budget *budget, struct buf *why)
{
	const uint8_t *payload;
	uint8_t *out;
	int rc;

	if (!span_has(len, e->payload_off, e->payload_size)) {
		buf_addstr(why, "entry payload lies outside its section");
		return -1;
	}
	payload = region + e->payload_off;
	if (e->codec == CODEC_RAW)
		return e->kind == FATBIN_ELF ? check_cubin(payload, (size_t)e->payload_size, e, why)
					     : 0;
	if (!e->uncompressed_size || e->uncompressed_size > MAX_CUBIN_BYTES ||
	    !e->compressed_size ||
	    (e->codec == CODEC_LZ4 && e->uncompressed_size / LZ4_MAX_RATIO > e->compressed_size)) {
		buf_addf(why, "%s entry for arch %u claims %llu bytes uncompressed",
			 fatbin_codec_name(e->codec), e->arch, (unsigned long long)e->uncompressed_size);
		return -1;
	}
	if (budget && !budget_take(budget, e->uncompressed_size)) {
		buf_addf(why, "%s entry for arch %u not decompressed: its %llu bytes would pass the "
			 "%llu the whole input may decompress (%d x its size, %llu MiB at least; a "
			 "crafted fatbin?)", fatbin_codec_name(e->codec), e->arch,
			 (unsigned long long)e->uncompressed_size, (unsigned long long)budget->total,
			 FATBIN_DEEP_RATIO, (unsigned long long)(FATBIN_DEEP_MIN >> 20));
		return -1;
	}
	if (e->codec == CODEC_ZSTD)
		return check_zstd(payload, e, why);
	out = xmalloc((size_t)e->uncompressed_size);
	{
		int got = e->compressed_size > (uint64_t)INT32_MAX ? -1 :
			  LZ4_decompress_safe((const char *)payload, (char *)out,
					      (int)e->compressed_size, (int)e->uncompressed_size);

		rc = got < 0 || (uint64_t)got != e->uncompressed_size ? -1 : 0;
		if (rc)
			buf_addf(why, "LZ4 payload of arch %u does not expand to %llu bytes", e->arch,
				 (unsigned long long)e->uncompressed_size);
	}
	if (!rc && e->kind == FATBIN_ELF)
		rc = check_cubin(out, (size_t)e->uncompressed_size, e, why);
	free(out);
	return rc;
}

void
fatbin_entry_name(const struct fatbin_entry *e, struct buf *out)
{
	if (e->kind == FATBIN_ELF)
		buf_addstr(out, "sm_");
	else if (e->kind == FATBIN_PTX)
		buf_addstr(out, "compute_");
	else
		buf_addf(out, "kind%u_", e->kind);
	buf_addf(out, "%u", e->arch);
	if (e->variant)
		buf_addch(out, e->variant);
}

const char *
fatbin_codec_name(enum fatbin_codec c)
{
	switch (c) {
	case CODEC_LZ4: return "lz4";
	case CODEC_ZSTD: return "zstd";
	default: return "raw";
	}
}
