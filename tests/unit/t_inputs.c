#include <stdlib.h>
#include <string.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/inputs.h"
#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/resolve.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/core/version.h"
#include "t.h"

/*
 * What decides a wheel's bytes, from a resolved profile and plan: the same
 * for two work directories, other when a setting that changes bytes
 * changes, the same when only the job count does.
 */

static struct buf dir = BUF_INIT;

/* inputs_make for `profile_text` built in work directory `work`; NULL when it does not resolve. */
static struct json *
inputs_for(const char *profile_text, const char *work, const char *version, struct buf *hash)
{
	struct build_opts bo;
	struct build b;
	struct buf path = BUF_INIT;
	struct json *in = NULL;

	buf_addf(&path, "%s/p.yaml", dir.s);
	remove(path.s);
	if (write_file_atomic(path.s, profile_text, strlen(profile_text)) < 0)
		exit(1);
	memset(&bo, 0, sizeof(bo));
	bo.r.profile = path.s;
	bo.r.work_dir = work;
	bo.r.out_dir = t_path("inputs/out");
	build_init(&b, &bo);
	if (resolve_profile(&b.profile, &bo.r) == 0 && resolve_plan(&b.plan, &b.profile, &bo.r) == 0) {
		b.epoch = 1700000000;
		if (version)
			buf_addstr(&b.version, version);
		in = inputs_make(&b);
		inputs_hash(in, hash);
	}
	build_release(&b);
	buf_release(&path);
	return in;
}

#define PROFILE(extra)                                                         \
	"name: t-inputs\n"                                                     \
	"description: the description changes no byte\n"                      \
	"source: {repo: https://example.invalid/torch.git, ref: v2.6.0}\n"     \
	"cuda: {version: \"12.8\", archs: [\"9.0\", \"12.0+PTX\"]}\n"           \
	"features: {cuda: on, nccl: off}\n" extra

void
t_inputs(void)
{
	struct buf h1 = BUF_INIT, h2 = BUF_INIT, h3 = BUF_INIT;
	struct json *a, *b, *c;
	const struct json *env, *prof;
	char *sde = t_env_save("SOURCE_DATE_EPOCH");

	buf_addstr(&dir, t_tmpdir("inputs"));
	unsetenv("SOURCE_DATE_EPOCH");

	a = inputs_for(PROFILE("build: {jobs: 4}\n"), t_path("inputs/w1"), "2.6.0+bw1", &h1);
	b = inputs_for(PROFILE("build: {jobs: 9}\n"), t_path("inputs/w2"), "2.6.0+bw1", &h2);
	CHECK(a != NULL && b != NULL);
	CHECK(h1.len == 64);
	CHECK_STR(h1.s, h2.s);     /* another work directory, another job count: the same bytes */
	CHECK(json_equal(a, b));

	env = json_get(a, "env");
	CHECK_STR(json_str(json_get(env, "CMAKE_PROJECT_INCLUDE")), "${WORK}/cmake/bwbuild-effective.cmake");
	CHECK_STR(json_str(json_get(env, "TORCH_CUDA_ARCH_LIST")), "9.0;12.0+PTX");
	/*
	 * What keeps the work directory out of the wheel (the warm rebuild of
	 * v2.6.0): $ORIGIN in the build tree's RUNPATH, prefix maps for the
	 * stub setuptools compiles; named by placeholder, so two work
	 * directories give one hash (the maps end in '=', which hid them).
	 */
	CHECK_STR(json_str(json_get(env, "CMAKE_BUILD_RPATH_USE_ORIGIN")), "ON");
	CHECK_STR(json_str(json_get(env, "CPPFLAGS")),
		  "-ffile-prefix-map=${WORK}=/bwbuild/work -ffile-prefix-map=${SRC}=/bwbuild/src");
	CHECK_STR(json_str(json_get(env, "SOURCE_DATE_EPOCH")), "1700000000");
	CHECK_STR(json_str(json_get(env, "PYTORCH_BUILD_VERSION")), "2.6.0+bw1");
	CHECK(json_get(env, "MAX_JOBS") == NULL);        /* compile-only: left out */
	CHECK(json_get(env, "TMPDIR") == NULL);
	prof = json_get(a, "profile");
	CHECK_STR(json_str(json_get(prof, "name")), "t-inputs");
	CHECK(strlen(json_str(json_get(prof, "sha256"))) == 64);
	CHECK(json_get(json_get(prof, "resolved"), "description") == NULL);
	CHECK(json_get(json_get(json_get(prof, "resolved"), "build"), "jobs") == NULL);
	CHECK_STR(json_str(json_get(json_get(a, "source"), "ref")), "v2.6.0");
	CHECK(json_get(json_get(a, "source"), "commit") != NULL);
	CHECK(json_len(json_get(json_get(a, "source"), "changes")) == 0);
	CHECK(json_len(json_get(a, "patches")) == 0);
	CHECK_STR(json_str(json_get(json_get(a, "bwbuild"), "version")), BWBUILD_VERSION);

	/* A feature, or the wheel's version, changes the bytes. */
	c = inputs_for("name: t-inputs\n"
		       "source: {repo: https://example.invalid/torch.git, ref: v2.6.0}\n"
		       "cuda: {version: \"12.8\", archs: [\"9.0\", \"12.0+PTX\"]}\n"
		       "features: {cuda: on, nccl: on}\n", t_path("inputs/w1"), "2.6.0+bw1", &h3);
	CHECK(c && strcmp(h1.s, h3.s));
	json_free(c);
	c = inputs_for(PROFILE(""), t_path("inputs/w1"), "2.6.0+bw2", &h3);
	CHECK(c && strcmp(h1.s, h3.s));
	json_free(c);

	json_free(a);
	json_free(b);
	if (sde)
		setenv("SOURCE_DATE_EPOCH", sde, 1);
	free(sde);
	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&h1);
	buf_release(&h2);
	buf_release(&h3);
}
