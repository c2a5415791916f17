#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "../../src/profile/profile.h"
#include "t.h"

/*
 * Finding and loading a profile: by name or path, an `extends:` chain with
 * a parent beside its child, --set on top, relative repository paths made
 * absolute from the file that set them, and what cannot be loaded.
 */

static struct buf dir = BUF_INIT;

void
t_profload(void)
{
	char *abs = path_absolute(t_tmpdir("profload"));
	char *old = t_env_save("BWBUILD_PROFILE_PATH");
	struct strvec sets = STRVEC_INIT;
	struct profile p;
	struct buf path = BUF_INIT, b = BUF_INIT;
	char *found = NULL;
	const char *e;

	buf_addstr(&dir, abs);
	free(abs);
	t_put(dir.s, "family/base.yaml", "source: {repo: ../mirrors/torch.git, ref: v2.6.0}\n"
				         "cuda: {archs: [\"9.0\", \"12.0+PTX\"]}\nfeatures: {cuda: on, nccl: on}\n"
				         "build: {jobs: 8}\n", 0);
	t_put(dir.s, "family/child.yaml", "extends: base\nname: child\nfeatures: {nccl: off}\n", 0);
	t_put(dir.s, "loop-a.yaml", "extends: loop-b.yaml\nname: a\n", 0);
	t_put(dir.s, "loop-b.yaml", "extends: loop-a.yaml\nname: b\n", 0);

	/* A name on $BWBUILD_PROFILE_PATH; a path as it is; none. */
	buf_addf(&path, "%s/family", dir.s);
	setenv("BWBUILD_PROFILE_PATH", path.s, 1);
	CHECK(profile_find(&found, "child") == 0);
	CHECK(found && ends_with(found, "/family/child.yaml"));
	free(found);
	found = NULL;
	CHECK(profile_find(&found, t_path("profload/loop-a.yaml")) == 0);
	CHECK_STR(found, t_path("profload/loop-a.yaml"));
	free(found);
	found = NULL;
	t_stderr_begin();
	CHECK(profile_find(&found, "no-such-profile-here") == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "error: no profile named 'no-such-profile-here'") != NULL);

	/* The chain: the parent found beside the child, the child's values on top, then --set. */
	strvec_push(&sets, "build.jobs=3");
	strvec_push(&sets, "features.cuda=off");
	memset(&p, 0, sizeof(p));
	CHECK(profile_load_set(&p, "child", &sets) == 0);
	CHECK_STR(p.name.str, "child");
	CHECK_STR(p.source_ref.str, "v2.6.0");
	CHECK(p.jobs == 3);
	CHECK(p.features[FEAT_NCCL] == TRI_OFF && p.features[FEAT_CUDA] == TRI_OFF);
	/*
	 * The repository path relative to base.yaml, where it was written; not
	 * there, it is normalized as realpath would have it (a bundle's build
	 * names the repository it was made from).
	 */
	buf_reset(&b);
	buf_addf(&b, "%s/mirrors/torch.git", dir.s);
	CHECK_STR(p.source_repo.str, b.s);
	buf_reset(&b);
	profile_arch_list(&p, &b);
	CHECK_STR(b.s, "9.0;12.0+PTX");
	profile_release(&p);

	/*
	 * A variant that names nothing itself is named after its file, not
	 * after the profile it extends (whose work/ and out/ it would share);
	 * a name of its own or from --set wins.
	 */
	t_put(dir.s, "family/child-b.yaml", "extends: child\n", 0);
	memset(&p, 0, sizeof(p));
	CHECK(profile_load(&p, "child-b") == 0);
	CHECK_STR(p.name.str, "child-b");
	profile_release(&p);
	strvec_clear(&sets);
	strvec_push(&sets, "name=mine");
	memset(&p, 0, sizeof(p));
	CHECK(profile_load_set(&p, "child-b", &sets) == 0);
	CHECK_STR(p.name.str, "mine");
	profile_release(&p);

	/*
	 * A relative path given by --set is relative to where bwbuild runs, as
	 * any path on its command line is, never to the text "--set KEY=VALUE".
	 */
	strvec_clear(&sets);
	strvec_push(&sets, "torch=out/demo/x.whl");
	strvec_push(&sets, "source.repo=rel/torch.git");
	memset(&p, 0, sizeof(p));
	CHECK(profile_load_set(&p, "child", &sets) == 0);
	abs = path_absolute("out/demo/x.whl");
	CHECK_STR(p.torch.str, abs);
	free(abs);
	abs = path_absolute("rel/torch.git");
	CHECK_STR(p.source_repo.str, abs);
	free(abs);
	profile_release(&p);

	/* A cycle; a --set that is no KEY=VALUE. */
	memset(&p, 0, sizeof(p));
	t_stderr_begin();
	CHECK(profile_load(&p, t_path("profload/loop-a.yaml")) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "'extends' makes a cycle: ") != NULL);
	profile_release(&p);
	strvec_clear(&sets);
	strvec_push(&sets, "=3");
	memset(&p, 0, sizeof(p));
	t_stderr_begin();
	CHECK(profile_load_set(&p, "child", &sets) == -1);
	e = t_stderr_end();
	CHECK(strstr(e, "--set '=3' is not KEY=VALUE with a dotted key") != NULL);
	profile_release(&p);

	t_env_restore("BWBUILD_PROFILE_PATH", old);
	remove_tree(dir.s);
	buf_release(&dir);
	buf_release(&path);
	buf_release(&b);
	strvec_clear(&sets);
}
