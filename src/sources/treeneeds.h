#ifndef BWBUILD_TREENEEDS_H
#define BWBUILD_TREENEEDS_H

#include <stddef.h>

#include "core/strvec.h"

struct buf;

/*
 * What a source tree's build needs from the machine, read from the tree:
 * the CMake it asks for and the Python modules its build scripts import.
 */

/*
 * `cmake_minimum_required(VERSION 3.18[...3.27] [FATAL_ERROR])` in a
 * CMakeLists.txt text: the minimum as major*100+minor, its line into
 * *line; 0 when there is none.
 */
unsigned cmake_minimum_text(const char *text, size_t len, unsigned *line);
/*
 * The policy version the same call sets: the top of a "<min>...<max>"
 * range, else the minimum (what CMake 4, which refuses policies below
 * 3.5, judges). 0 when there is none.
 */
unsigned cmake_policy_text(const char *text, size_t len, unsigned *line);

/*
 * The lowest policy version (cmake_policy_text) among the tree's
 * CMakeLists.txt files, the top one and those in its directories (at most
 * 8 levels and 4000 files, .git and the top build/ left out), and where
 * ("third_party/FP16/CMakeLists.txt:1") into `where`; 0 when none says.
 */
unsigned tree_cmake_oldest(const char *src, struct buf *where);

/*
 * setup.py's module-level imports of modules from outside the tree, as
 * "NAME\tLINE" ("setuptools.command.bdist_wheel\t31"; `from X import a`
 * gives X and X.a): what must import before setup.py does anything.
 * __future__ and relative imports left out. -1 when there is no setup.py.
 */
int setup_py_loadtime(const char *src, struct strvec *out);

/*
 * The CMake a tree asks for: the top-level CMakeLists.txt's
 * cmake_minimum_required and any "cmake>=X.Y" in requirements-build.txt,
 * requirements.txt or pyproject.toml, the highest; `from` gets where it
 * was said ("CMakeLists.txt:1"). 0 when the tree says nothing.
 */
unsigned tree_cmake_needed(const char *src, struct buf *from);

/*
 * The module-level imports of a Python text (column 0, outside triple-quoted
 * strings): "NAME\tLINE" per imported module, relative ones with their
 * dots ("..api.types"), and for `from X import a, b` also "X.a" and "X.b"
 * (which may be submodules).
 */
void py_imports_text(const char *text, size_t len, struct strvec *out);

/* A module the build imports that is not part of the tree, and where first. */
struct py_need {
	char *module;   /* top-level name: "yaml" */
	char *where;    /* "torchgen/utils.py:20" */
};

struct py_needs {
	struct py_need *v;
	size_t n, alloc;
	struct strvec entries;   /* what the walk started from: "setup.py", "torchgen/gen.py" */
	size_t files;            /* in-tree files read */
	struct strvec declared;  /* pyproject's build requirements as module names, not imported */
};

/*
 * Walk the imports from the build's entry points: setup.py, and the
 * scripts its CMake runs (`${Python_EXECUTABLE} -m torchgen.gen`,
 * `Python::Interpreter tools/setup_helpers/generate_code.py` in
 * CMakeLists.txt, cmake/Codegen.cmake, caffe2/CMakeLists.txt), following
 * in-tree modules (never `torch`, which is what is being built) and
 * collecting every other top-level module, standard library included
 * (the interpreter tells those apart). Bounded: at most 400 files.
 * pyproject.toml's build requirements are read by `py` (NULL: not read).
 * -1 when the tree has no entry point and its pyproject.toml requires nothing.
 */
int py_needs_scan(struct py_needs *out, const char *src, const char *py);
void py_needs_release(struct py_needs *n);

/* The pip distribution and the Debian package of a module: "yaml" -> "pyyaml", "python3-yaml". */
void py_module_packages(const char *module, struct buf *pip, struct buf *deb);

#endif
