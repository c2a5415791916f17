#include <stdlib.h>
#include <string.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/resolve.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/pipeline/era.h"
#include "t.h"

/*
 * The fetch step on a --source tree (a copy of the example minitorch): the
 * tree taken as it is, its commit and local changes recorded when it is a
 * git checkout, its build era, options checked, the wheel's version.
 */

static struct buf dir = BUF_INIT, src = BUF_INIT;

static int
fetch(const char *extra, struct build *b, struct build_opts *bo, const char **err)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	int rc = -1;

	buf_addf(&text, "name: t-fetch\nsource: {repo: https://example.invalid/m.git, ref: v2.11.0}\n"
			"cuda: {version: \"12.8\", archs: [\"8.0\", \"12.0+PTX\"]}\n"
			"features: {cuda: on, cudnn: off, nccl: off}\n%s", extra);
	buf_addf(&path, "%s/p.yaml", dir.s);
	remove(path.s);
	if (write_file_atomic(path.s, text.s, text.len) < 0)
		exit(1);
	memset(bo, 0, sizeof(*bo));
	bo->r.profile = path.s;
	bo->r.source_dir = src.s;
	bo->r.work_dir = t_path("fetch/work");
	build_init(b, bo);
	buf_addstr(&b->python, "python3");
	t_stderr_begin();
	if (resolve_profile(&b->profile, &bo->r) == 0 && resolve_plan(&b->plan, &b->profile, &bo->r) == 0)
		rc = fetch_run(b);
	*err = t_stderr_end();
	buf_release(&path);
	buf_release(&text);
	return rc;
}

static void
t_plain_tree(void)
{
	struct build b;
	struct build_opts bo;
	const char *e;

	CHECK(fetch("wheel: {version_suffix: \"+bw1\"}\n", &b, &bo, &e) == 0);
	CHECK(strstr(e, "is not a git checkout; the manifest will name no commit") != NULL);
	CHECK(strstr(e, "fetch: build era: ") != NULL);
	CHECK(strstr(e, " options declared in ") != NULL);
	CHECK(b.era == era_by_key("setup-helpers") || b.era == era_by_key("setup-envfwd"));
	CHECK_STR(b.version.s, "2.11.0+bw1");
	CHECK_STR(b.commit.s, "none");
	CHECK(b.epoch == -1);
	CHECK(json_str(json_get(b.source, "local")) && ends_with(json_str(json_get(b.source, "local")), "/src"));
	build_release(&b);

	/*
	 * No suffix: a tree that reads PYTORCH_BUILD_VERSION gets the profile's
	 * variant as its local label (no commit here: no git part), so two
	 * profiles never share a wheel name; a version.txt with a local label
	 * refuses a suffix.
	 */
	CHECK(fetch("", &b, &bo, &e) == 0);
	/* ... and the inputs' hash: one setting more is another wheel name, the same inputs the same. */
	CHECK(starts_with(b.version.s, "2.11.0+cu128.t.fetch.h") && b.version.len == 29);
	{
		char *first = xstrdup(b.version.s);

		build_release(&b);
		CHECK(fetch("", &b, &bo, &e) == 0);
		CHECK_STR(b.version.s, first);
		build_release(&b);
		CHECK(fetch("build: {env: {CXXFLAGS: -O3}}\n", &b, &bo, &e) == 0);
		CHECK(starts_with(b.version.s, "2.11.0+cu128.t.fetch.h") && strcmp(b.version.s, first));
		free(first);
	}
	build_release(&b);
	{
		struct buf l = BUF_INIT;

		wheel_variant_label("0123456789abcdef0123456789abcdef01234567", "cu130", "sm120-No_Flash",
				    "h0a1b2c3", &l);
		CHECK_STR(l.s, "+git0123456.cu130.sm120.no.flash.h0a1b2c3");
		buf_reset(&l);
		wheel_variant_label("none", NULL, "--", NULL, &l);
		CHECK(l.len == 0);
		wheel_variant_label(NULL, "cpu", "cpu", NULL, &l);
		CHECK_STR(l.s, "+cpu.cpu");
		buf_reset(&l);
		wheel_variant_label(NULL, NULL, "--", "h0a1b2c3", &l);
		CHECK_STR(l.s, "+h0a1b2c3");
		buf_reset(&l);
		/* A release tag over its release branch's version.txt is that release; nothing else is. */
		CHECK(release_version("v2.6.0", "2.6.0a0", &l) == 1);
		CHECK_STR(l.s, "2.6.0");
		buf_reset(&l);
		CHECK(release_version("2.11.0", "2.11.0", &l) == 1);
		CHECK_STR(l.s, "2.11.0");
		buf_reset(&l);
		CHECK(release_version("v2.6.0-rc1", "2.6.0a0", &l) == 0);
		CHECK(release_version("v2.6.0", "2.6.1a0", &l) == 0);
		CHECK(release_version("v2.6.0", "2.6.01", &l) == 0);
		CHECK(release_version("v2.6.0", "2.6.0.1", &l) == 0);
		CHECK(release_version("v2.6", "2.6.0a0", &l) == 0);
		CHECK(release_version("main", "2.6.0a0", &l) == 0);
		CHECK(release_version("v2..0", "2..0", &l) == 0);
		CHECK(l.len == 0);
		buf_release(&l);
	}
	{
		struct buf v = BUF_INIT;

		buf_addf(&v, "%s/version.txt", src.s);
		remove(v.s);
		CHECK(write_file_atomic(v.s, "2.11.0+local\n", 13) == 0);
		CHECK(fetch("wheel: {version_suffix: \"+bw1\"}\n", &b, &bo, &e) == -1);
		CHECK(strstr(e, "version.txt already has a local label ('2.11.0+local'); drop 'wheel.version_suffix'") != NULL);
		build_release(&b);
		remove(v.s);
		CHECK(fetch("wheel: {version_suffix: \"+bw1\"}\n", &b, &bo, &e) == -1);
		CHECK(strstr(e, "/version.txt' is missing; 'wheel.version_suffix' needs it") != NULL);
		build_release(&b);
		CHECK(write_file_atomic(v.s, "2.11.0\n", 7) == 0);
		buf_release(&v);
	}
}

static void
t_git_tree(void)
{
	struct build b;
	struct build_opts bo;
	struct buf cmd = BUF_INIT, f = BUF_INIT;
	const char *e;

	buf_addf(&cmd, "cd %s && git init -q && git add -A && GIT_COMMITTER_DATE='2024-01-02T03:04:05Z' GIT_AUTHOR_DATE='2024-01-02T03:04:05Z' "
		       "git -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false commit -qm tree", src.s);
	CHECK(system(cmd.s) == 0);
	CHECK(fetch("", &b, &bo, &e) == 0);
	CHECK(strlen(b.commit.s) == 40);
	CHECK(b.epoch == 1704164645);
	CHECK(json_len(json_get(b.source, "changes")) == 0);
	CHECK(strstr(e, "not a git checkout") == NULL);
	build_release(&b);

	/* A local change: said, and recorded. */
	buf_addf(&f, "%s/setup.py", src.s);
	{
		struct buf text = BUF_INIT;

		CHECK(read_file(&text, f.s) == 0);
		buf_addstr(&text, "# changed\n");
		remove(f.s);
		CHECK(write_file_atomic(f.s, text.s, text.len) == 0);
		buf_release(&text);
	}
	CHECK(fetch("", &b, &bo, &e) == 0);
	CHECK(strstr(e, "with 1 local change (recorded in the manifest)") != NULL);
	CHECK(json_len(json_get(b.source, "changes")) == 1);
	CHECK_STR(json_str(json_at(json_get(b.source, "changes"), 0)), "modified: setup.py");
	build_release(&b);
	buf_release(&cmd);
	buf_release(&f);
}

void
t_fetch(void)
{
	struct buf cmd = BUF_INIT;

	buf_addstr(&dir, t_tmpdir("fetch"));
	buf_addf(&src, "%s/src", dir.s);
	buf_addf(&cmd, "cp -r tests/fixtures/minitorch %s", src.s);
	CHECK(system(cmd.s) == 0);
	t_plain_tree();
	t_git_tree();
	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&src);
	buf_release(&cmd);
}
