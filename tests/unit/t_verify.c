#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/formats/elfscan.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * The verifier on the test wheels: the good ones clean, each hostile one
 * (tests/fixtures/wheels/make_wheels.py, one per rule) rejected by its
 * rule; an installed package checked against its RECORD.
 */

static void
t_good(void)
{
	struct wheel_report r;
	struct buf tag = BUF_INIT, why = BUF_INIT, t = BUF_INIT;
	struct strvec sass = STRVEC_INIT, ptx = STRVEC_INIT;
	struct wheel_expect ex = { 0 };

	CHECK(wheel_verify(&r, t_wheel("good/tiny-1.0-py3-none-any.whl"), NULL) == 0);
	CHECK(r.errors.n == 0);
	CHECK_STR(r.name, "tiny");
	CHECK_STR(r.version, "1.0");
	CHECK(r.tags.n == 1 && !strcmp(r.tags.v[0], "py3-none-any"));
	CHECK(r.members == 4 && r.nlibs == 0 && strlen(r.sha256) == 64);
	wheel_report_release(&r);

	/* A CUDA library: its targets, and what it asks of the loader. */
	strvec_push(&sass, "sm_80");
	strvec_push(&sass, "sm_120");
	strvec_push(&ptx, "compute_120");
	ex.sass = &sass;
	ex.ptx = &ptx;
	ex.deep = 1;
	ex.threads = 2;
	CHECK(wheel_verify(&r, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"), &ex) == 0);
	CHECK(r.errors.n == 0);
	CHECK(r.nlibs == 1);
	if (r.nlibs == 1) {
		CHECK_STR(r.libs[0].path, "plat/lib/k.so");
		CHECK(r.libs[0].deep_checked > 0);
		wheel_lib_targets(&r.libs[0], &t);
		CHECK_STR(t.s, "SASS sm_80 sm_120; PTX compute_120");
	}
	CHECK(r.sass.n == 2 && r.ptx.n == 1);
	CHECK(wheel_platform_earned(&r, 0, &tag, &why) == 0);
	CHECK(starts_with(tag.s, "manylinux_2_") && ends_with(tag.s, "_x86_64"));
	CHECK(strstr(why.s, "'plat/lib/k.so' needs GLIBC ") != NULL);
	buf_reset(&why);
	CHECK(wheel_platform_earned(&r, 3, &tag, &why) == -1);   /* nothing that old */
	CHECK(strstr(why.s, "newer than manylinux_2_3 allows") != NULL);
	wheel_report_release(&r);

	/* The profile asks for sm_90 too: every CUDA library must carry it. */
	strvec_push(&sass, "sm_90");
	ex.deep = 0;
	CHECK(wheel_verify(&r, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"), &ex) == 0);
	CHECK(t_has_error(&r, "sm_90") && t_has_error(&r, "(coverage)"));
	wheel_report_release(&r);

	t_stderr_begin();
	CHECK(wheel_verify(&r, t_path("verify-none.whl"), NULL) == -1);
	t_stderr_end();
	strvec_clear(&sass);
	strvec_clear(&ptx);
	buf_release(&tag);
	buf_release(&why);
	buf_release(&t);
}

static void
t_hostile(void)
{
	const char *bad = t_wheel("bad");
	DIR *d = opendir(bad);
	struct dirent *de;
	struct buf dir = BUF_INIT, rule = BUF_INIT, args = BUF_INIT, whl = BUF_INIT, p = BUF_INIT;
	int cases = 0;

	CHECK(d != NULL);
	while (d && (de = readdir(d))) {
		struct wheel_report r;
		struct wheel_expect ex = { 0 };
		struct strvec sass = STRVEC_INIT;
		int rc;

		if (de->d_name[0] == '.')
			continue;
		buf_reset(&dir);
		buf_addf(&dir, "%s/%s", bad, de->d_name);
		buf_reset(&p);
		buf_addf(&p, "%s/rule", dir.s);
		buf_reset(&rule);
		buf_reset(&args);
		if (read_file(&rule, p.s) < 0 || !t_wheel_in(dir.s, &whl))
			continue;
		buf_rtrim(&rule);
		buf_reset(&p);
		buf_addf(&p, "%s/args", dir.s);
		read_file(&args, p.s);
		ex.deep = strstr(args.s, "--deep") != NULL;
		if (strstr(args.s, "--profile")) {
			/* sm90.yaml: the archs 8.0, 9.0 and 12.0+PTX. */
			strvec_push(&sass, "sm_80");
			strvec_push(&sass, "sm_90");
			strvec_push(&sass, "sm_120");
			ex.sass = &sass;
		}
		t_stderr_begin();
		rc = wheel_verify(&r, whl.s, &ex);
		t_stderr_end();
		cases++;
		if (rc < 0) {
			/* Too broken to be a zip at all: refused outright, which is a rejection too. */
			CHECK(!strcmp(rule.s, "(zip hygiene)"));
			strvec_clear(&sass);
			continue;
		}
		if (!t_has_error(&r, rule.s))
			fprintf(stderr, "t_verify: %s: no error with '%s' (%zu errors)\n", de->d_name,
				rule.s, r.errors.n);
		CHECK(r.errors.n > 0 && t_has_error(&r, rule.s));
		wheel_report_release(&r);
		strvec_clear(&sass);
	}
	if (d)
		closedir(d);
	CHECK(cases >= 40);
	buf_release(&dir);
	buf_release(&rule);
	buf_release(&args);
	buf_release(&whl);
	buf_release(&p);
}

static void
t_installed(void)
{
	const char *dir = t_tmpdir("verify");
	struct wheel_report r;
	struct buf cmd = BUF_INIT, p = BUF_INIT;

	buf_addf(&cmd, "python3 -c 'import zipfile, sys; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "
		       "%s %s/site", t_wheel("good/tiny-1.0-py3-none-any.whl"), dir);
	CHECK(system(cmd.s) == 0);
	buf_addf(&p, "%s/site/tiny", dir);
	CHECK(wheel_verify(&r, p.s, NULL) == 0);
	CHECK(r.errors.n == 0);
	CHECK_STR(r.filename, "tiny-1.0.dist-info");
	wheel_report_release(&r);

	/* A file changed after the install: its RECORD hash says so. */
	buf_reset(&p);
	buf_addf(&p, "%s/site/tiny/__init__.py", dir);
	remove(p.s);
	CHECK(write_file_atomic(p.s, "print('changed')\n", 17) == 0);
	buf_reset(&p);
	buf_addf(&p, "%s/site/tiny", dir);
	CHECK(installed_verify(&r, p.s, NULL) == 0);
	CHECK(t_has_error(&r, "tiny/__init__.py") && t_has_error(&r, "(hashes)"));
	wheel_report_release(&r);

	buf_reset(&p);
	buf_addf(&p, "%s/site", dir);
	t_stderr_begin();
	CHECK(installed_verify(&r, p.s, NULL) == -1);    /* no package of that name there */
	t_stderr_end();
	remove_tree(dir);
	buf_release(&cmd);
	buf_release(&p);
}

void
t_verify(void)
{
	t_wheels();
	t_good();
	t_hostile();
	t_installed();
}
