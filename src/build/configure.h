#ifndef BWBUILD_CONFIGURE_H
#define BWBUILD_CONFIGURE_H

#include "sources/era.h"

struct profile;
struct plan;
struct json;
struct cmake_cache;

/*
 * After configure: what CMake really decided. Every feature the profile
 * sets is compared with its option in CMakeCache.txt (the tree turns some
 * off by itself: flash attention without an arch >= 8.0, cuDNN or NCCL not
 * found). `*effective` gets { feature: { requested, effective } } for the
 * manifest. A feature the build turned against the profile is an error
 * naming the reason where known; returns -1 after reporting such errors
 * (or an unreadable cache).
 */
int configure_readback(const struct profile *p, const struct plan *pl, struct json **effective);

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
int configure_contract_read(const char *src_dir, enum build_era era, struct configure_contract *c,
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

/* The comparison itself, on a parsed cache (for tests). */
int features_effective(const struct profile *p, const struct cmake_cache *c, const char *cache_path,
		       struct json **effective);

/*
 * setuptools stages the package in <src>/build/lib.<platform>/ and
 * build/bdist.<platform>/ and never removes files from there: both gone
 * (after other settings, or after a compile or wheel step cut short, whose
 * copies there may be truncated yet newer than their sources). `step`
 * (an enum step) says a line per directory removed; -1: quietly.
 */
int setuptools_staging_remove(const char *src_dir, int step);

#endif
