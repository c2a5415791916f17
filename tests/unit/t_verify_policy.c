#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/formats/elf.h"
#include "../../src/formats/elfscan.h"
#include "../../src/formats/manylinux.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * The platform tag's reason names what decides it (issue 32): a library
 * that needs GLIBC 2.2.5 and CXXABI_1.3.9 is manylinux_2_28 because of the
 * CXXABI, which the reason says, not the glibc.
 */
static void
decided_by_cxxabi(void)
{
	struct elf_dynamic d;
	struct wheel_lib lib;
	struct wheel_report r;
	struct buf tag = BUF_INIT, why = BUF_INIT;

	memset(&d, 0, sizeof(d));
	strvec_init(&d.needed);
	strvec_init(&d.vfile);
	strvec_init(&d.vname);
	strvec_push(&d.vfile, "libc.so.6");
	strvec_push(&d.vname, "GLIBC_2.2.5");
	strvec_push(&d.vfile, "libstdc++.so.6");
	strvec_push(&d.vname, "CXXABI_1.3.9");
	memset(&lib, 0, sizeof(lib));
	lib.path = (char *)"pkg/lib/x.so";
	manylinux_assess(&d, EM_X86_64_, &lib.ml);
	elf_dynamic_release(&d);
	memset(&r, 0, sizeof(r));
	strvec_init(&r.tags);
	strvec_push(&r.tags, "cp311-cp311-linux_x86_64");
	r.libs = &lib;
	r.nlibs = 1;
	CHECK(wheel_platform_earned(&r, 0, &tag, &why) == 0);
	CHECK_STR(tag.s, "manylinux_2_28_x86_64");
	CHECK_STR(why.s, "'pkg/lib/x.so' needs CXXABI_1.3.9, with GLIBC 2.2.5");
	buf_reset(&why);
	CHECK(wheel_platform_earned(&r, 17, &tag, &why) == -1);
	CHECK_STR(why.s, "'pkg/lib/x.so' needs CXXABI_1.3.9, with GLIBC 2.2.5 (manylinux_2_28), "
			 "newer than manylinux_2_17 allows");
	strvec_clear(&r.tags);
	buf_release(&tag);
	buf_release(&why);
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
	const char *plat = t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl");
	struct strvec sass = STRVEC_INIT;
	struct wheel_expect ex = { 0 };
	struct wheel_exception exc;
	static const char *const missing[] = { "sm_90" };
	struct wheel_report r;

	t_wheels();
	decided_by_cxxabi();
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
