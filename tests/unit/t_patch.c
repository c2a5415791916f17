#include <string.h>

#include "../../src/buf.h"
#include "../../src/patch.h"
#include "../../src/strvec.h"
#include "t.h"

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

	CHECK(patch_when_matches(">=2.9,<2.12", 211, &why) == 1);
	CHECK(patch_when_matches(">=2.9,<2.12", 212, &why) == 0);
	CHECK(patch_when_matches(">=2.9, <2.12", 209, &why) == 1);
	CHECK(patch_when_matches("==2.10.1", 210, &why) == 1);   /* a patch level is ignored */
	CHECK(patch_when_matches(">2.4", 204, &why) == 0);
	CHECK(patch_when_matches("!=2.5", 206, &why) == 1);
	CHECK(patch_when_matches("2.9", 209, &why) < 0);
	buf_reset(&why);
	CHECK(patch_when_matches("=>2.9", 209, &why) < 0 && strstr(why.s, "unknown comparison"));
	buf_release(&out);
	buf_release(&back);
	buf_release(&why);
	strvec_clear(&paths);
}
