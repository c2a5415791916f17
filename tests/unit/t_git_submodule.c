#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/sources/git.h"
#include "t.h"

/*
 * Submodules of a checkout, each from its own mirror in git's layout, at
 * the commit the tree records, a relative URL resolved against the
 * superproject's; one left out by the profile's exclude list.
 */

static struct buf dir = BUF_INIT;

static int
checkout(const struct strvec *exclude, struct repo_tree_info *ti, const char **err)
{
	struct repo_checkout_opts o = { 0 };

	o.ref = "v1";
	o.exclude = exclude;
	o.force = 1;
	return t_repo_checkout(dir.s, "top", &o, ti, err);
}

void
t_git_submodule(void)
{
	struct repo_tree_info ti;
	struct strvec exclude = STRVEC_INIT;
	struct buf p = BUF_INIT, want = BUF_INIT, got = BUF_INIT;
	const char *e;
	char *abs = path_absolute(t_tmpdir("git-submodule"));

	buf_addstr(&dir, abs);
	free(abs);
	CHECK(t_git_sh(dir.s, "git init -q lib && cd lib && echo lib > l.txt && git add -A && "
		              "git -c commit.gpgsign=false commit -qm lib && cd .. && "
		              "git init -q other && cd other && echo o > o.txt && git add -A && "
		              "git -c commit.gpgsign=false commit -qm other && cd .. && "
		              "git init -q top && cd top && echo top > t.txt && "
		              "git -c protocol.file.allow=always submodule -q add ../lib third_party/lib && "
		              "git -c protocol.file.allow=always submodule -q add ../other third_party/other && "
		              "git add -A && git -c commit.gpgsign=false commit -qm top && git tag v1") == 0);

	CHECK(checkout(NULL, &ti, &e) == 0);
	CHECK(ti.nsubs == 2);
	if (ti.nsubs == 2) {
		CHECK_STR(ti.subs[0].path, "third_party/lib");
		buf_addf(&want, "%s/lib", dir.s);
		CHECK(ti.subs[0].url && strstr(ti.subs[0].url, "/lib") != NULL);
		buf_addf(&p, "%s/lib", dir.s);
		buf_reset(&got);
		CHECK(repo_head_commit(p.s, &got) == 0);
		CHECK_STR(ti.subs[0].commit, got.s);
	}
	buf_reset(&p);
	buf_addf(&p, "%s/work/third_party/lib/l.txt", dir.s);
	CHECK(is_regular(p.s));
	buf_reset(&p);
	buf_addf(&p, "%s/work/.git/modules/third_party/lib", dir.s);
	CHECK(is_dir(p.s));
	repo_tree_info_release(&ti);

	/* The tree describes itself the same way. */
	buf_reset(&p);
	buf_addf(&p, "%s/work", dir.s);
	CHECK(repo_describe(p.s, &ti, NULL) == 0);
	CHECK(ti.nsubs == 2);
	repo_tree_info_release(&ti);

	/* Excluded: left out of the checkout and of what is recorded. */
	remove_tree(p.s);
	strvec_push(&exclude, "third_party/other");
	CHECK(checkout(&exclude, &ti, &e) == 0);
	CHECK(ti.nsubs == 1 && !strcmp(ti.subs[0].path, "third_party/lib"));
	buf_reset(&p);
	buf_addf(&p, "%s/work/third_party/other/o.txt", dir.s);
	CHECK(!path_exists(p.s));
	repo_tree_info_release(&ti);

	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&p);
	buf_release(&want);
	buf_release(&got);
	strvec_clear(&exclude);
}
