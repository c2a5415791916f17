#ifndef BWBUILD_CMAKEARCH_H
#define BWBUILD_CMAKEARCH_H

#include <stddef.h>

#include "core/strvec.h"

struct buf;

/*
 * What a tree's select_compute_arch.cmake (the CMake that turns
 * TORCH_CUDA_ARCH_LIST into -gencode flags) makes of arch entries, asked
 * of CMake itself: cmakearch.c runs data/helpers/selarch.cmake with
 * `cmake -P`, which includes the file for one CUDA version and calls its
 * CUDA_SELECT_NVCC_ARCH_FLAGS once per entry, all in one run.
 */
struct cmakearch_entry {
	char *entry;  /* as asked: "10.0f", "Blackwell" */
	char *flags;  /* what it gives: "-gencode arch=compute_100f,code=sm_100f"; "" none */
	char *error;  /* what it said (SEND_ERROR/FATAL_ERROR); "" when nothing */
};

struct cmakearch {
	int has_function;       /* the file defines CUDA_SELECT_NVCC_ARCH_FLAGS */
	struct strvec all;      /* CUDA_ALL_GPU_ARCHITECTURES for the CUDA asked */
	struct strvec known;    /* CUDA_KNOWN_GPU_ARCHITECTURES for it */
	unsigned name_from;     /* the first CUDA (major*100+minor) whose known list has the name; 0 none */
	struct cmakearch_entry *v;
	size_t n, alloc;
};

#define CMAKEARCH_INIT { .all = STRVEC_INIT, .known = STRVEC_INIT }

/*
 * Run `file` for CUDA `cuda` (major*100+minor; 0: CUDA_VERSION unset) with
 * each of `entries`; `name` (may be NULL) is looked for in the known
 * lists of CUDA 10.0 to 13.9. 0; -1 with why: no cmake on PATH, one too
 * old, or one that gave no answer.
 */
int cmakearch_run(struct cmakearch *r, const char *file, unsigned cuda,
		  const struct strvec *entries, const char *name, struct buf *why);
/*
 * Read the driver's "bwarch:" lines from `out` (its output, as run or as
 * kept in the cache: core/answers.h) into r; 1 when they answer, else 0.
 */
int cmakearch_parse(struct cmakearch *r, const char *out);
/* The answer for `entry`, or NULL when it was not asked. */
const struct cmakearch_entry *cmakearch_find(const struct cmakearch *r, const char *entry);
void cmakearch_release(struct cmakearch *r);

/* Where trees keep it, relative to the tree: PyTorch's path, then the example's. */
extern const char *const cmakearch_paths[];

#endif
