#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/wheel/against.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * An extension against the torch it was built for, both made here: a
 * small "torch" wheel whose libc10.so exports one c10:: symbol, and
 * extension wheels that link to it (pinned or not, one needing a symbol
 * it lacks, one bundling torch's library).
 */

static const char make[] =
	"import sys\n"
	"sys.path.insert(0, 'tests/fixtures/wheels')\n"
	"from make_wheels import wheel\n"
	"d = sys.argv[1]\n"
	"lib = lambda n: open('%s/%s' % (d, n), 'rb').read()\n"
	"tag = 'cp311-cp311-linux_x86_64'\n"
	"wheel(d + '/torch-2.6.0+cu128-%s.whl' % tag, {\n"
	"    'torch/__init__.py': b'',\n"
	"    'torch/version.py': b\"__version__ = '2.6.0+cu128'\\ncuda = '12.8'\\ngit_version = '1eba9b3'\\n\",\n"
	"    'torch/lib/libc10.so': lib('libc10.so')}, name='torch', version='2.6.0+cu128', tag=tag)\n"
	"def ext(name, so, req, extra=None):\n"
	"    files = {'ext/_C.so': lib(so)}\n"
	"    files['ext-1.0.dist-info/METADATA'] = ('Name: ext\\nVersion: 1.0\\n' + req).encode()\n"
	"    files.update(extra or {})\n"
	"    wheel('%s/%s/ext-1.0-%s.whl' % (d, name, tag), files, name='ext', version='1.0', tag=tag)\n"
	"ext('good', 'good.so', 'Requires-Dist: torch==2.6.0+cu128\\n')\n"
	"ext('loose', 'good.so', 'Requires-Dist: torch>=2.0\\n')\n"
	"ext('nopin', 'good.so', '')\n"
	"ext('missing', 'missing.so', 'Requires-Dist: torch==2.6.0+cu128\\n')\n"
	"ext('bundled', 'good.so', 'Requires-Dist: torch==2.6.0+cu128\\n', {'ext/libc10.so': lib('libc10.so')})\n";

static struct buf dir = BUF_INIT;

static int
sh(const char *fmt, const char *a)
{
	struct buf cmd = BUF_INIT;
	int rc;

	buf_addf(&cmd, fmt, a, a, a, a);
	rc = system(cmd.s);
	buf_release(&cmd);
	return rc;
}

/* `case`'s extension wheel checked against `t`: its report into r. */
static int
check(const char *name, const struct torch_ref *t, struct wheel_report *r)
{
	struct buf p = BUF_INIT;
	struct wheel_expect ex;
	int rc;

	memset(&ex, 0, sizeof(ex));
	buf_addf(&p, "%s/%s/ext-1.0-cp311-cp311-linux_x86_64.whl", dir.s, name);
	t_stderr_begin();
	rc = against_verify(r, p.s, &ex, t);
	t_stderr_end();
	buf_release(&p);
	return rc;
}

static void
t_torch(const char *wheel)
{
	struct torch_ref t;
	struct buf p = BUF_INIT;
	struct json *j;
	const char *e;

	CHECK(torch_ref_load(&t, wheel) == 0);
	CHECK_STR(t.name, "torch");
	CHECK_STR(t.package, "torch");
	CHECK_STR(t.version, "2.6.0+cu128");
	CHECK_STR(t.cuda, "12.8");
	CHECK_STR(t.commit, "1eba9b3");
	CHECK(strlen(t.sha256) == 64);
	CHECK(t.dist_info == NULL);
	CHECK(t.sonames.n == 1 && !strcmp(t.sonames.v[0], "libc10.so"));
	CHECK(strset_has(&t.symbols, "_ZN3c106detail4warnEv"));
	CHECK_STR(t.targets, "SASS none; PTX none");
	j = torch_ref_json(&t);
	CHECK_STR(json_str(json_get(j, "version")), "2.6.0+cu128");
	CHECK_STR(json_str(json_get(j, "cuda")), "12.8");
	CHECK(json_str(json_get(j, "wheel_sha256")) && strlen(json_str(json_get(j, "wheel_sha256"))) == 64);
	json_free(j);
	torch_ref_release(&t);

	/* The same torch installed: site-packages/torch, its .dist-info beside it. */
	buf_addf(&p, "%s/site/torch", dir.s);
	CHECK(torch_ref_load(&t, p.s) == 0);
	CHECK_STR(t.version, "2.6.0+cu128");
	CHECK(t.dist_info && ends_with(t.dist_info, "/site/torch-2.6.0+cu128.dist-info"));
	CHECK(t.sha256[0] == '\0');
	torch_ref_release(&t);

	/* A wheel without libraries is no torch to check against. */
	t_stderr_begin();
	CHECK(torch_ref_load(&t, t_wheel("good/tiny-1.0-py3-none-any.whl")) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "has no libraries; --against takes the torch wheel") != NULL);
	buf_release(&p);
}

static void
t_extensions(const char *wheel)
{
	struct torch_ref t;
	struct wheel_report r;

	CHECK(torch_ref_load(&t, wheel) == 0);
	CHECK(check("good", &t, &r) == 0);
	if (r.errors.n)
		fprintf(stderr, "t_against: good: %s\n", r.errors.v[0]);
	CHECK(r.errors.n == 0);
	wheel_report_release(&r);

	CHECK(check("loose", &t, &r) == 0);
	CHECK(t_has_error(&r, "METADATA requires 'torch>=2.0', not the exact torch"));
	CHECK(t_has_error(&r, "torch==2.6.0+cu128"));
	wheel_report_release(&r);

	CHECK(check("nopin", &t, &r) == 0);
	CHECK(t_has_error(&r, "METADATA does not require"));
	wheel_report_release(&r);

	CHECK(check("missing", &t, &r) == 0);
	CHECK(t_has_error(&r, "'ext/_C.so' needs '_ZN3c105otherEv', which torch 2.6.0+cu128 does not export"));
	wheel_report_release(&r);

	CHECK(check("bundled", &t, &r) == 0);
	CHECK(t_has_error(&r, "'ext/libc10.so' bundles torch's own 'libc10.so'"));
	wheel_report_release(&r);
	torch_ref_release(&t);
}

void
t_against(void)
{
	struct buf wheel = BUF_INIT;

	buf_addstr(&dir, t_tmpdir("against"));
	t_wheels();
	CHECK(sh("cd %s && printf 'void w(void) __asm__(\"_ZN3c106detail4warnEv\");\\nvoid w(void) {}\\n' > c10.c && "
		 "cc -shared -fPIC -Wl,-soname,libc10.so -o libc10.so c10.c", dir.s) == 0);
	CHECK(sh("cd %s && printf 'void w(void) __asm__(\"_ZN3c106detail4warnEv\");\\nvoid f(void) { w(); }\\n' > good.c && "
		 "cc -shared -fPIC -o good.so good.c -L. -lc10", dir.s) == 0);
	CHECK(sh("cd %s && printf 'void w(void) __asm__(\"_ZN3c105otherEv\");\\nvoid f(void) { w(); }\\n' > missing.c && "
		 "cc -shared -fPIC -o missing.so missing.c -L. -lc10 -Wl,--no-as-needed", dir.s) == 0);
	{
		struct buf p = BUF_INIT;

		buf_addf(&p, "%s/make.py", dir.s);
		CHECK(write_file_atomic(p.s, make, strlen(make)) == 0);
		buf_reset(&p);
		buf_addf(&p, "python3 %s/make.py %s", dir.s, dir.s);
		CHECK(system(p.s) == 0);
		buf_release(&p);
	}
	buf_addf(&wheel, "%s/torch-2.6.0+cu128-cp311-cp311-linux_x86_64.whl", dir.s);
	CHECK(sh("python3 -m zipfile -e %s/torch-2.6.0+cu128-cp311-cp311-linux_x86_64.whl %s/site", dir.s) == 0);
	t_torch(wheel.s);
	t_extensions(wheel.s);
	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&wheel);
}
