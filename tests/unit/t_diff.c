#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/wheel/diff.h"
#include "t.h"

/* Two small manifests compared: features, libraries, targets, versions, runtime. */

/* Every difference counted (--ignore none), the tolerance 5 % or 25 %. */
static const struct diff_opts all5 = { 5.0, 0 }, all25 = { 25.0, 0 };

static struct json *
parse(const char *text)
{
	struct buf why = BUF_INIT;
	struct json *j = json_parse(text, strlen(text), &why);

	if (!j)
		fprintf(stderr, "t_diff: bad JSON in the test: %s\n", why.s);
	buf_release(&why);
	return j;
}

static const char *
field(const struct json *o, const char *a, const char *b, size_t i)
{
	return json_str(json_at(json_get(json_get(o, a), b), i));
}

static const char old_manifest[] =
	"{\"schema\": \"bwbuild-manifest/1\","
	" \"wheel\": {\"version\": \"2.6.0\"},"
	" \"features\": {\"cuda\": true, \"flash_attention\": true, \"nccl\": false, \"mkldnn\": true},"
	" \"libraries\": ["
	"   {\"path\": \"torch/lib/libtorch_cuda.so\", \"sass\": [\"sm_90\", \"sm_100\"], \"ptx\": []},"
	"   {\"path\": \"torch/lib/libc10_cuda.so\", \"sass\": [\"sm_90\"], \"ptx\": []},"
	"   {\"path\": \"torch/lib/libold.so\", \"sass\": [], \"ptx\": []}],"
	" \"archs\": {\"sass\": [\"sm_90\", \"sm_100\"], \"ptx\": []},"
	" \"version_py\": {\"cuda\": \"12.8\"},"
	" \"source\": {\"commit\": \"aaaa\"},"
	" \"runtime\": {\"checks\": [{\"name\": \"import\", \"status\": \"ok\"},"
	"                           {\"name\": \"matmul\", \"status\": \"ok\"}],"
	"              \"benchmarks\": [{\"name\": \"gemm\", \"value\": 100, \"unit\": \"TFLOPS\"},"
	"                               {\"name\": \"copy\", \"value\": 50, \"unit\": \"GB/s\"},"
	"                               {\"name\": \"flat\", \"value\": 10, \"unit\": \"GB/s\"}]}}";

static const char new_manifest[] =
	"{\"schema\": \"bwbuild-manifest/1\","
	" \"wheel\": {\"version\": \"2.6.0\"},"
	" \"features\": {\"cuda\": true, \"flash_attention\": false, \"nccl\": true, \"cudnn\": true},"
	" \"libraries\": ["
	"   {\"path\": \"torch/lib/libtorch_cuda.so\", \"sass\": [\"sm_100\", \"sm_120\"], \"ptx\": [\"compute_120\"]},"
	"   {\"path\": \"torch/lib/libc10_cuda.so\", \"sass\": [\"sm_90\"], \"ptx\": []},"
	"   {\"path\": \"torch/lib/libnew.so\", \"sass\": [], \"ptx\": []}],"
	" \"archs\": {\"sass\": [\"sm_90\", \"sm_100\", \"sm_120\"], \"ptx\": [\"compute_120\"]},"
	" \"version_py\": {\"cuda\": \"13.0\"},"
	" \"source\": {\"commit\": \"bbbb\"},"
	" \"runtime\": {\"checks\": [{\"name\": \"import\", \"status\": \"ok\"},"
	"                           {\"name\": \"matmul\", \"status\": \"fail\"},"
	"                           {\"name\": \"sdpa\", \"status\": \"ok\"}],"
	"              \"benchmarks\": [{\"name\": \"gemm\", \"value\": 80, \"unit\": \"TFLOPS\"},"
	"                               {\"name\": \"copy\", \"value\": 60, \"unit\": \"GB/s\"},"
	"                               {\"name\": \"flat\", \"value\": 10.2, \"unit\": \"GB/s\"}]}}";

static void
t_changes(void)
{
	struct json *a = parse(old_manifest), *b = parse(new_manifest), *o = NULL;
	struct buf text = BUF_INIT;
	const struct json *libs, *ch, *vers, *rt;
	size_t n;

	n = manifest_diff(a, b, &all5, &o, &text);
	/*
	 * features: flash_attention lost, nccl gained, mkldnn lost, cudnn gained (4);
	 * libraries: libold removed, libnew added (2), libtorch_cuda -sm_90 +sm_120
	 * +compute_120 (3); versions: cuda, commit (2); runtime: matmul, sdpa (2),
	 * gemm 20 % slower (1; copy is faster: said, not counted).
	 */
	CHECK(n == 14);
	CHECK(!json_is_true(json_get(o, "equal")));
	CHECK(json_number_value(json_get(o, "differences")) == 14);
	CHECK_STR(field(o, "features", "gained", 0), "nccl");
	CHECK_STR(field(o, "features", "gained", 1), "cudnn");
	CHECK_STR(field(o, "features", "lost", 0), "flash_attention");
	CHECK_STR(field(o, "features", "lost", 1), "mkldnn");
	libs = json_get(o, "libraries");
	CHECK_STR(json_str(json_at(json_get(libs, "added"), 0)), "torch/lib/libnew.so");
	CHECK_STR(json_str(json_at(json_get(libs, "removed"), 0)), "torch/lib/libold.so");
	ch = json_get(libs, "changed");
	CHECK(json_len(ch) == 1);
	CHECK_STR(json_str(json_get(json_at(ch, 0), "path")), "torch/lib/libtorch_cuda.so");
	CHECK_STR(json_str(json_at(json_get(json_at(ch, 0), "sass_gained"), 0)), "sm_120");
	CHECK_STR(json_str(json_at(json_get(json_at(ch, 0), "sass_lost"), 0)), "sm_90");
	CHECK_STR(json_str(json_at(json_get(json_at(ch, 0), "ptx_gained"), 0)), "compute_120");
	CHECK_STR(field(o, "archs", "sass_gained", 0), "sm_120");
	vers = json_get(o, "versions");
	CHECK(json_len(vers) == 2);
	CHECK_STR(json_str(json_get(json_at(vers, 0), "field")), "version_py.cuda");
	CHECK_STR(json_str(json_get(json_at(vers, 1), "b")), "bbbb");
	rt = json_get(o, "runtime");
	CHECK(json_len(json_get(rt, "checks")) == 2);
	/* sdpa did not run before: its "a" is null. */
	CHECK(json_get(json_at(json_get(rt, "checks"), 1), "a") != NULL);
	CHECK(json_str(json_get(json_at(json_get(rt, "checks"), 1), "a")) == NULL);
	CHECK(json_len(json_get(rt, "benchmarks")) == 2);
	CHECK(json_is_true(json_get(json_at(json_get(rt, "benchmarks"), 0), "regression")));
	CHECK(json_number_value(json_get(json_at(json_get(rt, "benchmarks"), 0), "change_percent")) == -20);
	CHECK(!json_is_true(json_get(json_at(json_get(rt, "benchmarks"), 1), "regression")));

	CHECK(strstr(text.s, "feature flash_attention: on -> off\n") != NULL);
	CHECK(strstr(text.s, "feature cudnn: unknown -> on\n") != NULL);
	CHECK(strstr(text.s, "library removed: torch/lib/libold.so\n") != NULL);
	CHECK(strstr(text.s, "library added: torch/lib/libnew.so\n") != NULL);
	CHECK(strstr(text.s, "library torch/lib/libtorch_cuda.so: sass +sm_120 -sm_90; ptx +compute_120\n") != NULL);
	CHECK(strstr(text.s, "archs (all libraries): +sm_120 +compute_120\n") != NULL);
	CHECK(strstr(text.s, "version_py.cuda: 12.8 -> 13.0\n") != NULL);
	CHECK(strstr(text.s, "runtime check matmul: ok -> fail\n") != NULL);
	CHECK(strstr(text.s, "runtime check sdpa: (not run) -> ok\n") != NULL);
	CHECK(strstr(text.s, "runtime benchmark gemm: 100.0 -> 80.0 TFLOPS (-20.0 %, slower than the tolerance allows)\n") != NULL);
	CHECK(strstr(text.s, "runtime benchmark copy: 50.0 -> 60.0 GB/s (+20.0 %)\n") != NULL);
	CHECK(strstr(text.s, "flat") == NULL);   /* within the tolerance */
	json_free(o);

	/* A wider tolerance: gemm's 20 % is no longer a difference. */
	buf_reset(&text);
	CHECK(manifest_diff(a, b, &all25, &o, &text) == 13);
	json_free(o);
	json_free(a);
	json_free(b);
	buf_release(&text);
}

static void
t_equal(void)
{
	struct json *a = parse(old_manifest), *b = parse(old_manifest), *o = NULL;
	struct json *c, *d;
	struct buf text = BUF_INIT;

	CHECK(manifest_diff(a, b, &all5, &o, &text) == 0);
	CHECK(json_is_true(json_get(o, "equal")));
	CHECK_STR(text.s, "");
	json_free(o);

	/* Targets only in "archs" (libraries not listed) still make a difference. */
	c = parse("{\"archs\": {\"sass\": [\"sm_90\"], \"ptx\": []}}");
	d = parse("{\"archs\": {\"sass\": [\"sm_90\", \"sm_120\"], \"ptx\": []}, \"features\": {\"x\": false}}");
	buf_reset(&text);
	CHECK(manifest_diff(c, d, &all5, &o, &text) == 1);
	CHECK_STR(text.s, "archs (all libraries): +sm_120\n");
	json_free(o);

	/* Repeated keys and paths: the first counts, once; junk members are skipped. */
	json_free(c);
	json_free(d);
	c = parse("{\"features\": {\"a\": true, \"a\": false}, \"libraries\": [{\"path\": \"l.so\", \"sass\": [1, \"sm_90\"]}, {\"nopath\": 1}]}");
	d = parse("{\"features\": {\"a\": true}, \"libraries\": [{\"path\": \"l.so\", \"sass\": [\"sm_90\"]}, {\"path\": \"l.so\"}]}");
	buf_reset(&text);
	CHECK(manifest_diff(c, d, &all5, &o, &text) == 0);
	json_free(o);
	json_free(c);
	json_free(d);
	json_free(a);
	json_free(b);
	buf_release(&text);
}

/*
 * --ignore: a new release's version and commit are shown but not counted
 * by default; gains too with --ignore gains, so what is left is a loss
 * (issue 32: a gate that fails only when something was lost).
 */
static void
t_ignore(void)
{
	static const struct diff_opts version = { 5.0, DIFF_IGNORE_VERSION },
		both = { 5.0, DIFF_IGNORE_VERSION | DIFF_IGNORE_GAINS };
	struct json *a = parse(old_manifest), *b = parse(new_manifest), *o = NULL, *c, *d;
	struct buf text = BUF_INIT;

	/* 14 differences; the commit (aaaa -> bbbb) is the release's own. */
	CHECK(manifest_diff(a, b, &version, &o, &text) == 13);
	CHECK(json_number_value(json_get(o, "ignored_differences")) == 1);
	CHECK_STR(json_str(json_at(json_get(o, "ignored"), 0)), "version");
	CHECK(strstr(text.s, "source.commit: aaaa -> bbbb (a new release's: not counted, "
			     "--ignore version)\n") != NULL);
	CHECK(strstr(text.s, "version_py.cuda: 12.8 -> 13.0\n") != NULL);
	json_free(o);
	/*
	 * Gains left out too: flash_attention and mkldnn lost, libold removed,
	 * -sm_90, cuda changed, matmul and sdpa, gemm slower: 8.
	 */
	buf_reset(&text);
	CHECK(manifest_diff(a, b, &both, &o, &text) == 8);
	CHECK(json_number_value(json_get(o, "ignored_differences")) == 6);
	CHECK(strstr(text.s, "feature nccl: off -> on (a gain: not counted, --ignore gains)\n"));
	CHECK(strstr(text.s, "library added: torch/lib/libnew.so (a gain: not counted") != NULL);
	json_free(o);

	/* Only the version changed: agree, and say what was not counted. */
	c = parse("{\"wheel\": {\"version\": \"2.6.0+cpu.cpu\"}, \"features\": {\"x\": true}}");
	d = parse("{\"wheel\": {\"version\": \"2.6.1+cpu.cpu\"}, \"features\": {\"x\": true}}");
	buf_reset(&text);
	CHECK(manifest_diff(c, d, &version, &o, &text) == 0);
	CHECK(json_is_true(json_get(o, "equal")));
	json_free(o);
	buf_reset(&text);
	CHECK(manifest_diff(c, d, &all5, &o, &text) == 1);
	json_free(o);
	json_free(c);
	json_free(d);
	json_free(a);
	json_free(b);
	buf_release(&text);
}

/* --format md: a table per part, each heading naming the profile; cells cannot break the table. */
static void
t_markdown(void)
{
	static const struct diff_opts version = { 5.0, DIFF_IGNORE_VERSION };
	struct json *a = parse("{\"profile\": {\"name\": \"sm120\"}, \"wheel\": {\"file\": "
			       "\"torch-2.6.0+cu130.sm120-x.whl\", \"version\": \"2.6.0+cu130.sm120\"},"
			       " \"features\": {\"cuda\": true, \"flash_attention\": true},"
			       " \"archs\": {\"sass\": [\"sm_120\"], \"ptx\": [\"compute_120\"]}}");
	struct json *b = parse("{\"profile\": {\"name\": \"sm120\"}, \"wheel\": {\"file\": "
			       "\"torch-2.6.1+cu130.sm120-x.whl\", \"version\": \"2.6.1+cu130.sm120\"},"
			       " \"features\": {\"cuda\": true, \"flash_attention\": false, \"a|b\": true},"
			       " \"archs\": {\"sass\": [\"sm_120\"], \"ptx\": []}}");
	struct json *o = NULL;
	struct buf text = BUF_INIT, md = BUF_INIT;
	const char *h;
	int headings = 0;

	CHECK(manifest_diff(a, b, &version, &o, &text) == 3);
	diff_markdown(a, b, o, &md);
	CHECK(strncmp(md.s, "## sm120: builds differ\n", 24) == 0);
	CHECK(strstr(md.s, "3 differences counted, 1 not counted (`--ignore version`).") != NULL);
	CHECK(strstr(md.s, "| flash_attention | ✅ | ❌ | **lost** |\n") != NULL);
	CHECK(strstr(md.s, "| a\\|b | – | ✅ | gained |\n") != NULL);
	CHECK(strstr(md.s, "| (all libraries) | – | compute_120 |\n") != NULL);
	CHECK(strstr(md.s, "| wheel.version | 2.6.0+cu130.sm120 | 2.6.1+cu130.sm120 | no (a new "
			   "release's) |\n") != NULL);
	for (h = md.s; (h = strstr(h, "\n#")); h++, headings++)
		CHECK(strncmp(h, "\n### sm120: ", 12) == 0);
	CHECK(headings == 4);
	json_free(o);
	json_free(a);
	json_free(b);
	buf_release(&text);
	buf_release(&md);
}

void
t_diff(void)
{
	t_changes();
	t_equal();
	t_ignore();
	t_markdown();
}
