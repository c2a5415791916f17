#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/wheel/archs.h"
#include "t.h"

/*
 * `bwbuild archs` over the CUDA fixtures (k.so: SASS sm_80, sm_120, PTX
 * compute_120; k.fatbin: sm_80, sm_90a, sm_100f, compute_120) as files, in
 * a directory and in a wheel.
 */

static const struct archs_lib *
lib(const struct archs_report *r, const char *suffix)
{
	for (size_t i = 0; i < r->n; i++)
		if (ends_with(r->libs[i].path, suffix))
			return &r->libs[i];
	return NULL;
}

static const char *
fmt(const struct target_counts *c)
{
	static struct buf b = BUF_INIT;

	buf_reset(&b);
	target_counts_format(c, &b);
	return b.s;
}

void
t_archs(void)
{
	const char *d = t_tmpdir("archs");
	struct buf dir = BUF_INIT, p = BUF_INIT, text = BUF_INIT;
	struct strvec paths = STRVEC_INIT;
	struct archs_report r;
	const struct archs_lib *l;
	const char *e;

	buf_addstr(&dir, d);
	t_wheels();
	buf_addf(&p, "%s/tree/lib/libk.so", dir.s);
	CHECK(mkdir_p_parent(p.s) == 0);
	CHECK(copy_file("tests/fixtures/bin/k.so", p.s) == 0);
	buf_reset(&p);
	buf_addf(&p, "%s/tree/lib/libk.so.1", dir.s);
	CHECK(symlink("libk.so", p.s) == 0);          /* links are not followed */
	buf_reset(&p);
	buf_addf(&p, "%s/tree/lib/libfake.so.2", dir.s);
	CHECK(write_file_atomic(p.s, "not ELF", 7) == 0);   /* found by the walk: skipped */
	buf_reset(&p);
	buf_addf(&p, "%s/tree/README", dir.s);
	CHECK(write_file_atomic(p.s, "text", 4) == 0);
	buf_reset(&p);
	buf_addf(&p, "%s/notes.txt", dir.s);
	CHECK(write_file_atomic(p.s, "text", 4) == 0);

	buf_reset(&p);
	buf_addf(&p, "%s/tree", dir.s);
	strvec_push(&paths, p.s);
	strvec_push(&paths, "tests/fixtures/bin/k.fatbin");
	strvec_push(&paths, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"));
	buf_reset(&p);
	buf_addf(&p, "%s/notes.txt", dir.s);
	strvec_push(&paths, p.s);                      /* named: an error of its own */
	CHECK(archs_scan(&r, paths.v, paths.n, 2) == 0);
	CHECK(r.n == 4);
	CHECK(r.files == 4);

	l = lib(&r, "tree/lib/libk.so");
	CHECK(l != NULL);
	if (l) {
		CHECK(l->has_cuda && !l->error);
		CHECK_STR(fmt(&l->sass), "sm_80 (2)  sm_120 (2)");
		CHECK_STR(fmt(&l->ptx), "compute_120 (1)");
		CHECK_STR(fmt(&l->rel_sass), "none");
		CHECK(l->containers == 2);
	}
	l = lib(&r, "k.fatbin");
	CHECK(l != NULL);
	if (l) {
		CHECK_STR(fmt(&l->sass), "sm_80 (1)  sm_90a (1)  sm_100f (1)");
		CHECK_STR(fmt(&l->ptx), "compute_120 (1)");
	}
	l = lib(&r, ".whl:plat/lib/k.so");
	CHECK(l != NULL);
	if (l)
		CHECK_STR(fmt(&l->sass), "sm_80 (2)  sm_120 (2)");
	l = lib(&r, "notes.txt");
	CHECK(l && l->error && !strcmp(l->error, "not an ELF file or a fatbin"));
	CHECK(lib(&r, "libk.so.1") == NULL && lib(&r, "libfake.so.2") == NULL);
	/* Sorted by path. */
	for (size_t i = 1; i < r.n; i++)
		CHECK(strcmp(r.libs[i - 1].path, r.libs[i].path) < 0);
	archs_report_release(&r);

	/* A path that is not there: reported, -1; the others still scanned. */
	strvec_clear(&paths);
	strvec_push(&paths, t_path("archs/none.so"));
	strvec_push(&paths, "tests/fixtures/bin/k.so");
	t_stderr_begin();
	CHECK(archs_scan(&r, paths.v, paths.n, 0) == -1);
	e = t_stderr_end();
	CHECK(t_has(e, "error: cannot read '%s'", t_path("archs/none.so")));
	CHECK(r.n == 1);
	archs_report_release(&r);

	/* Bytes alone: a truncated library is an error, not a crash. */
	{
		struct archs_lib one;
		struct buf so = BUF_INIT;

		CHECK(read_file(&so, "tests/fixtures/bin/k.so") == 0);
		memset(&one, 0, sizeof(one));
		archs_scan_bytes(&one, (const uint8_t *)so.s, so.len, 0);
		CHECK(one.has_cuda && one.containers == 2 && !one.error);
		archs_lib_release(&one);
		memset(&one, 0, sizeof(one));
		archs_scan_bytes(&one, (const uint8_t *)so.s, 100, 0);
		CHECK(one.error != NULL);
		archs_lib_release(&one);
		buf_release(&so);
	}

	strvec_clear(&paths);
	buf_release(&dir);
	buf_release(&p);
	buf_release(&text);
	remove_tree(t_path("archs"));
}
