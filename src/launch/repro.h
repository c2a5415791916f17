#ifndef BWBUILD_REPRO_H
#define BWBUILD_REPRO_H

#include <stddef.h>

struct strvec;

/*
 * Reproducible builds: what the compiler launcher does so that two builds
 * of the same inputs in two work directories give the same bytes.
 *
 * Build paths are mapped away: the work directory to REPRO_WORK_PREFIX and
 * the source tree to REPRO_SRC_PREFIX, by -ffile-prefix-map (which also
 * maps __FILE__ and debug info) given to gcc/clang directly and to nvcc
 * through -Xcompiler (nvcc's host and device preprocessing both honour it).
 */
#define REPRO_WORK_PREFIX "/bwbuild/work"
#define REPRO_SRC_PREFIX "/bwbuild/src"

/*
 * The prefix maps for `work_dir` and `src_dir` (either may be NULL or ""),
 * each option after `via` ("" for gcc, "-Xcompiler=" for nvcc), pushed
 * onto `out`. 1 when any was.
 */
int repro_prefix_maps(const char *work_dir, const char *src_dir, const char *via, struct strvec *out);

/*
 * `argv` (a compile command, possibly behind ccache) with the prefix maps
 * for `work_dir` and `src_dir` (either may be NULL) inserted after the
 * compiler's name, into `out`. A command whose compiler is neither nvcc
 * nor a gcc/clang driver is copied as it is. 1 when maps were added.
 */
int repro_compile_args(char *const *argv, const char *work_dir, const char *src_dir,
		       struct strvec *out);

/* The object file an nvcc command writes (-o, --output-file); NULL for other compilers. */
const char *repro_nvcc_output(char *const *argv);

/*
 * nvcc names its intermediate "tmpxft_<pid>_<counter>-<n>_<file>.cudafe1.cpp";
 * gcc keeps that name as the object's FILE symbol (and in debug info), so
 * the pid would reach the library and its GNU build-id. Every such name in
 * `data` gets its pid digits zeroed, in place (same length, so no offset
 * moves). Returns how many names were rewritten.
 */
size_t repro_scrub_tmpxft(unsigned char *data, size_t len);

/* repro_scrub_tmpxft on an ELF object file, rewritten under a temporary name and renamed. */
int repro_fix_object(const char *path);

#endif
