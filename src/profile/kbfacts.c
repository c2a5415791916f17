/*
 * Facts of the knowledge base (knowledge.h) that no profile check reads:
 * the datasheet peaks of the GPUs (benchmarks and the smoke step measure
 * against them), whether a torchvision/torchaudio release goes with a
 * torch (extension builds; the pairs are rows of releases.c), and the
 * modules a build imports at load time. Kept as data: a new GPU is a row.
 * May include: core/, profile/knowledge.h, profile/releases.h.
 */
#include <string.h>

#include "core/buf.h"
#include "core/util.h"
#include "profile/knowledge.h"
#include "profile/releases.h"

/*
 * Datasheet peaks, dense (NVIDIA publishes tensor TFLOPS "with sparsity":
 * halved here). fp32 is the non-tensor rate. Sources: H100 and H200
 * product briefs (SXM: FP32 67, TF32 989/2, BF16/FP16 1979/2, FP8 3958/2;
 * HBM3 3.35 TB/s, H200 HBM3e 4.8 TB/s; PCIe: 51, 756/2, 1513/2, 3026/2,
 * 2.0 TB/s; NVL: 60, 835/2, 1671/2, 3341/2, 3.9 TB/s), the DGX B200
 * datasheet divided by its 8 GPUs (TF32 18 PF, FP16 36 PF, FP8 72 PF
 * sparse; 8 TB/s), the RTX Blackwell GPU architecture whitepaper (RTX 5090:
 * FP32 104.8, FP16/BF16 tensor with FP32 accumulate 209.5 dense, TF32
 * 104.8, FP8 419, 1792 GB/s; RTX PRO 6000 Blackwell: FP32 126, TF32 126,
 * FP16 503.8, FP8 1007.6, 1792 GB/s). The order matters: the first
 * row whose name part the device name contains wins ("H100 PCIe" before
 * "H100").
 *
 * The links between GPUs, per direction (the datasheets give both
 * directions together; nccl-tests' busbw is a one-direction figure,
 * doc/PERFORMANCE.md): NVLink 4 on H100 SXM and H200 900 GB/s -> 450; the
 * NVLink bridge of H100 PCIe/NVL 600 GB/s -> 300; NVLink 5 on B200
 * 1.8 TB/s -> 900; PCIe Gen5 x16 128 GB/s -> 64 (H100 PCIe, B200 and the
 * RTX Blackwell cards; the RTX cards have no NVLink: 0).
 */
static const struct gpu_peak {
	const char *name_part;
	double fp32, tf32, fp16, bf16, fp8, gbps, nvlink, pcie;
} gpu_peaks[] = {
	{ "H100 PCIe", 51, 378, 756, 756, 1513, 2000, 300, 64 },
	{ "H100 NVL", 60, 417.5, 835.5, 835.5, 1670.5, 3900, 300, 64 },
	{ "H100", 67, 494.5, 989.5, 989.5, 1979, 3350, 450, 64 },
	{ "H200", 67, 494.5, 989.5, 989.5, 1979, 4800, 450, 64 },
	{ "B200", 80, 1125, 2250, 2250, 4500, 8000, 900, 64 },
	{ "RTX 5090", 104.8, 104.8, 209.5, 209.5, 419, 1792, 0, 64 },
	{ "RTX PRO 6000", 126, 126, 503.8, 503.8, 1007.6, 1792, 0, 64 },
};

double
kb_gpu_peak(const char *device_name, const char *dtype)
{
	for (size_t i = 0; device_name && dtype && i < ARRAY_SIZE(gpu_peaks); i++) {
		const struct gpu_peak *g = &gpu_peaks[i];

		if (!strstr(device_name, g->name_part))
			continue;
		if (!strcmp(dtype, "fp32"))
			return g->fp32;
		if (!strcmp(dtype, "tf32"))
			return g->tf32;
		if (!strcmp(dtype, "fp16"))
			return g->fp16;
		if (!strcmp(dtype, "bf16"))
			return g->bf16;
		if (!strcmp(dtype, "fp8"))
			return g->fp8;
		if (!strcmp(dtype, "bytes"))
			return g->gbps;
		if (!strcmp(dtype, "nvlink"))
			return g->nvlink;
		if (!strcmp(dtype, "pcie"))
			return g->pcie;
		return 0;
	}
	return 0;
}

int
kb_companion(const char *project)
{
	return !strcmp(project, "torchvision") || !strcmp(project, "torchaudio");
}

int
kb_companion_check(const char *project, const struct relver *version, const struct relver *torch,
		   struct buf *why)
{
	int vision = !strcmp(project, "torchvision");
	const struct torch_release *want = NULL, *torch_for = NULL, *rows;
	struct buf span = BUF_INIT;
	size_t n;

	if (!kb_companion(project))
		return 0;
	rows = release_rows(&n);
	for (size_t i = 0; i < n; i++) {
		const struct relver *v = vision ? &rows[i].torchvision : &rows[i].torchaudio;

		if (relver_cmp(&rows[i].torch, torch) == 0)
			want = &rows[i];
		if (relver_cmp(v, version) == 0)
			torch_for = &rows[i];
	}
	if (!want && !torch_for) {
		release_span(&span);
		buf_addf(why, "bwbuild knows the %s releases for torch %s only; %s %u.%u with "
			 "torch %u.%u is not checked", project, span.s, project, version->major,
			 version->minor, torch->major, torch->minor);
		buf_release(&span);
		return 1;
	}
	if (want && torch_for == want)
		return 0;
	buf_addf(why, "%s %u.%u is released for torch %u.%u, not %u.%u", project, version->major,
		 version->minor, torch_for ? torch_for->torch.major : 0,
		 torch_for ? torch_for->torch.minor : 0, torch->major, torch->minor);
	if (want) {
		const struct relver *w = vision ? &want->torchvision : &want->torchaudio;

		buf_addf(why, "; torch %u.%u goes with %s %u.%u (tag v%u.%u.0)", torch->major,
			 torch->minor, project, w->major, w->minor, w->major, w->minor);
	}
	return -1;
}

/* setuptools NEWS, v70.1.0 (2024-06): bdist_wheel adopted from the wheel project. */
static const struct kb_module modules[] = {
	{ "setuptools.command.bdist_wheel", "setuptools", ">=70.1", "70.1.0",
	  "bdist_wheel moved there from the wheel package" },
};

const struct kb_module *
kb_module_find(const char *module)
{
	for (size_t i = 0; i < ARRAY_SIZE(modules); i++)
		if (!strcmp(modules[i].module, module))
			return &modules[i];
	return NULL;
}
