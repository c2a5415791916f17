#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/sources/patch.h"
#include "t.h"

/*
 * What a patch may name and carry before libgit2 sees it: the paths it
 * touches, and the first bad line with its reason. (Hostile cases: t_patch.)
 */

static int
bad_at(const char *text, const char *why_part)
{
	struct patch_target *t = NULL;
	size_t n = 0;
	struct buf why = BUF_INIT;
	int line = patch_check(text, strlen(text), &t, &n, &why);

	if (why_part && !strstr(why.s, why_part)) {
		fprintf(stderr, "t_patchcheck: line %d: '%s' lacks '%s'\n", line, why.s, why_part);
		line = -1;
	}
	patch_targets_free(t, n);
	buf_release(&why);
	return line;
}

void
t_patchcheck(void)
{
	static const char good[] = "From: someone\nSubject: two files\n\n"
				   "diff --git a/src/a.c b/src/a.c\n--- a/src/a.c\n+++ b/src/a.c\n"
				   "@@ -1 +1 @@\n-x\n+y\n"
				   "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n"
				   "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
				   "diff --git a/old.txt b/new.txt\nsimilarity index 100%\n"
				   "rename from old.txt\nrename to new.txt\n";
	struct strvec paths = STRVEC_INIT;
	struct patch_target *t = NULL;
	struct buf why = BUF_INIT, b = BUF_INIT;
	size_t n = 0;

	patch_paths(good, strlen(good), &paths);
	strvec_join(&paths, " ", &b);
	/* The files its ---/+++ lines change, a deleted one included. */
	CHECK(starts_with(b.s, "src/a.c gone.txt"));
	CHECK(patch_check(good, strlen(good), &t, &n, &why) == 0);
	CHECK(n >= 3 && !strcmp(t[0].path, "src/a.c") && t[0].line == 4);
	CHECK(n >= 3 && !strcmp(t[1].path, "gone.txt") && t[1].line == 10);
	/* A rename changes both names. */
	CHECK(n == 4 && !strcmp(t[2].path, "old.txt") && !strcmp(t[3].path, "new.txt") && t[3].line == 16);
	patch_targets_free(t, n);

	CHECK(bad_at("diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n", "..") == 1);
	CHECK(bad_at("diff --git a/.git/config b/.git/config\n--- a/.git/config\n+++ b/.git/config\n"
		     "@@ -1 +1 @@\n-a\n+b\n", ".git") == 1);
	CHECK(bad_at("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n", NULL) > 0);  /* short hunk */
	CHECK(bad_at("diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n"
		     "@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n", "link") > 0);
	strvec_clear(&paths);
	buf_release(&why);
	buf_release(&b);
}
