#include <math.h>

#include "../../src/build/eta.h"
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
	/* Nothing done yet, or no plan: the steps' rate (0 before the first step). */
	eta_plan_release(&e);
	CHECK(e.n == 0 && e.total == 0);
	CHECK(eta_seconds(&e, 10, 0, 100) == 0);
	CHECK(eta_plan_parse(&e, "") == 0);
	CHECK(fabs(eta_seconds(&e, 10, 5, 10) - 10) < 1e-9);
	eta_plan_release(&e);
}
