#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/sources/git.h"
#include "../../src/sources/repourl.h"
#include "t.h"

/*
 * The bare mirror behind every checkout: made from a local upstream in the
 * cache, fetched again only when it lacks the ref (or on refresh), refs
 * resolved from it without fetching; a mirror directory used read only.
 */

static struct buf dir = BUF_INIT;

static int
checkout(const char *url, const char *ref, int refresh, const struct strvec *mirrors, const char **err)
{
	struct repo_checkout_opts o = { 0 };

	o.url = url;
	o.ref = ref;
	o.refresh = refresh;
	o.mirror_dirs = mirrors;
	return t_repo_checkout(dir.s, NULL, &o, NULL, err);
}

void
t_git_mirror(void)
{
	struct buf up = BUF_INIT, cache = BUF_INIT, mirror = BUF_INIT, id = BUF_INIT, id2 = BUF_INIT;
	struct strvec dirs = STRVEC_INIT;
	const char *e;
	char *abs = path_absolute(t_tmpdir("git-mirror"));

	buf_addstr(&dir, abs);
	free(abs);
	buf_addf(&up, "%s/up", dir.s);
	buf_addf(&cache, "%s/cache", dir.s);
	CHECK(t_git_sh(dir.s, "git init -q up && cd up && echo one > a.txt && git add -A && "
		              "git -c commit.gpgsign=false commit -qm one && git tag v1") == 0);

	/* Not fetched yet: nothing to resolve. */
	CHECK(repo_resolve_source(cache.s, NULL, up.s, "v1", &id) == -1);
	CHECK(checkout(up.s, "v1", 0, NULL, &e) == 0);
	{
		struct buf f = BUF_INIT;

		/* keyed by the URL it is fetched from: a local path as file:// */
		repo_fetch_url(up.s, &f);
		repo_mirror_path(cache.s, f.s, &mirror);
		buf_release(&f);
	}
	CHECK(is_dir(mirror.s) && repo_looks_bare(mirror.s));
	buf_reset(&id);
	CHECK(repo_resolve_source(cache.s, NULL, up.s, "v1", &id) == 0 && id.len == 40);

	/* A new tag upstream: the mirror lacks it, so it is fetched. */
	CHECK(t_git_sh(dir.s, "cd up && echo two > a.txt && git -c commit.gpgsign=false commit -qam two && git tag v2") == 0);
	CHECK(repo_resolve_source(cache.s, NULL, up.s, "v2", &id2) == -1);
	CHECK(checkout(up.s, "v2", 0, NULL, &e) == 0);
	buf_reset(&id2);
	CHECK(repo_resolve_source(cache.s, NULL, up.s, "v2", &id2) == 0 && strcmp(id.s, id2.s));

	/* A branch that moves upstream: the mirror has one, so only a refresh fetches. */
	CHECK(t_git_sh(dir.s, "git -C up checkout -q -b dev && echo three > up/a.txt && "
		              "git -C up -c commit.gpgsign=false commit -qam three") == 0);
	CHECK(checkout(up.s, "dev", 0, NULL, &e) == 0);
	buf_reset(&id);
	CHECK(repo_resolve_source(cache.s, NULL, up.s, "dev", &id) == 0);
	CHECK(t_git_sh(dir.s, "echo four > up/a.txt && git -C up -c commit.gpgsign=false commit -qam four") == 0);
	CHECK(checkout(up.s, "dev", 0, NULL, &e) == 0);
	buf_reset(&id2);
	CHECK(repo_resolve_source(cache.s, NULL, up.s, "dev", &id2) == 0 && !strcmp(id.s, id2.s));
	CHECK(checkout(up.s, "dev", 1, NULL, &e) == 0);
	buf_reset(&id2);
	CHECK(repo_resolve_source(cache.s, NULL, up.s, "dev", &id2) == 0 && strcmp(id.s, id2.s));

	/* A mirror directory holding the repository under its name is used as it is. */
	CHECK(t_git_sh(dir.s, "mkdir -p mirrors && git clone -q --bare up mirrors/up.git") == 0);
	buf_reset(&mirror);
	buf_addf(&mirror, "%s/mirrors", dir.s);
	strvec_push(&dirs, mirror.s);
	buf_reset(&id);
	CHECK(repo_resolve_source(cache.s, &dirs, "https://example.invalid/someone/up.git", "v1", &id) == 0);
	CHECK(checkout("https://example.invalid/someone/up.git", "v1", 0, &dirs, &e) == 0);
	/* No such repository anywhere and no network: an error, nothing else. */
	CHECK(checkout("/nonexistent/upstream.git", "v1", 0, NULL, &e) == -1);
	CHECK(strstr(e, "error: ") != NULL);

	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&up);
	buf_release(&cache);
	buf_release(&mirror);
	buf_release(&id);
	buf_release(&id2);
	strvec_clear(&dirs);
}
