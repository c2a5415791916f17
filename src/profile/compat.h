#ifndef BWBUILD_COMPAT_H
#define BWBUILD_COMPAT_H

#include <stddef.h>

struct buf;
struct strvec;

/*
 * Will code built for a target run on a GPU? NVIDIA's rules (CUDA
 * compatibility guide, Blackwell guide):
 *   sm_XY    runs on X.Z for Z >= Y (same major, equal or newer minor)
 *   sm_XYf   runs across its family: the same major, minor >= Y
 *   sm_XYa   runs only on exactly X.Y
 *   compute_XY  JIT-compiles forward to any GPU of capability >= X.Y
 *   compute_XYa only on exactly X.Y; compute_XYf within the family
 */

/* Parse "sm_121", "121", "12.1" or "sm_90a" into a capability (121, 90). -1 if not one. */
int gpu_parse(const char *text, int *cc);

/* GPUs named on the command line (verify --target-gpu), in the order given. */
struct gpu_list {
	int *cc;
	size_t n, cap;
};
#define GPU_LIST_INIT { NULL, 0, 0 }

/* Parse `text` as gpu_parse does and append it; -1 (not reported) if it is not a GPU. */
int gpu_list_add(struct gpu_list *l, const char *text);
void gpu_list_release(struct gpu_list *l);

/* 1 if the fatbin target name ("sm_120", "compute_100f") can run on `cc`. */
int target_runs_on(const char *target, int cc);

/*
 * Pick how a library with these targets would run on `cc`: writes
 * "SASS sm_120" or "PTX JIT from compute_120" to `how`, preferring SASS.
 * 0 if it runs, -1 if nothing fits.
 */
int library_runs_on(const struct strvec *sass, const struct strvec *ptx, int cc, struct buf *how);

#endif
