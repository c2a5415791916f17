#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/formats/elf.h"
#include "../../src/formats/fatbin.h"
#include "../../src/core/util.h"
#include "../../src/wheel/verify.h"
#include "t.h"

struct names {
	struct strvec v;
	int zstd;
};

static int
collect(void *ctx, const struct fatbin_entry *e)
{
	struct names *n = ctx;
	struct buf b = BUF_INIT;

	fatbin_entry_name(e, &b);
	strvec_push(&n->v, b.s);
	n->zstd += e->codec == CODEC_ZSTD;
	buf_release(&b);
	return 0;
}

static void
t_fatbin_file(void)
{
	struct buf data = BUF_INIT, why = BUF_INIT;
	struct names n = { STRVEC_INIT, 0 };

	CHECK(read_file(&data, "tests/fixtures/bin/k.fatbin") == 0);
	CHECK(fatbin_walk((const uint8_t *)data.s, data.len, collect, &n, &why) == 0);
	CHECK(n.v.n == 4);
	CHECK(strset_has(&n.v, "sm_80"));
	CHECK(strset_has(&n.v, "sm_90a"));
	CHECK(strset_has(&n.v, "sm_100f"));
	CHECK(strset_has(&n.v, "compute_120"));
	CHECK(n.zstd >= 1); /* PTX is zstd-compressed by default */

	/* Truncation inside a container is an error, never a read past the end. */
	buf_reset(&why);
	CHECK(fatbin_walk((const uint8_t *)data.s, data.len - 9, NULL, NULL, &why) < 0);
	CHECK(strstr(why.s, "runs past") != NULL);
	/* A payload size that wraps around. */
	{
		char *copy = xmalloc(data.len);

		memcpy(copy, data.s, data.len);
		memset(copy + 16 + 8, 0xff, 8);
		buf_reset(&why);
		CHECK(fatbin_walk((const uint8_t *)copy, data.len, NULL, NULL, &why) < 0);
		/* Bad magic. */
		memcpy(copy, data.s, data.len);
		copy[0] = 0x51;
		buf_reset(&why);
		CHECK(fatbin_walk((const uint8_t *)copy, data.len, NULL, NULL, &why) < 0);
		CHECK(strstr(why.s, "magic") != NULL);
		free(copy);
	}
	/* Zero padding only: no entries, no error. */
	{
		uint8_t zeros[64] = { 0 };

		buf_reset(&why);
		CHECK(fatbin_walk(zeros, sizeof(zeros), NULL, NULL, &why) == 0);
	}
	strvec_clear(&n.v);
	buf_release(&data);
	buf_release(&why);
}

/* The fatbin of a real nvcc-built .so, found through its ELF section. */
static void
t_fatbin_so(void)
{
	struct buf data = BUF_INIT, why = BUF_INIT;
	struct names n = { STRVEC_INIT, 0 };
	const struct elf_section *s;
	struct elf e;

	CHECK(read_file(&data, "tests/fixtures/bin/k.so") == 0);
	CHECK(elf_open(&e, (const uint8_t *)data.s, data.len, &why) == 0);
	s = elf_section_by_name(&e, ".nv_fatbin");
	CHECK(s != NULL);
	if (s) {
		CHECK(fatbin_walk((const uint8_t *)data.s + s->offset, s->size, collect, &n, &why) == 0);
		CHECK(strset_has(&n.v, "sm_80"));
		CHECK(strset_has(&n.v, "sm_120"));
		CHECK(strset_has(&n.v, "compute_120"));
		CHECK(!strset_has(&n.v, "compute_80"));
	}
	elf_release(&e);
	strvec_clear(&n.v);
	buf_release(&data);
	buf_release(&why);
}

struct deep {
	char why[160];                 /* the first failure's reason */
	const uint8_t *region;
	size_t len;
	int ok, bad, lz4, zstd;
	uint64_t comp_off, comp_len;   /* the last compressed payload */
	struct fatbin_budget *budget;
	uint64_t expanded;             /* the compressed entries' sizes, uncompressed */
};

static int
deep_check(void *ctx, const struct fatbin_entry *e)
{
	struct deep *d = ctx;
	struct buf why = BUF_INIT;

	d->lz4 += e->codec == CODEC_LZ4;
	d->zstd += e->codec == CODEC_ZSTD;
	if (e->codec != CODEC_RAW) {
		d->comp_off = e->payload_off;
		d->comp_len = e->compressed_size;
		d->expanded += e->uncompressed_size;
	}
	if (fatbin_entry_check(d->region, d->len, e, d->budget, &why) == 0)
		d->ok++;
	else if (!d->bad++)
		snprintf(d->why, sizeof(d->why), "%s", why.s);
	buf_release(&why);
	return 0;
}

/* nvcc -compress-mode=speed (LZ4) and =size (zstd): every entry expands to its size. */
static void
t_fatbin_deep(void)
{
	static const char *const files[] = { "tests/fuzz/corpus/fatbin/k-lz4.fatbin",
					     "tests/fuzz/corpus/fatbin/k-zstd.fatbin" };
	struct buf data = BUF_INIT, why = BUF_INIT;
	size_t i;

	for (i = 0; i < 2; i++) {
		struct deep d = { 0 };

		buf_reset(&data);
		CHECK(read_file(&data, files[i]) == 0);
		d.region = (const uint8_t *)data.s;
		d.len = data.len;
		CHECK(fatbin_walk(d.region, d.len, deep_check, &d, &why) == 0);
		CHECK(d.ok == 3 && d.bad == 0);
		/* speed: SASS raw, PTX LZ4; size: everything zstd (docs/design/formats.md §7.5) */
		CHECK(i == 0 ? d.lz4 == 1 : d.zstd == 3);
		/* A damaged compressed payload must not expand cleanly. */
		CHECK(d.comp_len > 16);
		memset(data.s + d.comp_off + d.comp_len / 2, 0xff, 8);
		memset(&d, 0, sizeof(d));
		d.region = (const uint8_t *)data.s;
		d.len = data.len;
		fatbin_walk(d.region, d.len, deep_check, &d, &why);
		CHECK(d.bad >= 1);
	}
	/* A raw cubin (speed mode's SASS) with a host machine's e_machine: named in words. */
	buf_reset(&data);
	CHECK(read_file(&data, files[0]) == 0);
	{
		struct deep d = { 0 };
		char *elf = memmem(data.s, data.len, "\x7f" "ELF", 4);

		CHECK(elf && elf + 0x14 <= data.s + data.len);
		if (elf && elf + 0x14 <= data.s + data.len) {
			elf[0x12] = 62;
			elf[0x13] = 0;
		}
		d.region = (const uint8_t *)data.s;
		d.len = data.len;
		fatbin_walk(d.region, d.len, deep_check, &d, &why);
		CHECK(d.bad == 1 && strstr(d.why, "cubin is built for x86-64 (e_machine 62), not "
					   "CUDA (190)"));
	}
	buf_release(&data);
	buf_release(&why);
}

/*
 * One budget for a whole input (issue 31): each compressed entry's claim
 * is taken from it before decompressing; once it is spent, the rest are
 * refused undecompressed, however small each is.
 */
static void
t_fatbin_budget(void)
{
	struct buf data = BUF_INIT, why = BUF_INIT;
	struct fatbin_budget b;
	struct deep d = { 0 };

	fatbin_budget_init(&b, 0);
	CHECK(b.total == FATBIN_DEEP_MIN && b.left == b.total);
	fatbin_budget_init(&b, (uint64_t)10 << 20);
	CHECK(b.total == (uint64_t)FATBIN_DEEP_RATIO * (10 << 20));
	fatbin_budget_init(&b, UINT64_MAX / 2);
	CHECK(b.total == UINT64_MAX);

	CHECK(read_file(&data, "tests/fuzz/corpus/fatbin/k-zstd.fatbin") == 0);
	d.region = (const uint8_t *)data.s;
	d.len = data.len;
	d.budget = &b;
	fatbin_budget_init(&b, 0);
	CHECK(fatbin_walk(d.region, d.len, deep_check, &d, &why) == 0);
	CHECK(d.ok == 3 && d.bad == 0 && b.left == b.total - d.expanded);
	/* Room for the first entry only: the other two are refused. */
	b.left = d.expanded / 3 + 1;
	memset(&d, 0, sizeof(d));
	d.region = (const uint8_t *)data.s;
	d.len = data.len;
	d.budget = &b;
	CHECK(fatbin_walk(d.region, d.len, deep_check, &d, &why) == 0);
	CHECK(d.ok >= 1 && d.bad >= 1 && d.ok + d.bad == 3);
	buf_release(&data);
	buf_release(&why);
}

void
t_fatbin(void)
{
	t_fatbin_file();
	t_fatbin_so();
	t_fatbin_deep();
	t_fatbin_budget();
}
