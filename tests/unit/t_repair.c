#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/wheel/repair.h"
#include "t.h"

/*
 * An extension repaired against the torch it was built on: its _C.so
 * needs libd1.so.1 (which needs libd2.so.3), and that torch's own repair
 * already carries libd1 under the hashed name this very file gets
 * ("libd1-<sha8>.so.1" in torch.libs/, as the real torch carries libgomp).
 * Nothing is copied: _C.so is pointed at torch's copy, libd2 is left to it,
 * and the wheel gets no ext.libs/ directory.
 */
static const char make_libs[] =
	"set -e\n"
	"printf 'int d2(void) { return 40; }\\n' > d2.c\n"
	"printf 'int d2(void);\\nint d1(void) { return d2() + 2; }\\n' > d1.c\n"
	"printf 'int d1(void);\\nint answer(void) { return d1(); }\\n' > m.c\n"
	"gcc -shared -fPIC -o libd2.so.3 -Wl,-soname,libd2.so.3 d2.c\n"
	"gcc -shared -fPIC -o libd1.so.1 -Wl,-soname,libd1.so.1 d1.c -L. -l:libd2.so.3\n"
	"gcc -shared -fPIC -o libm1.so m.c -L. -l:libd1.so.1\n"
	"mkdir -p in out scratch\n"
	"python3 - <<'PY'\n"
	"import base64, hashlib, zipfile\n"
	"def h(b):\n"
	"    return 'sha256=' + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()\n"
	"files = {'ext/__init__.py': b'', 'ext/_C.so': open('libm1.so', 'rb').read(),\n"
	"         'ext-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\\nName: ext\\nVersion: 1.0\\n\\n',\n"
	"         'ext-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: false\\n'\n"
	"                                    b'Tag: cp311-cp311-linux_x86_64\\n'}\n"
	"rec = ''.join('%s,%s,%d\\n' % (k, h(v), len(v)) for k, v in files.items())\n"
	"rec += 'ext-1.0.dist-info/RECORD,,\\n'\n"
	"with zipfile.ZipFile('in/ext-1.0-cp311-cp311-linux_x86_64.whl', 'w', zipfile.ZIP_DEFLATED) as z:\n"
	"    for k, v in files.items():\n"
	"        z.writestr(k, v)\n"
	"    z.writestr('ext-1.0.dist-info/RECORD', rec)\n"
	"PY\n";

static const char read_back[] =
	"set -e\n"
	"rm -rf x && mkdir x && cd x && python3 -m zipfile -e ../out/ext-1.0-cp311-cp311-linux_x86_64.whl .\n"
	"readelf -d ext/_C.so > ../dynamic.txt\n"
	"find . -type f | sort > ../members.txt\n";

void
t_repair(void)
{
	const char *dir = t_tmpdir("repair");
	char *patchelf = find_program("patchelf"), *gcc = find_program("gcc");
	struct buf path = BUF_INIT, hex = BUF_INIT, name = BUF_INIT, out = BUF_INIT, why = BUF_INIT;
	struct buf text = BUF_INIT;
	struct strvec provided = STRVEC_INIT;
	struct repair_result res = { 0 };
	struct repair_opts o = { 0 };
	char *abs = NULL;

	if (!patchelf || !gcc) {
		t_skip("no patchelf or gcc on PATH (scripts/deps.sh installs them)");
		goto out;
	}
	CHECK(t_git_sh(dir, make_libs) == 0);
	buf_addf(&path, "%s/libd1.so.1", dir);
	CHECK(sha256_file(path.s, &hex) == 0);
	repair_hashed_name("libd1.so.1", hex.s, &name);
	/* The torch's sonames as the extension's build reads them: its vendored libd1 by hashed name. */
	strvec_push(&provided, "libtorch_cpu.so");
	strvec_push(&provided, name.s);
	o.provided = &provided;
	o.provided_libs = "torch.libs";
	buf_reset(&path);
	buf_addf(&path, "%s/scratch", dir);
	o.scratch = path.s;
	/* LD_LIBRARY_PATH's relative entries are skipped, as ld.so's are for a setuid program. */
	abs = realpath(dir, NULL);
	o.ld_library_path = abs;
	o.epoch = 1700000000;
	buf_reset(&text);
	buf_addf(&text, "%s/in/ext-1.0-cp311-cp311-linux_x86_64.whl", dir);
	{
		struct buf odir = BUF_INIT;

		buf_addf(&odir, "%s/out", dir);
		CHECK(wheel_repair(text.s, odir.s, &o, &res, &out, &why) == 0);
		buf_release(&odir);
	}
	if (why.len)
		fprintf(stderr, "repair: %s\n", why.s);
	/* libd1 only, as torch's; libd2 comes with torch's copy, not looked for. */
	CHECK(res.n == 1);
	if (res.n == 1) {
		CHECK_STR(res.libs[0].soname, "libd1.so.1");
		CHECK(res.libs[0].provided);
		CHECK_STR(res.libs[0].name, name.s);
		buf_reset(&text);
		buf_addf(&text, "torch.libs/%s", name.s);
		CHECK_STR(res.libs[0].member, text.s);
	}
	CHECK(res.patched.n == 1 && !strcmp(res.patched.v[0], "ext/_C.so"));
	CHECK(t_git_sh(dir, read_back) == 0);
	buf_reset(&path);
	buf_addf(&path, "%s/dynamic.txt", dir);
	buf_reset(&text);
	CHECK(read_file(&text, path.s) == 0);
	buf_reset(&path);
	buf_addf(&path, "Shared library: [%s]", name.s);
	CHECK(strstr(text.s, path.s) != NULL);
	CHECK(strstr(text.s, "[libd1.so.1]") == NULL);
	/* ext/_C.so: one level below the wheel's root, where torch.libs/ lies when both are installed. */
	CHECK(strstr(text.s, "runpath: [$ORIGIN/../torch.libs]") != NULL);
	buf_reset(&path);
	buf_addf(&path, "%s/members.txt", dir);
	buf_reset(&text);
	CHECK(read_file(&text, path.s) == 0);
	CHECK(strstr(text.s, ".libs/") == NULL);
out:
	repair_result_release(&res);
	strvec_clear(&provided);
	free(patchelf);
	free(gcc);
	free(abs);
	buf_release(&path);
	buf_release(&hex);
	buf_release(&name);
	buf_release(&out);
	buf_release(&why);
	buf_release(&text);
}
