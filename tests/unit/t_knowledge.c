#include "../../src/core/buf.h"
#include "../../src/profile/knowledge.h"
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
	/* Older than the table: no Blackwell arch (issue 12: 11.8-12.5 passed with 12.0). */
	CHECK(!kb_cuda_builds(1108, 120) && !kb_cuda_builds(1200, 120) &&
	      !kb_cuda_builds(1204, 100) && !kb_cuda_builds(1205, 120) && !kb_cuda_builds(1206, 120));
	CHECK(kb_cuda_builds(1208, 120) && kb_cuda_builds(1108, 90));
	/* An arch no CUDA release builds. */
	CHECK(!kb_arch_known(999) && !kb_arch_known(125) && kb_arch_known(120) && kb_arch_known(75));
	CHECK(kb_cuda_builds(1100, 35));    /* older than the table: not judged */

	CHECK(kb_gcc_max(1300) == 15);
	CHECK(kb_gcc_max(1209) == 14);
	CHECK(kb_gcc_max(1000) == 0);

}
