#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/pipeline/step.h"
#include "../../src/wheel/cudalibs.h"
#include "t.h"

static void
reaches(void)
{
	struct buf found = BUF_INIT;

	CHECK(runpath_reaches("torch/lib/libtorch_cuda.so", "$ORIGIN:$ORIGIN/../../nvidia/cu13/lib",
			      "nvidia/cu13/lib", NULL));
	CHECK(runpath_reaches("torch/lib/x.so", "${ORIGIN}/../../nvidia/./cudnn//lib/", "nvidia/cudnn/lib",
			      NULL));
	/* torch/_C.so is one level up: the same text reaches above site-packages. */
	CHECK(!runpath_reaches("torch/_C.so", "$ORIGIN/../../nvidia/cu13/lib", "nvidia/cu13/lib", NULL));
	CHECK(runpath_reaches("torch/_C.so", "$ORIGIN/../nvidia/cu13/lib", "nvidia/cu13/lib", NULL));
	CHECK(!runpath_reaches("torch/lib/x.so", "/usr/local/cuda/lib64:$ORIGINx/nvidia/cu13/lib",
			       NULL, NULL));
	CHECK(!runpath_reaches("x.so", "$ORIGIN/../nvidia/cu13/lib", NULL, NULL));
	CHECK(runpath_reaches("torch/lib/x.so", "$ORIGIN/../../nvidia/nccl/lib", NULL, &found));
	CHECK_STR(found.s, "nvidia/nccl/lib");
	CHECK(!runpath_reaches("torch/lib/x.so", NULL, NULL, NULL));
	buf_reset(&found);
	runpath_entry_for("torch/lib/libtorch_cuda.so", "nvidia/cu13/lib", &found);
	CHECK_STR(found.s, "$ORIGIN/../../nvidia/cu13/lib");
	buf_release(&found);
}

static void
naming(void)
{
	const char *dist, *dir;
	struct strvec needed = STRVEC_INIT, reqs = STRVEC_INIT, extras = STRVEC_INIT;
	struct buf name = BUF_INIT;

	CHECK(cuda_dist_known("libcublasLt.so.13", 13, &dist, &dir) == 0);
	CHECK_STR(dist, "nvidia-cublas");
	CHECK_STR(dir, "nvidia/cu13/lib");
	CHECK(cuda_dist_known("libcublasLt.so.12", 12, &dist, &dir) == 0);
	CHECK_STR(dist, "nvidia-cublas-cu12");
	CHECK_STR(dir, "nvidia/cublas/lib");
	CHECK(cuda_dist_known("libcudnn_ops.so.9", 13, &dist, &dir) == 0);
	CHECK_STR(dist, "nvidia-cudnn-cu13");
	CHECK_STR(dir, "nvidia/cudnn/lib");
	CHECK(cuda_dist_known("libnpp.so.13", 13, &dist, &dir) < 0);
	CHECK(cuda_dist_known("libcudart.so.11", 11, &dist, &dir) < 0);
	/* cuFFT's soname major is 12 under CUDA 13: the major comes from cudart, nvrtc or cuBLAS. */
	strvec_pushl(&needed, "libcufft.so.12", "libc.so.6", "libcudart.so.13", NULL);
	CHECK(cuda_major_of(&needed) == 13);
	strvec_clear(&needed);
	strvec_pushl(&needed, "libcufft.so.12", NULL);
	CHECK(cuda_major_of(&needed) == 0);
	requirement_name("  NVIDIA_cuDNN.cu13 >=9", &name, NULL);
	CHECK_STR(name.s, "nvidia-cudnn-cu13");
	buf_reset(&name);
	requirement_name("cuda-toolkit[cublas, cudart]==13.0.2; platform_system == \"Linux\"", &name,
			 &extras);
	CHECK_STR(name.s, "cuda-toolkit");
	CHECK(extras.n == 2 && strset_has(&extras, "cudart"));
	strvec_pushl(&reqs, "cuda-toolkit[cublas,cudart]==13.0.2; platform_system == \"Linux\"",
		     "nvidia-cudnn-cu13==9.19.0.56", NULL);
	CHECK(requires_cuda_lib(&reqs, "libcudart.so.13", 13));
	CHECK(requires_cuda_lib(&reqs, "libcublasLt.so.13", 13));
	CHECK(requires_cuda_lib(&reqs, "libcudnn_graph.so.9", 13));
	CHECK(!requires_cuda_lib(&reqs, "libnccl.so.2", 13));
	CHECK(!requires_cuda_lib(&reqs, "libcufft.so.12", 13));
	/* The toolkit's extras are CUDA 13's; a cu12 wheel names each package. */
	CHECK(!requires_cuda_lib(&reqs, "libcudart.so.12", 12));
	CHECK(cuda_libs_form_parse("vendor") == CUDA_LIBS_VENDOR);
	CHECK(cuda_libs_form_parse("Vendor") < 0);
	CHECK_STR(cuda_libs_form_name(CUDA_LIBS_SYSTEM), "system");
	strvec_clear(&needed);
	strvec_clear(&reqs);
	strvec_clear(&extras);
	buf_release(&name);
}

static void
put_file(const char *path, const char *text)
{
	FILE *f;

	mkdir_p_parent(path);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The dist-info beside a library: in site-packages, and in CUDA's own dist-info/ folder. */
static void
dist_info(void)
{
	const char *dir = t_tmpdir("cudalibs");
	struct cuda_dist_index ix;
	struct cuda_dist d;
	struct buf p = BUF_INIT, why = BUF_INIT;

	buf_addf(&p, "%s/sp/nvidia_nccl_cu13-2.28.9.dist-info/RECORD", dir);
	put_file(p.s, "nvidia/nccl/include/nccl.h,sha256=x,1\n\"nvidia/nccl/lib/libnccl.so.2\",sha256=y,2\n");
	buf_reset(&p);
	buf_addf(&p, "%s/sp/nvidia/nccl/lib/libnccl.so.2", dir);
	put_file(p.s, "");
	/* Not NVIDIA's, and a crafted name: never read as one. */
	buf_reset(&p);
	buf_addf(&p, "%s/sp/evil-1.0.dist-info/RECORD", dir);
	put_file(p.s, "nvidia/cu13/lib/libcudart.so.13,sha256=x,1\n");
	buf_reset(&p);
	buf_addf(&p, "%s/cuda/dist-info/nvidia_cufft-12.0.0.61.dist-info/RECORD", dir);
	put_file(p.s, "nvidia/cu13/lib/libcufft.so.12,sha256=x,1\n");
	cuda_dist_index_init(&ix);
	buf_reset(&p);
	buf_addf(&p, "%s/sp/nvidia/nccl/lib/libnccl.so.2", dir);
	CHECK(cuda_dist_find(&ix, "libnccl.so.2", p.s, 13, &d, &why) == 0);
	CHECK_STR(d.requirement, "nvidia-nccl-cu13==2.28.9; platform_system == \"Linux\"");
	CHECK_STR(d.dir, "nvidia/nccl/lib");
	cuda_dist_release(&d);
	buf_reset(&p);
	buf_addf(&p, "%s/cuda/lib64/libcufft.so.12", dir);
	CHECK(cuda_dist_find(&ix, "libcufft.so.12", p.s, 13, &d, &why) == 0);
	CHECK_STR(d.requirement, "nvidia-cufft==12.0.0.61; platform_system == \"Linux\"");
	CHECK_STR(d.dir, "nvidia/cu13/lib");
	cuda_dist_release(&d);
	CHECK(cuda_dist_find(&ix, "libcudart.so.13", NULL, 13, &d, &why) == 0);
	CHECK_STR(d.requirement, "nvidia-cuda-runtime>=13,<14; platform_system == \"Linux\"");
	CHECK_STR(d.source, "NVIDIA's naming");
	cuda_dist_release(&d);
	CHECK(cuda_dist_find(&ix, "libnvjpeg.so.13", NULL, 13, &d, &why) < 0);
	CHECK(strstr(why.s ? why.s : "", "no pip package of NVIDIA's is known to install 'libnvjpeg.so.13'"));
	cuda_dist_index_release(&ix);
	buf_release(&p);
	buf_release(&why);
}

static void
triton(void)
{
	const char *dir = t_tmpdir("triton");
	struct buf p = BUF_INIT, req = BUF_INIT;

	CHECK(triton_requirement(dir, &req) == 0);
	buf_addf(&p, "%s/.ci/docker/triton_version.txt", dir);
	put_file(p.s, "3.2.0\n");
	CHECK(triton_requirement(dir, &req) == 1);
	CHECK_STR(req.s, "triton==3.2.0; platform_system == \"Linux\"");
	buf_reset(&req);
	put_file(p.s, "3.2.0; os.system('x')\n");
	CHECK(triton_requirement(dir, &req) == 0);
	buf_release(&p);
	buf_release(&req);
}

void
t_cudalibs(void)
{
	reaches();
	naming();
	dist_info();
	triton();
}
