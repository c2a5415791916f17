#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/relver.h"
#include "../../src/pipeline/era.h"
#include "../../src/profile/knowledge.h"
#include "../../src/profile/releases.h"
#include "t.h"

static struct relver
rv(const char *s)
{
	struct relver v;

	relver_parse(s, &v, NULL);
	return v;
}

/* Every row is whole: in order, its era a row of era.c, its companions, its arch forms. */
static void
t_release_rows(void)
{
	size_t n;
	const struct torch_release *r = release_rows(&n);

	CHECK(n >= 2);
	for (size_t i = 0; i < n; i++) {
		CHECK(!r[i].torch.has_patch);
		CHECK(i == 0 || relver_cmp(&r[i - 1].torch, &r[i].torch) < 0);
		CHECK(r[i].era && era_by_key(r[i].era) != NULL);
		CHECK(relver_known(&r[i].torchvision) && relver_known(&r[i].torchaudio));
		CHECK(r[i].arch_forms && r[i].arch_forms_refused && r[i].evidence);
		for (const char *k = r[i].arch_forms; *k; k++)
			CHECK(strchr("faM", *k) && !strchr(r[i].arch_forms_refused, *k));
		/* python, cuda and configure come together: the plan's line needs the three */
		CHECK(!r[i].python == !r[i].cuda);
		CHECK(!r[i].renamed[0] == !r[i].renamed[1]);
		CHECK(!r[i].setuptools == !r[i].loadtime);
	}
	/* Any patch level finds its minor release; outside the table, the nearest row. */
	{
		struct relver a = rv("2.11.3"), lo = rv("1.13.1"), hi = rv("9.0");

		CHECK(release_find(&a) && release_find(&a)->torch.minor == 11);
		CHECK(!release_find(&lo) && release_nearest(&lo) == &r[0]);
		CHECK(!release_find(&hi) && release_nearest(&hi) == &r[n - 1]);
	}
}

/* Messages name the table's span from its rows, never a release written in the text. */
static void
t_release_messages(void)
{
	size_t n;
	const struct torch_release *r = release_rows(&n);
	struct buf span = BUF_INIT, want = BUF_INIT, why = BUF_INIT;
	struct relver tv = rv("0.18"), torch = rv("2.3");

	release_span(&span);
	buf_addf(&want, "%u.%u to %u.%u", r[0].torch.major, r[0].torch.minor, r[n - 1].torch.major,
		 r[n - 1].torch.minor);
	CHECK_STR(span.s, want.s);
	CHECK(kb_companion_check("torchvision", &tv, &torch, &why) == 1);
	buf_reset(&want);
	buf_addf(&want, "bwbuild knows the torchvision releases for torch %s only; torchvision 0.18 "
		 "with torch 2.3 is not checked", span.s);
	CHECK_STR(why.s, want.s);
	/* The newest row's companions pass, whatever that row is. */
	buf_reset(&why);
	CHECK(kb_companion_check("torchvision", &r[n - 1].torchvision, &r[n - 1].torch, &why) == 0);
	CHECK(kb_companion_check("torchaudio", &r[n - 1].torchaudio, &r[n - 1].torch, &why) == 0);
	buf_release(&span);
	buf_release(&want);
	buf_release(&why);
}

/* One finder of a tree's release, one precedence: version.txt (with the tag's patch level), else the ref. */
static void
t_tree_version(void)
{
	const char *dir = t_tmpdir("tree-version");
	struct relver v;

	t_put(dir, "version.txt", "2.6.0a0\n", 0);
	/* 1. the tree's version.txt, its suffix dropped; a tag of its release adds the patch level */
	CHECK_STR(tree_version("main", dir, &v), "version.txt");
	CHECK(v.major == 2 && v.minor == 6 && v.patch == 0 && v.has_patch);
	CHECK_STR(tree_version("v2.6.1", dir, &v), "version.txt");
	CHECK(v.minor == 6 && v.patch == 1 && v.has_patch);
	/* a tag of another release does not overrule the tree */
	CHECK_STR(tree_version("v2.12.0", dir, &v), "version.txt");
	CHECK(v.minor == 6 && v.patch == 0);
	/* a --source tree: no ref */
	CHECK_STR(tree_version(NULL, dir, &v), "version.txt");
	CHECK(v.minor == 6);
	/* 2. no tree yet: the ref */
	CHECK_STR(tree_version("v2.11.0", NULL, &v), "source.ref");
	CHECK(v.minor == 11 && v.has_patch);
	CHECK_STR(tree_version("v2.9.0-rc3", t_path("no-such-tree"), &v), "source.ref");
	CHECK(v.minor == 9);
	/* 3. neither */
	CHECK(tree_version("main", NULL, &v) == NULL && !relver_known(&v));
	t_put(dir, "version.txt", "not a version\n", 0);
	CHECK(tree_version("a1b2c3d", dir, &v) == NULL && !relver_known(&v));
	CHECK_STR(tree_version("v2.10.0", dir, &v), "source.ref");
	CHECK(v.minor == 10);
}

/* The 2.12 row (provisional): found, its companions pair, and what it says reaches the messages. */
static void
t_release_212(void)
{
	struct relver t = rv("2.12.0"), tv = rv("0.27.0"), ta = rv("2.12"), tv26 = rv("0.26");
	const struct torch_release *r = release_find(&t);
	struct buf why = BUF_INIT;

	CHECK(r && r->provisional && r->cuda_blackwell == 1300);
	CHECK(kb_companion_check("torchvision", &tv, &t, &why) == 0);
	CHECK(kb_companion_check("torchaudio", &ta, &t, &why) == 0 && !why.len);
	CHECK(kb_companion_check("torchvision", &tv26, &t, &why) == -1);
	CHECK_STR(why.s, "torchvision 0.26 is released for torch 2.11, not 2.12; torch 2.12 goes "
			 "with torchvision 0.27 (tag v0.27.0)");
	buf_reset(&why);
	release_span(&why);
	CHECK_STR(why.s, "2.4 to 2.12");
	buf_release(&why);
}

void
t_releases(void)
{
	t_release_212();
	t_release_rows();
	t_release_messages();
	t_tree_version();
}
