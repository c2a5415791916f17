#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/wheel/verify.h"
#include "t.h"

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
	CHECK(t_rejected("needed", "(needed)", NULL));
	CHECK(t_rejected("runpath", "(runpath)", NULL));
	CHECK(t_rejected("manylinux", "(manylinux)", NULL));
	CHECK(t_rejected("platform", "(platform)", NULL));
	CHECK(t_rejected("bundled-driver", "(bundled driver)", NULL));

	/* Coverage: sm_90 asked for and missing; allowed by an exception, said in a note. */
	strvec_push(&sass, "sm_80");
	strvec_push(&sass, "sm_90");
	ex.sass = &sass;
	CHECK(wheel_verify(&r, plat, &ex) == 0);
	CHECK(t_has_error(&r, "(coverage)") && t_has_error(&r, "sm_90"));
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
