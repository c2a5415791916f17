#include <stdlib.h>
#include <string.h>

#include "../../src/pipeline/configure.h"
#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/pipeline/era.h"
#include "t.h"

/*
 * The configure contract read from a tree's files: setup.py with the
 * helpers later trees keep their flags in, tools/setup_helpers/cmake.py,
 * the scikit-build-core era, and a setup.py that cannot be told to
 * configure only. (The parser and the command: t_configure.)
 */

static struct buf dir = BUF_INIT;

void
t_contract(void)
{
	struct configure_contract c;
	struct buf why = BUF_INIT;
	struct strvec args = STRVEC_INIT, env = STRVEC_INIT, cmake = STRVEC_INIT;

	buf_addstr(&dir, t_tmpdir("contract"));

	/* A flag only in a helper file counts; a flag only in a comment does not. */
	t_put(dir.s, "a/setup.py", "# pass --cmake-only to configure\nfrom tools.setup_helpers.env import x\n", 0);
	t_put(dir.s, "a/tools/setup_helpers/env.py", "CMAKE_ONLY = os.environ.pop('CMAKE_ONLY', '0')\n", 0);
	t_put(dir.s, "a/tools/setup_helpers/cmake.py", "for var in os.environ:\n    if var.startswith('CMAKE_'):\n", 0);
	buf_addf(&why, "%s/a", dir.s);
	{
		char *src = buf_detach(&why);

		CHECK(configure_contract_read(src, era_by_key("setup-helpers"), &c, &why) == 0);
		CHECK(c.only == CONFIGURE_ONLY_ENV && c.pops_env && c.forwards_cmake);
		free(src);
	}

	/* The example tree: its setup.py reads the argument. */
	CHECK(configure_contract_read("tests/fixtures/minitorch", era_by_key("setup-helpers"), &c, &why) == 0);
	CHECK(c.only == CONFIGURE_ONLY_ARG || c.only == CONFIGURE_ONLY_ENV);

	/* scikit-build-core: cmake itself, whatever the files say. */
	CHECK(configure_contract_read("/nonexistent", era_by_key("skbuild"), &c, &why) == 0);
	CHECK(c.only == CONFIGURE_ONLY_CMAKE);
	strvec_push(&cmake, "CMAKE_PROJECT_INCLUDE=/w/hook.cmake");
	strvec_push(&cmake, "USE_CUDA=1");
	configure_command(&c, "python3", "/src", &cmake, &args, &env);
	{
		struct buf line = BUF_INIT;

		strvec_join(&args, " ", &line);
		CHECK_STR(line.s, "cmake -S /src -B /src/build -G Ninja -DCMAKE_PROJECT_INCLUDE=/w/hook.cmake "
				  "-DCMAKE_BUILD_TYPE=Release");
		CHECK_STR(strvec_env_get(&env, "BWBUILD_LAUNCH_PHASE"), "configure");
		buf_release(&line);
	}

	/* No setup.py; one that reads neither form. */
	buf_reset(&why);
	buf_addf(&why, "%s/none", dir.s);
	{
		char *src = buf_detach(&why);

		t_stderr_begin();
		CHECK(configure_contract_read(src, era_by_key("setup-envfwd"), &c, &why) == -1);
		t_stderr_end();
		CHECK(strstr(why.s, "cannot read '") && strstr(why.s, "/none/setup.py'"));
		free(src);
	}
	t_put(dir.s, "b/setup.py", "from setuptools import setup\nsetup()\n", 0);
	buf_reset(&why);
	buf_addf(&why, "%s/b", dir.s);
	{
		char *src = buf_detach(&why);

		CHECK(configure_contract_read(src, era_by_key("setup-envfwd"), &c, &why) == -1);
		CHECK(strstr(why.s, "reads neither the argument --cmake-only nor the environment variable "
				    "CMAKE_ONLY") != NULL);
		free(src);
	}

	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&why);
	strvec_clear(&args);
	strvec_clear(&env);
	strvec_clear(&cmake);
}
