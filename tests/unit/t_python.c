#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/core/safefile.h"
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

void
t_python(void)
{
	char *dir = path_absolute(t_tmpdir("python"));
	char *venv0 = t_env_save("VIRTUAL_ENV");
	char *conda0 = t_env_save("CONDA_PREFIX");
	struct buf good = BUF_INIT, bad = BUF_INIT, out = BUF_INIT, why = BUF_INIT, p = BUF_INIT;

	buf_addf(&good, "%s/conda/bin/python3", dir);
	buf_addf(&bad, "%s/venv/bin/python3", dir);
	script(good.s, "#!/bin/sh\nexit 0\n");
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
