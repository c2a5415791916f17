#include "../../src/core/buf.h"
#include "../../src/profile/compat.h"
#include "../../src/core/strvec.h"
#include "t.h"

void
t_compat(void)
{
	struct strvec sass = STRVEC_INIT, ptx = STRVEC_INIT;
	struct buf how = BUF_INIT;
	int cc = 0;

	CHECK(gpu_parse("sm_121", &cc) == 0 && cc == 121);
	CHECK(gpu_parse("12.1", &cc) == 0 && cc == 121);
	CHECK(gpu_parse("90", &cc) == 0 && cc == 90);
	CHECK(gpu_parse("sm_", &cc) < 0);
	CHECK(gpu_parse("12.10", &cc) < 0);

	/* Same major, equal or newer minor. */
	CHECK(target_runs_on("sm_120", 121));
	CHECK(target_runs_on("sm_100", 103));
	CHECK(target_runs_on("sm_80", 86));
	CHECK(!target_runs_on("sm_80", 90));
	CHECK(!target_runs_on("sm_121", 120));
	CHECK(!target_runs_on("sm_100", 120));
	/* 'a' only on its exact GPU; 'f' across the family. */
	CHECK(target_runs_on("sm_100a", 100));
	CHECK(!target_runs_on("sm_100a", 103));
	CHECK(target_runs_on("sm_100f", 103));
	CHECK(!target_runs_on("sm_100f", 110));
	/* PTX JITs forward only. */
	CHECK(target_runs_on("compute_120", 121));
	CHECK(target_runs_on("compute_90", 120));
	CHECK(!target_runs_on("compute_120", 100));
	CHECK(!target_runs_on("compute_120a", 121));

	strvec_push(&sass, "sm_80");
	strvec_push(&sass, "sm_120");
	strvec_push(&ptx, "compute_120");
	CHECK(library_runs_on(&sass, &ptx, 121, &how) == 0);
	CHECK_STR(how.s, "SASS sm_120");
	buf_reset(&how);
	CHECK(library_runs_on(&sass, &ptx, 130, &how) == 0);
	CHECK_STR(how.s, "PTX JIT from compute_120");
	CHECK(library_runs_on(&sass, &ptx, 90, &how) < 0);
	strvec_clear(&sass);
	strvec_clear(&ptx);
	buf_release(&how);
}
