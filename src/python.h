#ifndef BWBUILD_PYTHON_H
#define BWBUILD_PYTHON_H

struct buf;

/*
 * Find a Python that can build wheels (imports setuptools and wheel).
 * `preferred` (the profile's build.python) is the only candidate when set;
 * otherwise each python3 on PATH, then /usr/bin/python3. The chosen path
 * goes into `out`; `why` gets one line per rejected candidate. -1 if none.
 */
int python_find(struct buf *out, const char *preferred, struct buf *why);

/* 1 if `py -c "import MODULES"` succeeds ("setuptools, wheel"). */
int python_imports(const char *py, const char *modules);

#endif
