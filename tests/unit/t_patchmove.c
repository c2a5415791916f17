#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/sources/patch.h"
#include "t.h"

/*
 * A patch turned around (to undo it) and its hunks moved to where their
 * lines are now: the reverse of the reverse is the patch, created and
 * deleted files swap, a file's lines moved by an edit are still found.
 */

void
t_patchmove(void)
{
	static const char p[] = "diff --git a/f.txt b/f.txt\n"
				"index 1111111..2222222 100644\n"
				"--- a/f.txt\n"
				"+++ b/f.txt\n"
				"@@ -2,3 +2,4 @@ fn()\n"
				" keep\n"
				"-old\n"
				"+new\n"
				"+more\n"
				" tail\n"
				"diff --git a/new.txt b/new.txt\n"
				"new file mode 100644\n"
				"--- /dev/null\n"
				"+++ b/new.txt\n"
				"@@ -0,0 +1 @@\n"
				"+hello\n";
	const char *d = t_tmpdir("patchmove");
	struct buf r = BUF_INIT, rr = BUF_INIT, out = BUF_INIT, f = BUF_INIT;

	patch_reverse(p, strlen(p), &r);
	CHECK(strstr(r.s, "@@ -2,4 +2,3 @@ fn()\n keep\n+old\n-new\n-more\n tail\n") != NULL);
	CHECK(strstr(r.s, "deleted file mode 100644\n") != NULL);
	CHECK(strstr(r.s, "--- a/new.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-hello\n") != NULL);
	patch_reverse(r.s, r.len, &rr);
	CHECK(strstr(rr.s, "@@ -2,3 +2,4 @@ fn()\n keep\n-old\n+new\n+more\n tail\n") != NULL);
	CHECK(strstr(rr.s, "new file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n") != NULL);

	/* Three lines added at the top since: the hunk now starts at line 5. */
	buf_addf(&f, "%s/f.txt", d);
	CHECK(write_file_atomic(f.s, "x\ny\nz\nfirst\nkeep\nold\ntail\n", 27) == 0);
	patch_relocate(p, strlen(p), d, &out);
	CHECK(strstr(out.s, "@@ -5,3 +5,4 @@ fn()\n keep\n-old\n") != NULL);
	CHECK(strstr(out.s, "@@ -0,0 +1 @@\n+hello\n") != NULL);   /* a new file: nothing to find */
	/* The file gone: the patch as it was. */
	buf_reset(&out);
	remove(f.s);
	patch_relocate(p, strlen(p), d, &out);
	CHECK_STR(out.s, p);

	/*
	 * Judged by the text alone (a tree that is no checkout): the old lines
	 * moved are found, so the patch applies and its reverse does not; once
	 * applied, the other way round; a file it creates that is there, or a
	 * line changed, and neither.
	 */
	CHECK(write_file_atomic(f.s, "x\ny\nz\nfirst\nkeep\nold\ntail\n", 27) == 0);
	buf_reset(&out);
	CHECK(patch_lines_found(p, strlen(p), d, &out) == 1);
	CHECK(patch_lines_found(r.s, r.len, d, &out) == 0);
	CHECK_STR(out.s, "'f.txt' is not as the patch expects");
	CHECK(write_file_atomic(f.s, "x\nfirst\nkeep\nnew\nmore\ntail\n", 27) == 0);
	t_put(d, "new.txt", "hello\n", 0);
	CHECK(patch_lines_found(r.s, r.len, d, &out) == 1);
	buf_reset(&out);
	CHECK(patch_lines_found(p, strlen(p), d, &out) == 0);
	CHECK(write_file_atomic(f.s, "keep\nold\ntail\n", 14) == 0);
	buf_reset(&out);
	CHECK(patch_lines_found(p, strlen(p), d, &out) == 0);
	CHECK_STR(out.s, "'new.txt' is not as the patch expects");
	{
		static const char bin[] = "diff --git a/b b/b\nGIT binary patch\nliteral 1\n";

		CHECK(patch_lines_found(bin, strlen(bin), d, &out) == -1);
	}
	remove_tree(d);
	buf_release(&r);
	buf_release(&rr);
	buf_release(&out);
	buf_release(&f);
}
