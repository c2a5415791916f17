#ifndef BWBUILD_PYTHON_H
#define BWBUILD_PYTHON_H

#include "core/buf.h"

struct buf;

/*
 * Find a Python that can build wheels (setuptools >= 70.1, or setuptools
 * and wheel). `preferred` (the profile's build.python) is the only
 * candidate when set; otherwise the active environment's ($VIRTUAL_ENV,
 * then $CONDA_PREFIX), each python3 on PATH, then /usr/bin/python3. The
 * chosen path goes into `out`; `why` gets one line per candidate skipped
 * before it, found or not. -1 if none.
 */
int python_find(struct buf *out, const char *preferred, struct buf *why);

/*
 * setuptools as `py` would import it with `pythonpath` on PYTHONPATH
 * (NULL: bwbuild's own): its version and its package's __init__.py ("" and
 * "" when it has none), and whether 'wheel' imports. Asked once per
 * interpreter and path in a process (proc_query). -1 when the interpreter
 * could not be asked.
 */
struct python_setuptools {
	struct buf version, file;
	int wheel;
};
#define PYTHON_SETUPTOOLS_INIT { .version = BUF_INIT, .file = BUF_INIT }
int python_setuptools(const char *py, const char *pythonpath, struct python_setuptools *st);
void python_setuptools_release(struct python_setuptools *st);

/* 1 if `py` can build wheels (as python_find judges) with `pythonpath` (NULL: none) on PYTHONPATH. */
int python_builds_wheels(const char *py, const char *pythonpath);
/* 1 if `py` is a virtual environment's interpreter (pyvenv.cfg one folder above its own). */
int python_is_venv(const char *py);

/* 1 if `py -c "import MODULES"` succeeds ("setuptools, wheel"). */
int python_imports(const char *py, const char *modules);

/*
 * The interpreter python_find would try first (build.python, the active
 * venv or conda environment, python3 on PATH), without starting it: for
 * the up-to-date check, which must start no process. 0.
 */
int python_guess(struct buf *out, const char *preferred);

/*
 * What `py` has, with `pythonpath` (NULL or "": none) first on
 * PYTHONPATH: for each query "d:DIST" the distribution's version ("" when
 * absent), for "m:MODULE" "1" or "0" as the module imports; one answer a
 * query, in order, into `answers`. Asked once per interpreter, path and
 * queries in a process (proc_query). -1 when the interpreter could not be
 * asked.
 */
struct strvec;
int python_probe(const char *py, const char *pythonpath, const struct strvec *queries,
		 struct strvec *answers);

#endif
