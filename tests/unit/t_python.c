#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/core/proc.h"
#include "../../src/core/safefile.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/host/python.h"
#include "t.h"

/*
 * Which interpreter builds: build.python alone when set, else the active
 * venv, conda, PATH, /usr/bin/python3; each judged by whether it can build
 * wheels. Fake interpreters (shell scripts that succeed or fail) make the
 * answers the same on every machine.
 */

static void
script(const char *path, const char *text)
{
	if (mkdir_p_parent(path) < 0 || write_file_atomic(path, text, strlen(text)) < 0 ||
	    chmod(path, 0755) < 0)
		exit(1);
}

static void
restore(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	free(saved);
}

/*
 * The probe's answers judged (70.1 builds alone, older needs wheel, no
 * file means no setuptools), asked once per interpreter and PYTHONPATH in
 * a process; and the system's python3 answered as its own import would.
 */
static void
t_python_setuptools(const char *dir)
{
	static const struct {
		const char *answer;
		int builds;
	} cases[] = {
		{ "70.1.0\\n/s/setuptools/__init__.py\\n0", 1 },
		{ "78.1.1\\n/s/setuptools/__init__.py\\n0", 1 },
		{ "69.5.1\\n/s/setuptools/__init__.py\\n0", 0 },
		{ "66.1.1\\n/s/setuptools/__init__.py\\n1", 1 },
		{ "\\n\\n1", 0 },
		{ "70\\n/s/setuptools/__init__.py\\n0", 0 },
	};
	struct buf py = BUF_INIT, text = BUF_INIT, count = BUF_INIT, *got = &text;
	struct python_setuptools st = PYTHON_SETUPTOOLS_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_reset(&py);
		buf_reset(&text);
		buf_addf(&py, "%s/case%zu/python3", dir, i);
		buf_addf(&text, "#!/bin/sh\nprintf '%s\\n'\n", cases[i].answer);
		script(py.s, text.s);
		CHECK(python_builds_wheels(py.s, NULL) == cases[i].builds);
	}

	/* One process per interpreter and PYTHONPATH: the fake counts its starts. */
	buf_reset(&py);
	buf_reset(&text);
	buf_addf(&py, "%s/counted/python3", dir);
	buf_addf(&count, "%s/counted/starts", dir);
	buf_addf(&text, "#!/bin/sh\necho x >> %s\nprintf '78.1.1\\n/p/setuptools/__init__.py\\n0\\n'\n",
		 count.s);
	script(py.s, text.s);
	CHECK(python_setuptools(py.s, NULL, &st) == 0);
	CHECK_STR(st.version.s, "78.1.1");
	CHECK_STR(st.file.s, "/p/setuptools/__init__.py");
	CHECK(st.wheel == 0);
	CHECK(python_builds_wheels(py.s, NULL) == 1);
	CHECK(python_setuptools(py.s, "/a", &st) == 0);
	buf_reset(got);
	CHECK(read_file(got, count.s) == 0);
	CHECK_STR(got->s, "x\nx\n");

	/* The real interpreter: its probe agrees with importing setuptools. */
	if (python_imports("python3", "setuptools")) {
		struct buf out = BUF_INIT;
		struct proc p = PROC_INIT;

		strvec_pushl(&p.args, "python3", "-c",
			     "import setuptools; print(setuptools.__version__)", NULL);
		CHECK(proc_run_capture(&p, &out) == 0);
		buf_rtrim(&out);
		CHECK(python_setuptools("python3", NULL, &st) == 0);
		CHECK_STR(st.version.s, out.s);
		CHECK(ends_with(st.file.s, "/setuptools/__init__.py"));

		/*
		 * Read from the metadata file, not through importlib.metadata (0.15
		 * CPU s a run more): with it unimportable the answer is the same.
		 */
		buf_reset(&py);
		buf_addf(&py, "%s/nometa/sitecustomize.py", dir);
		script(py.s, "import sys\n"
			     "class NoMetadata:\n"
			     "    def find_spec(self, name, path=None, target=None):\n"
			     "        if name.startswith('importlib.metadata'):\n"
			     "            raise ImportError('importlib.metadata: not for the probe')\n"
			     "sys.meta_path.insert(0, NoMetadata())\n");
		buf_setlen(&py, py.len - strlen("/sitecustomize.py"));
		CHECK(python_setuptools("python3", py.s, &st) == 0);
		CHECK_STR(st.version.s, out.s);
		CHECK(ends_with(st.file.s, "/setuptools/__init__.py"));
		proc_release(&p);
		buf_release(&out);
	}

	/*
	 * The metadata read where importlib.metadata would find it, without
	 * importing it (two thirds of the probe's CPU): an interpreter that
	 * cannot import it answers, from a pip layout (dist-info), Debian's
	 * (an egg-info file) and a package without metadata (its import).
	 */
	buf_reset(&py);
	buf_addf(&py, "%s/nometa/python3", dir);
	script(py.s, "#!/bin/sh\nexec python3 -c 'import sys; sys.modules[\"importlib.metadata\"] = None; "
	       "c = sys.argv[1]; sys.argv = [\"-c\"]; exec(compile(c, \"<string>\", \"exec\"), "
	       "{\"__name__\": \"__main__\"})' \"$2\"\n");
	{
		static const struct {
			const char *meta, *text, *version;
		} sites[] = {
			{ "Setuptools-78.1.1.dist-info/METADATA",
			  "Metadata-Version: 2.1\nName: setuptools\nVersion: 78.1.1\n\nVersion: 9\n", "78.1.1" },
			{ "setuptools-66.1.1.egg-info", "Metadata-Version: 1.0\nName: setuptools\nVersion: 66.1.1\n",
			  "66.1.1" },
			{ "setuptools/__init__.py", "__version__ = '1.2'\n", "1.2" },
		};

		for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
			struct buf site = BUF_INIT, f = BUF_INIT;

			buf_addf(&site, "%s/site%zu", dir, i);
			buf_addf(&f, "%s/setuptools/__init__.py", site.s);
			script(f.s, "");
			buf_reset(&f);
			buf_addf(&f, "%s/%s", site.s, sites[i].meta);
			script(f.s, sites[i].text);
			CHECK(python_setuptools(py.s, site.s, &st) == 0);
			CHECK_STR(st.version.s, sites[i].version);
			buf_reset(&f);
			buf_addf(&f, "%s/setuptools/__init__.py", site.s);
			CHECK_STR(st.file.s, f.s);
			buf_release(&site);
			buf_release(&f);
		}
	}
	buf_release(&py);
	buf_release(&text);
	buf_release(&count);
	python_setuptools_release(&st);
}

/*
 * The build asks the same interpreter the same d:/m: questions for its
 * preflight and again for the fetch: one start per interpreter, PYTHONPATH
 * and queries.
 */
static void
t_python_probe_once(const char *dir)
{
	struct buf py = BUF_INIT, text = BUF_INIT, count = BUF_INIT, got = BUF_INIT;
	struct strvec q = STRVEC_INIT, a = STRVEC_INIT;

	buf_addf(&py, "%s/probed/python3", dir);
	buf_addf(&count, "%s/probed/starts", dir);
	buf_addf(&text, "#!/bin/sh\necho x >> %s\nprintf '78.1.1\\n1\\n'\n", count.s);
	script(py.s, text.s);
	strvec_pushl(&q, "d:setuptools", "m:setuptools.command.bdist_wheel", NULL);
	CHECK(python_probe(py.s, NULL, &q, &a) == 0);
	CHECK(a.n == 2 && !strcmp(a.v[0], "78.1.1") && !strcmp(a.v[1], "1"));
	strvec_clear(&a);
	CHECK(python_probe(py.s, NULL, &q, &a) == 0);
	CHECK(a.n == 2 && !strcmp(a.v[0], "78.1.1") && !strcmp(a.v[1], "1"));
	CHECK(read_file(&got, count.s) == 0);
	CHECK_STR(got.s, "x\n");
	/* Another PYTHONPATH is another question. */
	strvec_clear(&a);
	CHECK(python_probe(py.s, "/prefix/site", &q, &a) == 0);
	buf_reset(&got);
	CHECK(read_file(&got, count.s) == 0);
	CHECK_STR(got.s, "x\nx\n");
	strvec_clear(&q);
	strvec_clear(&a);
	buf_release(&py);
	buf_release(&text);
	buf_release(&count);
	buf_release(&got);
}

void
t_python(void)
{
	char *dir = path_absolute(t_tmpdir("python"));
	char *venv0 = t_env_save("VIRTUAL_ENV");
	char *conda0 = t_env_save("CONDA_PREFIX");
	struct buf good = BUF_INIT, bad = BUF_INIT, out = BUF_INIT, why = BUF_INIT, p = BUF_INIT;

	buf_addf(&good, "%s/conda/bin/python3", dir);
	buf_addf(&bad, "%s/venv/bin/python3", dir);
	/* As python_setuptools' probe reads an interpreter: version, file, wheel. */
	script(good.s, "#!/bin/sh\nprintf '70.1.0\\n/s/setuptools/__init__.py\\n0\\n'\n");
	script(bad.s, "#!/bin/sh\nexit 1\n");

	/* build.python: the only candidate. */
	CHECK(python_find(&out, good.s, &why) == 0);
	CHECK_STR(out.s, good.s);
	CHECK_STR(why.s, "");
	CHECK(python_find(&out, bad.s, &why) == -1);
	buf_reset(&p);
	buf_addf(&p, "  %s (build.python): cannot build wheels (needs setuptools >= 70.1, or "
		 "setuptools and wheel)\n", bad.s);
	CHECK_STR(why.s, p.s);
	buf_reset(&why);
	buf_reset(&p);
	buf_addf(&p, "%s/none/python3", dir);
	CHECK(python_find(&out, p.s, &why) == -1);
	CHECK(strstr(why.s, "(build.python): not executable\n") != NULL);

	/* The active venv that cannot build is named; conda's is taken. */
	buf_reset(&p);
	buf_addf(&p, "%s/venv", dir);
	setenv("VIRTUAL_ENV", p.s, 1);
	buf_reset(&p);
	buf_addf(&p, "%s/conda", dir);
	setenv("CONDA_PREFIX", p.s, 1);
	buf_reset(&why);
	CHECK(python_find(&out, NULL, &why) == 0);
	CHECK_STR(out.s, good.s);
	buf_reset(&p);
	buf_addf(&p, "  %s (the active environment, $VIRTUAL_ENV): cannot build wheels", bad.s);
	CHECK(starts_with(why.s, p.s));

	/* The guess starts nothing: the venv's file is there, so it is the one. */
	CHECK(python_guess(&out, NULL) == 0);
	CHECK_STR(out.s, bad.s);
	CHECK(python_guess(&out, "/opt/py/bin/python3") == 0);
	CHECK_STR(out.s, "/opt/py/bin/python3");
	unsetenv("VIRTUAL_ENV");
	CHECK(python_guess(&out, NULL) == 0);
	CHECK_STR(out.s, good.s);
	unsetenv("CONDA_PREFIX");
	CHECK(python_guess(&out, NULL) == 0);
	CHECK(ends_with(out.s, "/python3"));

	CHECK(python_imports(good.s, "setuptools, wheel") == 1);
	CHECK(python_imports(bad.s, "setuptools") == 0);
	CHECK(python_imports("python3", "sys, os") == 1);
	CHECK(python_imports("python3", "bwbuild_no_such_module") == 0);

	t_python_setuptools(dir);
	t_python_probe_once(dir);
	restore("VIRTUAL_ENV", venv0);
	restore("CONDA_PREFIX", conda0);
	remove_tree(dir);
	free(dir);
	buf_release(&good);
	buf_release(&bad);
	buf_release(&out);
	buf_release(&why);
	buf_release(&p);
}
