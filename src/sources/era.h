#ifndef BWBUILD_ERA_H
#define BWBUILD_ERA_H

struct buf;

/*
 * PyTorch's build front-end changed twice (docs/design/pytorch.md §1); the tree
 * says which one it has:
 *	ERA_SETUP_HELPERS  setup.py with tools/setup_helpers/cmake.py turning the
 *	                   environment into -D options
 *	ERA_SETUP_ENVFWD   setup.py, with CMake reading the environment itself
 *	                   (cmake/EnvVarForwarding.cmake)
 *	ERA_SKBUILD        pyproject.toml with scikit-build-core and no setup.py
 * The first two are driven by `python3 setup.py build|bdist_wheel` (MAX_JOBS),
 * the last by `python3 -m build --wheel --no-isolation`
 * (CMAKE_BUILD_PARALLEL_LEVEL).
 *	ERA_EXTENSION      not torch: a package built on one (kind: extension),
 *	                   its setup.py run with that torch importable
 *	                   (torch.utils.cpp_extension, or CMake inside setup.py)
 */
enum build_era { ERA_UNKNOWN, ERA_SETUP_HELPERS, ERA_SETUP_ENVFWD, ERA_SKBUILD, ERA_EXTENSION };

/* Detect; ERA_UNKNOWN with a reason (what was found, what to do) in `why`. */
enum build_era era_detect(const char *dir, struct buf *why);
const char *era_name(enum build_era era);

#endif
