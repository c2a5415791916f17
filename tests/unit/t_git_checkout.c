#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/sources/git.h"
#include "t.h"

/*
 * A work tree checked out from a local upstream through its mirror: at a
 * tag, at another ref, local changes refused and listed unless --force,
 * what differs from HEAD, the ignored build outputs cleaned.
 */

static struct buf dir = BUF_INIT;

static int
checkout(const char *ref, int force, struct repo_tree_info *ti, const char **err)
{
	struct repo_checkout_opts o = { 0 };

	o.ref = ref;
	o.force = force;
	return t_repo_checkout(dir.s, "up", &o, ti, err);
}

static const char *
file(const char *rel)
{
	static struct buf b = BUF_INIT;
	struct buf p = BUF_INIT;

	buf_reset(&b);
	buf_addf(&p, "%s/%s", dir.s, rel);
	if (!path_exists(p.s) || read_file(&b, p.s) < 0)
		buf_addstr(&b, "(none)");
	buf_release(&p);
	return b.s;
}

void
t_git_checkout(void)
{
	struct repo_tree_info ti;
	struct strvec changes = STRVEC_INIT;
	struct buf head = BUF_INIT, v1 = BUF_INIT, p = BUF_INIT;
	const char *e;
	char *abs = path_absolute(t_tmpdir("git-checkout"));
	static const char *const keep[] = { "third_party", NULL };

	buf_addstr(&dir, abs);
	free(abs);
	CHECK(t_git_sh(dir.s, "git init -q up && cd up && echo one > a.txt && printf 'build/\\n*.so\\n' > .gitignore && "
		              "git add -A && git -c commit.gpgsign=false commit -qm one && git tag v1 && "
		              "echo two > a.txt && git -c commit.gpgsign=false commit -qam two && git tag v2") == 0);

	CHECK(checkout("v1", 0, &ti, &e) == 0);
	CHECK(ti.commit && strlen(ti.commit) == 40);
	buf_addstr(&v1, ti.commit);
	CHECK_STR(file("work/a.txt"), "one\n");
	repo_tree_info_release(&ti);
	buf_reset(&p);
	buf_addf(&p, "%s/work", dir.s);
	CHECK(repo_head_commit(p.s, &head) == 0);
	CHECK_STR(head.s, v1.s);

	CHECK(checkout("v2", 0, &ti, &e) == 0);
	CHECK_STR(file("work/a.txt"), "two\n");
	CHECK(strcmp(ti.commit, v1.s));
	repo_tree_info_release(&ti);

	/* A local change: listed, and in the way of a checkout unless forced. */
	CHECK(t_git_sh(dir.s, "echo mine > work/a.txt && echo new > work/b.txt") == 0);
	CHECK(repo_changed_paths(p.s, &changes) == 0);
	strvec_sort(&changes);
	CHECK(changes.n == 2 && !strcmp(changes.v[0], "a.txt") && !strcmp(changes.v[1], "b.txt"));
	strvec_clear(&changes);
	CHECK(repo_describe(p.s, &ti, &changes) == 0);
	CHECK(changes.n == 2);
	repo_tree_info_release(&ti);
	strvec_clear(&changes);
	CHECK(checkout("v1", 0, &ti, &e) == -1);
	CHECK(strstr(e, "has local changes") != NULL);
	CHECK_STR(file("work/a.txt"), "mine\n");
	repo_tree_info_release(&ti);
	CHECK(checkout("v1", 1, &ti, &e) == 0);
	CHECK(strstr(e, "--force: discarding ") != NULL);
	CHECK_STR(file("work/a.txt"), "one\n");
	repo_tree_info_release(&ti);

	/* An unknown ref. */
	CHECK(checkout("v9", 0, &ti, &e) == -1);
	CHECK(strstr(e, "unknown ref 'v9'") != NULL);
	repo_tree_info_release(&ti);

	/* Ignored build outputs go; those under a kept directory and tracked files stay. */
	CHECK(t_git_sh(dir.s, "mkdir -p work/build work/third_party && echo o > work/build/x.o && "
		              "echo l > work/lib.so && echo k > work/third_party/k.so") == 0);
	CHECK(repo_clean_ignored(p.s, keep) == 0);
	CHECK_STR(file("work/build/x.o"), "(none)");
	CHECK_STR(file("work/lib.so"), "(none)");
	CHECK_STR(file("work/third_party/k.so"), "k\n");
	CHECK_STR(file("work/a.txt"), "one\n");

	{
		long long t = 0;

		CHECK(repo_commit_time(p.s, v1.s, &t) == 0 && t > 1600000000);
	}
	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&head);
	buf_release(&v1);
	buf_release(&p);
}
