#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/sources/git.h"
#include "../../src/core/strvec.h"
#include "t.h"

static void git_sources(void);

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
	git_sources();
}

static void
rewrite(const struct strvec *rules, const char *url, const char *want)
{
	struct buf b = BUF_INIT;

	repo_url_rewrite(rules, url, &b);
	CHECK_STR(b.s, want);
	buf_release(&b);
}

static void
relpath(const char *from, const char *to, const char *want)
{
	struct buf b = BUF_INIT;

	repo_relative_path(from, to, &b);
	CHECK_STR(b.s, want);
	buf_release(&b);
}

static void
git_sources(void)
{
	struct strvec rules = STRVEC_INIT, c = STRVEC_INIT;
	struct buf a = BUF_INIT, b = BUF_INIT;

	/* url.<base>.insteadOf as git applies it: the longest matching prefix wins */
	strvec_pushl(&rules, "/m/", "https://github.com/",
		     "https://github.com/oneapi-src/oneDNN", "https://github.com/intel/mkl-dnn",
		     "/short/", "https://", NULL);
	rewrite(&rules, "https://github.com/pytorch/cpuinfo", "/m/pytorch/cpuinfo");
	rewrite(&rules, "https://github.com/intel/mkl-dnn.git", "https://github.com/oneapi-src/oneDNN.git");
	rewrite(&rules, "https://gitlab.com/x/y", "/short/gitlab.com/x/y");
	rewrite(&rules, "git@github.com:a/b.git", "git@github.com:a/b.git");
	strvec_clear(&rules);
	rewrite(&rules, "https://github.com/a/b", "https://github.com/a/b");

	/* one cache mirror whatever the trailing .git or / of a remote URL; local paths as they are */
	repo_mirror_path("/c", "https://github.com/google/googletest", &a);
	repo_mirror_path("/c", "https://github.com/google/googletest.git", &b);
	CHECK_STR(a.s, b.s);
	buf_reset(&b);
	repo_mirror_path("/c", "https://github.com/google/googletest/", &b);
	CHECK_STR(a.s, b.s);
	buf_reset(&a);
	buf_reset(&b);
	repo_mirror_path("/c", "file:///srv/x", &a);
	repo_mirror_path("/c", "file:///srv/x.git", &b);
	CHECK(strcmp(a.s, b.s) != 0);
	buf_reset(&a);
	repo_url_key("git@github.com:pytorch/kineto.git", &a);
	CHECK_STR(a.s, "git@github.com:pytorch/kineto");
	buf_reset(&a);
	repo_url_key("/srv/git/x.git", &a);
	CHECK_STR(a.s, "/srv/git/x.git");

	/* the names a mirror directory may use for a repository, most specific first */
	repo_mirror_candidates("/m", "https://github.com/NVIDIA/cutlass.git", &c);
	CHECK(c.n == 12);
	CHECK_STR(c.v[0], "/m/NVIDIA+cutlass/repo");
	CHECK_STR(c.v[1], "/m/NVIDIA+cutlass");
	CHECK_STR(c.v[4], "/m/NVIDIA/cutlass.git/repo");
	CHECK_STR(c.v[5], "/m/NVIDIA/cutlass.git");
	CHECK_STR(c.v[9], "/m/cutlass.git");
	CHECK_STR(c.v[11], "/m/cutlass");
	strvec_clear(&c);
	repo_mirror_candidates("/m", "https://github.com/NVIDIA/cutlass", &c);
	CHECK_STR(c.v[0], "/m/NVIDIA+cutlass/repo");
	strvec_clear(&c);
	repo_mirror_candidates("/m", "git@github.com:pytorch/kineto.git", &c);
	CHECK_STR(c.v[1], "/m/pytorch+kineto");
	strvec_clear(&c);
	repo_mirror_candidates("/m", "/srv/git/cute.git/", &c);
	CHECK_STR(c.v[1], "/m/git+cute");
	strvec_clear(&c);
	/* nothing to look up for a URL without a name */
	repo_mirror_candidates("/m", "https://example.com/..", &c);
	CHECK(c.n == 0 || !strstr(c.v[0], "/../"));
	strvec_clear(&c);

	/* gitlinks and core.worktree, as git writes them */
	relpath("/w/src/third_party/cutlite", "/w/src/.git/modules/third_party/cutlite",
		"../../.git/modules/third_party/cutlite");
	relpath("/w/src/.git/modules/third_party/cutlite", "/w/src/third_party/cutlite",
		"../../../../third_party/cutlite");
	relpath("/w/src/a/", "/w/src/.git/modules/a/", "../.git/modules/a");
	relpath("/w/ab", "/w/a/b", "../a/b");
	relpath("/w/a", "/w/a", ".");

	/*
	 * Progress into a log is bounded: 60 s of a fetch reporting every
	 * millisecond, the last 40 s of it at 100% (resolving deltas) -- the
	 * pattern that printed 1,175 identical lines -- gives at most 10.
	 */
	{
		struct repo_progress pr;
		unsigned lines = 0, lines_at_end = 0;

		repo_progress_start(&pr, 100.0);
		for (unsigned ms = 0; ms < 60000; ms++) {
			size_t done = ms < 20000 ? ms / 2 : 10000;
			int due = repo_progress_due(&pr, done, 10000, 100.0 + ms / 1000.0);

			lines += due;
			lines_at_end += due && done == 10000;
		}
		CHECK(lines >= 2 && lines <= 10);
		CHECK(lines_at_end <= 1);
		/* a quick operation prints none */
		repo_progress_start(&pr, 0);
		lines = 0;
		for (unsigned ms = 0; ms < 4000; ms++)
			lines += repo_progress_due(&pr, ms, 4000, ms / 1000.0);
		CHECK(lines == 0);
	}
	buf_release(&a);
	buf_release(&b);
}
