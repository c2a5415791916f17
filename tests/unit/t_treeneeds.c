#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/sources/treeneeds.h"
#include "../../src/host/python.h"
#include "t.h"

/*
 * What a tree asks of the machine, from a small tree made here: the CMake
 * it requires (CMakeLists.txt against the requirements files) and the
 * Python modules its build imports, walked from setup.py and the scripts
 * its CMake runs.
 */

static struct buf top = BUF_INIT;

static const struct py_need *
need(const struct py_needs *n, const char *module)
{
	for (size_t i = 0; i < n->n; i++)
		if (!strcmp(n->v[i].module, module))
			return &n->v[i];
	return NULL;
}

static void
t_cmake(void)
{
	struct buf from = BUF_INIT;

	CHECK(tree_cmake_needed(top.s, &from) == 0);   /* an empty tree says nothing */
	t_put(top.s, "CMakeLists.txt", "# a tree\ncmake_minimum_required(VERSION 3.18 FATAL_ERROR)\nproject(t)\n", 0);
	CHECK(tree_cmake_needed(top.s, &from) == 318);
	CHECK_STR(from.s, "CMakeLists.txt:2 cmake_minimum_required");
	/* A requirements file asking for more wins; mentions that are not cmake itself do not count. */
	t_put(top.s, "requirements.txt", "numpy\nmy-cmake>=9.0\ncmake_tools>=8.0\ncmake >= 3.27\n", 0);
	CHECK(tree_cmake_needed(top.s, &from) == 327);
	CHECK_STR(from.s, "requirements.txt: cmake>=3.27");
	t_put(top.s, "pyproject.toml", "[build-system]\nrequires = [\"setuptools\", \"cmake>=3.25\"]\n", 0);
	CHECK(tree_cmake_needed(top.s, &from) == 327);
	t_put(top.s, "requirements-build.txt", "cmake>=3.31\n", 0);
	CHECK(tree_cmake_needed(top.s, &from) == 331);
	CHECK_STR(from.s, "requirements-build.txt: cmake>=3.31");
	buf_release(&from);
}

static void
t_walk(void)
{
	struct py_needs n;
	const struct py_need *p;
	struct buf py = BUF_INIT;

	t_put(top.s, "setup.py", "import os\nimport sys\nfrom tools import gen\nimport numpy as np\n"
			         "\"\"\"\nimport inside_a_docstring\n\"\"\"\n  import indented\n"
			         "import torch\nfrom __future__ import annotations\n", 0);
	t_put(top.s, "tools/__init__.py", "", 0);
	t_put(top.s, "tools/gen.py", "from .util import helper\nfrom .sub import deep\nimport yaml\n", 0);
	t_put(top.s, "tools/sub/__init__.py", "", 0);
	t_put(top.s, "tools/sub/deep.py", "from ..util import helper\nimport regex\n", 0);
	t_put(top.s, "tools/util.py", "from typing_extensions import Literal\n", 0);
	t_put(top.s, "CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\n"
			               "add_custom_command(COMMAND ${Python_EXECUTABLE} -m codegen.main --out x)\n"
			               "execute_process(COMMAND Python::Interpreter scripts/make_version.py)\n"
			               "execute_process(COMMAND ${PYTHON_EXECUTABLE} ../outside.py)\n", 0);
	t_put(top.s, "codegen/__init__.py", "import jinja2\n", 0);
	t_put(top.s, "codegen/main.py", "from codegen import model\n", 0);
	t_put(top.s, "codegen/model.py", "import dataclasses\n", 0);
	t_put(top.s, "scripts/make_version.py", "import subprocess\n", 0);
	t_put(top.s, "pyproject.toml", "[build-system]\nrequires = [\"setuptools\", \"PyYAML\", \"cmake\", \"astunparse\",\n"
		"  \"six; python_version < '3'\"]\n", 0);

	python_guess(&py, NULL);
	CHECK(py_needs_scan(&n, top.s, py.s) == 0);
	CHECK(n.entries.n == 3);
	if (n.entries.n == 3) {
		CHECK_STR(n.entries.v[0], "setup.py");
		CHECK_STR(n.entries.v[1], "codegen/main.py");
		CHECK_STR(n.entries.v[2], "scripts/make_version.py");
	}
	CHECK(n.files == 10);
	p = need(&n, "numpy");
	CHECK_STR(p ? p->where : NULL, "setup.py:4");
	p = need(&n, "yaml");
	CHECK_STR(p ? p->where : NULL, "tools/gen.py:3");
	p = need(&n, "typing_extensions");
	CHECK_STR(p ? p->where : NULL, "tools/util.py:1");
	/* Relative imports count from the importing file's package (tools.util, not tools.gen.util). */
	p = need(&n, "regex");
	CHECK_STR(p ? p->where : NULL, "tools/sub/deep.py:2");
	CHECK(need(&n, "jinja2") && need(&n, "dataclasses") && need(&n, "subprocess"));
	CHECK(need(&n, "os") && need(&n, "sys"));
	/* Not needs: in-tree packages, torch itself, __future__, what is not at column 0 of code. */
	CHECK(!need(&n, "tools") && !need(&n, "codegen") && !need(&n, "torch"));
	CHECK(!need(&n, "__future__") && !need(&n, "inside_a_docstring") && !need(&n, "indented"));
	/* pyproject's requirements nobody imports: declared (yaml is imported, cmake a program). */
	CHECK(n.declared.n == 2 && strset_has(&n.declared, "astunparse") &&
	      strset_has(&n.declared, "setuptools"));
	py_needs_release(&n);
	CHECK(n.n == 0);
	buf_release(&py);
}

static void
t_empty(void)
{
	struct py_needs n;
	const char *d = t_tmpdir("treeneeds-empty");

	CHECK(py_needs_scan(&n, d, NULL) == -1);
	py_needs_release(&n);
	remove_tree(d);
}

/* CMake 4's judge: the policy version (a range by its top) and the oldest file of a tree. */
static void
t_policy(void)
{
	struct buf d = BUF_INIT, where = BUF_INIT;
	struct strvec imp = STRVEC_INIT;
	unsigned line = 0;

	CHECK(cmake_policy_text("cmake_minimum_required(VERSION 3.1...3.27)\n", 43, &line) == 327);
	CHECK(cmake_policy_text("cmake_minimum_required(VERSION 2.8.12)\n", 39, &line) == 208);
	CHECK(cmake_policy_text("project(x)\n", 11, &line) == 0);
	buf_addf(&d, "%s/policy", top.s);
	t_put(d.s, "CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\n", 0);
	t_put(d.s, "third_party/a/CMakeLists.txt", "# old\ncmake_minimum_required(VERSION 2.8.12)\n", 0);
	t_put(d.s, "third_party/b/CMakeLists.txt", "cmake_minimum_required(VERSION 3.0...3.20)\n", 0);
	t_put(d.s, "build/CMakeLists.txt", "cmake_minimum_required(VERSION 2.6)\n", 0);
	t_put(d.s, ".git/CMakeLists.txt", "cmake_minimum_required(VERSION 2.4)\n", 0);
	CHECK(tree_cmake_oldest(d.s, &where) == 208);
	CHECK_STR(where.s, "third_party/a/CMakeLists.txt:2");
	/* setup.py's load-time imports from outside the tree */
	t_put(d.s, "setup.py", "import os\nimport setuptools.command.bdist_wheel\nfrom tools.x import y\n"
	      "def f():\n    import numpy\n", 0);
	t_put(d.s, "tools/__init__.py", "", 0);
	CHECK(setup_py_loadtime(d.s, &imp) == 0);
	CHECK(imp.n == 2 && !strcmp(imp.v[0], "os\t1") && !strcmp(imp.v[1], "setuptools.command.bdist_wheel\t2"));
	strvec_clear(&imp);
	CHECK(setup_py_loadtime("/nonexistent", &imp) < 0);
	buf_release(&d);
	buf_release(&where);
}

void
t_treeneeds(void)
{
	struct buf pip = BUF_INIT, deb = BUF_INIT;

	buf_addstr(&top, t_tmpdir("treeneeds"));
	t_cmake();
	t_walk();
	t_empty();
	t_policy();
	py_module_packages("typing_extensions", &pip, &deb);
	CHECK_STR(pip.s, "typing-extensions");
	CHECK_STR(deb.s, "python3-typing-extensions");
	buf_reset(&pip);
	buf_reset(&deb);
	py_module_packages("Foo_Bar", &pip, &deb);
	CHECK_STR(pip.s, "Foo_Bar");
	CHECK_STR(deb.s, "python3-foo-bar");
	remove_tree(top.s);
	buf_release(&top);
	buf_release(&pip);
	buf_release(&deb);
}
