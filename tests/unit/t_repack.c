#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/hash.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/formats/record.h"
#include "../../src/formats/zip.h"
#include "../../src/wheel/repack.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * A wheel rewritten and read back with the zip reader: member order,
 * retagged WHEEL, pinned METADATA, RECORD rows that match, the same
 * bytes whatever the input's order and times.
 */

/* Two wheels of the same files, written by Python in different orders and times. */
static const char make_wheels[] =
	"import sys, zipfile\n"
	"d = sys.argv[1]\n"
	"files = [('ext/__init__.py', b'x = 1\\n', 0o644),\n"
	"         ('ext/_C.so', b'\\x7fELF not really' * 50, 0o755),\n"
	"         ('ext-1.0.dist-info/METADATA',\n"
	"          b'Metadata-Version: 2.1\\nName: ext\\nRequires-Dist: numpy\\n'\n"
	"          b'Requires-Dist: torch>=2.0 ; python_version > \"3\"\\n\\nLong description.\\n', 0o644),\n"
	"         ('ext-1.0.dist-info/WHEEL',\n"
	"          b'Wheel-Version: 1.0\\nRoot-Is-Purelib: false\\nTag: cp311-cp311-linux_x86_64\\n', 0o644)]\n"
	"rec = ''.join('%s,sha256=unchecked,%d\\n' % (n, len(b)) for n, b, m in files)\n"
	"rec += 'ext-1.0.dist-info/RECORD,,\\n'\n"
	"for name, order, year in (('a', 1, 2001), ('b', -1, 2019)):\n"
	"    with zipfile.ZipFile('%s/%s/ext-1.0-cp311-cp311-linux_x86_64.whl' % (d, name), 'w') as z:\n"
	"        for n, b, m in [*files, ('ext-1.0.dist-info/RECORD', rec.encode(), 0o644)][::order]:\n"
	"            i = zipfile.ZipInfo(n, (year, 5, 6, 7, 8, 10))\n"
	"            i.external_attr = (0o100000 | m) << 16\n"
	"            i.compress_type = zipfile.ZIP_DEFLATED\n"
	"            z.writestr(i, b)\n";

static int
read_member(const struct zip *z, const char *name, struct buf *out)
{
	const struct zip_entry *e = zip_find(z, name);
	struct buf why = BUF_INIT;
	int rc;

	buf_reset(out);
	rc = e ? zip_read_all(z, e, out, 1 << 20, &why) : -1;
	buf_release(&why);
	return rc;
}

static void
record_hash(const struct buf *data, struct buf *out)
{
	struct digest d;
	uint8_t md[64];

	digest_init(&d, "sha256");
	digest_update(&d, data->s, data->len);
	digest_final(&d, md);
	buf_addstr(out, "sha256=");
	base64url_nopad(out, md, 32);
}

static void
t_rewrite(const char *dir)
{
	struct repack_opts o = { .platform = "manylinux_2_28_x86_64", .epoch = 1700000000, .requires_name = "torch", .requires = "torch==2.6.0+cu128" };
	struct buf in = BUF_INIT, out = BUF_INIT, why = BUF_INIT, m = BUF_INIT, h = BUF_INIT;
	struct buf a = BUF_INIT, b = BUF_INIT, other = BUF_INIT;
	struct record_row *rows = NULL;
	size_t nrows = 0, i;
	struct zip z;

	buf_addf(&in, "%s/a/ext-1.0-cp311-cp311-linux_x86_64.whl", dir);
	CHECK(wheel_repack(in.s, dir, &o, &out, &why) == 0);
	buf_addf(&h, "%s/ext-1.0-cp311-cp311-manylinux_2_28_x86_64.whl", dir);
	CHECK_STR(out.s, h.s);
	CHECK(zip_open(&z, out.s) == 0);
	CHECK(z.n == 5);
	if (z.n == 5) {
		/* The package's files by name, then .dist-info's, RECORD last. */
		CHECK_STR(z.entries[0].name, "ext/_C.so");
		CHECK_STR(z.entries[1].name, "ext/__init__.py");
		CHECK_STR(z.entries[2].name, "ext-1.0.dist-info/METADATA");
		CHECK_STR(z.entries[3].name, "ext-1.0.dist-info/WHEEL");
		CHECK_STR(z.entries[4].name, "ext-1.0.dist-info/RECORD");
		CHECK(((z.entries[0].ext_attr >> 16) & 0777) == 0755);
		CHECK(((z.entries[1].ext_attr >> 16) & 0777) == 0644);
		CHECK(z.entries[0].method == 8);   /* copied as compressed */
	}
	CHECK(read_member(&z, "ext-1.0.dist-info/WHEEL", &m) == 0);
	CHECK_STR(m.s, "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-manylinux_2_28_x86_64\n");
	buf_reset(&h);
	record_hash(&m, &h);
	buf_addf(&h, ",%zu", m.len);
	CHECK(read_member(&z, "ext-1.0.dist-info/METADATA", &m) == 0);
	CHECK_STR(m.s, "Metadata-Version: 2.1\nName: ext\nRequires-Dist: numpy\n"
		       "Requires-Dist: torch==2.6.0+cu128 ; python_version > \"3\"\n\nLong description.\n");
	CHECK(read_member(&z, "ext/_C.so", &m) == 0);
	CHECK(m.len == 15 * 50 && !memcmp(m.s, "\x7f" "ELF not really", 15));

	/* RECORD: WHEEL's and METADATA's rows follow the new files; the others as they were. */
	CHECK(read_member(&z, "ext-1.0.dist-info/RECORD", &m) == 0);
	CHECK(record_parse(m.s, m.len, &rows, &nrows, &why) == 0);
	CHECK(nrows == 5);
	for (i = 0; i < nrows; i++) {
		struct buf row = BUF_INIT;

		buf_addf(&row, "%s,%s", rows[i].fields[1], rows[i].fields[2]);
		if (!strcmp(rows[i].fields[0], "ext-1.0.dist-info/WHEEL"))
			CHECK_STR(row.s, h.s);
		else if (!strcmp(rows[i].fields[0], "ext/__init__.py"))
			CHECK_STR(row.s, "sha256=unchecked,6");
		else if (!strcmp(rows[i].fields[0], "ext-1.0.dist-info/METADATA"))
			CHECK(starts_with(row.s, "sha256=") && strcmp(row.s, "sha256=unchecked,101"));
		buf_release(&row);
	}
	record_free(rows, nrows);
	zip_close(&z);

	/* The other input (reversed order, other times) gives the same bytes. */
	CHECK(read_file(&a, out.s) == 0);
	buf_reset(&in);
	buf_addf(&in, "%s/b/ext-1.0-cp311-cp311-linux_x86_64.whl", dir);
	buf_addf(&other, "%s/b", dir);
	CHECK(wheel_repack(in.s, other.s, &o, &out, &why) == 0);
	CHECK(read_file(&b, out.s) == 0);
	CHECK(a.len == b.len && !memcmp(a.s, b.s, a.len));

	/* Another epoch: other bytes. Before 1980: the same as 1980. */
	o.epoch = 315532800;
	CHECK(wheel_repack(in.s, other.s, &o, &out, &why) == 0);
	buf_reset(&b);
	CHECK(read_file(&b, out.s) == 0);
	CHECK(a.len == b.len && memcmp(a.s, b.s, a.len));
	o.epoch = 0;
	CHECK(wheel_repack(in.s, other.s, &o, &out, &why) == 0);
	buf_reset(&a);
	CHECK(read_file(&a, out.s) == 0);
	CHECK(a.len == b.len && !memcmp(a.s, b.s, a.len));

	/* No platform: the name stays and the wheel is replaced in place; no pin wanted. */
	o.platform = NULL;
	o.requires = NULL;
	CHECK(wheel_repack(in.s, other.s, &o, &out, &why) == 0);
	CHECK_STR(out.s, in.s);
	CHECK(zip_open(&z, out.s) == 0);
	CHECK(read_member(&z, "ext-1.0.dist-info/WHEEL", &m) == 0);
	CHECK(strstr(m.s, "Tag: cp311-cp311-linux_x86_64\n") != NULL);
	CHECK(read_member(&z, "ext-1.0.dist-info/METADATA", &m) == 0);
	CHECK(strstr(m.s, "Requires-Dist: torch>=2.0") != NULL);
	zip_close(&z);

	buf_release(&in);
	buf_release(&out);
	buf_release(&why);
	buf_release(&m);
	buf_release(&h);
	buf_release(&a);
	buf_release(&b);
	buf_release(&other);
}

static void
t_refused(const char *dir)
{
	struct repack_opts o = { .platform = "manylinux_2_28_x86_64" };
	struct buf out = BUF_INIT, why = BUF_INIT, p = BUF_INIT;

	t_stderr_begin();
	buf_addf(&p, "%s/missing.whl", dir);
	CHECK(wheel_repack(p.s, dir, &o, &out, &why) < 0);
	t_stderr_end();
	CHECK(strstr(why.s, "cannot read") != NULL);

	/* A pure wheel retagged: the name follows. */
	buf_reset(&why);
	CHECK(wheel_repack(t_wheel("good/tiny-1.0-py3-none-any.whl"), dir, &o, &out, &why) == 0);
	CHECK(ends_with(out.s, "/tiny-1.0-py3-none-manylinux_2_28_x86_64.whl"));

	CHECK(wheel_name_with_platform("torch-2.6.0-cp311-cp311-linux_x86_64.whl", "manylinux_2_28_x86_64",
				       &p) == 0);
	CHECK_STR(p.s, "torch-2.6.0-cp311-cp311-manylinux_2_28_x86_64.whl");
	CHECK(wheel_name_with_platform("torch.tar.gz", "x", &p) < 0);
	CHECK(wheel_name_with_platform("torch.whl", "x", &p) < 0);
	buf_release(&out);
	buf_release(&why);
	buf_release(&p);
}

/* Members from files: one replaced in place, one added; RECORD follows both, verify agrees. */
static void
t_files(const char *dir)
{
	struct buf out = BUF_INIT, why = BUF_INIT, m = BUF_INIT, lib = BUF_INIT, add = BUF_INIT;
	struct wheel_report r;
	struct repack_file files[2];
	struct repack_opts o = { .files = files, .nfiles = 2 };
	struct zip z;

	buf_addf(&lib, "%s/new-init.py", dir);
	buf_addf(&add, "%s/libx.so", dir);
	CHECK(write_file_atomic(lib.s, "print('replaced')\n", 18) == 0);
	CHECK(write_file_atomic(add.s, "not really a library", 20) == 0);
	files[0] = (struct repack_file){ "tiny/__init__.py", lib.s, 0644 };
	files[1] = (struct repack_file){ "tiny.libs/libx-01234567.so", add.s, 0755 };
	CHECK(wheel_repack(t_wheel("good/tiny-1.0-py3-none-any.whl"), dir, &o, &out, &why) == 0);
	CHECK(zip_open(&z, out.s) == 0);
	CHECK(read_member(&z, "tiny/__init__.py", &m) == 0);
	CHECK_STR(m.s, "print('replaced')\n");
	CHECK(read_member(&z, "tiny.libs/libx-01234567.so", &m) == 0);
	CHECK_STR(m.s, "not really a library");
	CHECK(zip_find(&z, "tiny.libs/libx-01234567.so") &&
	      (zip_find(&z, "tiny.libs/libx-01234567.so")->ext_attr >> 16) == 0100755);
	CHECK(read_member(&z, "tiny-1.0.dist-info/RECORD", &m) == 0);
	CHECK(strstr(m.s, "tiny.libs/libx-01234567.so,sha256=") != NULL);
	/* The added row goes before RECORD's own, which stays last. */
	CHECK(ends_with(m.s, "tiny-1.0.dist-info/RECORD,,\n"));
	zip_close(&z);
	CHECK(wheel_verify(&r, out.s, NULL) == 0 && r.errors.n == 0);
	wheel_report_release(&r);

	/* Only a package's files: never RECORD, WHEEL, a path out of the wheel or a directory. */
	files[0].member = "tiny-1.0.dist-info/RECORD";
	buf_reset(&why);
	CHECK(wheel_repack(t_wheel("good/tiny-1.0-py3-none-any.whl"), dir, &o, &out, &why) < 0);
	CHECK(strstr(why.s, "'tiny-1.0.dist-info/RECORD' cannot be added to a wheel") != NULL);
	files[0].member = "../evil.py";
	buf_reset(&why);
	CHECK(wheel_repack(t_wheel("good/tiny-1.0-py3-none-any.whl"), dir, &o, &out, &why) < 0);
	CHECK(strstr(why.s, "'../evil.py' cannot be added") != NULL);
	buf_release(&out);
	buf_release(&why);
	buf_release(&m);
	buf_release(&lib);
	buf_release(&add);
}

void
t_repack(void)
{
	const char *d = t_tmpdir("repack");
	char dir[512];
	struct buf cmd = BUF_INIT, sub = BUF_INIT;

	snprintf(dir, sizeof(dir), "%s", d);
	t_wheels();
	buf_addf(&sub, "%s/a", dir);
	mkdir_p(sub.s);
	buf_reset(&sub);
	buf_addf(&sub, "%s/b", dir);
	mkdir_p(sub.s);
	CHECK(write_file_atomic(t_path("repack/make.py"), make_wheels, strlen(make_wheels)) == 0);
	buf_addf(&cmd, "python3 %s %s", t_path("repack/make.py"), dir);
	CHECK(system(cmd.s) == 0);
	t_rewrite(dir);
	t_refused(dir);
	t_files(dir);
	buf_release(&cmd);
	buf_release(&sub);
	remove_tree(dir);
}
