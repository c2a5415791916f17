#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/host/pyreqs.h"
#include "../../src/host/python.h"
#include "t.h"

/*
 * A tree's requirements read by the interpreter (tomllib, packaging):
 * markers evaluated for it, PEP 440 answers the hand-written reader got
 * wrong or never gave, files that are not what they say, and an
 * interpreter without packaging.
 */

/* packaging's answer for `spec` against `version`: 1, 0, -1 (unreadable); 9 when not asked. */
static int
meets(const char *py, const char *spec, const char *version)
{
	struct strvec pairs = STRVEC_INIT;
	struct buf why = BUF_INIT;
	int ok = 9;

	strvec_pushl(&pairs, spec, version, NULL);
	if (pyreqs_match(py, &pairs, &ok, &why) < 0)
		fprintf(stderr, "pyreqs_match: %s\n", why.s);
	strvec_clear(&pairs);
	buf_release(&why);
	return ok;
}

/*
 * A build reads the tree for its preflight and again for its own check:
 * one start per interpreter, question and state of the files the helper
 * reads; a file rewritten (a checkout) is read again.
 */
static void
t_pyreqs_once(const char *dir)
{
	struct buf py = BUF_INIT, text = BUF_INIT, count = BUF_INIT, got = BUF_INIT, why = BUF_INIT;
	struct buf src = BUF_INIT;
	struct strvec pairs = STRVEC_INIT;
	struct pytree t;
	int ok[1];

	buf_addf(&py, "%s/once/python3", dir);
	buf_addf(&count, "%s/once/starts", dir);
	buf_addf(&src, "%s/once/tree", dir);
	buf_addf(&text, "#!/bin/sh\necho \"$2\" >> %s\n"
		 "if [ \"$2\" = tree ]; then echo '{\"pyproject\": {\"table\": true, \"backend\": \"b\"}}'; "
		 "else echo '{\"match\": [true]}'; fi\n", count.s);
	t_put(dir, "once/python3", text.s, 1);
	t_put(dir, "once/tree/pyproject.toml", "[build-system]\n", 0);
	CHECK(pytree_read(&t, py.s, src.s, &why) == 0 && t.has_pyproject && !strcmp(t.backend, "b"));
	pytree_release(&t);
	CHECK(pytree_read(&t, py.s, src.s, &why) == 0 && t.has_pyproject && !strcmp(t.backend, "b"));
	pytree_release(&t);
	strvec_pushl(&pairs, ">=1", "2", NULL);
	CHECK(pyreqs_match(py.s, &pairs, ok, &why) == 0 && ok[0] == 1);
	CHECK(pyreqs_match(py.s, &pairs, ok, &why) == 0 && ok[0] == 1);
	CHECK(read_file(&got, count.s) == 0);
	CHECK_STR(got.s, "tree\nmatch\n");
	/* the tree checked out anew: read again */
	t_put(dir, "once/tree/pyproject.toml", "[build-system]\nrequires = []\n", 0);
	CHECK(pytree_read(&t, py.s, src.s, &why) == 0);
	pytree_release(&t);
	buf_reset(&got);
	CHECK(read_file(&got, count.s) == 0);
	CHECK_STR(got.s, "tree\nmatch\ntree\n");
	strvec_clear(&pairs);
	buf_release(&py);
	buf_release(&text);
	buf_release(&count);
	buf_release(&got);
	buf_release(&why);
	buf_release(&src);
}

void
t_pyreqs(void)
{
	const char *dir = t_tmpdir("pyreqs");
	struct buf py = BUF_INIT, why = BUF_INIT, src = BUF_INIT;
	struct pytree t;
	const struct pyreq *r;

	python_guess(&py, NULL);
	t_put(dir, "a/pyproject.toml",
	      "[project]\nname = \"x\"\n\n[build-system]\nrequires = [\n"
	      "  \"setuptools>=70.1.0,<80.0\",  # a comment\n"
	      "  'six; python_version < \"3.9\"',\n"
	      "  \"Typing_Extensions >= 4.10.0\",\n  \"wheel @ https://example.com/w.whl\",\n]\n"
	      "build-backend = \"setuptools.build_meta:__legacy__\"\n", 0);
	t_put(dir, "a/requirements-build.txt",
	      "# the build's\nsetuptools>=70.1.0,<80.0 \\\n   # joined\nnumpy ; sys_platform == \"nonesuch\"\n"
	      "-r requirements.txt\n--index-url https://example.com\n./local/pkg\n", 0);
	t_put(dir, "a/requirements.txt", "sympy (>=1.13.3)\n", 0);
	buf_addf(&src, "%s/a", dir);
	CHECK(pytree_read(&t, py.s, src.s, &why) == 0);
	CHECK(t.has_pyproject && t.has_table && !t.backend_path);
	CHECK_STR(t.backend, "setuptools.build_meta:__legacy__");
	CHECK(t.requires.n == 4);
	r = pyreqs_find(&t.requires, "setuptools");
	CHECK(r && r->line == 6 && r->applies && !strcmp(r->spec, ">=70.1.0,<80.0"));
	/* the marker, evaluated: no Python this runs on is older than 3.9 */
	r = pyreqs_find(&t.requires, "six");
	CHECK(r && !r->applies && r->line == 7);
	r = pyreqs_find(&t.requires, "typing-extensions");
	CHECK(r && !strcmp(r->spec, ">=4.10.0") && !strcmp(r->text, "Typing_Extensions >= 4.10.0"));
	r = pyreqs_find(&t.requires, "wheel");
	CHECK(r && r->url && !*r->spec);
	CHECK(t.build.n == 2);
	r = pyreqs_find(&t.build, "setuptools");
	CHECK(r && r->line == 2 && r->applies);
	r = pyreqs_find(&t.build, "numpy");
	CHECK(r && r->line == 4 && !r->applies);
	r = pyreqs_find(&t.all, "sympy");
	CHECK(r && !strcmp(r->spec, ">=1.13.3"));
	pytree_release(&t);

	/* TOML tomllib refuses (a table declared twice) and a line that is no requirement */
	t_put(dir, "b/pyproject.toml", "[build-system]\nrequires = [\"a\"]\n[build-system]\n", 0);
	buf_reset(&src);
	buf_addf(&src, "%s/b", dir);
	buf_reset(&why);
	CHECK(pytree_read(&t, py.s, src.s, &why) < 0);
	CHECK(strstr(why.s, "/b/pyproject.toml: Cannot declare ('build-system',) twice"));
	pytree_release(&t);
	t_put(dir, "c/requirements.txt", "ok>=1\n=bad\n", 0);
	buf_reset(&src);
	buf_addf(&src, "%s/c", dir);
	buf_reset(&why);
	CHECK(pytree_read(&t, py.s, src.s, &why) < 0);
	CHECK(strstr(why.s, "/c/requirements.txt: line 2: '=bad' is no requirement"));
	pytree_release(&t);

	/* PEP 440 as packaging says: post-releases, local labels, pre-releases, ~= */
	CHECK(meets(py.s, ">1.0", "1.0.post1") == 0);   /* > admits no post-release of 1.0 */
	CHECK(meets(py.s, ">=1.0", "1.0.post1") == 1);
	CHECK(meets(py.s, "<=1.0", "1.0.post1") == 0);
	CHECK(meets(py.s, ">=2.6", "2.6.0a0+git1234") == 0); /* a pre-release of 2.6.0 */
	CHECK(meets(py.s, ">=2.6.0a0", "2.6.0a0+git1234") == 1);
	CHECK(meets(py.s, "==2.6.0", "2.6.0+cu130") == 1);
	CHECK(meets(py.s, "~=2.6", "2.9.1") == 1 && meets(py.s, "~=2.6.0", "2.7") == 0);
	CHECK(meets(py.s, "~=1", "1.0") == -1);          /* ~= needs two release numbers */
	CHECK(meets(py.s, ">=70.1.0,<80.0", "66.1.1") == 0);
	CHECK(meets(py.s, ">=1", "banana") == -1);

	/* an interpreter where no packaging imports (nor setuptools', nor pip's copy) */
	{
		char *old = t_env_save("PYTHONPATH");

		t_put(dir, "block/sitecustomize.py",
		      "import sys\n"
		      "class B:\n"
		      "    def find_spec(self, name, path=None, target=None):\n"
		      "        if name.split('.')[0] in ('packaging', 'setuptools', 'pip'):\n"
		      "            raise ImportError(name)\n"
		      "sys.meta_path.insert(0, B())\n", 0);
		buf_reset(&src);
		buf_addf(&src, "%s/block", dir);
		setenv("PYTHONPATH", src.s, 1);
		buf_reset(&src);
		buf_addf(&src, "%s/a", dir);
		buf_reset(&why);
		CHECK(pytree_read(&t, py.s, src.s, &why) < 0);
		CHECK(strstr(why.s, "has no 'packaging' module") && strstr(why.s, py.s) &&
		      strstr(why.s, "pip install packaging"));
		pytree_release(&t);
		t_env_restore("PYTHONPATH", old);
	}
	t_pyreqs_once(dir);
	buf_release(&py);
	buf_release(&why);
	buf_release(&src);
}
