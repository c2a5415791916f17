#ifndef BWBUILD_FATBIN_H
#define BWBUILD_FATBIN_H

#include <stddef.h>
#include <stdint.h>

struct buf;

/*
 * CUDA fat binaries as nvcc embeds them in host ELF sections (.nv_fatbin,
 * __nv_relfatbin). The format is specified at the top of fatbin.c.
 */

enum fatbin_kind { FATBIN_PTX = 1, FATBIN_ELF = 2 };
enum fatbin_codec { CODEC_RAW, CODEC_LZ4, CODEC_ZSTD };

struct fatbin_entry {
	unsigned container;       /* index of the container in the region */
	unsigned kind;            /* FATBIN_PTX, FATBIN_ELF, or other (reported, not fatal) */
	unsigned arch;            /* major*10+minor: 80, 100, 120 */
	char variant;             /* 'a', 'f' or 0 */
	enum fatbin_codec codec;
	uint64_t flags;
	uint64_t payload_off;     /* from the start of the region */
	uint64_t payload_size;
	uint64_t compressed_size; /* 0 when raw */
	uint64_t uncompressed_size;
};

/*
 * Walk every container and entry in `data` (a section's bytes, or a whole
 * .fatbin file). `cb` is called per entry; a non-zero return stops the walk
 * and is returned. -1 with a reason in `why` on malformed input.
 */
int fatbin_walk(const uint8_t *data, size_t len,
		int (*cb)(void *ctx, const struct fatbin_entry *e), void *ctx, struct buf *why);

/*
 * The deep check of one entry (`region` is what fatbin_walk walked):
 * decompress the payload (zstd: one frame; LZ4: a raw block) and require
 * exactly uncompressed_size bytes; for ELF entries require a CUDA cubin
 * (EM_CUDA) whose SM, read from e_flags by its ABI version, is the entry's
 * arch. -1 with a reason in `why`.
 */
/*
 * Real fatbins carry a few dozen distinct targets; readers that keep a
 * sorted set of them stop at this many (each insertion is linear in the
 * set), so a crafted region of a million distinct arches costs no more
 * than a real one.
 */
#define FATBIN_MAX_TARGETS 256
/* Deep-check failures named per library before they are only counted. */
#define FATBIN_DEEP_ERRORS_LISTED 5

/*
 * What the deep checks of one input (a wheel, an installed package, a
 * file) may decompress in all: FATBIN_DEEP_RATIO x the input's bytes, at
 * least FATBIN_DEEP_MIN. Real cubins expand 4-6 x under zstd, and the
 * zip's deflate cannot shrink them further; a zstd frame of RLE blocks
 * makes 1 GiB from 32 KiB, so without this 3,000 such entries in a 175 KB
 * wheel made 3 TB of work. Each compressed entry's claim is taken from
 * `left` before it is decompressed, atomically: one budget is shared by
 * the threads of a verify.
 */
#define FATBIN_DEEP_RATIO 64
#define FATBIN_DEEP_MIN ((uint64_t)64 << 20)
struct fatbin_budget {
	uint64_t total, left;
};
void fatbin_budget_init(struct fatbin_budget *b, uint64_t input_bytes);

/* `budget` NULL: bounded per entry only (tests, a single fatbin file). */
int fatbin_entry_check(const uint8_t *region, size_t len, const struct fatbin_entry *e,
		       struct fatbin_budget *budget, struct buf *why);

/* "sm_120a", "compute_120", "kind8_90" */
void fatbin_entry_name(const struct fatbin_entry *e, struct buf *out);
const char *fatbin_codec_name(enum fatbin_codec c);

#endif
