#ifndef BWBUILD_PYENV_H
#define BWBUILD_PYENV_H

#include <stddef.h>

#include "core/buf.h"
#include "core/strvec.h"

/*
 * The Python environment a tree's build asks for (pyenv.c): what the
 * tree's own files say its build needs from the interpreter, or
 * bwbuild's table for its release while the tree is not here; checked
 * against the build interpreter before anything runs, and met where it
 * can be by a private prefix first on PYTHONPATH: build.python_path, or
 * one that scripts/python-prefix.sh made under the cache
 * (<cache>/python-prefix/NAME/site), taken only when the interpreter
 * alone cannot start the build.
 */
struct pyenv_need {
	char *dist;    /* "setuptools" */
	char *spec;    /* ">=70.1.0,<80.0"; "" for any version */
	char *module;  /* a module that must import, or NULL */
	char *from;    /* where it was asked: "pyproject.toml:4 asks 'setuptools>=70.1.0,<80.0'" */
	int hard;      /* the build cannot start without it */
};

struct pyenv {
	struct pyenv_need *v;
	size_t n, alloc;
	int from_table;          /* the needs are bwbuild's table's, not the tree's */
	struct buf pythonpath;   /* chosen: empty for none */
	struct buf have;         /* what the chosen environment has of the hard needs */
	struct strvec soft;      /* soft needs it lacks: "typing-extensions 4.4.0 (...asks ...)" */
	struct buf error;        /* when nothing fits: what, asked where, how to get it */
};

#define PYENV_INIT { .pythonpath = BUF_INIT, .have = BUF_INIT, .soft = STRVEC_INIT, .error = BUF_INIT }

/*
 * The needs of the tree at `src`, read by the build's interpreter `py`
 * (host/pyreqs.h: tomllib, packaging, markers evaluated for `py`): the
 * build backend's distribution with the versions pyproject.toml's
 * [build-system] requires and requirements-build.txt (or requirements.txt's
 * lines for the same distributions) ask, and each module setup.py imports
 * at load time that bwbuild's table ties to a release (hard); every other
 * versioned build requirement whose marker holds (soft). -1 with
 * "SRC/FILE: ..." in `why` for a file that cannot be read as what it is,
 * or what `py` lacks to read it.
 */
int pyenv_read_tree(struct pyenv *e, const char *py, const char *src, struct buf *why);
/* The needs the release table knows for torch `torch` before its tree is here. */
struct relver;
void pyenv_read_table(struct pyenv *e, const struct relver *torch);

/*
 * Check `py` against the needs: alone, or with `python_path` (the
 * profile's build.python_path; NULL: the prefixes under the cache, each
 * tried only when `py` alone lacks a hard need) first on PYTHONPATH. 0
 * with the choice in pythonpath/have/soft; -1 with e->error. 0 at once
 * when there are no needs.
 */
int pyenv_choose(struct pyenv *e, const char *py, const char *python_path);
void pyenv_release(struct pyenv *e);

/*
 * The whole check for a profile's build: the needs of the tree at `src`,
 * or (NULL: no tree yet) of bwbuild's table for a real PyTorch release
 * (source.repo names pytorch/pytorch, source.ref a release tag), then
 * pyenv_choose with the profile's build.python_path. 0, or -1 with what
 * went wrong in e->error.
 */
struct profile;
int pyenv_for(struct pyenv *e, const struct profile *p, const char *py, const char *src);
/* The first hard need's source ("pyproject.toml:4 asks 'setuptools>=70.1.0,<80.0'"), or "". */
const char *pyenv_first_hard(const struct pyenv *e);

/*
 * `py` cannot build wheels alone (build.python, a venv without setuptools):
 * the first prefix under the cache with which it can, into `out`; -1 when
 * none does.
 */
int pyenv_wheel_prefix(const char *py, struct buf *out);
/*
 * python_find, and when build.python (`preferred`) cannot build wheels
 * alone, that interpreter with the prefix pyenv_wheel_prefix finds (its
 * site directory into `prefix`, `why` emptied): 0, or -1 as python_find.
 */
int pyenv_find_python(struct buf *py, const char *preferred, struct buf *why, struct buf *prefix);
/* What to do when `py` cannot build wheels: pip into a venv, apt-get otherwise, or the prefix script. */
void pyenv_wheel_hint(const char *py, struct buf *out);

/* <cache>/python-prefix: where scripts/python-prefix.sh puts a prefix (NAME/site). */
void pyenv_prefix_root(struct buf *out);
/* The script's path as a user would run it ("sh /usr/local/share/bwbuild/scripts/python-prefix.sh"). */
void pyenv_script_hint(struct buf *out);

#endif
