#include <stdlib.h>

#include "../../src/json.h"
#include "../../src/manifest.h"
#include "t.h"

void
t_manifest(void)
{
	/* The shape of torch 2.11's caffe2/core/macros.h. */
	const char *h =
		"#define CAFFE2_BUILD_STRINGS { \\\n"
		"  {\"TORCH_VERSION\", \"2.11.0\"}, \\\n"
		"  {\"CXX_FLAGS\", \" -DUSE_KINETO -DUSE_FBGEMM -DUSE_MSLK -O2\"}, \\\n"
		"  {\"USE_CUDA\", \"ON\"}, \\\n"
		"  {\"USE_CUDNN\", \"ON\"}, \\\n"
		"  {\"USE_NCCL\", \"1\"}, \\\n"
		"  {\"USE_MKLDNN\", \"OFF\"}, \\\n"
		"  {\"ROCM_VERSION\", \"\"}, \\\n"
		"}\n";
	struct json *s = macros_h_parse(h), *f = features_from_settings(s);

	CHECK_STR(json_str(json_get(s, "TORCH_VERSION")), "2.11.0");
	CHECK_STR(json_str(json_get(s, "ROCM_VERSION")), "");
	CHECK(json_is_true(json_get(f, "cuda")));
	CHECK(json_is_true(json_get(f, "nccl")));
	CHECK(json_is_bool(json_get(f, "mkldnn")) && !json_is_true(json_get(f, "mkldnn")));
	CHECK(json_is_true(json_get(f, "mslk")));
	CHECK(json_is_true(json_get(f, "kineto")));
	CHECK(!json_is_true(json_get(f, "flash_attention")));
	/* No key and no flag evidence: left out, not guessed. */
	CHECK(json_get(f, "distributed") == NULL);
	json_free(s);
	json_free(f);
}
