#ifndef BWBUILD_DOCTOR_H
#define BWBUILD_DOCTOR_H

#include <stddef.h>

#include "core/diag.h"

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
	struct loc at;  /* the profile key it judges, where one does (file NULL: none) */
};

struct doctor {
	struct check *checks;
	size_t n, cap;
	int preflight;  /* doctor_preflight's: only the checks that can stop a build */
};

/* `p` and `pl` may be NULL (no profile): then only the toolchain is checked. */
void doctor_run(struct doctor *d, const struct profile *p, const struct plan *pl,
		const char *cuda_home, const char *work_dir);
/*
 * doctor_run for a build's preflight: the checks whose failure can stop a
 * build (doctor_blocks_build), without those that can only warn or whose
 * failure a build gets past, which start processes ('python3 -c "import
 * build"', nvidia-smi, a probe of each build.remote host) for lines no one
 * reads. A build stopped after its fetch (--until fetch) asks only for what
 * a fetch alone can fail: the host, a --source tree's patches, the disk.
 * The toolchain, the libraries and TMPDIR are for the steps after it, so
 * such a run starts no probe of them.
 */
enum doctor_scope { DOCTOR_FETCH, DOCTOR_BUILD };
void doctor_preflight(struct doctor *d, const struct profile *p, const struct plan *pl,
		      const char *cuda_home, const char *work_dir, enum doctor_scope scope);
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
 * Between doctor.c and the files of its other checks (doctor_needs.c: what
 * a build of the tree needs beyond the toolchain, NumPy, the BLAS, a
 * --source tree's patches; doctor_python.c; doctor_libs.c): one line of
 * the checklist, and whether the tree is a real PyTorch (the profile's
 * repository, or torchgen under `src`), both doctor.c's; each non-empty
 * field of `s` split at `sep` pushed (doctor_libs.c's); the NumPy check
 * (doctor_needs.c's).
 */
struct strvec;
void doctor_add(struct doctor *d, enum check_status st, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int doctor_real_tree(const struct profile *p, const char *src);
void doctor_push_fields(struct strvec *sv, const char *s, char sep);
void doctor_check_numpy(struct doctor *d, const struct profile *p, const char *py, const char *src);
/*
 * The machine whose libraries the checks look for: `root` in front of
 * every system directory ("" for this machine's /) and `machine` as
 * uname says it ("x86_64", "aarch64"), which names its multiarch
 * directories and CUDA's targets/ one (host/host.h). doctor_run checks
 * this machine; a test gives a root it laid out as another's.
 */
struct doctor_host {
	const char *root;
	const char *machine;
};
/* build.host_arch against `machine`: a failure (the build stops) when they differ. */
void doctor_check_host(struct doctor *d, const struct profile *p, const char *machine);
/* The build's Python, its modules, requirements and environment (doctor_python.c). */
void doctor_check_python(struct doctor *d, const struct profile *p, const char *src);
/* The BLAS, the libraries the features need (cuDNN, NCCL) and nvml.h, looked for on `h` (doctor_libs.c). */
void doctor_check_host_libs(struct doctor *d, const struct profile *p, const char *src,
			    const char *cuda_home, const struct doctor_host *h);
void doctor_check_blas(struct doctor *d, const struct profile *p, const char *src,
		       const struct doctor_host *h);
void doctor_check_patches(struct doctor *d, const struct profile *p, const struct plan *pl,
			  const char *src);

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

/*
 * CMake 4 refuses a policy version below 3.5, which old submodules still
 * declare (cmake_minimum_required(VERSION 2.8.12)): 1 when the cmake on
 * PATH is 4 or later and a CMakeLists.txt of the tree at `src` asks below
 * 3.5, so the build sets CMAKE_POLICY_VERSION_MINIMUM=3.5; 0 when not
 * needed or not known. `said` gets the sentence either way (empty when
 * there is nothing to say: a cmake 3).
 */
int cmake_policy_needed(const char *src, struct buf *said);

/* Which of `modules` the interpreter `py` cannot find (no module is run); -1 if it cannot be asked. */
struct strvec;
int python_missing(const char *py, const struct strvec *modules, struct strvec *missing);

/*
 * Whether the build needs NumPy from its interpreter, and why into `why`:
 * features.numpy on, or unset where the tree's USE_NUMPY defaults on
 * (`opts`: the tree's option()s; NULL: no tree here, where only
 * `real` — a real PyTorch tree, whose default is on — counts). Without
 * it PyTorch's CMake turns USE_NUMPY off with a warning in a log of
 * thousands of lines, and the wheel lacks torch.from_numpy.
 */
struct cmake_options;
int numpy_wanted(const struct profile *p, const struct cmake_options *opts, int real,
		 struct buf *why);
/* The build's check before anything compiles: -1 after reporting when `python` lacks a wanted NumPy. */
int numpy_check(const struct profile *p, const struct cmake_options *opts, const char *python);

#endif
