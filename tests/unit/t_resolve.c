#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/resolve.h"
#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/profile/profile.h"
#include "t.h"

/*
 * A profile resolved against the knowledge base with the CUDA version from
 * cuda.version, the toolkit's version.json, its cuda.h or its nvcc, and the
 * plan's directories.
 */

static struct buf dir = BUF_INIT;

/* A profile for archs 9.0 and 12.0+PTX with `extra` lines, resolved; its report in *err. */
static int
resolve(const char *extra, int strict, const char **err)
{
	struct buf text = BUF_INIT, path = BUF_INIT;
	struct resolve_opts o = { 0 };
	struct profile p;
	int rc;

	buf_addf(&text, "name: t-resolve\n"
			"source: {repo: https://example.invalid/x.git, ref: v2.6.0}\n"
			"features: {cuda: on}\n%s", extra);
	buf_addf(&path, "%s/p.yaml", dir.s);
	remove(path.s);
	if (write_file_atomic(path.s, text.s, text.len) < 0)
		exit(1);
	o.profile = path.s;
	o.strict = strict;
	memset(&p, 0, sizeof(p));
	t_stderr_begin();
	rc = resolve_profile(&p, &o);
	*err = t_stderr_end();
	profile_release(&p);
	buf_release(&text);
	buf_release(&path);
	return rc;
}

static void
t_cuda_version(void)
{
	struct buf home = BUF_INIT, want = BUF_INIT;
	const char *e;

	buf_addf(&home, "cuda: {archs: [\"9.0\", \"12.0+PTX\"], home: %s/cuda}\n", dir.s);

	/* cuda.version decides, whatever the toolkit. */
	CHECK(resolve("cuda: {archs: [\"9.0\", \"12.0+PTX\"], version: \"12.8\", home: /nonexistent}\n", 0, &e) == 0);
	CHECK_STR(e, "");
	CHECK(resolve("cuda: {archs: [\"9.0\", \"12.0+PTX\"], version: \"12.4\", home: /nonexistent}\n", 0, &e) == -1);
	CHECK(strstr(e, "error: CUDA 12.4 (cuda.version) cannot build '12.0+PTX'") != NULL);

	/* The toolkit's include/cuda.h ... */
	t_put(dir.s, "cuda/include/cuda.h", "/* cuda.h */\n#define CUDA_VERSION 12040\n", 0);
	CHECK(resolve(home.s, 0, &e) == -1);
	buf_addf(&want, "error: CUDA 12.4 (%s/cuda/include/cuda.h) cannot build '12.0+PTX'", dir.s);
	CHECK(strstr(e, want.s) != NULL);
	/* ... gives way to its version.json ... */
	t_put(dir.s, "cuda/version.json", "{\"cuda\": {\"name\": \"CUDA SDK\", \"version\": \"12.8.1\"}}", 0);
	CHECK(resolve(home.s, 0, &e) == 0);
	CHECK_STR(e, "");
	/* ... and without either, nvcc --version is asked. */
	t_put(dir.s, "cuda/version.json", "not json", 0);
	t_put(dir.s, "cuda/include/cuda.h", "#define CUDA_VERSION 99\n", 0);
	t_put(dir.s, "cuda/bin/nvcc", "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
			              "echo 'Cuda compilation tools, release 12.4, V12.4.131'\n", 1);
	CHECK(resolve(home.s, 0, &e) == -1);
	buf_reset(&want);
	buf_addf(&want, "error: CUDA 12.4 (%s/cuda/bin/nvcc --version) cannot build '12.0+PTX'", dir.s);
	CHECK(strstr(e, want.s) != NULL);

	/* No version at all: a warning, an error with --strict. */
	t_put(dir.s, "cuda/bin/nvcc", "#!/bin/sh\nexit 1\n", 1);
	CHECK(resolve(home.s, 0, &e) == 0);
	CHECK(strstr(e, "warning: no CUDA version found (no ") != NULL);
	CHECK(resolve(home.s, 1, &e) == -1);
	CHECK(strstr(e, "error: no CUDA version found") != NULL);

	buf_release(&home);
	buf_release(&want);
}

static void
t_names_dirs(void)
{
	struct resolve_opts o = { 0 };
	struct profile p;
	struct plan pl;
	struct buf path = BUF_INIT, want = BUF_INIT;
	char *cuda_home = t_env_save("CUDA_HOME");
	char *cwd;
	const char *e;

	t_put(dir.s, "bad.yaml", "name: ../x\nsource: {repo: r, ref: v2.6.0}\ncuda: {version: \"12.8\", archs: [\"12.0+PTX\"]}\n", 0);
	buf_addf(&path, "%s/bad.yaml", dir.s);
	o.profile = path.s;
	memset(&p, 0, sizeof(p));
	t_stderr_begin();
	CHECK(resolve_profile(&p, &o) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "error: name '../x' is not a profile name") != NULL);
	profile_release(&p);

	t_put(dir.s, "good.yaml", "name: t-dirs\nsource: {repo: r, ref: v2.6.0}\ncuda: {version: \"12.8\", archs: [\"12.0+PTX\"]}\n", 0);
	buf_reset(&path);
	buf_addf(&path, "%s/good.yaml", dir.s);
	/* The longer name may have moved the buffer: o.profile must not point at the old one. */
	o.profile = path.s;
	memset(&p, 0, sizeof(p));
	t_stderr_begin();
	CHECK(resolve_profile(&p, &o) == 0);   /* (a warning if this machine's toolkit is not 12.8) */
	t_stderr_end();

	setenv("CUDA_HOME", "/opt/cuda-13", 1);
	CHECK_STR(resolve_cuda_home(&p), "/opt/cuda-13");
	unsetenv("CUDA_HOME");
	CHECK_STR(resolve_cuda_home(&p), "/usr/local/cuda");

	/* Default directories: work/<name> and out/<name>, absolute; nothing is created. */
	CHECK(resolve_plan(&pl, &p, &o) == 0);
	cwd = path_absolute(".");
	buf_addf(&want, "%s/work/t-dirs", cwd);
	CHECK_STR(pl.work_dir, want.s);
	buf_reset(&want);
	buf_addf(&want, "%s/out/t-dirs", cwd);
	CHECK_STR(pl.out_dir, want.s);
	buf_reset(&want);
	buf_addf(&want, "%s/work/t-dirs/src", cwd);
	CHECK_STR(pl.src_dir, want.s);
	CHECK(!pl.local_source);
	plan_release(&pl);

	o.work_dir = t_path("resolve/w");
	o.source_dir = t_path("resolve");
	CHECK(resolve_plan(&pl, &p, &o) == 0);
	CHECK(ends_with(pl.work_dir, "/unit/resolve/w"));
	CHECK(ends_with(pl.src_dir, "/unit/resolve") && pl.local_source);
	CHECK(!path_exists(t_path("resolve/w")));
	plan_release(&pl);
	o.source_dir = t_path("resolve/good.yaml");
	t_stderr_begin();
	CHECK(resolve_plan(&pl, &p, &o) == -1);
	e = t_stderr_end();
	CHECK(t_has(e, "error: --source '%s' is not a directory", t_path("resolve/good.yaml")));
	profile_release(&p);

	if (cuda_home)
		setenv("CUDA_HOME", cuda_home, 1);
	free(cuda_home);
	free(cwd);
	buf_release(&path);
	buf_release(&want);
}

void
t_resolve(void)
{
	buf_reset(&dir);
	buf_addstr(&dir, t_tmpdir("resolve"));
	t_cuda_version();
	t_names_dirs();
	remove_tree(dir.s);
	buf_release(&dir);
}
