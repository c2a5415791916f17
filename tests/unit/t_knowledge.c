#include <string.h>

#include "../../src/buf.h"
#include "../../src/doctor.h"
#include "../../src/knowledge.h"
#include "t.h"

void
t_knowledge(void)
{
	CHECK(kb_parse_version("v2.11.0") == 211);
	CHECK(kb_parse_version("2.11.0+cu130") == 211);
	CHECK(kb_parse_version("13.0.88") == 1300);
	CHECK(kb_parse_version("main") == 0);
	CHECK(kb_parse_version("a1b2c3d") == 0);
	CHECK(kb_parse_version(NULL) == 0);

	CHECK(!kb_cuda_builds(1206, 120));
	CHECK(kb_cuda_builds(1208, 120) && kb_cuda_builds(1208, 101) && !kb_cuda_builds(1208, 121));
	CHECK(kb_cuda_builds(1209, 103) && kb_cuda_builds(1209, 121));
	CHECK(kb_cuda_builds(1300, 110) && !kb_cuda_builds(1300, 101) && !kb_cuda_builds(1300, 70));
	CHECK(kb_cuda_builds(1301, 121));   /* between rows: the row below */
	CHECK(kb_cuda_builds(1100, 35));    /* older than the table: not judged */

	CHECK(kb_gcc_max(1300) == 15);
	CHECK(kb_gcc_max(1209) == 14);
	CHECK(kb_gcc_max(1000) == 0);

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
}
