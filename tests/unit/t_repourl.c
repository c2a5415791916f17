#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/sources/repourl.h"
#include "t.h"

/*
 * Where a repository's objects come from, without libgit2: the cache
 * directory, remote or local URLs, their fetch form, rewrites, mirror
 * directories on disk (case, bare repositories, trust). (Mirror paths,
 * keys and candidates: t_git.)
 */

static char *
saved(const char *name)
{
	return getenv(name) ? xstrdup(getenv(name)) : NULL;
}

static void
restore(const char *name, char *v)
{
	if (v)
		setenv(name, v, 1);
	else
		unsetenv(name);
	free(v);
}

static const char *
str(void (*fn)(const char *, struct buf *), const char *arg)
{
	static struct buf b = BUF_INIT;

	buf_reset(&b);
	fn(arg, &b);
	return b.s;
}

static void
t_urls(void)
{
	struct strvec rules = STRVEC_INIT;
	struct buf b = BUF_INIT;

	CHECK(repo_is_remote_url("https://github.com/pytorch/pytorch"));
	CHECK(repo_is_remote_url("git@github.com:pytorch/pytorch.git"));
	CHECK(repo_is_remote_url("ssh://git@host/x"));
	CHECK(!repo_is_remote_url("/srv/git/pytorch.git"));
	CHECK(!repo_is_remote_url("file:///srv/git/pytorch.git"));
	CHECK(!repo_is_remote_url("../build/example/minitorch.git"));
	CHECK(!repo_is_remote_url("dir/with:colon"));       /* a slash before the colon: a path */
	CHECK(repo_is_relative_url("../cutlass.git") && repo_is_relative_url("./x"));
	CHECK(!repo_is_relative_url("..x") && !repo_is_relative_url("/abs"));

	CHECK_STR(str(repo_fetch_url, "/srv/git/../git/pytorch.git/"), "file:///srv/git/pytorch.git");
	CHECK_STR(str(repo_fetch_url, "https://github.com/pytorch/pytorch"),
		  "https://github.com/pytorch/pytorch");
	CHECK_STR(str(repo_url_key, "https://github.com/pytorch/pytorch.git/"),
		  "https://github.com/pytorch/pytorch");

	/* insteadOf: the longest matching prefix wins; none matches: as it is. */
	strvec_pushl(&rules, "https://mirror.example/gh/", "https://github.com/",
		     "/local/pytorch", "https://github.com/pytorch/pytorch", NULL);
	repo_url_rewrite(&rules, "https://github.com/pytorch/pytorch.git", &b);
	CHECK_STR(b.s, "/local/pytorch.git");
	buf_reset(&b);
	repo_url_rewrite(&rules, "https://github.com/NVIDIA/cutlass.git", &b);
	CHECK_STR(b.s, "https://mirror.example/gh/NVIDIA/cutlass.git");
	buf_reset(&b);
	repo_url_rewrite(&rules, "https://gitlab.com/x/y", &b);
	CHECK_STR(b.s, "https://gitlab.com/x/y");

	/* .gitmodules URLs against an scp-like superproject. */
	buf_reset(&b);
	repo_url_join("git@github.com:pytorch/pytorch", "../cpuinfo.git", &b);
	CHECK_STR(b.s, "git@github.com:pytorch/cpuinfo.git");
	buf_reset(&b);
	repo_url_join("git@github.com:pytorch", "../x.git", &b);
	CHECK_STR(b.s, "git@github.com:x.git");
	strvec_clear(&rules);
	buf_release(&b);
}

static void
t_dirs(void)
{
	char *cache = saved("BWBUILD_CACHE_DIR"), *xdg = saved("XDG_CACHE_HOME"), *home = saved("HOME");
	char *mirrors = saved("BWBUILD_MIRRORS");
	char *top = path_absolute(t_tmpdir("repourl"));
	struct buf b = BUF_INIT, p = BUF_INIT;
	struct strvec dirs = STRVEC_INIT;
	const char *e;

	setenv("BWBUILD_CACHE_DIR", "/c/bw", 1);
	repo_cache_dir(&b);
	CHECK_STR(b.s, "/c/bw");
	unsetenv("BWBUILD_CACHE_DIR");
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	buf_reset(&b);
	repo_cache_dir(&b);
	CHECK_STR(b.s, "/x/cache/bwbuild");
	setenv("XDG_CACHE_HOME", "relative", 1);          /* not absolute: ignored, as the spec says */
	setenv("HOME", "/home/u", 1);
	buf_reset(&b);
	repo_cache_dir(&b);
	CHECK_STR(b.s, "/home/u/.cache/bwbuild");

	setenv("BWBUILD_MIRRORS", "/m/one::/m/two:", 1);
	repo_mirror_dirs_env(&dirs);
	CHECK(dirs.n == 2 && !strcmp(dirs.v[0], "/m/one") && !strcmp(dirs.v[1], "/m/two"));
	strvec_clear(&dirs);

	/* A mirror directory on disk: pytorch+FBGEMM found as pytorch+fbgemm asks. */
	buf_addf(&p, "%s/mirrors/pytorch+FBGEMM/objects", top);
	CHECK(mkdir_p(p.s) == 0);
	buf_reset(&p);
	buf_addf(&p, "%s/mirrors/pytorch+FBGEMM/HEAD", top);
	CHECK(write_file_atomic(p.s, "ref: refs/heads/main\n", 21) == 0);
	buf_reset(&p);
	buf_addf(&p, "%s/mirrors/pytorch+fbgemm", top);
	buf_reset(&b);
	CHECK(repo_resolve_nocase(p.s, &b) == 0);
	CHECK(ends_with(b.s, "/mirrors/pytorch+FBGEMM"));
	CHECK(repo_looks_bare(b.s));
	CHECK(!repo_world_writable(b.s));
	buf_addstr(&b, "/objects");
	CHECK(chmod(b.s, 0777) == 0);
	buf_setlen(&b, b.len - strlen("/objects"));
	CHECK(repo_world_writable(b.s));
	buf_reset(&p);
	buf_addf(&p, "%s/mirrors/pytorch+nothing", top);
	buf_reset(&b);
	CHECK(repo_resolve_nocase(p.s, &b) == -1);
	buf_reset(&p);
	buf_addf(&p, "%s/mirrors", top);
	CHECK(!repo_looks_bare(p.s));

	/* Trust: this user's, not writable by others; absent is fine. */
	CHECK(chmod(p.s, 0755) == 0 && repo_trust_level(p.s, "the mirror directory", 1) == 0);
	CHECK(chmod(p.s, 0775) == 0 && repo_trust_level(p.s, "the mirror directory", 0) == 0);
	t_stderr_begin();
	CHECK(repo_trust_level(p.s, "the mirror directory", 1) == -1);
	CHECK(chmod(p.s, 0757) == 0 && repo_trust_level(p.s, "the cache", 0) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "error: the mirror directory '") && strstr(e, "' is writable by others; 'chmod go-w' it"));
	CHECK(strstr(e, "error: the cache '") != NULL);
	buf_addstr(&p, "/absent");
	CHECK(repo_trust_level(p.s, "the cache", 1) == 0);

	restore("BWBUILD_CACHE_DIR", cache);
	restore("XDG_CACHE_HOME", xdg);
	restore("HOME", home);
	restore("BWBUILD_MIRRORS", mirrors);
	remove_tree(top);
	free(top);
	buf_release(&b);
	buf_release(&p);
}

void
t_repourl(void)
{
	t_urls();
	t_dirs();
}
