#include <stdlib.h>
#include <string.h>

#include "../../src/core/strvec.h"
#include "../../src/sources/bundle.h"
#include "t.h"

/* What a bundle leaves out of a tree: the pure decisions. */

static void
t_named(void)
{
	const char *text = "build a.o: CXX /s/third_party/fmt/src/format.cc\n"
			   "  FLAGS = -I/s/third_party/pybind11/include -I../third_party/onnx\n"
			   "CMAKE_X:PATH=/s/third_party/cutlass;/s/other\n";

	CHECK(bundle_named(text, strlen(text), "/s", "third_party/fmt"));
	CHECK(bundle_named(text, strlen(text), "/s", "third_party/pybind11"));
	CHECK(bundle_named(text, strlen(text), "/s", "third_party/onnx"));
	CHECK(bundle_named(text, strlen(text), "/s", "third_party/cutlass"));
	/* a name that only begins another one is not named */
	CHECK(!bundle_named(text, strlen(text), "/s", "third_party/fm"));
	CHECK(!bundle_named(text, strlen(text), "/s", "third_party/pybind"));
	CHECK(!bundle_named(text, strlen(text), "/s", "third_party/XNNPACK"));
	CHECK(!bundle_named(text, strlen(text), "/elsewhere", "third_party/fmt"));
}

static void
t_decide(void)
{
	const char *text = "/s/third_party/fmt/include /s/third_party/big/sub/x.h /s/torch/csrc/a.cpp";
	struct strvec files = STRVEC_INIT, subs = STRVEC_INIT, keep = STRVEC_INIT;
	struct bundle_cuts cuts = { 0 };

	strvec_pushl(&files, "setup.py", "docs/source/conf.py", "torch/utils/benchmark/__init__.py",
		     "torch/utils/benchmark/op.py", "benchmarks/run.py", "third_party/fmt/LICENSE",
		     "third_party/fmt/include/fmt/core.h", "third_party/xnn/LICENSE",
		     "third_party/xnn/CMakeLists.txt", "third_party/xnn/src/a.c",
		     "third_party/xnn/deps/COPYING.txt", "third_party/big/sub/x.h",
		     "third_party/big/test/data/model.onnx", "tools/examples/__init__.py",
		     "tools/examples/e.py", NULL);
	strvec_pushl(&subs, "third_party/fmt", "third_party/xnn", "third_party/xnn/deps",
		     "third_party/big", "third_party/cudnn_frontend", NULL);
	strvec_push(&keep, "third_party/cudnn_frontend");
	bundle_decide("/s", text, strlen(text), &files, &subs, &keep, &cuts);
	/* xnn (its nested deps recorded as inside it), cudnn_frontend kept by --keep, docs, benchmarks, test data */
	CHECK(cuts.n == 6);
	CHECK_STR(cuts.v[0].path, "third_party/xnn");
	CHECK(cuts.v[0].submodule && !cuts.v[0].kept && !cuts.v[0].inner);
	CHECK_STR(cuts.v[1].path, "third_party/xnn/deps");
	CHECK(cuts.v[1].submodule && cuts.v[1].inner);
	CHECK_STR(cuts.v[2].path, "third_party/cudnn_frontend");
	CHECK(cuts.v[2].kept && strstr(cuts.v[2].why, "--keep"));
	CHECK_STR(cuts.v[3].path, "benchmarks");
	CHECK_STR(cuts.v[4].path, "docs");
	CHECK_STR(cuts.v[5].path, "third_party/big/test");
	CHECK(!cuts.v[5].submodule);
	/* setup.py's check_submodules: a nested submodule's top build file stays, nothing else of it */
	CHECK(bundle_keeps(&cuts, "third_party/xnn/deps/CMakeLists.txt"));
	CHECK(!bundle_keeps(&cuts, "third_party/xnn/deps/src/CMakeLists.txt"));
	CHECK(!bundle_keeps(&cuts, "third_party/xnn/deps/b.c"));
	/* licences and a cut submodule's top build file stay; a Python package named like a folder stays */
	CHECK(bundle_keeps(&cuts, "third_party/xnn/LICENSE"));
	CHECK(bundle_keeps(&cuts, "third_party/xnn/deps/COPYING.txt"));
	CHECK(bundle_keeps(&cuts, "third_party/xnn/CMakeLists.txt"));
	CHECK(!bundle_keeps(&cuts, "third_party/xnn/src/a.c"));
	CHECK(!bundle_keeps(&cuts, "docs/source/conf.py"));
	CHECK(!bundle_keeps(&cuts, "third_party/big/test/data/model.onnx"));
	CHECK(bundle_keeps(&cuts, "third_party/big/sub/x.h"));
	CHECK(bundle_keeps(&cuts, "torch/utils/benchmark/op.py"));
	CHECK(bundle_keeps(&cuts, "tools/examples/e.py"));
	CHECK(bundle_keeps(&cuts, "third_party/fmt/include/fmt/core.h"));
	bundle_cuts_release(&cuts);
	strvec_clear(&files);
	strvec_clear(&subs);
	strvec_clear(&keep);
}

void
t_bundle(void)
{
	t_named();
	t_decide();
}
