#ifndef BWBUILD_ERA_H
#define BWBUILD_ERA_H

struct buf;
struct strvec;

/*
 * PyTorch's build front-end changed twice (docs/design/pytorch.md §1), and an
 * extension is built by its own setup.py. Each way a tree builds is one row of
 * src/pipeline/era.c; the steps ask the row, never the era's name, so a new
 * era is one row plus its fixture test:
 *	setup-envfwd   setup.py, with CMake reading the environment itself
 *	               (cmake/EnvVarForwarding.cmake)
 *	setup-helpers  setup.py with tools/setup_helpers/cmake.py turning the
 *	               environment into -D options
 *	skbuild        pyproject.toml with scikit-build-core and no setup.py:
 *	               `python3 -m build --wheel --no-isolation`
 *	               (CMAKE_BUILD_PARALLEL_LEVEL), which configures, compiles
 *	               and packs in one command
 *	extension      not torch: a package built on one (kind: extension), its
 *	               setup.py run with that torch importable
 *	               (torch.utils.cpp_extension, or CMake inside setup.py)
 */

/* How configure-only is asked of the tree (src/pipeline/contract.c). */
enum era_configure {
	ERA_CONFIGURE_NONE,     /* nothing to configure: compile does it all */
	ERA_CONFIGURE_SETUP_PY, /* setup.py's own switch, read from its text */
	ERA_CONFIGURE_CMAKE,    /* `cmake -S . -B build`, no setup.py */
};

/* What a row's commands are built from: no struct build, so rows are testable alone. */
struct era_cmd {
	const char *python, *src_dir, *work_dir;
	unsigned jobs;
};

struct era_ops {
	const char *key;  /* short name, for tests and lookups */
	const char *name; /* the fetch step's "build era:" line and the manifest's "era" */
	/* 1: the tree at `dir` builds this way; 0: not, with a reason in `why` when
	 * the row recognised the tree but cannot drive it. `python` (the build's)
	 * reads pyproject.toml. NULL: chosen by the profile's kind, never detected. */
	int (*detect)(const char *dir, const char *python, struct buf *why);
	enum era_configure configure;
	const char *no_configure; /* configure's line when configure is NONE */
	/* The compile step's command: arguments (argv[0] first) and environment. */
	void (*compile_argv)(const struct era_cmd *c, struct strvec *args, struct strvec *env);
	/* The wheel step's command writing into `dist`; NULL: compile made the wheel. */
	void (*wheel_argv)(const struct era_cmd *c, const char *dist, struct strvec *args);
	/* The compile command runs CMake's configure again: the read-back follows it. */
	int compile_configures;
	/* A module the build's python must import, how the user knows it, how to get it. */
	const char *module, *module_user, *module_hint;
	int torch_tree;          /* torch itself: the shared peaks table, seeds, ETA from build.ninja */
	int smoke_against_torch; /* the smoke probe runs with the torch it was built on */
};

/* The first row whose detect says yes; NULL with what was found and what to do in `why`. */
const struct era_ops *era_detect(const char *dir, const char *python, struct buf *why);
/* The row named `key`, or NULL. */
const struct era_ops *era_by_key(const char *key);
/* Row i in order, NULL past the end. */
const struct era_ops *era_row(unsigned i);

#endif
