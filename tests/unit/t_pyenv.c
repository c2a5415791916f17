#include <string.h>

#include "../../src/pipeline/pyenv.h"
#include "../../src/core/buf.h"
#include "../../src/core/relver.h"
#include "../../src/core/util.h"
#include "../../src/host/python.h"
#include "t.h"

/*
 * What the build needs from python, read from a tree's files (by the
 * interpreter python_guess finds: tomllib, packaging) and from the
 * release table; build-era checks an interpreter against them.
 */
static const struct pyenv_need *
need(const struct pyenv *e, const char *dist, const char *module)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].dist, dist) &&
		    (module ? e->v[i].module && !strcmp(e->v[i].module, module) : !e->v[i].module))
			return &e->v[i];
	return NULL;
}

void
t_pyenv(void)
{
	const char *dir = t_tmpdir("pyenv");
	struct pyenv e = PYENV_INIT;
	struct relver torch;
	struct buf why = BUF_INIT, src = BUF_INIT, py = BUF_INIT;
	const struct pyenv_need *n;

	python_guess(&py, NULL);
	/* A 2.10-cycle tree: the pin, the load-time import, requirements files. */
	t_put(dir, "a/pyproject.toml",
	      "[build-system]\nrequires = [\n  \"setuptools>=70.1.0,<80.0\",\n  \"cmake>=3.27\",\n"
	      "  \"typing-extensions>=4.10.0\",\n  \"numpy\",\n  \"six; python_version<'3.0'\",\n]\n"
	      "build-backend = \"setuptools.build_meta\"\n", 0);
	t_put(dir, "a/setup.py", "import os\nimport setuptools.command.bdist_wheel\n"
	      "from tools.x import y\nfrom setuptools import setup\n", 0);
	t_put(dir, "a/tools/__init__.py", "", 0);
	t_put(dir, "a/tools/x.py", "y = 1\n", 0);
	t_put(dir, "a/requirements.txt", "-r requirements-build.txt\nsympy>=1.13.3\n", 0);
	t_put(dir, "a/requirements-build.txt", "setuptools>=70.1.0,<80.0\npackaging>=24.2\n", 0);
	buf_addf(&src, "%s/a", dir);
	CHECK(pyenv_read_tree(&e, py.s, src.s, &why) == 0);
	n = need(&e, "setuptools", NULL);
	CHECK(n && n->hard && !strcmp(n->spec, ">=70.1.0,<80.0"));
	CHECK(n && !strcmp(n->from, "pyproject.toml:3 asks 'setuptools>=70.1.0,<80.0'"));
	n = need(&e, "setuptools", "setuptools.command.bdist_wheel");
	CHECK(n && n->hard && !strcmp(n->spec, ">=70.1"));
	CHECK(n && strstr(n->from, "setup.py:2 imports setuptools.command.bdist_wheel at load time"));
	n = need(&e, "typing-extensions", NULL);
	CHECK(n && !n->hard && !strcmp(n->spec, ">=4.10.0"));
	n = need(&e, "packaging", NULL);
	CHECK(n && !n->hard && strstr(n->from, "requirements-build.txt:2"));
	/* programs, unversioned, conditional and runtime-only requirements are not the build's needs here */
	CHECK(!need(&e, "cmake", NULL) && !need(&e, "numpy", NULL) && !need(&e, "six", NULL));
	CHECK(!need(&e, "sympy", NULL));
	CHECK(!e.from_table);
	pyenv_release(&e);

	/* Without setup.py the backend is what must be there, unless it is in the tree. */
	t_put(dir, "b/pyproject.toml", "[build-system]\nrequires = [\"scikit-build-core>=1.0\"]\n"
	      "build-backend = \"scikit_build_core.build\"\n", 0);
	buf_reset(&src);
	buf_addf(&src, "%s/b", dir);
	CHECK(pyenv_read_tree(&e, py.s, src.s, &why) == 0);
	n = need(&e, "scikit-build-core", NULL);
	CHECK(n && n->hard);
	pyenv_release(&e);
	t_put(dir, "b/pyproject.toml", "[build-system]\nrequires = [\"scikit-build-core>=1.0\"]\n"
	      "build-backend = \"scikit_build_core.build\"\nbackend-path = [\"tools\"]\n", 0);
	CHECK(pyenv_read_tree(&e, py.s, src.s, &why) == 0);
	n = need(&e, "scikit-build-core", NULL);
	CHECK(n && !n->hard);
	pyenv_release(&e);

	/* A requirement packaging cannot read: the file and line. */
	t_put(dir, "c/pyproject.toml", "[build-system]\nrequires = [\"ok\",\n  \"=bad\"]\n", 0);
	buf_reset(&src);
	buf_addf(&src, "%s/c", dir);
	buf_reset(&why);
	CHECK(pyenv_read_tree(&e, py.s, src.s, &why) < 0);
	CHECK(strstr(why.s, "/c/pyproject.toml: line 3: '=bad' is no requirement"));
	pyenv_release(&e);

	/* No tree yet: the table's release row. */
	relver_parse("2.11.0", &torch, NULL);
	pyenv_read_table(&e, &torch);
	n = need(&e, "setuptools", "setuptools.command.bdist_wheel");
	CHECK(e.from_table && n && n->hard && strstr(n->from, "bwbuild's table for torch 2.11"));
	pyenv_release(&e);
	relver_parse("v2.7.1", &torch, NULL);
	pyenv_read_table(&e, &torch);
	CHECK(e.n == 0);
	relver_parse("2.99", &torch, NULL);
	pyenv_read_table(&e, &torch);
	CHECK(e.n == 0);
	/* Nothing needed: nothing asked, nothing chosen. */
	CHECK(pyenv_choose(&e, "/nonexistent/python3", NULL) == 0 && !e.pythonpath.len);
	pyenv_release(&e);

	/*
	 * A version that fails its need settles it: whether the module
	 * imports (which imports setuptools) is not asked. Interpreters that
	 * log their questions: setuptools 66.1.1, then 78.1.1 without the module.
	 */
	for (int v78 = 0; v78 < 2; v78++) {
		struct buf fake = BUF_INIT, log = BUF_INIT, text = BUF_INIT;

		buf_addf(&log, "%s/asked%d", dir, v78);
		buf_addf(&fake, "#!/bin/sh\n"
			 "case $1 in -c) shift 2; echo \"$*\" >> %s\n"
			 "  for q; do case $q in d:*) echo %s ;; *) echo 0 ;; esac; done ;;\n"
			 "*) echo '{\"match\": [%s]}' ;; esac\n", log.s, v78 ? "78.1.1" : "66.1.1",
			 v78 ? "true" : "false");
		buf_addf(&text, "py%d", v78);
		t_put(dir, text.s, fake.s, 1);
		buf_reset(&fake);
		buf_addf(&fake, "%s/py%d", dir, v78);
		relver_parse("2.11.0", &torch, NULL);
		pyenv_read_table(&e, &torch);
		CHECK(pyenv_choose(&e, fake.s, "/nonexistent") < 0);
		buf_reset(&text);
		CHECK(read_file(&text, log.s) == 0);
		if (!v78) {
			CHECK(!strstr(text.s, "m:"));
			CHECK(strstr(e.error.s, "has setuptools 66.1.1: bwbuild's table for torch 2.11"));
		} else {
			CHECK(strstr(text.s, "m:setuptools.command.bdist_wheel"));
			CHECK(strstr(e.error.s, "has setuptools 78.1.1 without setuptools.command.bdist_wheel: "));
		}
		pyenv_release(&e);
		buf_release(&fake);
		buf_release(&log);
		buf_release(&text);
	}
	buf_release(&why);
	buf_release(&src);
	buf_release(&py);
}
