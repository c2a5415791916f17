#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/formats/cmakecache.h"
#include "../../src/formats/cmakeopts.h"
#include "../../src/pipeline/configure.h"
#include "../../src/core/diag.h"
#include "../../src/core/json.h"
#include "../../src/profile/profile.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/core/util.h"
#include "t.h"

/*
 * The configure contracts of PyTorch's eras, in the words of their setup.py
 * (v2.6.0's lines 296-323, its tools/setup_helpers/cmake.py line 256).
 */
static const char v26_setup[] =
	"RERUN_CMAKE = False\n"
	"CMAKE_ONLY = False\n"
	"filtered_args = []\n"
	"for i, arg in enumerate(sys.argv):\n"
	"    if arg == \"--cmake\":\n"
	"        RERUN_CMAKE = True\n"
	"        continue\n"
	"    if arg == \"--cmake-only\":\n"
	"        # Stop once cmake terminates. Leave users a chance to adjust build\n"
	"        # options.\n"
	"        CMAKE_ONLY = True\n"
	"        continue\n";
static const char v26_cmake[] =
	"            elif var.startswith((\"BUILD_\", \"USE_\", \"CMAKE_\")) or var.endswith(\n"
	"                (\"EXITCODE\", \"EXITCODE__TRYRUN_OUTPUT\")\n";

static void
t_configure_contract(void)
{
	struct configure_contract c;

	/* v2.6.0: the argument only; CMAKE_* forwarded. */
	configure_contract_parse(v26_setup, v26_cmake, &c);
	CHECK(c.only == CONFIGURE_ONLY_ARG);
	CHECK(c.forwards_cmake);
	CHECK(!c.pops_env);
	/* The variable, read from the environment (and taken out of it). */
	configure_contract_parse("CMAKE_ONLY = os.environ.pop('CMAKE_ONLY', '0') == '1'\n", v26_cmake, &c);
	CHECK(c.only == CONFIGURE_ONLY_ENV);
	CHECK(c.pops_env);
	configure_contract_parse("if os.getenv(\"CMAKE_ONLY\") == \"1\":\n", "", &c);
	CHECK(c.only == CONFIGURE_ONLY_ENV);
	CHECK(!c.pops_env && !c.forwards_cmake);
	/* Both (2.8 and later): the variable, the way the tree documents it (issue 34). */
	configure_contract_parse("x = check_env_flag(\"CMAKE_ONLY\")\nif arg == '--cmake-only':\n", "", &c);
	CHECK(c.only == CONFIGURE_ONLY_ENV);
	configure_contract_parse("CMAKE_ONLY = str2bool(os.environ.pop(\"CMAKE_ONLY\", None))\n"
				 "    if arg == \"--cmake-only\":\n        CMAKE_ONLY = True\n", "", &c);
	CHECK(c.only == CONFIGURE_ONLY_ENV && c.pops_env);
	/* The literal elsewhere (a message) is no read of the variable: the argument stays. */
	configure_contract_parse("print(\"CMAKE_ONLY\")\nif arg == \"--cmake-only\":\n", "", &c);
	CHECK(c.only == CONFIGURE_ONLY_ARG);
	/* A comment or a bare name is no read of the switch. */
	configure_contract_parse("# run with \"--cmake-only\" or \"CMAKE_ONLY\"\nCMAKE_ONLY = False\n", "", &c);
	CHECK(c.only == CONFIGURE_ONLY_UNKNOWN);
	configure_contract_parse(NULL, NULL, &c);
	CHECK(c.only == CONFIGURE_ONLY_UNKNOWN);
}

/* Whether env has NAME (any value). */
static int
has_env(const struct strvec *env, const char *name)
{
	return strvec_env_find(env, name, strlen(name)) >= 0;
}

static void
t_command(void)
{
	struct configure_contract c;
	struct strvec args = STRVEC_INIT, env = STRVEC_INIT, cmake = STRVEC_INIT;
	struct buf all = BUF_INIT;

	strvec_push(&cmake, "USE_CUDA=1");
	strvec_push(&cmake, "CMAKE_PROJECT_INCLUDE=/w/cmake/bwbuild-effective.cmake");
	/* v2.6.0: --cmake-only, and nothing CMake would be given besides the plan's. */
	memset(&c, 0, sizeof(c));
	c.only = CONFIGURE_ONLY_ARG;
	c.forwards_cmake = 1;
	configure_command(&c, "/usr/bin/python3", "/src", &cmake, &args, &env);
	strvec_join(&args, " ", &all);
	CHECK_STR(all.s, "/usr/bin/python3 setup.py build --cmake-only");
	for (size_t i = 0; i < env.n; i++)
		CHECK(!starts_with(env.v[i], "CMAKE_") && !starts_with(env.v[i], "BUILD_") &&
		      !starts_with(env.v[i], "USE_"));
	CHECK(has_env(&env, "BWBUILD_LAUNCH_PHASE"));
	/* The variable where setup.py reads it. */
	strvec_clear(&args);
	strvec_clear(&env);
	buf_reset(&all);
	c.only = CONFIGURE_ONLY_ENV;
	configure_command(&c, "python3", "/src", &cmake, &args, &env);
	strvec_join(&args, " ", &all);
	CHECK_STR(all.s, "python3 setup.py build");
	CHECK(has_env(&env, "CMAKE_ONLY"));
	/* Era C: cmake -S . -B build with the plan's CMAKE_* entries as -D (the rest in the environment). */
	strvec_clear(&args);
	strvec_clear(&env);
	buf_reset(&all);
	c.only = CONFIGURE_ONLY_CMAKE;
	configure_command(&c, "python3", "/src", &cmake, &args, &env);
	strvec_join(&args, " ", &all);
	CHECK_STR(all.s, "cmake -S /src -B /src/build -G Ninja "
		  "-DCMAKE_PROJECT_INCLUDE=/w/cmake/bwbuild-effective.cmake -DCMAKE_BUILD_TYPE=Release");
	CHECK(!has_env(&env, "CMAKE_ONLY"));
	strvec_clear(&args);
	strvec_clear(&env);
	strvec_clear(&cmake);
	buf_release(&all);
}

/* A stamp-less build directory: adopted when the cache holds the plan's settings. */
static void
t_adopt(void)
{
	struct strvec cmake = STRVEC_INIT;
	struct cmake_cache c;
	struct buf why = BUF_INIT, diff = BUF_INIT, text = BUF_INIT;
	char *here = realpath(".", NULL);

	buf_addf(&text, "CMAKE_HOME_DIRECTORY:INTERNAL=%s\n"
		 "USE_CUDA:BOOL=ON\n"
		 "TORCH_CUDA_ARCH_LIST:UNINITIALIZED=8.0;12.0+PTX\n"
		 "CMAKE_CXX_COMPILER_LAUNCHER:UNINITIALIZED=/bin/bwbuild;launch;--\n", here);
	CHECK(cmakecache_parse(&c, text.s, text.len, &why) == 0);
	strvec_push(&cmake, "USE_CUDA=1"); /* ON and 1 are one value */
	strvec_push(&cmake, "TORCH_CUDA_ARCH_LIST=8.0;12.0+PTX");
	strvec_push(&cmake, "CMAKE_CXX_COMPILER_LAUNCHER=/bin/bwbuild;launch;--");
	CHECK(configure_cache_matches(&c, ".", &cmake, &diff) == 1);
	CHECK_STR(diff.s, "");
	/* Each difference named, old -> new. */
	strvec_clear(&cmake);
	strvec_push(&cmake, "USE_CUDA=0");
	strvec_push(&cmake, "TORCH_CUDA_ARCH_LIST=9.0");
	strvec_push(&cmake, "USE_NCCL=0");
	CHECK(configure_cache_matches(&c, ".", &cmake, &diff) == 0);
	CHECK_STR(diff.s, "  USE_CUDA: ON -> 0\n"
		  "  TORCH_CUDA_ARCH_LIST: 8.0;12.0+PTX -> 9.0\n"
		  "  USE_NCCL: (not in CMakeCache.txt) -> 0\n");
	/* Another tree's build directory is never adopted. */
	buf_reset(&diff);
	strvec_clear(&cmake);
	CHECK(configure_cache_matches(&c, "/", &cmake, &diff) == 0);
	CHECK(strstr(diff.s, "CMAKE_HOME_DIRECTORY: ") != NULL);
	cmakecache_release(&c);
	strvec_clear(&cmake);
	buf_release(&why);
	buf_release(&diff);
	buf_release(&text);
	free(here);
}

static void
t_stamp_diff(void)
{
	struct buf d = BUF_INIT;

	configure_stamp_diff("commit abc\nUSE_CUDA=1\ntool cmake /usr/bin/cmake 3.31.6\n",
			     "commit abc\nUSE_CUDA=1\ntool cmake /usr/bin/cmake 3.31.6\n", &d);
	CHECK_STR(d.s, "");
	configure_stamp_diff("commit abc\nUSE_CUDA=1\ninherited CFLAGS=-O2\n"
			     "tool cmake /usr/bin/cmake 3.25.1\nUSE_NCCL=0\n",
			     "commit def\nUSE_CUDA=0\ninherited CFLAGS=-O2\n"
			     "tool cmake /usr/bin/cmake 3.31.6\nTORCH_CUDA_ARCH_LIST=12.0\n", &d);
	CHECK_STR(d.s, "  commit: abc -> def\n"
		  "  USE_CUDA: 1 -> 0\n"
		  "  tool cmake: /usr/bin/cmake 3.25.1 -> /usr/bin/cmake 3.31.6\n"
		  "  TORCH_CUDA_ARCH_LIST: (unset) -> 12.0\n"
		  "  USE_NCCL: 0 -> (unset)\n");
	buf_release(&d);
}

/* features_effective on a profile and a CMakeCache.txt; diag_errors added. */
static int
compare(const char *yaml, const char *cache, struct json **effective)
{
	struct profile p;
	struct cmake_cache c;
	struct buf why = BUF_INIT;
	int before, rc;

	t_write("configure.yaml", yaml);
	CHECK(profile_load(&p, t_path("configure.yaml")) == 0);
	CHECK(cmakecache_parse(&c, cache, strlen(cache), &why) == 0);
	before = diag_errors;
	diag_quiet = 1;
	rc = features_effective(&p, &c, "build/CMakeCache.txt", NULL, effective);
	diag_quiet = 0;
	CHECK(rc == (diag_errors > before ? -1 : 0));
	cmakecache_release(&c);
	profile_release(&p);
	buf_release(&why);
	return diag_errors - before;
}

static int
feature_is(const struct json *eff, const char *key, const char *requested, int effective)
{
	const struct json *f = json_get(eff, key), *r, *e;

	if (!f)
		return 0;
	r = json_get(f, "requested");
	e = json_get(f, "effective");
	if (requested ? !json_str(r) || strcmp(json_str(r), requested) : json_str(r) != NULL)
		return 0;
	if (effective < 0)
		return e && !json_is_bool(e) && !json_str(e);
	return json_is_bool(e) && json_is_true(e) == effective;
}

/* The tree's option()s as PyTorch v2.6.0 declares them (CMakeLists.txt). */
static const char tree_cmake[] =
	"option(USE_DISTRIBUTED \"Use distributed\" ON)\n"
	"cmake_dependent_option(USE_ROCM \"Use ROCm\" ON \"LINUX OR WIN32\" OFF)\n"
	"cmake_dependent_option(USE_TENSORPIPE \"Use TensorPipe\" ON\n"
	"  \"USE_DISTRIBUTED AND NOT WIN32\" OFF)\n"
	"option(USE_NUMPY \"Use NumPy\" ON)\n"
	"cmake_dependent_option(USE_MKLDNN \"Use MKLDNN\" \"${CPU_INTEL}\" \"CPU_INTEL\" OFF)\n"
	"option(USE_MAGMA \"Use MAGMA\" ON)\n"
	"option(USE_OPENMP \"Use OpenMP\" ON)\n";

/*
 * What CMake turned off that the tree defaults on, asked by nobody: NumPy
 * not found (a warning naming features.numpy), ROCm absent, TensorPipe
 * after the profile's distributed off (asked: not listed itself).
 */
static void
t_dropped(void)
{
	static const char dump[] = "USE_DISTRIBUTED=0\nUSE_ROCM=OFF\nUSE_TENSORPIPE=OFF\n"
				   "USE_NUMPY=OFF\nUSE_MKLDNN=OFF\nUSE_MAGMA=OFF\nUSE_OPENMP=ON\n";
	struct cmake_options tree;
	struct cmake_cache c;
	struct profile p;
	struct strvec env = STRVEC_INIT, inherited = STRVEC_INIT, out = STRVEC_INIT;
	struct buf why = BUF_INIT;
	struct json *eff = NULL;
	const char *err;

	cmakeopts_init(&tree);
	cmakeopts_scan_buffer(&tree, "CMakeLists.txt", tree_cmake, strlen(tree_cmake));
	CHECK(cmakecache_parse(&c, dump, strlen(dump), &why) == 0);
	t_write("dropped.yaml", "source: {repo: https://example.invalid/x.git, ref: v2.6.0}\n"
		"features: {cuda: off, distributed: off}\n");
	CHECK(profile_load(&p, t_path("dropped.yaml")) == 0);
	t_stderr_begin();
	CHECK(features_effective(&p, &c, "build/bwbuild-effective.txt", &tree, &eff) == 0);
	err = t_stderr_end();
	/* It said nothing of USE_NUMPY going OFF: the table showed only what the profile asked. */
	CHECK(strstr(err, "warning: features.numpy is not set and the tree defaults USE_NUMPY on "
			  "(CMakeLists.txt:5), but configure turned it off: the build's Python has no "
			  "NumPy CMake can find; install python3-numpy for it, or set 'features.numpy: "
			  "off'; set 'features.numpy: off' to build without it") != NULL);
	CHECK(json_is_true(json_get(json_get(eff, "numpy"), "tree_default")));
	CHECK(json_is_true(json_get(json_get(eff, "distributed"), "tree_default")));
	/* A default CMake alone can say (${CPU_INTEL}) is no default here. */
	CHECK(json_get(json_get(eff, "mkldnn"), "tree_default") &&
	      !json_is_bool(json_get(json_get(eff, "mkldnn"), "tree_default")));
	json_free(eff);

	strvec_push(&env, "USE_DISTRIBUTED=0");
	strvec_push(&inherited, "USE_MAGMA=1");
	CHECK(readback_dropped(&c, &tree, &env, &inherited, &out) == 3);
	CHECK(out.n == 3);
	if (out.n == 3) {
		CHECK(starts_with(out.v[0], "USE_ROCM"));
		/* LINUX holds on this machine: the condition is not why (issue 40). */
		CHECK_STR(out.v[0], "USE_ROCM                 CMakeLists.txt:2: its condition 'LINUX "
				    "OR WIN32' holds (LINUX=ON, WIN32=OFF), so a later check in the "
				    "tree's CMake turned it off, such as a library not found "
				    "(logs/configure.log says which)");
		CHECK_STR(out.v[1], "USE_TENSORPIPE           CMakeLists.txt:3: its condition "
				    "'USE_DISTRIBUTED AND NOT WIN32' is false (USE_DISTRIBUTED=0, "
				    "WIN32=OFF)");
		CHECK(strstr(out.v[2], "USE_NUMPY") && strstr(out.v[2], "no NumPy CMake can find"));
	}
	strvec_clear(&env);
	strvec_clear(&inherited);
	strvec_clear(&out);
	cmakecache_release(&c);
	cmakeopts_release(&tree);
	profile_release(&p);
	buf_release(&why);
}

/*
 * The reason given for an option turned off is what the values say: a
 * condition that holds is no reason (cuSPARSELt with USE_CUDA on, MPI with
 * USE_DISTRIBUTED on: a library not found); one bwbuild cannot evaluate is
 * named as a maybe (issue 40: "its condition 'USE_CUDA' is false").
 */
static void
t_dropped_why(void)
{
	static const char tree_text[] =
		"cmake_dependent_option(USE_CUSPARSELT \"cuSPARSELt\" ON \"USE_CUDA\" OFF)\n"
		"cmake_dependent_option(USE_MPI \"MPI\" ON \"USE_DISTRIBUTED;LINUX\" OFF)\n"
		"cmake_dependent_option(USE_GLOO \"Gloo\" ON \"(USE_DISTRIBUTED OR USE_MPI) AND NOT "
		"USE_ROCM\" OFF)\n"
		"cmake_dependent_option(USE_X \"x\" ON \"CUDA_FOUND AND USE_CUDA\" OFF)\n"
		"cmake_dependent_option(USE_Y \"y\" ON \"NOT CUDA_FOUND OR USE_ROCM\" OFF)\n"
		"cmake_dependent_option(USE_Z \"z\" ON \"USE_CUDA AND CMAKE_VERSION VERSION_LESS 4\" "
		"OFF)\n";
	static const char dump[] = "USE_CUDA=ON\nUSE_DISTRIBUTED=1\nUSE_ROCM=OFF\nUSE_CUSPARSELT=OFF\n"
				   "USE_MPI=OFF\nUSE_GLOO=OFF\nUSE_X=OFF\nUSE_Y=OFF\nUSE_Z=OFF\n";
	static const char *const want[] = {
		"USE_CUSPARSELT           CMakeLists.txt:1: its condition 'USE_CUDA' holds "
		"(USE_CUDA=ON), so a later check in the tree's CMake turned it off, such as a library "
		"not found (logs/configure.log says which)",
		"USE_MPI                  CMakeLists.txt:2: its condition 'USE_DISTRIBUTED;LINUX' holds "
		"(USE_DISTRIBUTED=1, LINUX=ON), so a later check in the tree's CMake turned it off, "
		"such as a library not found (logs/configure.log says which)",
		"USE_GLOO                 CMakeLists.txt:3: its condition '(USE_DISTRIBUTED OR USE_MPI) "
		"AND NOT USE_ROCM' holds (USE_DISTRIBUTED=1, USE_MPI=OFF, USE_ROCM=OFF), so a later "
		"check in the tree's CMake turned it off, such as a library not found "
		"(logs/configure.log says which)",
		"USE_X                    CMakeLists.txt:4: a check in the tree's CMake turned it off: "
		"its condition 'CUDA_FOUND AND USE_CUDA' (CUDA_FOUND is in no value bwbuild reads) "
		"or a later one, such as a library not found (logs/configure.log says which)",
		"USE_Y                    CMakeLists.txt:5: a check in the tree's CMake turned it off: "
		"its condition 'NOT CUDA_FOUND OR USE_ROCM' (CUDA_FOUND is in no value bwbuild reads) "
		"or a later one, such as a library not found (logs/configure.log says which)",
		"USE_Z                    CMakeLists.txt:6: a check in the tree's CMake turned it off: "
		"its condition 'USE_CUDA AND CMAKE_VERSION VERSION_LESS 4' (more than bwbuild "
		"evaluates) or a later one, such as a library not found (logs/configure.log says which)",
	};
	struct cmake_options tree;
	struct cmake_cache c;
	struct strvec out = STRVEC_INIT;
	struct buf why = BUF_INIT;

	cmakeopts_init(&tree);
	cmakeopts_scan_buffer(&tree, "CMakeLists.txt", tree_text, strlen(tree_text));
	CHECK(cmakecache_parse(&c, dump, strlen(dump), &why) == 0);
	CHECK(readback_dropped(&c, &tree, NULL, NULL, &out) == ARRAY_SIZE(want));
	for (size_t i = 0; i < out.n && i < ARRAY_SIZE(want); i++)
		CHECK_STR(out.v[i], want[i]);
	strvec_clear(&out);
	cmakecache_release(&c);
	cmakeopts_release(&tree);
	buf_release(&why);
}

/* readback_blas on a profile (cmake: BLAS or none) and a dump or cache; its row and report. */
static int
blas(const char *cmake, const char *values, const char **row, const char **err)
{
	static struct buf r = BUF_INIT;
	struct buf yaml = BUF_INIT, why = BUF_INIT;
	struct cmake_cache c;
	struct profile p;
	int rc;

	buf_addstr(&yaml, "source: {repo: https://example.invalid/x.git, ref: v2.6.0}\n"
			  "features: {cuda: off}\n");
	if (cmake)
		buf_addf(&yaml, "cmake:\n  BLAS: %s\n", cmake);
	t_write("blas.yaml", yaml.s);
	CHECK(profile_load(&p, t_path("blas.yaml")) == 0);
	CHECK(cmakecache_parse(&c, values, strlen(values), &why) == 0);
	buf_reset(&r);
	t_stderr_begin();
	rc = readback_blas(&p, &c, NULL, "build/bwbuild-effective.txt", &r);
	*err = t_stderr_end();
	*row = r.s;
	cmakecache_release(&c);
	profile_release(&p);
	buf_release(&yaml);
	buf_release(&why);
	return rc;
}

static void
t_blas(void)
{
	const char *row, *err;

	/* v2.6.0 without a BLAS named: MKL, its default, not found; Eigen's. It said nothing. */
	CHECK(blas(NULL, "BLAS=MKL\nUSE_BLAS=1\nCAFFE2_USE_EIGEN_FOR_BLAS=ON\n", &row, &err) == 0);
	CHECK_STR(row, "  blas                 BLAS                         (tree)     Eigen (fallback)\n");
	CHECK(strstr(err, "warning: no BLAS was found: configure fell back to Eigen's (BLAS=MKL, "
			  "the tree's default was not found; build/bwbuild-effective.txt); matmuls run "
			  "on Eigen's BLAS, several times slower; install MKL's libmkl_rt.so") != NULL);
	/* The cache alone (no dump): the same. */
	CHECK(blas(NULL, "BLAS:STRING=MKL\nUSE_EIGEN_FOR_BLAS:BOOL=ON\n", &row, &err) == 0);
	CHECK(strstr(row, "Eigen (fallback)") && strstr(err, "warning: no BLAS was found"));
	/* The CPU profile's OpenBLAS, found ("BLAS : open" in the configure log). */
	CHECK(blas("OpenBLAS", "BLAS=OpenBLAS\nBLAS_INFO=open\nUSE_BLAS=1\nCAFFE2_USE_EIGEN_FOR_BLAS=\n",
		   &row, &err) == 0);
	CHECK_STR(row, "  blas                 BLAS                         OpenBLAS   open\n");
	CHECK_STR(err, "");
	/* Named and not found: the build is not what the profile asked. */
	CHECK(blas("MKL", "BLAS=MKL\nUSE_BLAS=1\nCAFFE2_USE_EIGEN_FOR_BLAS=ON\n", &row, &err) == -1);
	CHECK(strstr(err, "blas.yaml:4:3: error: cmake.BLAS is MKL, but configure did not find it and "
			  "fell back to Eigen's (build/bwbuild-effective.txt)") != NULL);
	/* No BLAS at all. */
	CHECK(blas(NULL, "BLAS=OpenBLAS\nUSE_BLAS=0\n", &row, &err) == 0);
	CHECK(strstr(row, "none") && strstr(err, "configure builds without one"));
	/* Eigen asked for: what it is, no warning. */
	CHECK(blas("Eigen", "BLAS=Eigen\nUSE_BLAS=1\nCAFFE2_USE_EIGEN_FOR_BLAS=ON\n", &row, &err) == 0);
	CHECK(strstr(row, " Eigen\n") && !*err);
	/* A tree without PyTorch's BLAS choice: no row. */
	CHECK(blas(NULL, "USE_CUDA=OFF\n", &row, &err) == 0);
	CHECK_STR(row, "");
	CHECK(blas_lib_find("openblas") && !strcmp(blas_lib_find("openblas")->lib, "libopenblas.so"));
	CHECK(!blas_lib_find("Eigen"));
}

void
t_configure(void)
{
	t_configure_contract();
	t_command();
	t_adopt();
	t_stamp_diff();
	t_dropped();
	t_dropped_why();
	t_blas();
	static const char src[] = "source: {repo: https://example.invalid/x.git, ref: v2.11.0}\n";
	struct buf yaml = BUF_INIT;
	struct json *eff = NULL;

	/* The build did what the profile asked; what it did not ask is reported, not judged. */
	buf_addf(&yaml, "%scuda: {archs: [\"8.0\", \"12.0+PTX\"]}\n"
		 "features: {cuda: on, flash_attention: on, nccl: off}\n", src);
	CHECK(compare(yaml.s,
		      "# This is the CMakeCache file.\n"
		      "//Use CUDA\n"
		      "USE_CUDA:BOOL=ON\n"
		      "USE_FLASH_ATTENTION:BOOL=1\n"
		      "USE_NCCL:BOOL=OFF\n"
		      "USE_KINETO:BOOL=TRUE\n"
		      "USE_MKLDNN:BOOL=0\n",
		      &eff) == 0);
	CHECK(feature_is(eff, "cuda", "on", 1));
	CHECK(feature_is(eff, "flash_attention", "on", 1));
	CHECK(feature_is(eff, "nccl", "off", 0));
	CHECK(feature_is(eff, "kineto", NULL, 1));
	CHECK(feature_is(eff, "mkldnn", NULL, 0));
	/* Not in the cache (an older tree): null, and no error. */
	CHECK(feature_is(eff, "mslk", NULL, -1));
	CHECK_STR(json_str(json_get(json_get(eff, "flash_attention"), "option")), "USE_FLASH_ATTENTION");
	CHECK(json_len(eff) == FEAT__COUNT);
	json_free(eff);

	/* Turned against the profile both ways: one error each. */
	buf_reset(&yaml);
	buf_addf(&yaml, "%scuda: {archs: [\"7.5+PTX\"]}\n"
		 "features: {cuda: on, flash_attention: on, cudnn: on, nccl: off, mslk: on}\n", src);
	CHECK(compare(yaml.s,
		      "USE_CUDA:BOOL=ON\n"
		      "USE_FLASH_ATTENTION:BOOL=OFF\n"
		      "USE_CUDNN:BOOL=OFF\n"
		      "USE_NCCL:BOOL=ON\n",
		      &eff) == 3);
	CHECK(feature_is(eff, "flash_attention", "on", 0));
	CHECK(feature_is(eff, "cudnn", "on", 0));
	CHECK(feature_is(eff, "nccl", "off", 1));
	CHECK(feature_is(eff, "mslk", "on", -1));
	json_free(eff);

	/* No CUDA compiler: CUDA and every CUDA feature asked for are errors. */
	buf_reset(&yaml);
	buf_addf(&yaml, "%scuda: {archs: [\"8.0+PTX\"]}\nfeatures: {cuda: on, flash_attention: on}\n",
		 src);
	CHECK(compare(yaml.s, "USE_CUDA:BOOL=OFF\nUSE_FLASH_ATTENTION:BOOL=OFF\n", &eff) == 2);
	CHECK(feature_is(eff, "cuda", "on", 0));
	json_free(eff);
	buf_release(&yaml);
}
