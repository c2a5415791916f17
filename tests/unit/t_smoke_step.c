#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/pipeline/era.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * The build's smoke step decides where it can run: a wheel that failed
 * verify, no GPU, no GPU the wheel runs on (a fake nvidia-smi says which
 * GPUs there are), an extension without a probe: each skipped and said.
 */

static struct buf dir = BUF_INIT;

static int
step(struct build *b, const char *path, const char **err)
{
	char *old = t_env_save("PATH");
	int rc;

	setenv("PATH", path, 1);
	t_stderr_begin();
	rc = smoke_step_run(b);
	*err = t_stderr_end();
	if (old)
		setenv("PATH", old, 1);
	free(old);
	return rc;
}

static void
fake_smi(const char *ccs)
{
	struct buf p = BUF_INIT, text = BUF_INIT;

	buf_addf(&p, "%s/bin/nvidia-smi", dir.s);
	buf_addf(&text, "#!/bin/sh\nprintf '%s'\n", ccs);
	remove(p.s);
	if (mkdir_p_parent(p.s) < 0 || write_file_atomic(p.s, text.s, text.len) < 0 || chmod(p.s, 0755) < 0)
		exit(1);
	buf_release(&p);
	buf_release(&text);
}

void
t_smoke_step(void)
{
	struct build b;
	struct build_opts bo;
	struct buf path = BUF_INIT;
	const char *e;
	char *abs = path_absolute(t_tmpdir("smoke-step"));

	buf_addstr(&dir, abs);
	free(abs);
	t_wheels();
	memset(&bo, 0, sizeof(bo));
	build_init(&b, &bo);
	b.era = era_by_key("setup-envfwd");   /* a torch tree, as fetch leaves it */
	buf_addstr(&b.wheel, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"));
	CHECK(wheel_verify(&b.report, b.wheel.s, NULL) == 0);   /* sm_80 sm_120, compute_120 */
	b.have_report = 1;
	buf_addf(&path, "%s/bin:/usr/bin:/bin", dir.s);

	/* No nvidia-smi at all. */
	CHECK(step(&b, "/nonexistent", &e) == 0);
	CHECK(strstr(e, "smoke: skipped: no GPU here (run 'bwbuild smoke' on the wheel where one is)") != NULL);
	/* GPUs, none the wheel runs on (sm_90 has neither its SASS nor a PTX it can JIT). */
	fake_smi("9.0\\n9.0\\n");
	CHECK(step(&b, path.s, &e) == 0);
	CHECK(strstr(e, "smoke: skipped: no GPU here that the wheel can run on") != NULL);
	CHECK(!b.smoke_failed && b.runtime == NULL);

	/* An extension without a probe of its own: the generic one runs, as `smoke --against` runs it. */
	fake_smi("12.0\\n");
	b.era = era_by_key("extension");
	{
		char *probes = path_absolute("probes");

		setenv("BWBUILD_PROBE_PATH", probes, 1);
		CHECK(step(&b, path.s, &e) == 0);
		unsetenv("BWBUILD_PROBE_PATH");
		free(probes);
	}
	CHECK(strstr(e, "generic-extension.py") != NULL);
	CHECK(strstr(e, "no probe for") == NULL);
	CHECK(b.runtime != NULL);
	b.smoke_failed = 0;

	/* A wheel that failed verify is not run at all. */
	strvec_push(&b.report.errors, "'x' is broken (hashes)");
	CHECK(step(&b, path.s, &e) == 0);
	CHECK(strstr(e, "smoke: skipped: the wheel failed verify") != NULL);

	build_release(&b);
	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&path);
}
