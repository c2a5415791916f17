#include <string.h>

#include "../../src/core/strvec.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * The one way a check of a wheel reports a problem: the first
 * VERIFY_ERRORS_LISTED listed, the rest counted, and one summary line that
 * stays right when a later check (--against) adds more after it.
 */
void
t_verify_errors(void)
{
	struct wheel_report r;

	memset(&r, 0, sizeof(r));
	strvec_init(&r.errors);
	verify_summarise(&r);
	CHECK(r.errors.n == 0);
	for (int i = 0; i < VERIFY_ERRORS_LISTED + 10; i++)
		verify_error(&r, "problem %d", i);
	CHECK(r.errors.n == VERIFY_ERRORS_LISTED && r.errors_more == 10);
	CHECK_STR(r.errors.v[0], "problem 0");
	verify_summarise(&r);
	CHECK(r.errors.n == VERIFY_ERRORS_LISTED + 1);
	CHECK_STR(r.errors.v[VERIFY_ERRORS_LISTED],
		  "... and 10 more problems (the first 50 are listed)");
	verify_error(&r, "from --against");
	verify_error(&r, "from --against too");
	verify_summarise(&r);
	CHECK(r.errors.n == VERIFY_ERRORS_LISTED + 1 && !r.errors.v[r.errors.n]);
	CHECK_STR(r.errors.v[VERIFY_ERRORS_LISTED],
		  "... and 12 more problems (the first 50 are listed)");
	wheel_report_release(&r);
}
