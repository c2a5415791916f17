#include <string.h>

#include "../../src/buf.h"
#include "../../src/doctor.h"
#include "t.h"

void
t_doctor(void)
{
	struct buf name = BUF_INIT;
	unsigned cc = 0, drv = 0;

	CHECK(nvcc_version_parse("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation "
				 "tools, release 13.0, V13.0.88\n") == 1300);
	CHECK(nvcc_version_parse("garbage") == 0);
	CHECK(gpu_code_listed("sm_75\nsm_80\nsm_100\nsm_120\n", 120));
	CHECK(!gpu_code_listed("sm_75\nsm_80\nsm_1200\n", 120));
	CHECK(!gpu_code_listed("sm_100\n", 10));
	CHECK(smi_line_parse("NVIDIA H100 80GB HBM3, 9.0, 580.159.03", &cc, &drv, &name) == 0);
	CHECK(cc == 90 && drv == 580 && !strcmp(name.s, "NVIDIA H100 80GB HBM3"));
	CHECK(smi_line_parse("NVIDIA GB10, 12.1, 580.95.05", &cc, &drv, &name) == 0 && cc == 121);
	CHECK(smi_line_parse("no commas here", &cc, &drv, &name) < 0);
	CHECK(smi_line_parse("x, [N/A], 570", &cc, &drv, &name) < 0);
	buf_release(&name);
}
