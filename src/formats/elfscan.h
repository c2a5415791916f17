#ifndef BWBUILD_ELFSCAN_H
#define BWBUILD_ELFSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "formats/manylinux.h"
#include "core/strvec.h"

/*
 * What one ELF library of a wheel (or of an installed package) carries:
 * its CUDA targets from .nv_fatbin (__nv_relfatbin apart), what the
 * dynamic loader will need for it, and the manylinux policy it satisfies.
 */
struct wheel_lib {
	char *path;
	struct strvec sass;      /* sorted, unique: sm_80, sm_120 (.nv_fatbin) */
	struct strvec ptx;       /* compute_120 (.nv_fatbin) */
	struct strvec rel_sass;  /* __nv_relfatbin, reported apart */
	struct strvec rel_ptx;
	struct strvec codecs;    /* raw, zstd, lz4 seen */
	unsigned containers;
	unsigned entries;
	unsigned deep_checked;   /* entries decompressed and matched (--deep) */
	int has_fatbin;
	unsigned machine;        /* e_machine */
	struct strvec needed;    /* DT_NEEDED, in order */
	char *soname;
	char *runpath;           /* DT_RUNPATH, else DT_RPATH; NULL when neither */
	struct manylinux_need ml;
	struct strvec kernels;   /* features whose kernels it exports: "flash_attention" */
	unsigned cxx_abi;        /* ELF_CXX11_ABI | ELF_OLD_ABI: std::string symbols seen */
	char *old_abi_symbol;    /* one pre-C++11 std::string symbol, to name */
};

/* What a library's dynamic symbols say of _GLIBCXX_USE_CXX11_ABI. */
#define ELF_CXX11_ABI 1u /* std::__cxx11::basic_string, [abi:cxx11] tags */
#define ELF_OLD_ABI 2u   /* the pre-C++11 std::string: Ss in a mangled name (_ZNSs, RKSs) */

/*
 * Read the library `path` whose bytes are `data`. Problems go into
 * `errors` with their rule in parentheses. Flags in `deep`: ELFSCAN_DEEP,
 * every fatbin entry decompressed and each cubin's header checked against
 * it; ELFSCAN_DROP, `data` is a page-aligned file mapping whose pages the
 * fatbin walk gives back as it passes them (a 456 MB libtorch_cuda.so
 * would otherwise stay resident, page by faulted-around page).
 */
#define ELFSCAN_DEEP 1
#define ELFSCAN_DROP 2
struct fatbin_budget;
/* With ELFSCAN_DEEP, `budget` bounds what the whole input decompresses (NULL: per entry only). */
void elfscan(struct wheel_lib *lib, const char *path, const uint8_t *data, size_t len, int deep,
	     struct fatbin_budget *budget, struct strvec *errors);
void wheel_lib_release(struct wheel_lib *lib);

/* Whether `feature` ("flash_attention") is a kernel family elfscan looks for. */
int elfscan_kernel_family(const char *feature);

#endif
