#ifndef BWBUILD_DOCTOR_H
#define BWBUILD_DOCTOR_H

#include <stddef.h>

struct profile;
struct plan;
struct json;
struct buf;

/*
 * The preflight checklist behind `bwbuild doctor`: the toolchain, the
 * libraries the profile's features need, disk, memory and GPUs, each with
 * what to do when it is not right.
 */
enum check_status { CHECK_OK, CHECK_WARN, CHECK_FAIL };

struct check {
	enum check_status status;
	char *name;     /* "nvcc", "host compiler", ... */
	char *detail;   /* what was found, and what to do */
};

struct doctor {
	struct check *checks;
	size_t n, cap;
};

/* `p` and `pl` may be NULL (no profile): then only the toolchain is checked. */
void doctor_run(struct doctor *d, const struct profile *p, const struct plan *pl,
		const char *cuda_home, const char *work_dir);
void doctor_release(struct doctor *d);
int doctor_failed(const struct doctor *d);
/*
 * 1 when a build cannot pass with `c` failed (a missing nvml.h, cmake, disk
 * space: the build would stop at it, maybe hours in); 0 for what a build
 * gets past: the GPUs the wheel may later run on, remote hosts, a memory
 * budget below one heavy compile, cuda.version against the toolkit there.
 */
int doctor_blocks_build(const struct check *c);

void doctor_format(const struct doctor *d, struct buf *out);
struct json *doctor_json(const struct doctor *d);

/*
 * Pure parsers, exposed for tests: "Cuda compilation tools, release 13.0,
 * V13.0.88" -> 1300; `nvcc --list-gpu-code` output -> 1 if it lists
 * sm_<cc>; nvidia-smi CSV "NVIDIA H100, 9.0, 580.159.03" -> cc 90, driver 580.
 */
unsigned nvcc_version_parse(const char *text);
int gpu_code_listed(const char *list, unsigned cc);

/*
 * Before a build: every arch of the profile is one that <cuda_home>/bin/nvcc
 * lists in --list-gpu-code; errors at each arch's key. 0 when CUDA is off.
 */
int nvcc_archs_check(const char *cuda_home, const struct profile *p);
int smi_line_parse(const char *line, unsigned *cc, unsigned *driver, struct buf *name);

/*
 * The CMake a build needs: the tree's own ask under `src` (NULL: no tree
 * yet; treeneeds.h), raised to 3.27 for real PyTorch trees; where that
 * comes from into `from`. 0 when nothing is known.
 */
unsigned cmake_needed(const struct profile *p, const char *src, struct buf *from);
/* Before a build (its step checks): the cmake on PATH is at least cmake_needed(); -1 after reporting. */
int cmake_version_check(const struct profile *p, const char *src);

/* Which of `modules` the interpreter `py` cannot find (no module is run); -1 if it cannot be asked. */
struct strvec;
int python_missing(const char *py, const struct strvec *modules, struct strvec *missing);

#endif
