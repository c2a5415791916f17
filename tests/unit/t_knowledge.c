#include "../../src/core/buf.h"
#include "../../src/profile/knowledge.h"
#include "../../src/formats/selarch.h"
#include "t.h"

/* The constructs of PyTorch v2.6.0's select_compute_arch.cmake (abridged, same shapes and order). */
static const char v26_shape[] =
	"set(CUDA_KNOWN_GPU_ARCHITECTURES  \"Kepler\" \"Maxwell\")\n"
	"set(CUDA_ALL_GPU_ARCHITECTURES \"3.5\" \"5.0\")\n"
	"if(NOT CUDA_VERSION VERSION_LESS \"12.0\")\n"
	"  list(APPEND CUDA_ALL_GPU_ARCHITECTURES \"9.0a\")\n"
	"  list(REMOVE_ITEM CUDA_ALL_GPU_ARCHITECTURES \"3.5\")\n"
	"endif()\n"
	"if(CUDA_VERSION VERSION_GREATER \"12.6\")\n"
	"  list(APPEND CUDA_KNOWN_GPU_ARCHITECTURES \"Blackwell\")\n"
	"  list(APPEND CUDA_ALL_GPU_ARCHITECTURES \"10.0\")\n"
	"endif()\n"
	"function(CUDA_SELECT_NVCC_ARCH_FLAGS out_variable)\n"
	"  foreach(arch_name ${CUDA_ARCH_LIST})\n"
	"    if(arch_name MATCHES \"(.*)\\\\+PTX$\")\n"
	"      set(arch_name ${CMAKE_MATCH_1})\n"
	"    endif()\n"
	"    if(arch_name MATCHES \"^([0-9]+\\\\.[0-9]a?(\\\\([0-9]+\\\\.[0-9]\\\\))?)$\")\n"
	"      set(arch_bin ${CMAKE_MATCH_1})\n"
	"    else()\n"
	"      if(${arch_name} STREQUAL \"Hopper\")\n"
	"        set(arch_bin 9.0)\n"
	"      elseif(${arch_name} STREQUAL \"Blackwell\")\n"
	"        set(arch_bin 10.0)\n"
	"      else()\n"
	"        message(SEND_ERROR \"Found Unknown CUDA Architecture Name\")\n"
	"      endif()\n"
	"    endif()\n"
	"  endforeach()\n"
	"  string(REGEX MATCHALL \"[0-9()]+a?\" cuda_arch_bin \"${cuda_arch_bin}\")\n"
	"endfunction()\n";

static void
join_list(const struct selarch *sa, unsigned cuda, enum selarch_list l, struct buf *out,
	  size_t *unc)
{
	struct strvec v = STRVEC_INIT;

	buf_reset(out);
	selarch_lists(sa, cuda, l, &v, unc);
	strvec_join(&v, " ", out);
	if (!out->s)
		buf_addstr(out, "");
	strvec_clear(&v);
}

static void
t_knowledge_selarch(void)
{
	struct selarch sa;
	struct buf b = BUF_INIT, why = BUF_INIT;
	const struct selarch_op *op;
	size_t unc = 0;
	char newer[sizeof(v26_shape) + 16], *p;

	CHECK(selarch_parse(&sa, v26_shape, strlen(v26_shape)) == 0);
	CHECK_STR(sa.numeric_re, "^([0-9]+\\.[0-9]a?(\\([0-9]+\\.[0-9]\\))?)$");
	CHECK(sa.numeric_line == 16 && sa.bin_line == 28);
	CHECK_STR(sa.bin_re, "[0-9()]+a?");
	/* issue 22: v2.6.0 takes 12.0 (any numeric X.Y), and 'a', but not 'f' */
	CHECK(selarch_accepts(&sa, "12.0", NULL) == 1 && selarch_accepts(&sa, "12.0a", NULL) == 1);
	CHECK(selarch_accepts(&sa, "12.1", NULL) == 1 && selarch_accepts(&sa, "9.0(8.6)", NULL) == 1);
	CHECK(selarch_accepts(&sa, "10.0f", &why) == 0 && strstr(why.s, "line 16"));
	CHECK(selarch_accepts(&sa, "sm_120", NULL) == 0 && selarch_accepts(&sa, "12.10", NULL) == 0);
	CHECK(selarch_accepts(&sa, "Blackwell", NULL) == 1);
	CHECK(selarch_keeps(&sa, "120a") == 1 && selarch_keeps(&sa, "100f") == 0);
	CHECK(sa.nnames == 2 && !strcmp(selarch_name_of(&sa, "10.0")->name, "Blackwell"));
	CHECK(selarch_name_of(&sa, "12.0") == NULL);
	/* the lists follow CUDA: Blackwell only for CUDA > 12.6; 3.5 removed from 12.0 on */
	join_list(&sa, 1206, SELARCH_KNOWN, &b, &unc);
	CHECK_STR(b.s, "Kepler Maxwell");
	join_list(&sa, 1208, SELARCH_KNOWN, &b, &unc);
	CHECK_STR(b.s, "Kepler Maxwell Blackwell");
	join_list(&sa, 1300, SELARCH_ALL, &b, &unc);
	CHECK_STR(b.s, "5.0 9.0a 10.0");
	join_list(&sa, 1108, SELARCH_ALL, &b, &unc);
	CHECK_STR(b.s, "3.5 5.0");
	CHECK(unc == 0);
	op = selarch_added_by(&sa, 1300, SELARCH_KNOWN, "Blackwell");
	CHECK(op && op->line == 8 && !strcmp(op->cond, "CUDA_VERSION VERSION_GREATER 12.6"));
	CHECK(selarch_added_by(&sa, 1206, SELARCH_KNOWN, "Blackwell") == NULL);
	selarch_release(&sa);

	/* the newer shape: [af] in both regexes */
	strcpy(newer, v26_shape);
	while ((p = strstr(newer, "a?")))
		memcpy(p, "f?", 2); /* the same length: only 'f' taken then */
	CHECK(selarch_parse(&sa, newer, strlen(newer)) == 0);
	CHECK(selarch_accepts(&sa, "10.0f", NULL) == 1 && selarch_keeps(&sa, "100f") == 1);
	selarch_release(&sa);

	/* else / elseif / conditions bwbuild does not evaluate */
	{
		static const char cond[] =
			"if(CUDA_VERSION VERSION_GREATER_EQUAL \"13.0\")\n"
			"  list(APPEND CUDA_ALL_GPU_ARCHITECTURES \"11.0a\")\n"
			"elseif(CUDA_VERSION VERSION_GREATER \"12.6\")\n"
			"  list(APPEND CUDA_ALL_GPU_ARCHITECTURES \"10.1a\")\n"
			"else()\n"
			"  list(APPEND CUDA_ALL_GPU_ARCHITECTURES \"9.0\")\n"
			"endif()\n"
			"if(WIN32 OR CUDA_VERSION VERSION_LESS \"12.0\")\n"
			"  list(APPEND CUDA_ALL_GPU_ARCHITECTURES \"x\")\n"
			"endif()\n";

		CHECK(selarch_parse(&sa, cond, strlen(cond)) == -1); /* no numeric form */
		CHECK(selarch_accepts(&sa, "12.0", NULL) == -1);
		unc = 0;
		join_list(&sa, 1300, SELARCH_ALL, &b, &unc);
		CHECK_STR(b.s, "11.0a");
		CHECK(unc == 1);
		join_list(&sa, 1208, SELARCH_ALL, &b, NULL);
		CHECK_STR(b.s, "10.1a");
		join_list(&sa, 1206, SELARCH_ALL, &b, NULL);
		CHECK_STR(b.s, "9.0");
		selarch_release(&sa);
	}
	/* regex syntax CMake and POSIX read differently is not evaluated */
	{
		static const char odd[] = "function(CUDA_SELECT_NVCC_ARCH_FLAGS o)\n"
					  "if(arch_name MATCHES \"^[0-9]{2}\\\\.[0-9]$\")\nendif()\n";

		CHECK(selarch_parse(&sa, odd, strlen(odd)) == 0);
		CHECK(selarch_accepts(&sa, "12.0", NULL) == -1);
		selarch_release(&sa);
	}
	buf_release(&b);
	buf_release(&why);
}

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

	t_knowledge_selarch();
}
