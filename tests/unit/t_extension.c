#include <stdlib.h>
#include <string.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/resolve.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * kind: extension: the torch it builds on (a small CUDA torch wheel made
 * here from the fixture k.so: SASS sm_80 sm_120, PTX compute_120) checked
 * against the archs asked for, unpacked for the build, the companion
 * release judged; the libraries' archs against the profile's.
 */

static struct buf dir = BUF_INIT;
static const char *ref = "v0.22.0";

static const char make[] =
	"import sys\n"
	"sys.path.insert(0, 'tests/fixtures/wheels')\n"
	"from make_wheels import wheel\n"
	"tag = 'cp311-cp311-linux_x86_64'\n"
	"wheel(sys.argv[1] + '/torch-2.7.0+cu128-%s.whl' % tag, {\n"
	"    'torch/__init__.py': b'',\n"
	"    'torch/version.py': b\"__version__ = '2.7.0+cu128'\\ncuda = '12.8'\\n\",\n"
	"    'torch/lib/libtorch_cuda.so': open('tests/fixtures/bin/k.so', 'rb').read()},\n"
	"    name='torch', version='2.7.0+cu128', tag=tag)\n";

/* An extension build of `archs` (resolved), its source dir `src`. */
static int
setup(struct build *b, struct build_opts *bo, const char *archs, const char *torch)
{
	struct buf text = BUF_INIT;
	int rc;

	buf_addf(&text, "name: t-ext\nkind: extension\ntorch: %s\n"
			"source: {repo: https://example.invalid/vision.git, ref: %s}\n"
			"cuda: {version: \"12.8\", archs: [%s]}\n", torch, ref, archs);
	t_put(dir.s, "p.yaml", text.s, 0);
	memset(bo, 0, sizeof(*bo));
	buf_reset(&text);
	buf_addf(&text, "%s/p.yaml", dir.s);
	bo->r.profile = xstrdup(text.s);
	buf_reset(&text);
	buf_addf(&text, "%s/work", dir.s);
	bo->r.work_dir = xstrdup(text.s);
	buf_reset(&text);
	buf_addf(&text, "%s/src", dir.s);
	bo->r.source_dir = xstrdup(text.s);
	build_init(b, bo);
	t_stderr_begin();
	rc = resolve_profile(&b->profile, &bo->r) < 0 || resolve_plan(&b->plan, &b->profile, &bo->r) < 0;
	t_stderr_end();
	buf_release(&text);
	return rc ? -1 : 0;
}

static void
teardown(struct build *b, struct build_opts *bo)
{
	build_release(b);
	free((char *)bo->r.profile);
	free((char *)bo->r.work_dir);
	free((char *)bo->r.source_dir);
}

void
t_extension(void)
{
	struct build b;
	struct build_opts bo;
	struct buf torch = BUF_INIT, p = BUF_INIT;
	const char *e;
	char *abs = path_absolute(t_tmpdir("extension"));

	buf_addstr(&dir, abs);
	free(abs);
	t_put(dir.s, "make.py", make, 0);
	buf_addf(&p, "python3 %s/make.py %s", dir.s, dir.s);
	CHECK(system(p.s) == 0);
	buf_addf(&torch, "%s/torch-2.7.0+cu128-cp311-cp311-linux_x86_64.whl", dir.s);
	t_put(dir.s, "src/setup.py", "# an extension\n", 0);
	t_put(dir.s, "src/version.txt", "0.22.0\n", 0);

	/* 8.0 and 12.0: this torch runs on both. */
	CHECK(setup(&b, &bo, "\"8.0\", \"12.0\"", torch.s) == 0);
	t_stderr_begin();
	CHECK(extension_check(&b) == 0);
	e = t_stderr_end();
	CHECK(b.have_torch);
	CHECK(strstr(e, "bwbuild: builds on torch 2.7.0+cu128 (") != NULL);
	/* The tree: a torchvision release for this torch; torch unpacked for the build only. */
	t_stderr_begin();
	CHECK(extension_tree(&b) == 0);
	e = t_stderr_end();
	CHECK(strstr(e, "fetch: torchvision 0.22 goes with torch 2.7.0+cu128\n") != NULL);
	CHECK(strstr(e, "fetch: unpacking ") != NULL);
	CHECK(ends_with(b.torch_site.s, "/work/torch-site"));
	buf_reset(&p);
	buf_addf(&p, "%s/torch/lib/libtorch_cuda.so", b.torch_site.s);
	CHECK(is_regular(p.s));
	/* Again: the stamp says it is there already. */
	t_stderr_begin();
	CHECK(extension_tree(&b) == 0);
	e = t_stderr_end();
	CHECK(strstr(e, "fetch: unpacking ") == NULL);

	/* Its libraries carry what the profile asked for, no more. */
	strvec_clear(&b.plan.sass);
	strvec_clear(&b.plan.ptx);
	strvec_push(&b.plan.sass, "sm_80");
	buf_addstr(&b.wheel, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"));
	t_wheels();
	CHECK(wheel_verify(&b.report, b.wheel.s, NULL) == 0);
	b.have_report = 1;
	t_stderr_begin();
	extension_verify(&b, 0);
	t_stderr_end();
	{
		int found = 0;

		for (size_t i = 0; i < b.report.errors.n; i++)
			found |= strstr(b.report.errors.v[i], "'plat/lib/k.so' carries sm_120 compute_120, "
					"which cuda.archs (") != NULL;
		CHECK(found);
	}
	teardown(&b, &bo);

	/* 9.0: no code of this torch runs there. */
	CHECK(setup(&b, &bo, "\"9.0\"", torch.s) == 0);
	t_stderr_begin();
	CHECK(extension_check(&b) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "torch 2.7.0+cu128 does not run on sm_90 (it carries SASS sm_80 sm_120; PTX compute_120)") != NULL);
	teardown(&b, &bo);

	/*
	 * A torchvision tag of another torch's release: refused with the torch,
	 * before any fetch (plan and doctor check it so), at source.ref.
	 */
	ref = "v0.21.0";
	CHECK(setup(&b, &bo, "\"8.0\"", torch.s) == 0);
	t_stderr_begin();
	CHECK(extension_check(&b) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "p.yaml:4:57: error: torchvision 0.21 is released for torch 2.6, not 2.7; "
			"torch 2.7 goes with torchvision 0.22 (tag v0.22.0); a companion built "
			"against another torch fails at import") != NULL);
	teardown(&b, &bo);
	ref = "v0.22.0";

	/* A torchvision of another torch's release; a tree without setup.py; no such torch. */
	t_put(dir.s, "src/version.txt", "0.21.0\n", 0);
	CHECK(setup(&b, &bo, "\"8.0\"", torch.s) == 0);
	t_stderr_begin();
	CHECK(extension_check(&b) == 0);
	CHECK(extension_tree(&b) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "a companion built against another torch fails at import") != NULL);
	buf_reset(&p);
	buf_addf(&p, "%s/src/setup.py", dir.s);
	remove(p.s);
	t_stderr_begin();
	CHECK(extension_tree(&b) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "has no setup.py: kind: extension builds setup.py packages") != NULL);
	teardown(&b, &bo);
	buf_reset(&p);
	buf_addf(&p, "%s/no-torch.whl", dir.s);
	CHECK(setup(&b, &bo, "\"8.0\"", p.s) == 0);
	t_stderr_begin();
	CHECK(extension_check(&b) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "is neither a torch wheel nor a directory (site-packages/torch)") != NULL);
	teardown(&b, &bo);

	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&torch);
	buf_release(&p);
}
