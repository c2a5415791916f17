#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/sources/repowork.h"
#include "t.h"

/* A work tree's own files around libgit2: gitlink paths and owners, stale locks, progress. */

static const char *
rel(const char *from, const char *to)
{
	static struct buf b = BUF_INIT;

	buf_reset(&b);
	repo_relative_path(from, to, &b);
	return b.s;
}

static void
put(const char *path, const char *text)
{
	if (mkdir_p_parent(path) < 0 || write_file_atomic(path, text, strlen(text)) < 0)
		exit(1);
}

/* sources/ says its lines through a callback: each line whole, none when there is no sink. */
static void
keep_line(void *ctx, const char *text)
{
	strvec_push(ctx, text);
}

static void
t_src_progress(void)
{
	struct strvec got = STRVEC_INIT;
	const struct src_progress pr = { keep_line, &got, "fetch" }, quiet = { NULL, NULL, NULL };
	struct buf label = BUF_INIT;

	src_note(&pr, "patch %s: %s", "0001.patch", "applied");
	src_note(NULL, "never %d", 1);
	src_note(&quiet, "never %d", 2);
	CHECK(got.n == 1 && !strcmp(got.v[0], "patch 0001.patch: applied"));
	CHECK(src_meter_label(&quiet, &label, "x") == NULL && label.len == 0);
	CHECK(src_meter_label(NULL, &label, "x") == NULL);
	CHECK(!strcmp(src_meter_label(&pr, &label, "checking out %s", "torch"), "fetch: checking out torch"));
	buf_release(&label);
	strvec_clear(&got);
}

void
t_repowork(void)
{
	const char *d = t_tmpdir("repowork");
	char *top = path_absolute(d);
	struct buf p = BUF_INIT, w = BUF_INIT, g = BUF_INIT, text = BUF_INIT;
	struct repo_meter m;
	const char *e;

	CHECK_STR(rel("/w/src/third_party/cutlass", "/w/src/.git/modules/third_party/cutlass"),
		  "../../.git/modules/third_party/cutlass");
	CHECK_STR(rel("/w/src", "/w/src"), ".");
	CHECK_STR(rel("/w/src/", "/w/src/a/b/"), "a/b");
	CHECK_STR(rel("/w/srcx/a", "/w/src/b"), "../../src/b");   /* a prefix is not a parent */
	CHECK_STR(rel("/a/./b/../c", "/a/d"), "../d");

	/* Empty or absent directories. */
	buf_addf(&p, "%s/empty", top);
	CHECK(repo_dir_is_empty(p.s));
	CHECK(mkdir_p(p.s) == 0 && repo_dir_is_empty(p.s));
	buf_addstr(&p, "/x");
	put(p.s, "x");
	buf_reset(&p);
	buf_addf(&p, "%s/empty", top);
	CHECK(!repo_dir_is_empty(p.s));

	/* A gitlink of ours (relative or absolute, or libgit2's .bwbuild-new), or someone's. */
	buf_addf(&w, "%s/src/third_party/cutlass", top);
	buf_addf(&g, "%s/src/.git/modules/third_party/cutlass", top);
	buf_reset(&p);
	buf_addf(&p, "%s/.git", w.s);
	put(p.s, "gitdir: ../../.git/modules/third_party/cutlass\n");
	CHECK(repo_gitlink_is_ours(p.s, w.s, g.s));
	remove(p.s);
	buf_addf(&text, "gitdir: %s/\n", g.s);
	put(p.s, text.s);
	CHECK(repo_gitlink_is_ours(p.s, w.s, g.s));
	remove(p.s);
	buf_reset(&text);
	buf_addf(&text, "gitdir: %s.bwbuild-new", g.s);
	put(p.s, text.s);
	CHECK(repo_gitlink_is_ours(p.s, w.s, g.s));
	remove(p.s);
	put(p.s, "gitdir: /home/someone/cutlass/.git\n");
	CHECK(!repo_gitlink_is_ours(p.s, w.s, g.s));
	remove(p.s);
	put(p.s, "not a gitlink\n");
	CHECK(!repo_gitlink_is_ours(p.s, w.s, g.s));
	remove(p.s);
	CHECK(!repo_gitlink_is_ours(p.s, w.s, g.s));          /* none at all */

	/* Stale locks: removed below the git directory, objects/ left alone. */
	buf_reset(&p);
	buf_addf(&p, "%s/git/index.lock", top);
	put(p.s, "");
	buf_reset(&p);
	buf_addf(&p, "%s/git/refs/heads/main.lock", top);
	put(p.s, "");
	buf_reset(&p);
	buf_addf(&p, "%s/git/objects/pack/p.lock", top);
	put(p.s, "");
	buf_reset(&p);
	buf_addf(&p, "%s/git", top);
	repo_remove_stale_locks(p.s, 0);
	buf_reset(&p);
	buf_addf(&p, "%s/git/index.lock", top);
	CHECK(!path_exists(p.s));
	buf_reset(&p);
	buf_addf(&p, "%s/git/refs/heads/main.lock", top);
	CHECK(!path_exists(p.s));
	buf_reset(&p);
	buf_addf(&p, "%s/git/objects/pack/p.lock", top);
	CHECK(path_exists(p.s));

	/* The meter into a log: nothing in the first seconds; ended without a line to clear. */
	t_stderr_begin();
	repo_progress_init(&m, "fetch");
	repo_progress_update(&m, 10, 100, "objects");
	repo_progress_update(&m, 100, 100, "objects");
	repo_progress_end(&m);
	e = t_stderr_end();
	CHECK(!m.tty);
	CHECK_STR(e, "");

	remove_tree(top);
	free(top);
	buf_release(&p);
	buf_release(&w);
	buf_release(&g);
	buf_release(&text);
	t_src_progress();
}
