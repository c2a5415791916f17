#include <string.h>

#include "../../src/buf.h"
#include "../../src/git.h"
#include "t.h"

static void
join(const char *base, const char *rel, const char *want)
{
	struct buf b = BUF_INIT;

	repo_url_join(base, rel, &b);
	CHECK_STR(b.s, want);
	buf_release(&b);
}

void
t_git(void)
{
	struct buf b = BUF_INIT;

	/* .gitmodules URLs as git resolves them against the superproject's */
	join("https://github.com/pytorch/pytorch", "../cutlass.git", "https://github.com/pytorch/cutlass.git");
	join("https://github.com/pytorch/pytorch.git/", "../../NVIDIA/cutlass", "https://github.com/NVIDIA/cutlass");
	join("git@github.com:pytorch/pytorch.git", "../kineto", "git@github.com:pytorch/kineto");
	join("git@github.com:pytorch", "../kineto", "git@github.com:kineto");
	join("/srv/git/minitorch.git", "../cutlite.git", "/srv/git/cutlite.git");
	join("/srv/git/minitorch.git", "./sub", "/srv/git/minitorch.git/sub");

	/* one mirror per URL, named for people, unique by hash */
	repo_mirror_path("/c", "https://github.com/pytorch/pytorch.git", &b);
	CHECK(!strncmp(b.s, "/c/git/pytorch-", 15) && strlen(b.s) == 15 + 12 + 4 && !strcmp(b.s + b.len - 4, ".git"));
	{
		struct buf other = BUF_INIT;

		repo_mirror_path("/c", "https://example.com/fork/pytorch", &other);
		CHECK(strcmp(b.s, other.s) != 0 && !strncmp(other.s, "/c/git/pytorch-", 15));
		buf_release(&other);
	}
	buf_reset(&b);
	repo_mirror_path("/c", "file:///x/we ird:name/", &b);
	CHECK(!strncmp(b.s, "/c/git/name-", 12));
	buf_release(&b);
}

