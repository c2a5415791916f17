#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/wheel/verify.h"
#include "t.h"

static int
has_error(const struct wheel_report *r, const char *what)
{
	for (size_t i = 0; i < r->errors.n; i++)
		if (strstr(r->errors.v[i], what))
			return 1;
	return 0;
}

/* The hostile wheel of tests/fixtures/wheels/make_wheels.py's case `name`, verified: rejected by `rule`. */
static int
rejected(const char *name, const char *rule, const struct wheel_expect *ex)
{
	struct buf d = BUF_INIT, whl = BUF_INIT;
	struct wheel_report r;
	DIR *dd;
	struct dirent *de;
	int ok = 0, rc;

	buf_addf(&d, "tests/tmp/wheels/bad/%s", name);
	dd = opendir(d.s);
	while (dd && (de = readdir(dd)))
		if (ends_with(de->d_name, ".whl")) {
			buf_reset(&whl);
			buf_addf(&whl, "%s/%s", d.s, de->d_name);
		}
	if (dd)
		closedir(dd);
	if (whl.len) {
		t_stderr_begin();
		rc = wheel_verify(&r, whl.s, ex);
		t_stderr_end();
		if (rc == 0) {
			ok = has_error(&r, rule);
			if (!ok)
				fprintf(stderr, "%s: no error with '%s'\n", name, rule);
			wheel_report_release(&r);
		} else {
			/* not readable as a zip at all: refused outright, a rejection too */
			ok = !strcmp(rule, "(zip hygiene)");
		}
	}
	buf_release(&d);
	buf_release(&whl);
	return ok;
}

/*
 * The verdict over the libraries (verify_policy.c): what each needs, its
 * RUNPATH, the platform tag against the machine and glibc, a bundled
 * driver, the SASS/PTX coverage asked for and the exceptions that allow a
 * gap, the C++ ABI expected.
 */
void
t_verify_policy(void)
{
	const char *plat = "tests/tmp/wheels/good/plat-1.0-cp311-cp311-linux_x86_64.whl";
	struct strvec sass = STRVEC_INIT;
	struct wheel_expect ex = { 0 };
	struct wheel_exception exc;
	static const char *const missing[] = { "sm_90" };
	struct wheel_report r;

	t_wheels();
	CHECK(rejected("needed", "(needed)", NULL));
	CHECK(rejected("runpath", "(runpath)", NULL));
	CHECK(rejected("manylinux", "(manylinux)", NULL));
	CHECK(rejected("platform", "(platform)", NULL));
	CHECK(rejected("bundled-driver", "(bundled driver)", NULL));

	/* Coverage: sm_90 asked for and missing; allowed by an exception, said in a note. */
	strvec_push(&sass, "sm_80");
	strvec_push(&sass, "sm_90");
	ex.sass = &sass;
	CHECK(wheel_verify(&r, plat, &ex) == 0);
	CHECK(has_error(&r, "(coverage)") && has_error(&r, "sm_90"));
	wheel_report_release(&r);
	memset(&exc, 0, sizeof(exc));
	exc.library = "k.so";
	exc.missing = missing;
	exc.nmissing = 1;
	exc.reason = "a test library";
	ex.exceptions = &exc;
	ex.nexceptions = 1;
	CHECK(wheel_verify(&r, plat, &ex) == 0);
	CHECK(r.errors.n == 0);
	CHECK(r.notes.n >= 1);
	wheel_report_release(&r);

	/* The C++ ABI: k.so carries no std::string symbol, so any expectation holds. */
	ex.exceptions = NULL;
	ex.nexceptions = 0;
	ex.sass = NULL;
	ex.cxx11_abi = 2;
	CHECK(wheel_verify(&r, plat, &ex) == 0);
	CHECK(r.errors.n == 0);
	wheel_report_release(&r);
	strvec_clear(&sass);
}
