#include <stdlib.h>
#include <string.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/formats/zip.h"
#include "../../src/profile/profile.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * The build's verify step on a wheel in <work>/dist: verified against the
 * plan's targets, repacked as it ships (the manylinux tag it earns, one
 * timestamp) and verified again; a wheel with problems is not repacked,
 * and a platform the profile demands but the libraries do not earn stops it.
 */

static struct buf dir = BUF_INIT;

static int
run(struct build *b, const char *err_want, const char **err)
{
	int rc;

	t_stderr_begin();
	rc = verify_run(b);
	*err = t_stderr_end();
	if (err_want && !strstr(*err, err_want))
		fprintf(stderr, "t_verify_step: wanted '%s' in: %s\n", err_want, *err);
	return rc;
}

static void
setup(struct build *b, struct build_opts *bo, const char *wheel, const char *profile)
{
	struct buf p = BUF_INIT;

	memset(bo, 0, sizeof(*bo));
	build_init(b, bo);
	buf_addf(&p, "%s/dist/%s", dir.s, strrchr(wheel, '/') + 1);
	remove(p.s);
	if (mkdir_p_parent(p.s) < 0 || copy_file(wheel, p.s) < 0)
		exit(1);
	buf_addstr(&b->wheel, p.s);
	buf_reset(&p);
	buf_addf(&p, "%s/p.yaml", dir.s);
	remove(p.s);
	if (write_file_atomic(p.s, profile, strlen(profile)) < 0 || profile_load(&b->profile, p.s) < 0)
		exit(1);
	b->epoch = 1700000000;
	buf_release(&p);
}

void
t_verify_step(void)
{
	struct build b;
	struct build_opts bo;
	const char *e;
	char *abs = path_absolute(t_tmpdir("verify-step"));
	char *sde = t_env_save("SOURCE_DATE_EPOCH");
	struct zip z;

	buf_addstr(&dir, abs);
	free(abs);
	unsetenv("SOURCE_DATE_EPOCH");
	t_wheels();

	/*
	 * A CUDA torch's wheel is in the pip form unless the profile says
	 * otherwise: k.so needs libcudart.so.13 with neither a RUNPATH into
	 * site-packages/nvidia nor a Requires-Dist (the repair step, which
	 * makes that form, is not run here).
	 */
	setup(&b, &bo, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"),
	      "name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"8.0\", \"12.0+PTX\"]}\n");
	strvec_push(&b.plan.sass, "sm_80");
	strvec_push(&b.plan.sass, "sm_120");
	strvec_push(&b.plan.ptx, "compute_120");
	CHECK(run(&b, "which nvidia-cuda-runtime installs into site-packages/nvidia/cu13/lib, but no "
		  "RUNPATH entry of it reaches there", &e) == 0);
	build_release(&b);

	/* A sound wheel: repacked with the manylinux tag its library earns, verified again. */
	setup(&b, &bo, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"),
	      "name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"8.0\", \"12.0+PTX\"]}\n"
	      "wheel: {cuda_libs: system}\n");
	strvec_push(&b.plan.sass, "sm_80");
	strvec_push(&b.plan.sass, "sm_120");
	strvec_push(&b.plan.ptx, "compute_120");
	CHECK(run(&b, "verify: platform manylinux_2_", &e) == 0);
	CHECK(strstr(e, " members, 1 ELF libraries\n") != NULL);
	CHECK(strstr(e, "  plat/lib/k.so: SASS sm_80 sm_120; PTX compute_120\n") != NULL);
	CHECK(b.have_report && b.report.errors.n == 0);
	CHECK(strstr(b.wheel.s, "-manylinux_2_") && ends_with(b.wheel.s, "_x86_64.whl"));
	CHECK(!path_exists(t_path("verify-step/dist/plat-1.0-cp311-cp311-linux_x86_64.whl")));
	CHECK(zip_open(&z, b.wheel.s) == 0);
	CHECK(z.n > 0 && ends_with(z.entries[z.n - 1].name, ".dist-info/RECORD"));
	zip_close(&z);
	build_release(&b);

	/* Targets the plan asks for and the library lacks: errors, no repack. */
	setup(&b, &bo, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"),
	      "name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"9.0+PTX\"]}\n");
	strvec_push(&b.plan.sass, "sm_90");
	CHECK(run(&b, "(coverage)", &e) == 0);
	CHECK(b.report.errors.n > 0);
	CHECK(ends_with(b.wheel.s, "/dist/plat-1.0-cp311-cp311-linux_x86_64.whl"));
	build_release(&b);

	/* A platform the profile demands (the library allows it): that tag, not the earned one. */
	setup(&b, &bo, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"),
	      "name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"8.0\"]}\n"
	      "wheel: {platform: manylinux_2_28, cuda_libs: system}\n");
	strvec_push(&b.plan.sass, "sm_80");
	CHECK(run(&b, "verify: platform manylinux_2_28_x86_64 (", &e) == 0);
	CHECK(ends_with(b.wheel.s, "/dist/plat-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"));
	build_release(&b);

	/* wheel.platform: linux keeps the tag as built. */
	setup(&b, &bo, t_wheel("good/tiny-1.0-py3-none-any.whl"),
	      "name: t\nsource: {repo: r, ref: v2.6.0}\nfeatures: {cuda: off}\nwheel: {platform: linux}\n");
	CHECK(run(&b, NULL, &e) == 0);
	CHECK(ends_with(b.wheel.s, "/dist/tiny-1.0-py3-none-any.whl"));
	CHECK(b.report.errors.n == 0);
	build_release(&b);

	if (sde)
		setenv("SOURCE_DATE_EPOCH", sde, 1);
	free(sde);
	remove_tree(dir.s);
	buf_release(&dir);
}
