/*
 * Fatbin walker. Layout (all little-endian; measured on CUDA 13.0 output,
 * see binary-formats.md §3-4):
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
 */
#include <string.h>

#include "buf.h"
#include "fatbin.h"
#include "span.h"

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
