#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/profile/profile.h"
#include "t.h"

/*
 * The key table's own rules (profcheck.c): which build.env names a
 * profile may set, what PyTorch forwards to CMake, wheel.platform values,
 * kind and torch:, and validation through a whole profile.
 */

static int
loads(const char *text, const char *want)
{
	struct profile p;
	const char *e;
	int rc;

	t_write("profcheck.yaml", text);
	memset(&p, 0, sizeof(p));
	t_stderr_begin();
	rc = profile_load(&p, t_path("profcheck.yaml"));
	e = t_stderr_end();
	profile_release(&p);
	if (want && !strstr(e, want)) {
		fprintf(stderr, "t_profcheck: wanted '%s' in: %s\n", want, e);
		return 0;
	}
	return want ? rc == -1 : rc == 0;
}

void
t_profcheck(void)
{
	struct profile p;

	CHECK(build_env_refusal("CXXFLAGS") == NULL);
	CHECK(build_env_refusal("TORCH_NVCC_FLAGS") == NULL);
	CHECK(build_env_refusal("TORCH_CUDA_ARCH_LIST") != NULL &&
	      strstr(build_env_refusal("TORCH_CUDA_ARCH_LIST"), "cuda.archs"));
	CHECK(build_env_refusal("USE_CUDA") != NULL && strstr(build_env_refusal("USE_CUDA"), "features:"));
	CHECK(build_env_refusal("MAX_JOBS") != NULL);
	CHECK(build_env_refusal("SOME_OTHER") != NULL);

	CHECK(cmake_name_forwarded("USE_CUDNN") && cmake_name_forwarded("BUILD_TEST"));
	CHECK(cmake_name_forwarded("CMAKE_CUDA_FLAGS") && cmake_name_forwarded("TORCH_CUDA_ARCH_LIST"));
	CHECK(!cmake_name_forwarded("MY_OWN_OPTION"));

	CHECK(profile_platform_glibc("auto") == 0 && profile_platform_glibc("linux") == 0);
	CHECK(profile_platform_glibc("manylinux2014") == 17);
	CHECK(profile_platform_glibc("manylinux_2_28") == 28);
	CHECK(profile_platform_glibc("manylinux_2_16") == -1);
	CHECK(profile_platform_glibc("manylinux_2_28x") == -1);
	CHECK(profile_platform_glibc("musllinux_1_2") == -1);

	memset(&p, 0, sizeof(p));
	p.torch.str = "torch-b200";
	CHECK(profile_torch_is_profile(&p));
	p.torch.str = "profiles/b200.yaml";
	CHECK(profile_torch_is_profile(&p));
	p.torch.str = "dist/torch-2.6.0-cp311-cp311-linux_x86_64.whl";
	CHECK(!profile_torch_is_profile(&p));
	p.torch.str = "/site-packages/torch";
	CHECK(!profile_torch_is_profile(&p));
	CHECK(!profile_is_extension(&p));
	p.kind.str = "extension";
	CHECK(profile_is_extension(&p));

	/* Through a whole profile: every problem reported at its key. */
	CHECK(loads("name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"12.0+PTX\"]}\n"
		    "build: {env: {CXXFLAGS: -O2}}\nwheel: {platform: manylinux_2_28, version_suffix: \"+bw1\"}\n",
		    NULL));
	CHECK(loads("name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"12.0+PTX\"]}\n"
		    "build: {env: {USE_CUDA: \"0\"}}\n", "profcheck.yaml:4:15: error: "));
	CHECK(loads("name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"12.0+PTX\"]}\n"
		    "wheel: {platform: manylinux_2_5}\n", "wheel.platform"));
	CHECK(loads("name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"12.0+PTX\"]}\n"
		    "wheel: {version_suffix: bw1}\n", "version_suffix"));
	CHECK(loads("name: t\nkind: plugin\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"12.0+PTX\"]}\n",
		    "is torch or extension"));
	CHECK(loads("name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"12.x\"]}\n",
		    "'12.x'"));
	CHECK(loads("name: t\nsource: {repo: r, ref: v2.6.0}\ncuda: {archs: [\"12.0+PTX\"]}\n"
		    "cmake: {MY_OWN_OPTION: \"1\"}\n", "MY_OWN_OPTION"));
}
