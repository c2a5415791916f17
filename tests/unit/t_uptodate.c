#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/pipeline/build.h"
#include "../../src/pipeline/inputs.h"
#include "../../src/pipeline/plan.h"
#include "../../src/pipeline/resolve.h"
#include "../../src/pipeline/journal.h"
#include "../../src/pipeline/step.h"
#include "../../src/pipeline/uptodate.h"
#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/proc.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/host/toolchain.h"
#include "../../src/sources/git.h"
#include "t.h"

/*
 * "Up to date means no work": a build recorded (a --source git tree, fake
 * compilers and python) is found up to date without starting anything;
 * the pair missing from --out is published again from the work directory;
 * a changed tool, a changed input or a broken record means building.
 */

static struct buf dir = BUF_INIT;

static void
setup(struct build *b, struct build_opts *bo)
{
	struct buf p = BUF_INIT, w = BUF_INIT, o = BUF_INIT, s = BUF_INIT;

	memset(bo, 0, sizeof(*bo));
	buf_addf(&p, "%s/p.yaml", dir.s);
	buf_addf(&w, "%s/work", dir.s);
	buf_addf(&o, "%s/out", dir.s);
	buf_addf(&s, "%s/src", dir.s);
	bo->r.profile = buf_detach(&p);
	bo->r.work_dir = buf_detach(&w);
	bo->r.out_dir = buf_detach(&o);
	bo->r.source_dir = buf_detach(&s);
	build_init(b, bo);
	if (resolve_profile(&b->profile, &bo->r) < 0 || resolve_plan(&b->plan, &b->profile, &bo->r) < 0)
		exit(1);
}

static void
teardown(struct build *b, struct build_opts *bo)
{
	build_release(b);
	free((char *)bo->r.profile);
	free((char *)bo->r.work_dir);
	free((char *)bo->r.out_dir);
	free((char *)bo->r.source_dir);
}

/* What the build would have left: source, toolchain, inputs; then published and recorded. */
static void
record_build(const char *hash_override)
{
	struct build b;
	struct build_opts bo;
	struct proc p = PROC_INIT;
	struct buf hash = BUF_INIT, wheel = BUF_INIT, man = BUF_INIT, mhash = BUF_INIT, name = BUF_INIT;
	struct json *in;

	setup(&b, &bo);
	CHECK(repo_describe(b.plan.src_dir, &b.tree, NULL) == 0);
	buf_addstr(&b.commit, b.tree.commit);
	CHECK(repo_commit_time(b.plan.src_dir, b.tree.commit, &b.epoch) == 0);
	CHECK(wheel_version(&b) == 0);
	step_env(&p, &b);
	buf_addf(&b.python, "%s/python", dir.s);
	toolchain_probe(&b.toolchain, &p.env, b.plan.cuda_home, b.python.s);
	proc_release(&p);
	in = inputs_make(&b);
	inputs_hash(in, &hash);
	json_free(in);

	/* The wheel in <work>/dist, published with its manifest into --out. */
	buf_addf(&wheel, "%s/dist/tiny-1.0-py3-none-any.whl", b.plan.work_dir);
	remove(wheel.s);
	CHECK(mkdir_p_parent(wheel.s) == 0);
	CHECK(copy_file(t_wheel("good/tiny-1.0-py3-none-any.whl"), wheel.s) == 0);
	buf_addstr(&b.wheel, wheel.s);
	CHECK(wheel_verify(&b.report, wheel.s, NULL) == 0);
	b.have_report = 1;
	buf_addf(&man, "%s/dist/tiny-1.0-py3-none-any.manifest.json", b.plan.work_dir);
	remove(man.s);
	CHECK(write_file_atomic(man.s, "{\"schema\": \"bwbuild-manifest/1\"}\n", 33) == 0);
	CHECK(sha256_file(man.s, &mhash) == 0);
	CHECK(mkdir_p(b.plan.out_dir) == 0);
	t_stderr_begin();
	CHECK(publish_pair(b.plan.work_dir, b.plan.out_dir, wheel.s, "tiny-1.0-py3-none-any.whl",
			   "{\"schema\": \"bwbuild-manifest/1\"}\n", 33) == 0);
	t_stderr_end();
	buf_addf(&name, "%s/tiny-1.0-py3-none-any.whl", b.plan.out_dir);
	CHECK(uptodate_record(&b, hash_override ? hash_override : hash.s, name.s, "m", mhash.s, man.s) == 0);
	teardown(&b, &bo);
	buf_release(&hash);
	buf_release(&wheel);
	buf_release(&man);
	buf_release(&mhash);
	buf_release(&name);
}

/* uptodate_check's answer; its standard output and error in *out, *err. */
static int
check(const char **err, struct buf *out)
{
	struct build b;
	struct build_opts bo;
	struct buf path = BUF_INIT;
	int up, fd, saved;

	setup(&b, &bo);
	buf_addf(&path, "%s/stdout.txt", dir.s);
	fd = open(path.s, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	close(fd);
	t_stderr_begin();
	up = uptodate_check(&b);
	fflush(stdout);
	*err = t_stderr_end();
	dup2(saved, 1);
	close(saved);
	buf_reset(out);
	read_file(out, path.s);
	teardown(&b, &bo);
	buf_release(&path);
	return up;
}

void
t_uptodate(void)
{
	struct buf text = BUF_INIT, out = BUF_INIT, p = BUF_INIT;
	const char *e;
	char *abs = path_absolute(t_tmpdir("uptodate"));

	buf_addstr(&dir, abs);
	free(abs);
	t_wheels();
	buf_addf(&p, "mkdir -p %s/src && cd %s/src && echo 2.11.0 > version.txt && echo '# tree' > setup.py && "
		     "git init -q && git add -A && git -c user.name=t -c user.email=t@example.invalid "
		     "-c commit.gpgsign=false commit -qm tree", dir.s, dir.s);
	CHECK(system(p.s) == 0);
	t_put(dir.s, "st/__init__.py", "# setuptools\n", 0);
	buf_reset(&p);
	buf_addf(&p, "#!/bin/sh\necho 70.1.0\necho %s/st/__init__.py\n", dir.s);
	t_put(dir.s, "python", p.s, 1);
	t_put(dir.s, "cc", "#!/bin/sh\necho 'fake-cc 1.0'\n", 1);
	buf_addf(&text, "name: t-uptodate\nsource: {repo: r, ref: v2.11.0}\nfeatures: {cuda: off}\n"
			"build: {python: %s/python, env: {CC: %s/cc, CXX: %s/cc}}\n"
			"wheel: {version_suffix: \"+bw1\"}\n", dir.s, dir.s, dir.s);
	t_put(dir.s, "p.yaml", text.s, 0);

	/* No record: not up to date, and nothing said. */
	CHECK(check(&e, &out) == 0);
	CHECK_STR(e, "");

	record_build(NULL);
	CHECK(check(&e, &out) == 1);
	CHECK(starts_with(out.s, "bwbuild: up to date (inputs "));
	CHECK(strstr(out.s, "/out/tiny-1.0-py3-none-any.whl\nmanifest: ") != NULL);
	CHECK_STR(e, "");

	/* The pair gone from --out: published again from <work>/dist, still no build. */
	buf_reset(&p);
	buf_addf(&p, "%s/out/tiny-1.0-py3-none-any.whl", dir.s);
	CHECK(unlink(p.s) == 0);
	CHECK(check(&e, &out) == 1);
	CHECK(strstr(out.s, "; published again\n") != NULL);
	CHECK(strstr(e, "bwbuild: publishing the last build again into '") != NULL);
	CHECK(is_regular(p.s));

	/* A compiler rewritten: its identity changed, so a build is needed. */
	t_put(dir.s, "cc", "#!/bin/sh\necho 'fake-cc 1.1, another build'\n", 1);
	CHECK(check(&e, &out) == 0);
	CHECK(strstr(e, "bwbuild: not up to date: a compiler or tool changed\n") != NULL);
	CHECK_STR(out.s, "");

	/* Recorded anew, but with other inputs than this build's. */
	record_build("0000");
	CHECK(check(&e, &out) == 0);
	CHECK(strstr(e, "bwbuild: not up to date: the inputs changed\n") != NULL);

	/* A local change in the tree is an input too. */
	record_build(NULL);
	CHECK(check(&e, &out) == 1);
	t_put(dir.s, "src/setup.py", "# tree, changed\n", 0);
	CHECK(check(&e, &out) == 0);
	/* Named: the rebuild says which input changed. */
	CHECK(strstr(e, "bwbuild: not up to date: the inputs changed: source.changes[0]: (none) -> "
			"{\"path\":\"setup.py\",\"sha256\":") != NULL);

	/* A record that is not whole. */
	t_put(dir.s, "work/last-build.json", "{\"inputs_hash\": \"x\"}", 0);
	CHECK(check(&e, &out) == 0);
	CHECK(strstr(e, "bwbuild: not up to date: its record is incomplete\n") != NULL);
	t_put(dir.s, "work/last-build.json", "{", 0);
	CHECK(check(&e, &out) == 0);
	CHECK_STR(e, "");

	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&text);
	buf_release(&out);
	buf_release(&p);
}
