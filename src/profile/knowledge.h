#ifndef BWBUILD_KNOWLEDGE_H
#define BWBUILD_KNOWLEDGE_H

#include "core/relver.h"

struct profile;
struct buf;

/*
 * What bwbuild knows about CUDA toolkits, torch releases and features, as
 * tables in knowledge.c (kbfacts.c: GPU peaks, companion releases; the
 * torch releases themselves: releases.h), and the checks of a profile
 * against them (a source tree's: knowledge_tree.c).
 * CUDA versions are major*100+minor: CUDA 12.8 = 1208; 0 is unknown, and
 * the checks that need it are skipped. Torch releases are a struct relver
 * (zero: unknown).
 */
struct kb_context {
	unsigned cuda;        /* the toolkit the build will use */
	const char *cuda_from; /* where that came from: "cuda.version", "/usr/local/cuda/version.json" */
	struct relver torch;  /* the source tree's release */
	const char *torch_from;
	const char *src_dir;  /* a tree already here (--source): its own CMake decides; NULL: the table */
};

/*
 * Which rules judge the archs: the tree's select_compute_arch.cmake under
 * `src` when CMake can run it (host/cmakearch.h; 1, "the tree's
 * select_compute_arch.cmake (PATH), run by CMake" into out), else bwbuild's
 * table for `torch` (0; "bwbuild's table for torch 2.6 (source.ref); ..."
 * with why). `src` NULL: no tree yet. With `cuda` (major*100+minor, 0
 * unknown) the tree's lists for that CUDA are said too ("its All list is
 * ... and Blackwell gives sm_100 sm_120 (a known name from CUDA 12.7)").
 */
int kb_arch_source(const char *src, const struct relver *torch, const char *torch_from,
		   unsigned cuda, struct buf *out);

/*
 * After the fetch, with the tree in place and its patches applied: the
 * archs against the tree's own select_compute_arch.cmake (with
 * `check_archs`; what was used into `said`), and what the tree's CMake
 * needs from the toolkit at `cuda_home` (CUB: a CUDA 13 toolkit has it
 * only under include/cccl). -1 after reporting at the profile's keys.
 */
int kb_check_source(const struct profile *p, const char *src, const char *cuda_home, int check_archs,
		    struct buf *said);

/* Whether any CUDA release of the table builds SASS for cc (major*10+minor). */
int kb_arch_known(unsigned cc);

/*
 * Check the profile's archs and features against the knowledge base:
 * errors at the offending key with what to do; warnings (e.g. no +PTX on
 * the newest arch) become errors with `strict`. Returns -1 when it
 * reported an error.
 */
int kb_check(const struct profile *p, const struct kb_context *ctx, int strict);

/*
 * Check the profile against the switches the source tree really has
 * (option discovery, cmakeopts.h): a feature whose option the tree does
 * not declare is an error naming `tree` ("torch 2.10.0 (v2.10.0 at
 * 1a2b3c4d5e6f)") and the switch that replaced it where there is one; a
 * USE_* cmake entry nothing in the tree mentions is a warning (an error
 * with `strict`). -1 after an error.
 */
struct cmake_options;
int kb_check_tree(const struct profile *p, const struct cmake_options *opts, const char *tree,
		  int strict);

/* "13.0" / "v2.11.0" / "2.11.0+cu130" -> 1300 / 211; 0 when not a version. */
unsigned kb_parse_version(const char *s);

/* The highest gcc major a CUDA toolkit accepts as host compiler; 0 if unknown. */
unsigned kb_gcc_max(unsigned cuda);

/*
 * A GPU's datasheet peak for a benchmark's `dtype` (fp32, tf32, fp16,
 * bf16, fp8: dense tensor TFLOPS, no sparsity; "bytes": memory bandwidth
 * in GB/s; "nvlink", "pcie": the link to another GPU, GB/s per direction),
 * matched on the CUDA device name ("NVIDIA H100 80GB HBM3").
 * 0 when the GPU or the dtype is not in the table.
 */
double kb_gpu_peak(const char *device_name, const char *dtype);

/* 1 if the CUDA toolkit can emit SASS for compute capability major*10+minor. */
int kb_cuda_builds(unsigned cuda, unsigned cc);

/* torchvision or torchaudio: released in lockstep with torch. */
int kb_companion(const char *project);
/*
 * A companion's release (torchvision 0.26) against torch's (2.11), by the
 * release table: 0 when they belong together (or `project` is no
 * companion), -1 when not, with the release that fits in `why`, 1 when
 * the pair is outside the table (a note in `why`).
 */
int kb_companion_check(const char *project, const struct relver *version,
		       const struct relver *torch, struct buf *why);

/*
 * A module a build script may import at load time that exists only from
 * some release of its distribution on ("setuptools.command.bdist_wheel":
 * setuptools >= 70.1), or NULL when the table has no row for it.
 */
struct kb_module {
	const char *module, *dist;
	const char *spec;   /* ">=70.1" */
	const char *since;  /* "70.1.0" */
	const char *why;    /* "it moved there from the wheel package" */
};
const struct kb_module *kb_module_find(const char *module);

#endif
