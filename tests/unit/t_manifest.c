#include <stdlib.h>

#include "../../src/core/buf.h"

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

/* `s` as manifest_md_cell writes it. */
static const char *
cell(const char *s)
{
	static struct buf b;

	buf_reset(&b);
	manifest_md_cell(&b, s);
	return b.s;
}

/*
 * A Markdown cell holds what it was given, no more: no cell split by a
 * '|' after a backslash, no HTML, code, link, emphasis or autolink
 * (issue 40, F1); a name's own '_' between letters stays as it is.
 */
static void
t_md_cell(void)
{
	const char *text = "{\"wheel\": {\"name\": \"t\"}, \"features\": "
			   "{\"a\\\\|b\": false, \"<img src=x onerror=alert(1)>\": true}, "
			   "\"libraries\": [{\"path\": \"lib/`x`.so\"}]}";
	struct json *m = json_parse(text, strlen(text), NULL);
	struct buf md = BUF_INIT;

	CHECK_STR(cell("a\\|b"), "a\\\\\\|b");
	CHECK_STR(cell("a|b"), "a\\|b");
	CHECK_STR(cell("<details><summary>ok</summary>"),
		  "\\<details>\\<summary>ok\\</summary>");
	CHECK_STR(cell("`code` *em* ~~s~~ [x](http://e.example) ![i](y)"),
		  "\\`code\\` \\*em\\* \\~\\~s\\~\\~ \\[x\\](http\\://e.example) !\\[i\\](y)");
	CHECK_STR(cell("www.e.example a&lt;b $x$ @u"), "www\\.e.example a\\&lt;b \\$x\\$ \\@u");
	CHECK_STR(cell("__init__.py libtorch_cuda.so sm_90 _x x_"),
		  "\\_\\_init\\_\\_.py libtorch_cuda.so sm_90 \\_x x\\_");
	CHECK_STR(cell("C:\\dir\\x0a"), "C:\\dir\\x0a");
	CHECK_STR(cell("k\nx\x1b"), "k\\x0ax\\x1b");
	CHECK_STR(cell(""), "-");
	CHECK(m != NULL);
	manifest_markdown(m, &md);
	CHECK(strstr(md.s, "| a\\\\\\|b | ❌ |\n") != NULL);
	CHECK(strstr(md.s, "| \\<img src=x onerror=alert(1)> | ✅ |\n") != NULL);
	CHECK(strstr(md.s, "| lib/\\`x\\`.so | ") != NULL);
	json_free(m);
	buf_reset(&md);

	/* The smoke run's P2P topology, and a skipped reason that would start a line. */
	text = "{\"runtime\": {\"gpus\": [{\"visible\": \"0\"}, {\"visible\": \"1\"}], \"cross_gpu\": "
	       "{\"p2p\": [[null, true], [true, null]], \"topology\": [[null, \"<b>NV18</b>|x\"], "
	       "[\"NV18\", null]]}}}";
	m = json_parse(text, strlen(text), NULL);
	manifest_markdown(m, &md);
	CHECK(strstr(md.s, "| 0 | – | ✅ (\\<b>NV18\\</b>\\|x) |\n") != NULL);
	json_free(m);
	buf_reset(&md);
	text = "{\"runtime\": {\"gpus\": [{\"visible\": \"0\"}], \"cross_gpu\": "
	       "{\"status\": \"skipped\", \"reason\": \"# owned\"}}}";
	m = json_parse(text, strlen(text), NULL);
	manifest_markdown(m, &md);
	CHECK(strstr(md.s, "\n### Across GPUs: skipped\n\nSkipped: # owned\n") != NULL);
	json_free(m);
	buf_release(&md);
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
	t_md_cell();
}
