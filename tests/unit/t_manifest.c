#include <stdlib.h>

#include "../../src/formats/elfscan.h"
#include "../../src/core/json.h"
#include "../../src/wheel/manifest.h"
#include "../../src/core/strvec.h"
#include "../../src/wheel/verify.h"
#include "t.h"

static struct json *
effective_entry(const char *option, int on)
{
	struct json *e = json_object();

	json_set(e, "requested", json_string("on"));
	json_set(e, "effective", json_bool(on));
	json_set(e, "option", json_string(option));
	return e;
}

/* Configure's word against the wheel's: settings and exported kernels. */
static void
t_crosscheck(void)
{
	struct wheel_report r;
	struct wheel_lib lib;
	struct strvec errors = STRVEC_INIT;
	struct json *eff = json_object();
	char h[] = "{\"CXX_FLAGS\", \" -DUSE_MEM_EFF_ATTENTION -O2\"}, \\\n{\"USE_CUDNN\", \"OFF\"}, \\\n";
	char path[] = "torch/lib/libtorch_cuda.so";

	memset(&r, 0, sizeof(r));
	memset(&lib, 0, sizeof(lib));
	lib.path = path;
	lib.has_fatbin = 1;
	strvec_init(&lib.kernels);
	strvec_push(&lib.kernels, "mem_eff_attention");
	r.libs = &lib;
	r.nlibs = 1;
	r.macros_h = h;
	json_set(eff, "flash_attention", effective_entry("USE_FLASH_ATTENTION", 1));
	json_set(eff, "mem_eff_attention", effective_entry("USE_MEM_EFF_ATTENTION", 1));
	json_set(eff, "cudnn", effective_entry("USE_CUDNN", 1));
	features_crosscheck(&r, eff, &errors);
	CHECK(errors.n == 2);
	/* flash: judged by its kernels only (torch's CXX_FLAGS never carry it) */
	CHECK(errors.n > 0 && strstr(errors.v[0], "configure ended with USE_FLASH_ATTENTION=ON, but "
				     "no library of the wheel exports flash_attention kernels"));
	CHECK(errors.n > 1 && strstr(errors.v[1], "USE_CUDNN=ON, but the wheel's build settings "
				     "(macros.h) say it is off"));
	strvec_clear(&errors);
	json_free(eff);

	/* Off in configure while a library exports the kernels. */
	eff = json_object();
	json_set(eff, "mem_eff_attention", effective_entry("USE_MEM_EFF_ATTENTION", 0));
	features_crosscheck(&r, eff, &errors);
	CHECK(errors.n == 1);
	CHECK(errors.n > 0 && strstr(errors.v[0], "USE_MEM_EFF_ATTENTION=OFF, but "
				     "'torch/lib/libtorch_cuda.so' exports mem_eff_attention kernels"));
	strvec_clear(&errors);
	json_free(eff);

	/* Agreement, and no evidence at all: nothing to say. */
	eff = json_object();
	json_set(eff, "mem_eff_attention", effective_entry("USE_MEM_EFF_ATTENTION", 1));
	json_set(eff, "distributed", effective_entry("USE_DISTRIBUTED", 1));
	json_set(eff, "nccl", effective_entry("USE_NCCL", 0));
	features_crosscheck(&r, eff, &errors);
	CHECK(errors.n == 0);
	strvec_clear(&errors);
	json_free(eff);
	strvec_clear(&lib.kernels);
}

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
	t_crosscheck();
}
