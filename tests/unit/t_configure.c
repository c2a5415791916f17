#include <string.h>

#include "../../src/buf.h"
#include "../../src/cmakecache.h"
#include "../../src/configure.h"
#include "../../src/diag.h"
#include "../../src/json.h"
#include "../../src/profile.h"
#include "t.h"

/* features_effective on a profile and a CMakeCache.txt; diag_errors added. */
static int
compare(const char *yaml, const char *cache, struct json **effective)
{
	struct profile p;
	struct cmake_cache c;
	struct buf why = BUF_INIT;
	int before, rc;

	t_write("configure.yaml", yaml);
	CHECK(profile_load(&p, "tests/tmp/unit/configure.yaml") == 0);
	CHECK(cmakecache_parse(&c, cache, strlen(cache), &why) == 0);
	before = diag_errors;
	diag_quiet = 1;
	rc = features_effective(&p, &c, "build/CMakeCache.txt", effective);
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

void
t_configure(void)
{
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
