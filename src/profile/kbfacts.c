/*
 * Facts of the knowledge base (knowledge.h) that no profile check reads:
 * the datasheet peaks of the GPUs (benchmarks and the smoke step measure
 * against them), which torchvision/torchaudio release goes with which
 * torch (extension builds), and what each torch release asks of the
 * build machine (the build environment, before its tree is here). Kept
 * as data: a new GPU or release is a row.
 * May include: core/, profile/knowledge.h.
 */
#include <string.h>

#include "core/buf.h"
#include "core/util.h"
#include "profile/knowledge.h"

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

/*
 * Companion packages released with each torch (pytorch/pytorch RELEASE.md,
 * "Release Compatibility Matrix"; torchvision's README): a companion built
 * against another torch fails at import (`operator torchvision::nms does
 * not exist`, undefined c10 symbols). Versions as major*100 + minor.
 */
static const struct companion_row {
	unsigned torch, torchvision, torchaudio;
} companions[] = {
	{ 204, 19, 204 }, { 205, 20, 205 }, { 206, 21, 206 },
	{ 207, 22, 207 }, { 208, 23, 208 }, { 209, 24, 209 }, { 210, 25, 210 }, { 211, 26, 211 },
};

int
kb_companion(const char *project)
{
	return !strcmp(project, "torchvision") || !strcmp(project, "torchaudio");
}

int
kb_companion_check(const char *project, unsigned version, unsigned torch, struct buf *why)
{
	int vision = !strcmp(project, "torchvision");
	unsigned want = 0, torch_for = 0;

	if (!kb_companion(project))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(companions); i++) {
		unsigned v = vision ? companions[i].torchvision : companions[i].torchaudio;

		if (companions[i].torch == torch)
			want = v;
		if (v == version)
			torch_for = companions[i].torch;
	}
	if (!want && !torch_for) {
		buf_addf(why, "bwbuild knows the %s releases for torch 2.4 to 2.11 only; %s %u.%u with "
			 "torch %u.%u is not checked", project, project, version / 100, version % 100,
			 torch / 100, torch % 100);
		return 1;
	}
	if (want == version)
		return 0;
	buf_addf(why, "%s %u.%u is released for torch %u.%u, not %u.%u", project, version / 100,
		 version % 100, torch_for / 100, torch_for % 100, torch / 100, torch % 100);
	if (want)
		buf_addf(why, "; torch %u.%u goes with %s %u.%u (tag v%u.%u.0)", torch / 100,
			 torch % 100, project, want / 100, want % 100, want / 100, want % 100);
	return -1;
}

/*
 * torch 2.7-2.11: the Python and official CUDA builds of PyTorch's release
 * compatibility matrix ("Stable CUDA", then "Experimental CUDA"); the
 * setuptools each tree's build needs and how its setup.py is told to
 * configure only, read in copies of the trees (docs/design/pytorch.md §10
 * names each source). The setup.py of the 2.8 cycle
 * already imports setuptools.command.bdist_wheel at load time; v2.8.0
 * itself was not read, so the table starts the need at 2.9, whose
 * pyproject.toml asks setuptools>=70.1.0,<80.0. The tree's own files
 * decide once it is here.
 */
static const struct kb_release releases[] = {
	{ 207, "3.9-3.13", "11.8, 12.6 (12.8 experimental)", 1208, NULL, NULL,
	  "the argument --cmake-only (no CMAKE_ONLY)",
	  "release matrix; setup.py of a v2.7.1 copy; pyproject.toml as v2.6.0's" },
	{ 208, "3.9-3.13", "12.6, 12.8 (12.9 experimental)", 1208, NULL, NULL,
	  "CMAKE_ONLY=1 in the environment (popped), or --cmake-only",
	  "release matrix; setup.py of the 2.8 cycle (Python >= 3.9)" },
	{ 209, "3.10-3.14", "12.6, 12.8 (13.0 experimental)", 1208, ">=70.1",
	  "setuptools.command.bdist_wheel", "CMAKE_ONLY=1 in the environment (popped), or --cmake-only",
	  "release matrix; pyproject.toml 'setuptools>=70.1.0,<80.0' (rewritten by nixpkgs' "
	  "torch 2.9.0)" },
	{ 210, "3.10-3.14", "12.6, 12.8 (13.0 experimental)", 1208, ">=70.1",
	  "setuptools.command.bdist_wheel", "CMAKE_ONLY=1 in the environment (popped), or --cmake-only",
	  "release matrix; setup.py of the 2.10 cycle (Python >= 3.10)" },
	{ 211, "3.10-3.14", "12.6, 12.8, 13.0", 1208, ">=70.1", "setuptools.command.bdist_wheel",
	  "CMAKE_ONLY=1 in the environment (popped), or --cmake-only",
	  "release matrix; the official 2.11.0+cu130 wheel, made by setuptools 81.0.0" },
};

const struct kb_release *
kb_release_find(unsigned torch)
{
	for (size_t i = 0; i < ARRAY_SIZE(releases); i++)
		if (releases[i].torch == torch)
			return &releases[i];
	return NULL;
}

void
kb_release_span(unsigned *first, unsigned *last)
{
	*first = releases[0].torch;
	*last = releases[ARRAY_SIZE(releases) - 1].torch;
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
