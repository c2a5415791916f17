#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/sources/git.h"
#include "../../src/sources/patch.h"
#include "../../src/sources/repowork.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/* A tree whose release is not known. */
static const struct relver unknown = { 0, 0, 0, 0 };

/* check(TEXT, LINE, WHY): patch_check finds its first problem at LINE (0: none), its reason containing WHY. */
static int
check_at(const char *text, int line, const char *why_part)
{
	struct buf why = BUF_INIT;
	struct patch_target *t = NULL;
	size_t n = 0;
	int got = patch_check(text, strlen(text), &t, &n, &why);
	int ok = got == line && (!why_part || strstr(why.s, why_part));

	if (!ok)
		fprintf(stderr, "patch_check: line %d (want %d): %s\n", got, line, why.s);
	patch_targets_free(t, n);
	buf_release(&why);
	return ok;
}

/* Issue 27 H1/H6: what a patch may name and carry, before libgit2 sees it. */
static void
t_patch_check(void)
{
	/* git diff --binary of a 5-byte file becoming 7 bytes: both blocks, zlib inflating to 7 and 5 */
	static const char bin_ok[] = "diff --git a/blob.bin b/blob.bin\n"
				     "index 9583496..fe647ca 100644\n"
				     "GIT binary patch\n"
				     "literal 7\n"
				     "OcmYdfaAHViNC5x^g#l{-\n"
				     "\n"
				     "literal 5\n"
				     "McmYdfNMc9^00VOYCjbBd\n"
				     "\n";
	static const char plain[] = "From x\nSubject: y\n\n"
				    "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n"
				    "@@ -1 +1 @@\n-x\n+y\n"
				    "diff --git a/d/b.txt b/d/b.txt\nnew file mode 100644\n"
				    "--- /dev/null\n+++ b/d/b.txt\n@@ -0,0 +1,2 @@\n+--- a/../hidden\n+\\n\n";
	struct buf rev = BUF_INIT, back = BUF_INIT, why = BUF_INIT;
	struct patch_target *t = NULL;
	size_t n = 0;

	/* a plain patch: its paths, each section's line */
	CHECK(patch_check(plain, strlen(plain), &t, &n, &why) == 0);
	CHECK(n == 2 && !strcmp(t[0].path, "a.txt") && t[0].line == 4 && !strcmp(t[1].path, "d/b.txt") &&
	      t[1].line == 10);
	patch_targets_free(t, n);
	/* a hunk's "+--- a/../x" is content, counted as libgit2 counts it */
	CHECK(check_at("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n--- a/../y\n+++ b/../y\n \n",
		       0, NULL));
	/* paths that leave the tree or enter .git */
	CHECK(check_at("diff --git a/x b/x\n--- a/x\n+++ b/../x\n@@ -0,0 +1 @@\n+x\n", 3,
		       "'../x' is not a plain path inside the tree"));
	CHECK(check_at("diff --git a/x b/x\n--- a/x\n+++ b//etc/passwd\n", 3, "absolute path"));
	CHECK(check_at("diff --git a/.GIT/config b/.GIT/config\n", 1, "inside .git"));
	CHECK(check_at("diff --git a/x b/x\nrename from x\nrename to a/../../y\n", 3, "not a plain path"));
	CHECK(check_at("diff --git \"a/\\056\\056/x\" \"b/\\056\\056/x\"\n", 1, "quoted path"));
	CHECK(check_at("diff --git a/x b/x\n--- a/x\n+++ c/x\n", 3, "not b/PATH or /dev/null"));
	/* symlinks: to outside named so, any other refused (libgit2 reads through them) */
	CHECK(check_at("diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n"
		       "+/etc\n\\ No newline at end of file\n", 6, "'l' would be a symlink to '/etc', outside"));
	CHECK(check_at("diff --git a/d/l b/d/l\nnew file mode 120000\n--- /dev/null\n+++ b/d/l\n@@ -0,0 +1 @@\n"
		       "+x/../../..\n", 6, "outside the source tree"));
	CHECK(check_at("diff --git a/d/l b/d/l\nnew file mode 120000\n--- /dev/null\n+++ b/d/l\n@@ -0,0 +1 @@\n"
		       "+../e\n", 1, "'d/l' is a symlink (mode 120000)"));
	CHECK(check_at("diff --git a/l b/l\ndeleted file mode 120000\n--- a/l\n+++ /dev/null\n@@ -1 +0,0 @@\n"
		       "-x\n", 1, "is a symlink"));
	CHECK(check_at("diff --git a/l b/l\nold mode 100644\nnew mode 120000\n", 1, "is a symlink"));
	/* hunks that do not add up */
	CHECK(check_at("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n x\n", 5, "ends inside a hunk"));
	CHECK(check_at("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n x\ndiff --git a/y b/y\n", 6,
		       "fewer lines"));

	/* binary hunks: the (zlib stream stops short, inflates past its size), and others */
	CHECK(check_at(bin_ok, 0, NULL));
	CHECK(check_at("diff --git a/b b/b\nindex 1..2 100644\nGIT binary patch\nliteral 5\n"
		       "McmZ?wbYf&+00320ssI20\n\nliteral 0\nHcmV?d00001\n\n", 4,
		       "inflates to more than the 5 bytes"));
	CHECK(check_at("diff --git a/b b/b\nGIT binary patch\nliteral 9\nMcmYdfNMc9^00VOYCjbBd\n\n"
		       "literal 0\nHcmV?d00001\n\n", 3, "inflates to 5 bytes, not the 9"));
	CHECK(check_at("diff --git a/b b/b\nGIT binary patch\nliteral 5\nJc$`aQaAHUX00RI3\n\n"
		       "literal 0\nHcmV?d00001\n\n", 3, "not a complete zlib stream"));
	CHECK(check_at("diff --git a/b b/b\nGIT binary patch\nliteral 5\nMcmYdfNMc9^00VOYCjb\n\n", 4,
		       "has 18 characters, not 20"));
	CHECK(check_at("diff --git a/b b/b\nGIT binary patch\nliteral 5\nMcmYdfNMc9^00VOYCjb\"d\n\n", 4,
		       "'\"' is not a base85 character"));
	CHECK(check_at("diff --git a/b b/b\nGIT binary patch\nliteral 5\nM~~~~~00VOYCjbBd00000\n\n", 4,
		       "overflows 32 bits"));
	CHECK(check_at("diff --git a/b b/b\nGIT binary patch\nliteral 5\nMcmYdfNMc9^00VOYCjbBd\n\n", 5,
		       "needs its reverse block"));
	CHECK(check_at("diff --git a/b b/b\nGIT binary patch\nliteral 99999999999999999999\n", 3,
		       "is not 'literal N'"));
	CHECK(check_at("diff --git a/b b/b\nGIT binary patch\nfoo 5\n", 3, "must be followed by"));
	CHECK(check_at("diff --git a/b b/b\nGIT binary patch\nliteral 67108865\n", 3,
		       "a binary block of 67108865 bytes; bwbuild takes binary patches of up to 64 MiB"));

	/* a binary patch reversed: the blocks change places; twice gives it back */
	patch_reverse(bin_ok, strlen(bin_ok), &rev);
	CHECK(strstr(rev.s, "GIT binary patch\nliteral 5\nMcmYdfNMc9^00VOYCjbBd\n\nliteral 7\n") != NULL);
	CHECK(check_at(rev.s, 0, NULL));
	patch_reverse(rev.s, rev.len, &back);
	CHECK_STR(back.s, bin_ok);
	buf_release(&rev);
	buf_release(&back);
	buf_release(&why);
}

/* The tree check: nothing written or read through a symlink the tree has. */
static void
t_patch_tree(void)
{
	struct patch pt;
	struct patch_target tg[2] = { { (char *)"lnk/x", 3 }, { (char *)"d/f", 9 } };
	struct buf why = BUF_INIT;
	const char *d = t_path("ptree");

	remove_tree(d);
	CHECK(mkdir_p(t_path("ptree/d")) == 0);
	CHECK(symlink("/tmp", t_path("ptree/lnk")) == 0);
	CHECK(symlink("/etc/hostname", t_path("ptree/d/f")) == 0);
	memset(&pt, 0, sizeof(pt));
	pt.targets = tg;
	pt.ntargets = 2;
	CHECK(patch_check_tree(&pt, d, &why) == 3 && strstr(why.s, "'lnk/x' goes through 'lnk', a "
							     "symlink in the tree (to '/tmp')"));
	buf_reset(&why);
	pt.targets = tg + 1;
	pt.ntargets = 1;
	CHECK(patch_check_tree(&pt, d, &why) == 9 && strstr(why.s, "'d/f' is a symlink in the tree"));
	buf_reset(&why);
	tg[1].path = (char *)"d/new/file";
	CHECK(patch_check_tree(&pt, d, &why) == 0);   /* not there yet: git makes it */
	buf_release(&why);
}

/* Hunks move to the nearest place their old lines are (on a tie the earlier), or stay. */
static void
t_patch_relocate(void)
{
	static const char p[] = "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n"
				"@@ -3,2 +3,2 @@ ctx\n b\n-c\n+C\n"
				"@@ -9,1 +9,1 @@\n-d\n+D\n"
				"@@ -1,1 +1,1 @@\n-nowhere\n+x\n"
				"@@ -99999999999999999999,1 +1 @@\n-d\n+D\n";
	struct buf out = BUF_INIT;

	CHECK(mkdir_p(t_path("rel")) == 0);
	t_write("rel/f.txt", "a\nb\nc\nb\nc\nd\n");
	patch_relocate(p, strlen(p), t_path("rel"), &out);
	CHECK(strstr(out.s, "@@ -2,2 +2,2 @@ ctx\n b\n-c\n") != NULL);  /* lines 2 and 4 tie: 2 */
	CHECK(strstr(out.s, "@@ -6,1 +6,1 @@\n-d\n") != NULL);
	CHECK(strstr(out.s, "@@ -1,1 +1,1 @@\n-nowhere\n") != NULL);  /* nowhere: left as it was */
	CHECK(strstr(out.s, "@@ -99999999999999999999,1 +1 @@\n") != NULL);
	buf_release(&out);
}

/*
 * patch.c: the shipped miniext series applied to a git copy of its fixture,
 * found applied the next time, undone before a checkout; a patch that does
 * not apply leaves the tree as it was.
 */
/* As the fetch step says them (src/pipeline/fetch.c). */
static void
say_line(void *ctx, const char *text)
{
	(void)ctx;
	fprintf(stderr, "fetch: %s\n", text);
}

static const struct src_progress say = { say_line, NULL, "fetch" };

static void
t_patch_apply(void)
{
	char *dir = path_absolute(t_tmpdir("patch-apply"));
	struct buf cmd = BUF_INIT, src = BUF_INIT, rec = BUF_INIT, setup = BUF_INIT, before = BUF_INIT;
	struct buf head = BUF_INIT;
	struct patch_set ps;
	struct json *out = json_array();
	const char *e;

	buf_addf(&src, "%s/src", dir);
	buf_addf(&rec, "%s/patches.applied", dir);
	buf_addf(&setup, "%s/setup.py", src.s);
	buf_addf(&cmd, "cp -r tests/fixtures/miniext %s && cd %s && git init -q && git add -A && "
		       "git -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false "
		       "commit -qm tree", src.s, src.s);
	CHECK(system(cmd.s) == 0);
	CHECK(read_file(&before, setup.s) == 0);
	CHECK(repo_head_commit(src.s, &head) == 0);
	CHECK(patch_set_load(&ps, "miniext") == 0);
	CHECK(ps.n >= 1);

	t_stderr_begin();
	CHECK(patches_apply(&ps, &unknown, src.s, rec.s, out, &say) == 0);
	e = t_stderr_end();
	CHECK(strstr(e, "fetch: patch 0001-honour-torch-cuda-arch-list.patch: applied\n") != NULL);
	CHECK_STR(json_str(json_get(json_at(out, 0), "status")), "applied");
	{
		struct buf now = BUF_INIT, r = BUF_INIT;

		CHECK(read_file(&now, setup.s) == 0 && strcmp(now.s, before.s));
		CHECK(read_file(&r, rec.s) == 0);
		CHECK(strstr(r.s, " 0001-honour-torch-cuda-arch-list.patch\n") != NULL);
		buf_release(&now);
		buf_release(&r);
	}
	/* Again: already applied, nothing changes. */
	json_free(out);
	out = json_array();
	t_stderr_begin();
	CHECK(patches_apply(&ps, &unknown, src.s, rec.s, out, &say) == 0);
	t_stderr_end();
	CHECK_STR(json_str(json_get(json_at(out, 0), "status")), "already applied");

	/* Before a checkout of the same commit with the same series: kept (1). */
	t_stderr_begin();
	CHECK(patches_before_checkout(&ps, &unknown, src.s, rec.s, head.s, 0, &say) == 1);
	/* For another commit: undone, the tree as committed. */
	CHECK(patches_before_checkout(&ps, &unknown, src.s, rec.s, "0000000000000000000000000000000000000000", 0, &say) == 0);
	e = t_stderr_end();
	CHECK(strstr(e, "fetch: patch 0001-honour-torch-cuda-arch-list.patch: undone\n") != NULL);
	{
		struct buf now = BUF_INIT;

		CHECK(read_file(&now, setup.s) == 0);
		CHECK_STR(now.s, before.s);
		buf_release(&now);
	}

	/* A tree the patch does not fit: refused, the tree left as it was. */
	remove(setup.s);
	CHECK(write_file_atomic(setup.s, "# another setup.py\n", 19) == 0);
	json_free(out);
	out = json_array();
	t_stderr_begin();
	CHECK(patches_apply(&ps, &unknown, src.s, rec.s, out, &say) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "does not apply to this tree") != NULL);
	{
		struct buf now = BUF_INIT;

		CHECK(read_file(&now, setup.s) == 0);
		CHECK_STR(now.s, "# another setup.py\n");
		buf_release(&now);
	}
	json_free(out);
	patch_set_release(&ps);
	remove_tree(dir);
	free(dir);
	buf_release(&cmd);
	buf_release(&src);
	buf_release(&rec);
	buf_release(&setup);
	buf_release(&before);
	buf_release(&head);
}

/* `spec` against release `v` ("unknown": the zero version of a tree with none). */
static int
when(const char *spec, const char *v, struct buf *why)
{
	struct relver r;

	relver_parse(v, &r, NULL);
	return patch_when_matches(spec, &r, why);
}

void
t_patch(void)
{
	static const char p[] = "diff --git a/x.txt b/x.txt\n"
				"index 1111111..2222222 100644\n"
				"--- a/x.txt\n"
				"+++ b/x.txt\n"
				"@@ -2,3 +2,4 @@ fn()\n"
				" keep\n"
				"-old\n"
				"+new\n"
				"+more\n"
				" tail\n"
				"diff --git a/gone.txt b/gone.txt\n"
				"deleted file mode 100644\n"
				"--- a/gone.txt\n"
				"+++ /dev/null\n"
				"@@ -1 +0,0 @@\n"
				"-bye\n";
	static const char r[] = "diff --git a/x.txt b/x.txt\n"
				"index 2222222..1111111 100644\n"
				"--- a/x.txt\n"
				"+++ b/x.txt\n"
				"@@ -2,4 +2,3 @@ fn()\n"
				" keep\n"
				"+old\n"
				"-new\n"
				"-more\n"
				" tail\n"
				"diff --git a/gone.txt b/gone.txt\n"
				"new file mode 100644\n"
				"--- /dev/null\n"
				"+++ b/gone.txt\n"
				"@@ -0,0 +1 @@\n"
				"+bye\n";
	struct buf out = BUF_INIT, back = BUF_INIT, why = BUF_INIT;
	struct strvec paths = STRVEC_INIT;

	patch_reverse(p, strlen(p), &out);
	CHECK(!strcmp(out.s, r));
	patch_reverse(out.s, out.len, &back);
	CHECK(!strcmp(back.s, p));   /* reversing twice gives the patch back */
	patch_paths(p, strlen(p), &paths);
	CHECK(paths.n == 2 && !strcmp(paths.v[0], "x.txt") && !strcmp(paths.v[1], "gone.txt"));

	CHECK(when(">=2.9,<2.12", "2.11.0", &why) == 1);
	CHECK(when(">=2.9,<2.12", "2.12.0", &why) == 0);
	CHECK(when(">=2.9, <2.12", "2.9.1", &why) == 1);
	CHECK(when(">= 2.9", "2.9.0", &why) == 1);
	CHECK(when(">2.4", "2.4.1", &why) == 0);   /* a bound without a patch level: all of 2.4 */
	CHECK(when("<=2.6", "2.6.3", &why) == 1);
	CHECK(when("!=2.5", "2.6.0", &why) == 1);
	/* A patch level in a bound counts (it was dropped: >=2.6.1 took 2.6.0). */
	CHECK(when(">=2.6.1", "2.6.0", &why) == 0);
	CHECK(when(">=2.6.1", "2.6.1", &why) == 1 && when(">=2.6.1", "2.6.2", &why) == 1);
	CHECK(when("==2.10.1", "2.10.0", &why) == 0 && when("==2.10.1", "2.10.1", &why) == 1);
	CHECK(when("<2.6.2", "2.6.0a0+gitabc", &why) == 1);
	/* An unknown release: only what no lower bound excludes. */
	CHECK(when(">=2.0,<2.12", "unknown", &why) == 0 && when("<2.12", "unknown", &why) == 1);
	CHECK(when("2.9", "2.9.0", &why) < 0);
	CHECK(when(">=v2.9", "2.9.0", &why) < 0);
	buf_reset(&why);
	CHECK(when("=>2.9", "2.9.0", &why) < 0 && strstr(why.s, "unknown comparison"));
	buf_release(&out);
	buf_release(&back);
	buf_release(&why);
	strvec_clear(&paths);
	t_patch_check();
	t_patch_tree();
	t_patch_relocate();
	t_patch_apply();
}
