#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/formats/pyreq.h"
#include "t.h"

static void
t_pyreq_versions(void)
{
	CHECK(pyver_cmp("66.1.1", "70.1") < 0);
	CHECK(pyver_cmp("70.1.0", "70.1") == 0);
	CHECK(pyver_cmp("78.1.1", "80.0") < 0);
	CHECK(pyver_cmp("2.11.0a0", "2.11.0") < 0);
	CHECK(pyver_cmp("2.11.0.dev20251215", "2.11.0a0") < 0);
	CHECK(pyver_cmp("1.0.post1", "1.0") > 0);
	CHECK(pyver_cmp("1.0-1", "1.0.post1") == 0);
	CHECK(pyver_cmp("1!0.1", "99") > 0);
	CHECK(pyver_cmp("2.6.0+cu130", "2.6.0") > 0);
	CHECK(pyver_cmp("V1.0RC2", "1.0rc1") > 0);
	CHECK(pyver_cmp("66.1.1-1+deb12u2", "66.1.1") > 0);
	CHECK(pyver_cmp("banana", "1.0") == PYVER_UNKNOWN);
	CHECK(pyver_cmp("1.0.", "1.0") == PYVER_UNKNOWN);
	CHECK(pyver_cmp("1.2.3.4.5.6.7.8.9", "1") == PYVER_UNKNOWN);

	CHECK(pyspec_match(">=70.1.0,<80.0", "78.1.1") == 1);
	CHECK(pyspec_match(">=70.1.0,<80.0", "66.1.1") == 0);
	CHECK(pyspec_match(">=70.1.0,<80.0", "81.0.0") == 0);
	CHECK(pyspec_match(">=77.0.0,<82", "81.0.0") == 1);
	CHECK(pyspec_match("", "1") == 1);
	CHECK(pyspec_match("==2.6.*", "2.6.3") == 1 && pyspec_match("==2.6.*", "2.7") == 0);
	CHECK(pyspec_match("!=0.2.0", "0.2.0") == 0 && pyspec_match("!=0.2.0", "0.3") == 1);
	CHECK(pyspec_match("~=4.10", "4.13.2") == 1 && pyspec_match("~=4.10", "5.0") == 0);
	CHECK(pyspec_match("~=1", "1.5") == -1);
	CHECK(pyspec_match("===1.0", "1.0") == 1);
	CHECK(pyspec_match(">1.0,<=2", "2.0.0") == 1);
	CHECK(pyspec_match(">=x", "1.0") == -1);
	CHECK(pyspec_match(">=1", "not-a-version") == -1);
}

static void
t_pyreq_requirements(void)
{
	static const char txt[] =
		"# Build System requirements\n"
		"setuptools>=70.1.0,<80.0  # setuptools develop deprecated on 80.0\n"
		"-r requirements-build.txt\n"
		"--index-url https://example.invalid/simple\n"
		"Typing_Extensions >= 4.10.0\n"
		"lintrunner ; platform_machine != \"s390x\"\n"
		"numpy \\\n"
		"  >=1.22\n"
		"./local/path\n"
		"pkg @ https://example.invalid/pkg.whl\n"
		"pyyaml --hash=sha256:00\n";
	struct pyreqs r = { 0 };
	struct strvec inc = STRVEC_INIT;
	struct buf why = BUF_INIT;

	CHECK(requirements_txt_parse(txt, strlen(txt), &r, &inc, &why) == 0);
	CHECK(r.n == 6 && inc.n == 1 && !strcmp(inc.v[0], "requirements-build.txt"));
	CHECK_STR(r.v[0].name, "setuptools");
	CHECK_STR(r.v[0].spec, ">=70.1.0,<80.0");
	CHECK(r.v[0].line == 2 && !r.v[0].marker);
	CHECK_STR(r.v[1].name, "typing-extensions");
	CHECK_STR(r.v[1].spec, ">=4.10.0");
	CHECK_STR(r.v[2].marker, "platform_machine != \"s390x\"");
	CHECK_STR(r.v[3].spec, ">=1.22");
	CHECK(r.v[3].line == 7);
	CHECK(r.v[4].url && !*r.v[4].spec);
	CHECK_STR(r.v[5].name, "pyyaml");
	CHECK(pyreqs_find(&r, "numpy") == &r.v[3] && !pyreqs_find(&r, "wheel"));
	pyreqs_release(&r);
	CHECK(requirements_txt_parse("good\n=bad\n", 10, &r, &inc, &why) < 0);
	CHECK(strstr(why.s, "names no distribution") && strstr(why.s, "(line 2)"));
	pyreqs_release(&r);
	buf_reset(&why);
	CHECK(pyreq_parse("torch (>=2.6, <2.7)", 19, 1, &r, &why) == 0);
	CHECK_STR(r.v[0].spec, ">=2.6,<2.7");
	CHECK(pyreq_parse("x[extra,other]>=1;python_version<'3.12'", 39, 1, &r, &why) == 0);
	CHECK(!strcmp(r.v[1].spec, ">=1") && !strcmp(r.v[1].marker, "python_version<'3.12'"));
	CHECK(pyreq_parse("x foo", 5, 1, &r, &why) < 0 && strstr(why.s, "is no version specifier"));
	CHECK(pyreq_parse("x[a", 3, 1, &r, &why) < 0);
	pyreqs_release(&r);
	strvec_clear(&inc);
	buf_release(&why);
}

static void
t_pyreq_pyproject(void)
{
	static const char toml[] =
		"# Package ####\n"
		"[project]\n"
		"name = \"torch\"\n"
		"authors = [{ name = \"A\", email = \"a@b\" }]\n"
		"description = '''multi\n"
		"line'''\n"
		"[project.urls]\n"
		"\"Issue Tracker\" = \"https://example.invalid\"\n"
		"\n"
		"[ build-system ]\n"
		"requires = [\n"
		"    \"setuptools>=70.1.0,<80.0\",  # setup.py imports bdist_wheel\n"
		"    'cmake>=3.27',\n"
		"    \"typing-extensions>=4.10.0\",\n"
		"]\n"
		"build-backend = \"setuptools.build_meta\"\n"
		"[[tool.x.y]]\n"
		"requires = [\"not-this\"]\n"
		"when = 1979-05-27T07:32:00Z\n"
		"nested = [[1, 2], {a = [3]}]\n"
		"s = \"\"\"a \\\n"
		"   b\"\"\"\n";
	struct pyproject_build b;
	struct buf why = BUF_INIT;

	CHECK(pyproject_build_parse(toml, strlen(toml), &b, &why) == 0);
	CHECK(b.has_table && b.requires.n == 3 && !b.backend_path);
	CHECK_STR(b.requires.v[0].name, "setuptools");
	CHECK(b.requires.v[0].line == 12 && b.requires.v[2].line == 14);
	CHECK_STR(b.requires.v[1].spec, ">=3.27");
	CHECK_STR(b.backend, "setuptools.build_meta");
	CHECK(b.backend_line == 16);
	pyproject_build_release(&b);

	CHECK(pyproject_build_parse("build-system.requires = [\"wheel\"]\n", 34, &b, &why) == 0);
	CHECK(b.has_table && b.requires.n == 1 && !b.backend);
	pyproject_build_release(&b);
	CHECK(pyproject_build_parse("[tool]\nx = 1\n", 13, &b, &why) == 0 && !b.has_table);
	pyproject_build_release(&b);
	CHECK(pyproject_build_parse("[build-system]\nrequires = []\nbackend-path = [\"t\"]\n", 50, &b,
				    &why) == 0 && b.backend_path && !b.requires.n);
	pyproject_build_release(&b);

	CHECK(pyproject_build_parse("[build-system]\nrequires = \"setuptools\"\n", 39, &b, &why) < 0);
	CHECK(strstr(why.s, "line 2: [build-system] requires must be an array"));
	buf_reset(&why);
	CHECK(pyproject_build_parse("[build-system]\nrequires = [\n  \"ok\",\n  \"=bad\"]\n", 46, &b,
				    &why) < 0);
	CHECK(strstr(why.s, "line 4: '=bad' names no distribution"));
	buf_reset(&why);
	CHECK(pyproject_build_parse("[x]\na = \"open\n", 14, &b, &why) < 0 &&
	      strstr(why.s, "line 2: a line ends inside a string"));
	buf_reset(&why);
	CHECK(pyproject_build_parse("[x]\na = [1, 2\n", 14, &b, &why) < 0);
	buf_reset(&why);
	CHECK(pyproject_build_parse("[x\n", 3, &b, &why) < 0 && strstr(why.s, "expected ']'"));
	buf_reset(&why);
	CHECK(pyproject_build_parse("a = \"1\" b\n", 10, &b, &why) < 0 &&
	      strstr(why.s, "expected the end of the line"));
	buf_release(&why);
}

/* Issue 40's W6 cases: each disagreed with packaging and tomllib before. */
static void
t_pyreq_reference(void)
{
	static const char inline_table[] =
		"build-system = { requires = [\"setuptools>=70\", \"wheel\"], "
		"build-backend = \"setuptools.build_meta\" }\n";
	static const char escapes[] =
		"[build-system]\nrequires = [\"a\\u0062c>=1\", \"d\\U00000065f\", 'g;x==\"\\t\"']\n"
		"build-backend = \"x\\\"y\\\\z\\b\\f\\r\"\n";
	struct pyproject_build b;
	struct pyreqs r = { 0 };
	struct strvec inc = STRVEC_INIT;
	struct buf why = BUF_INIT;

	CHECK(pyspec_match("==1.0+local", "1.0") == 0);
	CHECK(pyspec_match("==1.0", "1.0+local") == 1);
	CHECK(pyspec_match("<2.0", "2.0a1") == 0 && pyspec_match("<2.0", "2.0.dev1") == 0);
	CHECK(pyspec_match("<2.0a2", "2.0a1") == 1);
	CHECK(pyspec_match(">1.0", "1.0.post1") == 0 && pyspec_match(">1.0", "1.0+local") == 0);
	CHECK(pyspec_match(">1.0.post1", "1.0.post2") == 1);
	CHECK(pyspec_match("~=1", "1.5") == -1);
	CHECK(pyspec_check("~=1", &why) < 0);
	CHECK_STR(why.s, "'~=1' is no version specifier: ~= needs at least two release numbers "
		  "(~=1.0, not ~=1)");
	buf_reset(&why);
	CHECK(pyreq_parse("x>=1.0+local", 12, 3, &r, &why) < 0);
	CHECK_STR(why.s, "'x>=1.0+local': '>=1.0+local' is no version specifier: only == and != "
		  "take a local version (+...)");
	buf_reset(&why);

	CHECK(pyproject_build_parse(inline_table, strlen(inline_table), &b, &why) == 0);
	CHECK(b.has_table && b.requires.n == 2 && b.backend);
	CHECK_STR(b.requires.v[0].spec, ">=70");
	CHECK_STR(b.backend, "setuptools.build_meta");
	pyproject_build_release(&b);
	CHECK(pyproject_build_parse(escapes, strlen(escapes), &b, &why) == 0 && b.requires.n == 3);
	CHECK_STR(b.requires.v[0].name, "abc");
	CHECK_STR(b.requires.v[1].name, "def");
	CHECK_STR(b.requires.v[2].marker, "x==\"\\t\"");
	CHECK_STR(b.backend, "x\"y\\z\b\f\r");
	pyproject_build_release(&b);
	CHECK(pyproject_build_parse("a = \"\\q\"\n", 9, &b, &why) < 0);
	CHECK_STR(why.s, "line 1: an escape TOML does not have in a string (\\b \\t \\n \\f "
		  "\\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)");
	buf_reset(&why);
	CHECK(pyproject_build_parse("a = \"\\ud800\"\n", 13, &b, &why) < 0);
	CHECK_STR(why.s, "line 1: an escape for no Unicode character in a string");
	buf_reset(&why);

	CHECK(requirements_txt_parse("ok\nnumpy\0>=99\n", 15, &r, &inc, &why) < 0);
	CHECK_STR(why.s, "line 2 holds a NUL byte; a requirements file is text");
	buf_reset(&why);
	CHECK(pyreq_parse("numpy\0>=99", 11, 1, &r, &why) < 0);
	CHECK_STR(why.s, "'numpy' holds a NUL byte");
	pyreqs_release(&r);
	strvec_clear(&inc);
	buf_release(&why);
}

void
t_pyreq(void)
{
	t_pyreq_reference();
	t_pyreq_versions();
	t_pyreq_requirements();
	t_pyreq_pyproject();
}
