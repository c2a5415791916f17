#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/host/toolchain.h"
#include "t.h"

/* The tools that decide a build's bytes, probed (fake compilers here) and recalled unchanged. */

static void
script(const char *path, const char *text)
{
	if (mkdir_p_parent(path) < 0 || write_file_atomic(path, text, strlen(text)) < 0 ||
	    chmod(path, 0755) < 0)
		exit(1);
}

static const struct tool *
tool(const struct toolchain *tc, const char *name)
{
	for (size_t i = 0; i < tc->n; i++)
		if (!strcmp(tc->tools[i].name, name))
			return &tc->tools[i];
	return NULL;
}

void
t_toolchain(void)
{
	char *dir = path_absolute(t_tmpdir("toolchain"));
	struct buf cc = BUF_INIT, cxx = BUF_INIT, cuda = BUF_INIT, py = BUF_INIT, st = BUF_INIT;
	struct buf p = BUF_INIT, text = BUF_INIT;
	struct strvec env = STRVEC_INIT;
	struct toolchain tc, again;
	struct json *known, *j;
	char *id;

	buf_addf(&cc, "%s/bin/fake-cc", dir);
	buf_addf(&cxx, "%s/bin/fake-c++", dir);
	buf_addf(&cuda, "%s/cuda", dir);
	buf_addf(&py, "%s/bin/fake-python", dir);
	buf_addf(&st, "%s/site/setuptools/__init__.py", dir);
	script(cc.s, "#!/bin/sh\necho 'fake-cc (Debian 12.2.0-14) 12.2.0'\necho 'Copyright'\n");
	script(cxx.s, "#!/bin/sh\necho 'fake-c++ 12.2.0'\n");
	buf_addf(&p, "%s/bin/nvcc", cuda.s);
	script(p.s, "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
		    "echo 'Cuda compilation tools, release 12.8, V12.8.93'\necho 'Build cuda_12.8'\n");
	buf_reset(&p);
	buf_addf(&p, "#!/bin/sh\necho 70.2.0\necho %s\n", st.s);
	script(py.s, p.s);
	script(st.s, "# setuptools\n");

	/* CC with flags names its program first; an extension's CXX is a launcher: LAUNCHED_CXX wins. */
	strvec_pushf(&env, "CC=%s -m64", cc.s);
	strvec_pushf(&env, "CXX=%s/bin/launcher", dir);
	strvec_pushf(&env, "LAUNCHED_CXX=%s", cxx.s);
	strvec_pushf(&env, "CUDAHOSTCXX=%s/bin/missing-g++", dir);
	toolchain_probe(&tc, &env, cuda.s, py.s);
	CHECK(tc.n == 8);
	CHECK_STR(tool(&tc, "cc")->path, cc.s);
	CHECK_STR(tool(&tc, "cc")->version, "fake-cc (Debian 12.2.0-14) 12.2.0");
	CHECK_STR(tool(&tc, "c++")->version, "fake-c++ 12.2.0");
	CHECK_STR(tool(&tc, "cudahostcxx")->path, "");     /* absent, and recorded so */
	CHECK_STR(tool(&tc, "cudahostcxx")->version, "");
	CHECK_STR(tool(&tc, "nvcc")->version, "Cuda compilation tools, release 12.8, V12.8.93");
	CHECK_STR(tool(&tc, "python")->path, py.s);
	CHECK_STR(tool(&tc, "setuptools")->version, "70.2.0");
	CHECK_STR(tool(&tc, "setuptools")->path, st.s);
	CHECK(*tool(&tc, "setuptools")->identity != '\0');

	toolchain_text(&tc, &text);
	buf_reset(&p);
	buf_addf(&p, "tool cc %s fake-cc (Debian 12.2.0-14) 12.2.0\n", cc.s);
	CHECK(starts_with(text.s, p.s));
	CHECK(strstr(text.s, "tool cudahostcxx (none) \n") != NULL);
	j = toolchain_json(&tc);
	CHECK_STR(json_str(json_get(json_get(j, "nvcc"), "version")),
		  "Cuda compilation tools, release 12.8, V12.8.93");
	CHECK(json_get(json_get(j, "cudahostcxx"), "path") != NULL);
	CHECK(json_str(json_get(json_get(j, "cudahostcxx"), "path")) == NULL);   /* null */
	json_free(j);

	/* Recalled from the identities, nothing run: unchanged, the same versions. */
	known = toolchain_identity_json(&tc);
	CHECK(toolchain_recall(&again, &env, cuda.s, py.s, known) == 0);
	CHECK_STR(tool(&again, "nvcc")->version, "Cuda compilation tools, release 12.8, V12.8.93");
	CHECK_STR(tool(&again, "setuptools")->version, "70.2.0");
	toolchain_release(&again);

	/* A compiler rewritten (another size): changed. */
	script(cc.s, "#!/bin/sh\necho 'fake-cc (Debian 12.2.0-15) 12.2.0, rebuilt'\n");
	CHECK(toolchain_recall(&again, &env, cuda.s, py.s, known) == 1);
	toolchain_release(&again);
	CHECK(toolchain_recall(&again, &env, cuda.s, py.s, NULL) == 1);
	toolchain_release(&again);
	json_free(known);
	toolchain_release(&tc);
	CHECK(tc.n == 0);

	id = file_identity(st.s);
	CHECK(id && *id && strchr(id, ' '));
	free(id);
	id = file_identity(t_path("toolchain/none"));
	CHECK_STR(id, "");
	free(id);

	remove_tree(dir);
	free(dir);
	strvec_clear(&env);
	buf_release(&cc);
	buf_release(&cxx);
	buf_release(&cuda);
	buf_release(&py);
	buf_release(&st);
	buf_release(&p);
	buf_release(&text);
}
