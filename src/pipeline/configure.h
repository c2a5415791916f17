#ifndef BWBUILD_CONFIGURE_H
#define BWBUILD_CONFIGURE_H

#include <stddef.h>

#include "pipeline/era.h"

struct profile;
struct plan;
struct json;
struct cmake_cache;

/*
 * After configure: what CMake really decided. Every feature the profile
 * sets is compared with its option in CMakeCache.txt (the tree turns some
 * off by itself: flash attention without an arch >= 8.0, cuDNN or NCCL not
 * found). `*effective` gets { feature: { requested, effective,
 * tree_default } } for the manifest. A feature the build turned against
 * the profile is an error naming the reason where known; returns -1 after
 * reporting such errors (or an unreadable cache). `notes` gets the lines
 * the read-back table ends with: the BLAS row (readback_blas) and the
 * options CMake turned off that the tree defaults on (readback_dropped).
 * In src/pipeline/settle.c, with setuptools_staging_remove.
 */
struct buf;
int configure_readback(const struct profile *p, const struct plan *pl, struct json **effective,
		       struct buf *notes);

/* What the CMake hook writes into the build directory; read before CMakeCache.txt. */
#define CONFIGURE_EFFECTIVE_FILE "bwbuild-effective.txt"
/* Write the hook (<work>/cmake/bwbuild-effective.cmake) and give its path. -1 after reporting. */
struct buf;
int configure_hook(const char *work_dir, struct buf *path);

/*
 * How a tree is told to configure and stop, read from the tree itself
 * (docs/design/pytorch.md §3), never from a version table alone:
 *	CONFIGURE_ONLY_ARG  setup.py parses `--cmake-only` from sys.argv (v2.6.0;
 *	                    an environment CMAKE_ONLY is ignored there and
 *	                    forwarded to CMake like every CMAKE_* variable)
 *	CONFIGURE_ONLY_ENV  setup.py reads CMAKE_ONLY=1 from the environment
 *	CONFIGURE_ONLY_CMAKE no setup.py (scikit-build-core): `cmake -S . -B build`
 * When setup.py reads both, the argument is used: it reaches setup.py and
 * nothing else.
 */
enum configure_only { CONFIGURE_ONLY_UNKNOWN, CONFIGURE_ONLY_ARG, CONFIGURE_ONLY_ENV,
		      CONFIGURE_ONLY_CMAKE };

struct configure_contract {
	enum configure_only only;
	int forwards_cmake; /* the setup helpers pass every CMAKE_* variable to CMake as -D */
	int pops_env;       /* setup.py takes CMAKE_ONLY out of the environment it passes on */
};

/* The contract from setup.py's and tools/setup_helpers/cmake.py's text (either may be ""). */
void configure_contract_parse(const char *setup_py, const char *cmake_py,
			      struct configure_contract *c);
/* The contract of the tree in `src_dir` of era `era`; -1 with the reason in `why`. */
int configure_contract_read(const char *src_dir, const struct era_ops *era, struct configure_contract *c,
			    struct buf *why);

/*
 * The configure command of contract `c`: args and the variables added to
 * the step's environment (BWBUILD_LAUNCH_PHASE=configure always: the
 * launcher learns nothing during configure and refuses a real compile).
 * `cmake` holds the plan's NAME=VALUE entries CMake is meant to get; its
 * CMAKE_* ones are the -D options of `cmake -S . -B build` (the rest reach
 * CMake through the environment, as EnvVarForwarding reads it).
 */
struct strvec;
void configure_command(const struct configure_contract *c, const char *python, const char *src_dir,
		       const struct strvec *cmake, struct strvec *args, struct strvec *env);

/*
 * A build directory configured without bwbuild's stamp (a killed run, a
 * configure by hand): whether its cache holds the plan's settings, each
 * difference as a "  KEY: old -> new" line in `diff`. 1 when it matches.
 */
int configure_cache_matches(const struct cmake_cache *c, const char *src_dir,
			    const struct strvec *cmake, struct buf *diff);
/* What differs between two configure.stamp texts, as "  KEY: old -> new" lines. */
void configure_stamp_diff(const char *old, const char *new_, struct buf *diff);

/*
 * The read-back's judgement (readback.c), on a parsed cache or the hook's
 * dump. `tree`: the tree's option()s (cmakeopts.h), NULL when unknown.
 */
struct cmake_options;
struct cmake_option;
struct strvec;
/* `key` as configure ended with it (a dependent option forced off reads OFF), or NULL. */
const char *configure_effective_value(const struct cmake_cache *c, const char *key);
/* Whether the tree declares `name` on by default: 1, 0, or -1 (not declared, or not a constant). */
int tree_default_on(const struct cmake_options *tree, const char *name, const struct cmake_option **o);
/*
 * The profile's features against the cache: errors where the build turned
 * one against the profile, a warning where it turned off one the profile
 * leaves to the tree and the tree defaults on (features.numpy: USE_NUMPY
 * OFF when CMake finds no NumPy).
 */
int features_effective(const struct profile *p, const struct cmake_cache *c, const char *cache_path,
		       const struct cmake_options *tree, struct json **effective);
/*
 * Every option the tree declares on that configure ended off, asked by
 * nobody (not in the plan's `env`, not `inherited`): a line each into
 * `out`, "NAME  FILE:LINE: why" (the option its condition needs, when off).
 * Their number.
 */
size_t readback_dropped(const struct cmake_cache *c, const struct cmake_options *tree,
			const struct strvec *env, const struct strvec *inherited, struct strvec *out);
/*
 * The BLAS configure ended with (BLAS, BLAS_INFO, USE_BLAS and
 * CAFFE2_USE_EIGEN_FOR_BLAS from the hook's dump; BLAS and
 * USE_EIGEN_FOR_BLAS from a cache): its row of the table into `row`
 * (nothing for a tree without PyTorch's BLAS choice). Eigen's BLAS in
 * place of another is an error where the profile named one (cmake.BLAS),
 * -1 then, and a warning otherwise.
 */
int readback_blas(const struct profile *p, const struct cmake_cache *c, const struct strvec *inherited,
		  const char *cache_path, struct buf *row);

/* A BLAS PyTorch's CMake takes by name, the library it looks for and the Debian package with it. */
struct blas_lib {
	const char *name, *lib, *package;
};
/* By name, any case ("OpenBLAS", "MKL"); NULL for Eigen and the names of other systems. */
const struct blas_lib *blas_lib_find(const char *name);
/* The profile's cmake.BLAS entry, or NULL. */
struct pkv;
const struct pkv *profile_blas(const struct profile *p);

/*
 * setuptools stages the package in <src>/build/lib.<platform>/ and
 * build/bdist.<platform>/ and never removes files from there: both gone
 * (after other settings, or after a compile or wheel step cut short, whose
 * copies there may be truncated yet newer than their sources). `step`
 * (an enum step) says a line per directory removed; -1: quietly.
 */
int setuptools_staging_remove(const char *src_dir, int step);

#endif
