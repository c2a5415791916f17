#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/hash.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/sources/patch.h"
#include "t.h"

/*
 * A patch series from its index.yaml on $BWBUILD_PATCH_PATH: each entry's
 * file, sha256 and `when`, the package's env switches, and every way an
 * index can be wrong, reported at its line.
 */

static struct buf dir = BUF_INIT;

static const char patch_text[] = "diff --git a/x.txt b/x.txt\n"
				 "--- a/x.txt\n"
				 "+++ b/x.txt\n"
				 "@@ -1 +1 @@\n"
				 "-old\n"
				 "+new\n";

/* An index for project `name` with `entries` (YAML under patches:), loaded; its report in *err. */
static int
load(const char *name, const char *index, struct patch_set *ps, const char **err)
{
	struct buf rel = BUF_INIT;
	int rc;

	buf_addf(&rel, "%s/index.yaml", name);
	t_put(dir.s, rel.s, index, 0);
	t_stderr_begin();
	rc = patch_set_load(ps, name);
	*err = t_stderr_end();
	buf_release(&rel);
	return rc;
}

void
t_patchset(void)
{
	char *old = t_env_save("BWBUILD_PATCH_PATH");
	struct buf sha = BUF_INIT, idx = BUF_INIT;
	struct patch_set ps;
	const char *e;

	buf_addstr(&dir, t_tmpdir("patchset"));
	setenv("BWBUILD_PATCH_PATH", dir.s, 1);
	sha256_hex(&sha, patch_text, strlen(patch_text));
	t_put(dir.s, "good/0001-x.patch", patch_text, 0);
	t_put(dir.s, "good/0002-y.patch", patch_text, 0);
	buf_addf(&idx, "env:\n  GOOD_FORCE_BUILD: \"TRUE\"\npatches:\n"
		       "  - file: 0001-x.patch\n    sha256: %s\n    description: always\n"
		       "  - file: 0002-y.patch\n    sha256: %s\n    when: \">=2.9,<2.12\"\n", sha.s, sha.s);
	CHECK(load("good", idx.s, &ps, &e) == 0);
	CHECK_STR(e, "");
	CHECK(ps.n == 2);
	CHECK_STR(ps.project, "good");
	CHECK(ps.env.n == 1 && !strcmp(ps.env.v[0], "GOOD_FORCE_BUILD=TRUE"));
	if (ps.n == 2) {
		CHECK_STR(ps.v[0].description, "always");
		struct relver v26 = { 2, 6, 0, 1 }, v211 = { 2, 11, 1, 1 };

		CHECK(ps.v[0].when == NULL && patch_selected(&ps.v[0], &v26));
		CHECK(patch_selected(&ps.v[1], &v211) && !patch_selected(&ps.v[1], &v26));
		CHECK(ps.v[0].touches.n == 1 && !strcmp(ps.v[0].touches.v[0], "x.txt"));
		CHECK(ps.v[0].loc.line == 4);
	}
	patch_set_release(&ps);

	/* A wrong hash, a missing file, a bad range, a path in 'file', bad env names. */
	buf_reset(&idx);
	buf_addf(&idx, "env:\n  lower: x\npatches:\n"
		       "  - file: 0001-x.patch\n    sha256: %064d\n"
		       "  - file: missing.patch\n    sha256: %s\n"
		       "  - file: 0001-x.patch\n    sha256: %s\n    when: \"~2.9\"\n"
		       "  - file: ../0001-x.patch\n    sha256: %s\n", 0, sha.s, sha.s, sha.s);
	t_put(dir.s, "bad/0001-x.patch", patch_text, 0);
	CHECK(load("bad", idx.s, &ps, &e) == -1);
	CHECK(strstr(e, "index.yaml:2:3: error: env entries are NAME: value with NAME in capitals") != NULL);
	CHECK(strstr(e, "'0001-x.patch' has sha256 ") && strstr(e, "not the 0000"));
	CHECK(strstr(e, "cannot read patch '") && strstr(e, "/bad/missing.patch'"));
	CHECK(strstr(e, "'~2.9'") != NULL);
	CHECK(strstr(e, "each patch needs 'file' (a name in ") != NULL);
	patch_set_release(&ps);

	CHECK(load("notalist", "patches: nope\n", &ps, &e) == -1);
	CHECK(strstr(e, "'patches' must be a list of {file, sha256, when, description}") != NULL);
	patch_set_release(&ps);
	t_stderr_begin();
	CHECK(patch_set_load(&ps, "no-such-series") == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "error: no patch series 'no-such-series'") != NULL);
	patch_set_release(&ps);

	t_env_restore("BWBUILD_PATCH_PATH", old);
	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&sha);
	buf_release(&idx);
}
