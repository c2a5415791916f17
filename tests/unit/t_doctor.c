#include <stdio.h>
#include <stdlib.h>
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
	struct buf f = BUF_INIT, py = BUF_INIT, want = BUF_INIT, starts = BUF_INIT;
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
	buf_addf(&f, "#!/bin/sh\necho x >> '%s/starts'\nPYTHONPATH='%s/site' exec /usr/bin/python3 "
		 "\"$@\"\n", d, d);
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
	/* Asked again (the preflight, the fetch): the same answer, not another start. */
	t_stderr_begin();
	CHECK(numpy_check(&p, NULL, py.s) < 0);
	CHECK(strstr(t_stderr_end(), want.s) != NULL);
	buf_reset(&f);
	buf_addf(&f, "%s/starts", d);
	CHECK(read_file(&starts, f.s) == 0);
	CHECK_STR(starts.s, "x\n");
	buf_release(&starts);
	remove_tree(d);
	buf_release(&f);
	buf_release(&py);
	buf_release(&want);
}

/* A file (and its directories) under the fake root. */
static void
touch(const char *root, const char *rel)
{
	struct buf f = BUF_INIT;

	buf_addf(&f, "%s/%s", root, rel);
	CHECK(mkdir_p_parent(f.s) == 0 && write_file_atomic(f.s, "", 0) == 0);
	buf_release(&f);
}

/* The check named `name`: its status, its detail into `detail`; -1 when there is none. */
static int
check_of(const struct doctor *d, const char *name, const char **detail)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->checks[i].name, name)) {
			*detail = d->checks[i].detail;
			return (int)d->checks[i].status;
		}
	*detail = "";
	return -1;
}

/*
 * Issue 44: the library checks on an aarch64 machine (Grace, DGX Spark),
 * laid out under a root as NVIDIA's arm64 (sbsa) packages install: cuDNN's
 * header where its alternative points, its library and NCCL's under
 * /usr/lib/aarch64-linux-gnu, nvml.h in the toolkit's targets/sbsa-linux.
 * The same root judged as an x86-64 machine finds only the headers.
 */
static void
t_doctor_aarch64(void)
{
	const char *root = t_tmpdir("doctor-grace"), *detail;
	static const char *const files[] = {
		"usr/include/cudnn_version.h", "usr/lib/aarch64-linux-gnu/libcudnn.so",
		"usr/include/nccl.h", "usr/lib/aarch64-linux-gnu/libnccl.so",
		"usr/lib/aarch64-linux-gnu/libopenblas.so",
		"usr/local/cuda/targets/sbsa-linux/include/nvml.h",
	};
	struct doctor_host arm = { root, "aarch64" }, x86 = { root, "x86_64" };
	struct buf cuda = BUF_INIT, want = BUF_INIT;
	struct strvec sets = STRVEC_INIT;
	struct profile p;
	struct doctor d;

	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		touch(root, files[i]);
	buf_addf(&cuda, "%s/usr/local/cuda", root);
	strvec_push(&sets, "cmake.BLAS=OpenBLAS");
	if (profile_load_set(&p, "profiles/sm120.yaml", &sets) < 0) {
		CHECK(!"profiles/sm120.yaml loads");
		return;
	}
	memset(&d, 0, sizeof(d));
	doctor_check_host_libs(&d, &p, NULL, cuda.s, &arm);
	CHECK(check_of(&d, "cudnn", &detail) == CHECK_OK);
	buf_addf(&want, "%s/usr/include/cudnn_version.h and %s/usr/lib/aarch64-linux-gnu/libcudnn.so",
		 root, root);
	CHECK_STR(detail, want.s);
	CHECK(check_of(&d, "nccl", &detail) == CHECK_OK);
	CHECK(strstr(detail, "/usr/lib/aarch64-linux-gnu/libnccl.so") != NULL);
	CHECK(check_of(&d, "nvml", &detail) == CHECK_OK);
	CHECK(strstr(detail, "/targets/sbsa-linux/include/nvml.h") != NULL);
	CHECK(check_of(&d, "blas", &detail) == CHECK_OK);
	CHECK(strstr(detail, "/usr/lib/aarch64-linux-gnu/libopenblas.so") != NULL);
	doctor_release(&d);

	memset(&d, 0, sizeof(d));
	doctor_check_host_libs(&d, &p, NULL, cuda.s, &x86);
	CHECK(check_of(&d, "cudnn", &detail) == CHECK_FAIL);
	CHECK(strstr(detail, "but no libcudnn.so (in ") != NULL);
	CHECK(strstr(detail, "aarch64") == NULL);
	CHECK(check_of(&d, "nvml", &detail) == CHECK_FAIL);
	doctor_release(&d);
	profile_release(&p);

	/* No cmake.BLAS on aarch64: MKL is not looked for, and the advice is OpenBLAS. */
	if (profile_load(&p, "profiles/sm120.yaml") == 0) {
		memset(&d, 0, sizeof(d));
		doctor_check_host_libs(&d, &p, NULL, cuda.s, &arm);
		CHECK(check_of(&d, "blas", &detail) == CHECK_WARN);
		CHECK(strstr(detail, "MKL, exists only for x86-64, not aarch64") != NULL);
		CHECK(strstr(detail, "set 'cmake.BLAS: OpenBLAS'") != NULL);
		doctor_release(&d);
		profile_release(&p);
	}
	/* The library's own hints first (PyTorch's FindNCCL reads NCCL_INCLUDE_DIR, NCCL_LIB_DIR). */
	touch(root, "opt/nccl/include/nccl.h");
	touch(root, "opt/nccl/lib/libnccl.so");
	if (profile_load(&p, "profiles/sm120.yaml") == 0) {
		struct buf inc = BUF_INIT, lib = BUF_INIT;

		buf_addf(&inc, "%s/opt/nccl/include", root);
		buf_addf(&lib, "%s/opt/nccl/lib", root);
		setenv("NCCL_INCLUDE_DIR", inc.s, 1);
		setenv("NCCL_LIB_DIR", lib.s, 1);
		memset(&d, 0, sizeof(d));
		doctor_check_host_libs(&d, &p, NULL, cuda.s, &x86);
		CHECK(check_of(&d, "nccl", &detail) == CHECK_OK);
		CHECK(strstr(detail, "/opt/nccl/include/nccl.h and ") &&
		      strstr(detail, "/opt/nccl/lib/libnccl.so"));
		unsetenv("NCCL_INCLUDE_DIR");
		unsetenv("NCCL_LIB_DIR");
		doctor_release(&d);
		profile_release(&p);
		buf_release(&inc);
		buf_release(&lib);
	}
	/* The shipped GB10 profile: it builds on aarch64, nowhere else. */
	if (profile_load(&p, "profiles/gb10.yaml") == 0) {
		memset(&d, 0, sizeof(d));
		doctor_check_host(&d, &p, "aarch64");
		CHECK(check_of(&d, "host", &detail) == CHECK_OK);
		doctor_check_host(&d, &p, "x86_64");
		CHECK(d.n == 2 && d.checks[1].status == CHECK_FAIL);
		CHECK(d.n == 2 && strstr(d.checks[1].detail, "profiles/gb10.yaml:") &&
		      strstr(d.checks[1].detail, ": this profile builds on an aarch64 host (Grace, "
			     "DGX Spark), and this machine is x86_64: run doctor and the build there"));
		CHECK(d.n == 2 && doctor_blocks_build(&d.checks[1]));
		doctor_release(&d);
		profile_release(&p);
	} else {
		CHECK(!"profiles/gb10.yaml loads");
	}
	strvec_clear(&sets);
	buf_release(&cuda);
	buf_release(&want);
	remove_tree(root);
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
	t_doctor_aarch64();
}
