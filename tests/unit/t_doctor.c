#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/pipeline/doctor.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/profile/profile.h"
#include "../../src/sources/treeneeds.h"
#include "t.h"

static void
t_doctor_treeneeds(void)
{
	static const char py[] =
		"import os, sys as s\n"
		"from __future__ import annotations\n"
		"from . import (a,\n"
		"    b as c)\n"
		"from ..x.y import z\n"
		"\"\"\"\n"
		"import in_docstring\n"
		"\"\"\"\n"
		"    import indented\n"
		"from typing_extensions import Self\n"
		"import yaml\n";
	static const char toml[] =
		"[build-system]\nrequires = [\n  \"setuptools>=70.1\", 'PyYAML',  # c\n"
		"  \"typing-extensions>=4.10.0\", \"cmake\",\n]\n[tool.x]\nrequires = [\"no\"]\n";
	struct strvec v = STRVEC_INIT;
	struct buf b = BUF_INIT, pip = BUF_INIT, deb = BUF_INIT;
	unsigned line = 0;

	CHECK(cmake_minimum_text("cmake_minimum_required(VERSION 3.18 FATAL_ERROR)\n", 49, &line) == 318 &&
	      line == 1);
	CHECK(cmake_minimum_text("# cmake_minimum_required(VERSION 9.9)\nCMAKE_MINIMUM_REQUIRED (\n"
				 "  VERSION \"3.27...3.31\")\n", 88, &line) == 327 && line == 2);
	CHECK(cmake_minimum_text("project(x)\n", 11, &line) == 0);
	CHECK(cmake_minimum_text("my_cmake_minimum_required(VERSION 3.1)", 38, &line) == 0);

	py_imports_text(py, strlen(py), &v);
	strvec_join(&v, "|", &b);
	CHECK_STR(b.s, "os\t1|sys\t1|__future__\t2|.\t3|.a\t3|.b\t3|..x.y\t5|..x.y.z\t5|"
		       "typing_extensions\t10|typing_extensions.Self\t10|yaml\t11");
	strvec_clear(&v);
	buf_reset(&b);
	pyproject_requires_text(toml, strlen(toml), &v);
	strvec_join(&v, " ", &b);
	CHECK_STR(b.s, "setuptools pyyaml typing-extensions cmake");
	strvec_clear(&v);
	py_module_packages("yaml", &pip, &deb);
	CHECK(!strcmp(pip.s, "pyyaml") && !strcmp(deb.s, "python3-yaml"));
	buf_reset(&pip);
	buf_reset(&deb);
	py_module_packages("Jinja2", &pip, &deb);
	CHECK(!strcmp(deb.s, "python3-jinja2"));
	buf_release(&b);
	buf_release(&pip);
	buf_release(&deb);
}

/*
 * Issue 40: a NumPy installed but failing to import passed the check
 * (find_spec found it), and the configure said "no NumPy" 115 s later.
 */
static void
t_doctor_numpy_broken(void)
{
	static const char init[] =
		"raise ImportError('''\n\nIMPORTANT: PLEASE READ THIS FOR ADVICE ON HOW TO SOLVE "
		"THIS ISSUE!\n\nOriginal error was: libopenblas.so.0: cannot open shared object "
		"file: No such file or directory\n''')\n";
	const char *d = t_tmpdir("numpy");
	struct profile p;
	struct buf f = BUF_INIT, py = BUF_INIT, want = BUF_INIT;
	const char *e;

	memset(&p, 0, sizeof(p));
	p.features[FEAT_NUMPY] = TRI_ON;
	p.feature_loc[FEAT_NUMPY] = (struct loc){ "np.yaml", 4, 10 };
	buf_addf(&f, "%s/site/numpy", d);
	mkdir_p(f.s);
	buf_addstr(&f, "/__init__.py");
	CHECK(write_file_atomic(f.s, init, strlen(init)) == 0);
	buf_addf(&py, "%s/python3", d);
	buf_reset(&f);
	buf_addf(&f, "#!/bin/sh\nPYTHONPATH='%s/site' exec /usr/bin/python3 \"$@\"\n", d);
	CHECK(write_file_atomic(py.s, f.s, f.len) == 0 && chmod(py.s, 0755) == 0);
	t_stderr_begin();
	CHECK(numpy_check(&p, NULL, py.s) < 0);
	e = t_stderr_end();
	buf_addf(&want, "np.yaml:4:10: error: '%s' has NumPy, but importing it fails (ImportError: "
		 "Original error was: libopenblas.so.0: cannot open shared object file: No such "
		 "file or directory), and features.numpy is on (np.yaml:4): CMake would turn "
		 "USE_NUMPY off and build a torch without NumPy (torch.from_numpy, .numpy()); "
		 "repair that NumPy (what it needs, or reinstall it for this interpreter), or set "
		 "'features.numpy: off' for a wheel without NumPy interop", py.s);
	CHECK(strstr(e, want.s) != NULL);
	if (!strstr(e, want.s))
		fprintf(stderr, "got: %s\n", e);
	remove_tree(d);
	buf_release(&f);
	buf_release(&py);
	buf_release(&want);
}

void
t_doctor(void)
{
	t_doctor_numpy_broken();
	struct buf name = BUF_INIT;
	unsigned cc = 0, drv = 0;

	CHECK(nvcc_version_parse("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation "
				 "tools, release 13.0, V13.0.88\n") == 1300);
	CHECK(nvcc_version_parse("garbage") == 0);
	CHECK(gpu_code_listed("sm_75\nsm_80\nsm_100\nsm_120\n", 120));
	CHECK(!gpu_code_listed("sm_75\nsm_80\nsm_1200\n", 120));
	CHECK(!gpu_code_listed("sm_100\n", 10));
	CHECK(smi_line_parse("NVIDIA H100 80GB HBM3, 9.0, 580.159.03", &cc, &drv, &name) == 0);
	CHECK(cc == 90 && drv == 580 && !strcmp(name.s, "NVIDIA H100 80GB HBM3"));
	CHECK(smi_line_parse("NVIDIA GB10, 12.1, 580.95.05", &cc, &drv, &name) == 0 && cc == 121);
	CHECK(smi_line_parse("no commas here", &cc, &drv, &name) < 0);
	CHECK(smi_line_parse("x, [N/A], 570", &cc, &drv, &name) < 0);
	buf_release(&name);
	t_doctor_treeneeds();
}
