#ifndef BWBUILD_CUDALIBS_H
#define BWBUILD_CUDALIBS_H

#include "core/strvec.h"

struct buf;

/*
 * The CUDA runtime libraries of a wheel, the way PyTorch's own pip wheels
 * take them: not copied in, but declared as Requires-Dist on NVIDIA's
 * pip packages and found through RUNPATH entries into
 * site-packages/nvidia/<dir>/lib. Which package installs a soname, at
 * which version and into which directory is read from the dist-info of
 * the package the build machine's copy came from (its RECORD lists
 * "nvidia/cu13/lib/libcublas.so.13"); where there is none, from NVIDIA's
 * naming (the cuXX suffix of CUDA 12, the shared nvidia/cu13/lib of 13).
 */
enum cuda_libs_form {
	CUDA_LIBS_UNSET,  /* not said: verify infers the form from the wheel */
	CUDA_LIBS_PIP,    /* Requires-Dist + RUNPATH into site-packages/nvidia */
	CUDA_LIBS_VENDOR, /* copied into the wheel */
	CUDA_LIBS_SYSTEM, /* the installing machine's own CUDA (ld.so.conf) */
};

/* "pip" -> CUDA_LIBS_PIP ...; -1 for a word that is none of them. */
int cuda_libs_form_parse(const char *word);
const char *cuda_libs_form_name(int form);

struct profile;
/*
 * The form a wheel built from `p` has: wheel.cuda_libs when set; else the
 * pip form for a torch profile with CUDA whose wheel is repaired (the
 * repair step makes it), UNSET otherwise (an extension, a wheel left as
 * built: verify infers it from the wheel).
 */
int cuda_libs_form_of(const struct profile *p);

struct cuda_dist {
	char *soname;      /* "libcublas.so.13" */
	char *dist;        /* "nvidia-cublas" */
	char *version;     /* "13.1.0.3"; NULL when only the soname's major is known */
	char *dir;         /* "nvidia/cu13/lib", under site-packages */
	char *requirement; /* "nvidia-cublas==13.1.0.3; platform_system == \"Linux\"" */
	char *source;      /* the dist-info it was read from, or "NVIDIA's naming" */
};

void cuda_dist_release(struct cuda_dist *d);

/*
 * NVIDIA's naming for `soname` under CUDA `major` (12 or 13): the package
 * and its directory; 0, or -1 for a library no package of theirs installs.
 */
int cuda_dist_known(const char *soname, unsigned major, const char **dist, const char **dir);

/*
 * The CUDA major a wheel was built with, from the sonames its libraries
 * need (libcudart.so.13, libnvrtc.so.13, libcublas.so.12 carry it); 0 when
 * none of them is needed.
 */
unsigned cuda_major_of(const struct strvec *needed);

/* The dist-info directories read so far, each once. */
struct cuda_dist_index {
	struct strvec roots;  /* directories whose *.dist-info were read */
	struct strvec rows;   /* "file\tdist\tversion\tdir\tdist-info" */
};

void cuda_dist_index_init(struct cuda_dist_index *ix);
void cuda_dist_index_release(struct cuda_dist_index *ix);

/*
 * The package of `soname`, which this machine has at `file`: the
 * dist-info beside it (up to four directories above it, in a "dist-info"
 * folder there or beside it) when one lists nvidia/.../lib/<soname>,
 * pinned exactly; else NVIDIA's naming under `major`, pinned to the
 * soname's major (">=9,<10"). -1 with the reason in `why` when neither
 * knows it.
 */
int cuda_dist_find(struct cuda_dist_index *ix, const char *soname, const char *file,
		   unsigned major, struct cuda_dist *out, struct buf *why);

/*
 * Whether `runpath` of the member at `member` ("torch/lib/x.so") has an
 * $ORIGIN entry that is the directory `dir` of site-packages
 * ("nvidia/cu13/lib"). With `dir` NULL: whether any entry reaches into
 * site-packages/nvidia/ (the first such directory into `found`, if given).
 */
int runpath_reaches(const char *member, const char *runpath, const char *dir, struct buf *found);

/* "$ORIGIN/../../nvidia/cu13/lib" for the member "torch/lib/x.so" and "nvidia/cu13/lib". */
void runpath_entry_for(const char *member, const char *dir, struct buf *out);

/*
 * The package name of a requirement line, normalized as pip compares
 * them ("NVIDIA_cublas>=13" -> "nvidia-cublas"), into `out`; with its
 * extras ("cuda-toolkit[cublas,cudart]==13.0.2") into `extras`, if given.
 */
void requirement_name(const char *req, struct buf *out, struct strvec *extras);

/*
 * Whether the requirements `reqs` (METADATA's Requires-Dist values)
 * install the package of `soname` under CUDA `major`: its own name, or
 * NVIDIA's cuda-toolkit with the extra of its component.
 */
int requires_cuda_lib(const struct strvec *reqs, const char *soname, unsigned major);

#endif
