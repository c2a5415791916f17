#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../src/pipeline/eta.h"
#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "t.h"

/*
 * The shape of v2.6.0's start: micro-kernels first, CUDA and links last.
 * The steps' rate after the 4 C files says the rest takes as long as they
 * did; the weighted ETA says the CUDA units and the link dominate.
 */
static const char dry_run[] =
	"ninja: Entering directory `build'\n"
	"[1/8] Building C object confu-deps/XNNPACK/src/f32-gemm/a.c.o\n"
	"[2/8] Building C object confu-deps/XNNPACK/src/f32-gemm/b.c.o\n"
	"[3/8] Building C object confu-deps/XNNPACK/src/f32-gemm/c.c.o\n"
	"[4/8] Building C object confu-deps/XNNPACK/src/f32-gemm/d.c.o\n"
	"[5/8] Building CXX object c10/CMakeFiles/c10.dir/core/TensorImpl.cpp.o\n"
	"[6/8] Building CUDA object caffe2/CMakeFiles/torch_cuda.dir/__/aten/src/ATen/native/cuda/Indexing.cu.o\n"
	"[7/8] Building CUDA object caffe2/CMakeFiles/torch_cuda.dir/__/aten/src/ATen/native/transformers/cuda/flash_attn/kernels/flash_bwd_hdim256_bf16_sm80.cu.o\n"
	"[8/8] Linking CXX shared library lib/libtorch_cuda.so\n";

/*
 * A freshly configured v2.6.0 tree: ninja -n stops once it would
 * regenerate build.ninja (the manifest depends on the ATen codegen), so
 * the dry run lists 4 edges of a build of 1,769. Seen live:
 * "compile: [182/1769] 10%, 1.1/s, ETA 0:00".
 */
static const char regen_dry_run[] =
	"[1/4] Generating ATen declarations_yaml\n"
	"[2/4] Generating ATen headers\n"
	"[3/4] Generating ATen sources\n"
	"[4/4] Re-running CMake...\n";

static void
t_eta_regen(void)
{
	struct eta_plan e;
	double eta;

	CHECK(eta_plan_parse(&e, regen_dry_run) == 4);
	CHECK(e.regen);
	eta_plan_done(&e, "Generating ATen declarations_yaml");
	eta_plan_done(&e, "Generating ATen headers");
	eta_plan_done(&e, "Generating ATen sources");
	for (int i = 0; i < 182; i++)
		eta_plan_done(&e, "Building CXX object third_party/protobuf/cmake/x.cc.o");
	/* Not 0:00: the steps' rate over ninja's real count (182 of 1,769 in 165 s). */
	eta = eta_seconds(&e, 165, 182, 1769);
	CHECK(fabs(eta - 165.0 * (1769 - 182) / 182) < 1e-6);
	eta_plan_release(&e);
}

/* The manifest of a fresh tree, as CMake writes its rules: ninja -n stops at the regeneration. */
static const char manifest[] =
	"rule CUSTOM_COMMAND\n  command = $COMMAND\n  description = $DESC\n"
	"rule RERUN_CMAKE\n  command = touch build.ninja\n  description = Re-running CMake...\n"
	"  generator = 1\n"
	"rule CXX_COMPILER__c10_unscanned_Release\n  command = touch $out\n"
	"  description = Building CXX object $out\n"
	"rule CUDA_COMPILER__torch_cuda_unscanned_Release\n  command = touch $out\n"
	"  description = Building CUDA object $out\n"
	"rule CXX_SHARED_LIBRARY_LINKER__c10_Release\n  command = touch $out\n"
	"  description = Linking CXX shared library $TARGET_FILE\n"
	"build gen/a.h gen/b.h gen/c.h: CUSTOM_COMMAND\n  COMMAND = touch gen/a.h gen/b.h gen/c.h\n"
	"  DESC = Generating ATen headers\n"
	"build build.ninja: RERUN_CMAKE | gen/a.h\n  pool = console\n"
	"build c10/a.cpp.o: CXX_COMPILER__c10_unscanned_Release\n"
	"build c10/b.cpp.o: CXX_COMPILER__c10_unscanned_Release\n"
	"build c10/c.cpp.o: CXX_COMPILER__c10_unscanned_Release\n"
	"build cuda/flash_fwd.cu.o: CUDA_COMPILER__torch_cuda_unscanned_Release\n"
	"build lib/libc10.so: CXX_SHARED_LIBRARY_LINKER__c10_Release c10/a.cpp.o c10/b.cpp.o "
	"c10/c.cpp.o cuda/flash_fwd.cu.o\n  TARGET_FILE = lib/libc10.so\n"
	"build all: phony lib/libc10.so\ndefault all\n";

static void
t_eta_manifest(void)
{
	const char *dir = t_tmpdir("eta");
	char *ninja = find_program("ninja");
	struct eta_plan e;
	double eta;

	if (!ninja) {
		t_skip("no ninja on PATH: the manifest's edges are not read");
		return;
	}
	free(ninja);
	t_put(dir, "build.ninja", manifest, 0);
	/* An output already there (a resumed tree) is not work ahead. */
	t_put(dir, "c10/c.cpp.o", "", 0);
	eta_plan_ninja(&e, dir, NULL);
	/*
	 * 2 CXX units, the flash CUDA unit, the link; not c.cpp.o, the phony
	 * edge, build.ninja's, nor the codegen's (described by its own DESC).
	 */
	CHECK(e.n == 4);
	CHECK(!e.regen && e.pre == 2);
	CHECK(fabs(e.total - (2 * 2 + 60 + 20)) < 1e-9);
	/*
	 * While ninja runs the codegen and CMake's re-run (2 edges by its
	 * count, 60 s) nothing says how long the compiles take: no ETA. The
	 * warm rebuild of v2.6.0 printed "[1/4] 25%, 0.2/s, ETA 2085:39" here.
	 */
	eta_plan_step(&e, "Generating ATen headers", 10, 2);
	CHECK(eta_seconds(&e, 10, 1, 2) == -1);
	eta_plan_step(&e, "Re-running CMake...", 60, 2);
	CHECK(eta_seconds(&e, 60, 2, 2) == -1);
	/*
	 * Restarted on the regenerated manifest: the edges as ninja describes
	 * them are the plan's, and the rate is this run's, from the 60th second.
	 */
	eta_plan_step(&e, "Building CXX object c10/a.cpp.o", 62, 4);
	CHECK(e.phase_total == 4 && e.phase_t0 == 60 && fabs(e.phase_done0 - 0.4) < 1e-9);
	eta_plan_step(&e, "Building CXX object c10/b.cpp.o", 64, 4);
	CHECK(e.hits == 2 && fabs(e.hit_w - 4) < 1e-9);
	/* 2 of 4 in 4 s of this run (4 weight done): the CUDA unit and the link left, 80 of weight. */
	eta = eta_seconds(&e, 64, 2, 4);
	CHECK(fabs(eta - 4 * 80 / 4.0) < 1e-6);
	eta_plan_step(&e, "Building CUDA object cuda/flash_fwd.cu.o", 100, 4);
	eta_plan_step(&e, "Linking CXX shared library lib/libc10.so", 110, 4);
	CHECK(e.hits == 4);
	eta_plan_release(&e);

	/* Below ETA_MIN_SHARE of the plan's weight done, no ETA: one C file of a plan of 1,000 units. */
	{
		struct buf many = BUF_INIT;

		for (int i = 0; i < 1000; i++)
			buf_addf(&many, "[%d/1000] Building CXX object u%d.cpp.o\n", i + 1, i);
		buf_addstr(&many, "[1001/1001] Building C object k.c.o\n");
		CHECK(eta_plan_parse(&e, many.s) == 1001);
		eta_plan_step(&e, "Building C object k.c.o", 30, 1001);
		CHECK(eta_seconds(&e, 30, 1, 1001) == -1);
		for (int i = 0; i < 10; i++) {
			char d[64];

			snprintf(d, sizeof(d), "Building CXX object u%d.cpp.o", i);
			eta_plan_step(&e, d, 30 + 10 * (i + 1), 1001);
		}
		/* 20.3 of 2000.3 done in 130 s: 990 units of weight 2 left. */
		eta = eta_seconds(&e, 130, 11, 1001);
		CHECK(fabs(eta - 130 * 2 * 990 / 20.3) < 1e-6);
		eta_plan_release(&e);
		buf_release(&many);
	}

	/*
	 * --targets: the manifest's edges that the targets need (ninja -t
	 * inputs, the targets themselves too). Before, the steps' rate: v2.6.0's
	 * c10, c10_cuda, oneDNN and FBGEMM on 16 cores said 1:20 left for 3 minutes.
	 */
	{
		struct strvec t = STRVEC_INIT;

		strvec_pushl(&t, "c10/a.cpp.o", "cuda/flash_fwd.cu.o", NULL);
		eta_plan_ninja(&e, dir, &t);
		CHECK(!e.regen && e.n == 2 && e.pre == 2);
		CHECK(fabs(e.total - (2 + 60)) < 1e-9);
		eta_plan_release(&e);
		strvec_clear(&t);
	}
	/* Outputs of a rule ninja did not describe are left out; one edge's many outputs count once. */
	CHECK(eta_plan_parse_targets(&e, "x.o: UNKNOWN\ny.o: CXX\nclean: CLEAN\nclean2: CLEAN\n",
				     "CXX: Building CXX object ${out}\nCLEAN: Cleaning all built files...\n"
				     "phony\n", NULL) == 2);
	CHECK_STR(e.desc[0], "Building CXX object y.o");
	CHECK_STR(e.desc[1], "Cleaning all built files...");
	eta_plan_release(&e);
}

/*
 * The long pole: v2.6.0's FbgemmI8DepthwiseAvx2.cc took 218 s of a 273 s
 * compile on 16 cores (2026-11-29). Once the small units are done the
 * rate of the rest says seconds; the ETA is never less than what the
 * pole's learned time still needs.
 */
static void
t_eta_pole(void)
{
	static const char pole[] =
		"Building CXX object third_party/fbgemm/CMakeFiles/fbgemm_avx2.dir/src/FbgemmI8DepthwiseAvx2.cc.o";
	struct buf plan = BUF_INIT, d = BUF_INIT;
	struct eta_plan e;
	double eta;

	for (int i = 0; i < 100; i++)
		buf_addf(&plan, "[%d/101] Building CXX object c10/CMakeFiles/c10.dir/u%d.cpp.o\n", i + 1, i);
	buf_addf(&plan, "[101/101] %s\n", pole);
	CHECK(eta_plan_parse(&e, plan.s) == 101);
	eta_plan_learned(&e, "third_party/fbgemm/src/FbgemmI8DepthwiseAvx2.cc#def04e17de7d5aad 218000\n");
	for (int i = 0; i < 90; i++) {
		buf_reset(&d);
		buf_addf(&d, "Building CXX object c10/CMakeFiles/c10.dir/u%d.cpp.o", i);
		eta_plan_step(&e, d.s, 60.0 * (i + 1) / 90, 101);
	}
	/* The rate alone: 60 s * 3.8 (mean weight left) * 11 / 180 = 13.9 s. */
	eta = eta_seconds(&e, 60, 90, 101);
	CHECK(fabs(eta - (218 - 60)) < 1e-9);
	/* The pole done: the rate of what is left again. */
	eta_plan_step(&e, pole, 61, 101);
	eta = eta_seconds(&e, 61, 91, 101);
	CHECK(eta > 0 && eta < 10);
	/* Equal descriptions: each finish marks one of them. */
	eta_plan_release(&e);
	CHECK(eta_plan_parse(&e, "[1/2] Linking CXX static library lib/x.a\n[2/2] Linking CXX static library lib/x.a\n") == 2);
	eta_plan_done(&e, "Linking CXX static library lib/x.a");
	CHECK(e.fin[0] + e.fin[1] == 1);
	eta_plan_done(&e, "Linking CXX static library lib/x.a");
	CHECK(e.fin[0] + e.fin[1] == 2);
	eta_plan_release(&e);
	buf_release(&plan);
	buf_release(&d);
}

/* --targets on a fresh tree: the manifest's edges, only those the targets need (ninja -t inputs). */
static void
t_eta_only(void)
{
	struct eta_plan e;

	CHECK(eta_plan_parse(&e, "[1/3] Building CXX object c10/CMakeFiles/c10.dir/core/A.cpp.o\n"
				 "[2/3] Linking CXX shared library lib/libc10.so\n"
				 "[3/3] Building CXX object other/CMakeFiles/o.dir/b.cpp.o\n") == 3);
	CHECK(eta_plan_only(&e, "../c10/core/A.cpp\nc10/CMakeFiles/c10.dir/core/A.cpp.o\nlib/libc10.so\n") == 2);
	CHECK(e.n == 2 && fabs(e.total - (2 + 20)) < 1e-9);
	CHECK(eta_plan_only(&e, "") == 0 && e.total == 0);
	eta_plan_release(&e);
}

void
t_eta(void)
{
	struct eta_plan e;
	double steps, weighted;

	CHECK(eta_weight("Building C object x.c.o") < eta_weight("Building CXX object x.cpp.o"));
	CHECK(eta_weight("Building CXX object x.cpp.o") < eta_weight("Building CUDA object x.cu.o"));
	CHECK(eta_weight("Building CUDA object x.cu.o") <
	      eta_weight("Building CUDA object flash_attn/kernels/f.cu.o"));
	CHECK(eta_weight("Generating ATen headers") < eta_weight("Building C object x.c.o"));
	/* Learned times weigh their units: the object's source, or the build's generated one. */
	{
		struct eta_plan lt;

		eta_plan_parse(&lt, "[1/3] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/aten/"
			       "src/ATen/native/Sort.cpp.o\n"
			       "[2/3] Building CUDA object caffe2/CMakeFiles/torch_cuda.dir/__/aten/"
			       "src/ATen/native/cuda/flash.cu.o\n"
			       "[3/3] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/aten/"
			       "src/ATen/RegisterCPU.cpp.o\n");
		CHECK(lt.n == 3 && lt.total == 2 + 60 + 2);
		eta_plan_learned(&lt, "aten/src/ATen/native/Sort.cpp#00ab 40000\n"
				 "build/aten/src/ATen/RegisterCPU.cpp#00cd 90000\n"
				 "pole:aten/src/ATen/native/cuda/flash.cu#00ef 1\n"
				 "remote:aten/src/ATen/native/cuda/flash.cu#00ef 1\n");
		CHECK(lt.total == 4 + 60 + 9);
		eta_plan_learned(&lt, NULL);
		CHECK(lt.total == 4 + 60 + 9);
		eta_plan_release(&lt);
	}
	/* The launcher's heavy kernels are the ETA's: one list (genai was the launcher's alone). */
	CHECK(eta_weight("Building CUDA object genai/quantize/f8f8bf16.cu.o") ==
	      eta_weight("Building CUDA object flash_attn/kernels/f.cu.o"));
	CHECK(eta_weight("Building CUDA object mslk/gemm.cu.o") ==
	      eta_weight("Building CUDA object flash_attn/kernels/f.cu.o"));

	CHECK(eta_plan_parse(&e, dry_run) == 8);
	CHECK(fabs(e.total - (4 * 0.3 + 2 + 15 + 60 + 20)) < 1e-9);
	eta_plan_done(&e, "Building C object confu-deps/XNNPACK/src/f32-gemm/a.c.o");
	eta_plan_done(&e, "Building C object confu-deps/XNNPACK/src/f32-gemm/b.c.o");
	eta_plan_done(&e, "Building C object confu-deps/XNNPACK/src/f32-gemm/c.c.o");
	eta_plan_done(&e, "Building C object confu-deps/XNNPACK/src/f32-gemm/d.c.o");
	CHECK(fabs(e.done - 1.2) < 1e-9);
	/* 4 of 8 steps in 4 s: the rate says 4 s more; the weights say ~327 s. */
	steps = eta_seconds(NULL, 4, 4, 8);
	weighted = eta_seconds(&e, 4, 4, 8);
	CHECK(fabs(steps - 4) < 1e-9);
	CHECK(weighted > 300 && weighted < 330);
	/* An edge the dry run did not list counts its kind's weight. */
	eta_plan_done(&e, "Building CXX object extra.cpp.o");
	CHECK(fabs(e.done - 3.2) < 1e-9);
	/* Nothing done yet, or no plan: the steps' rate (-1, not known, before the first step). */
	eta_plan_release(&e);
	CHECK(e.n == 0 && e.total == 0);
	CHECK(eta_seconds(&e, 10, 0, 100) == -1);
	CHECK(eta_plan_parse(&e, "") == 0);
	CHECK(fabs(eta_seconds(&e, 10, 5, 10) - 10) < 1e-9);
	eta_plan_release(&e);
	t_eta_regen();
	t_eta_manifest();
	t_eta_pole();
	t_eta_only();
}
