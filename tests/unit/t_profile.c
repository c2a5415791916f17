#include <stdio.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/diag.h"
#include "../../src/profile/profile.h"
#include "../../src/profile/ydoc.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "t.h"

static void
t_valid(void)
{
	struct profile p;
	struct buf b = BUF_INIT;

	t_write("base.yaml",
		"name: base\n"
		"source: {repo: https://example.invalid/x.git, ref: v2.11.0}\n"
		"cuda:\n  archs: [\"9.0\", \"8.0\"]\n"
		"features: {cuda: on, nccl: on, flash_attention: on}\n"
		"cmake: {USE_SYSTEM_NCCL: \"1\"}\n"
		"runtime: {env: {A: \"1\", B: \"2\"}}\n");
	t_write("child.yaml",
		"extends: base\n"
		"name: child\n"
		"cuda:\n  archs: [\"12.0+PTX\", \"10.0\", \"12.0\"]\n"
		"features:\n  nccl: off\n"
		"runtime: {env: {B: \"3\"}}\n"
		"build: {jobs: 4, mem_budget: 16G}\n"
		"wheel: {version_suffix: \"+cu130\"}\n");
	CHECK(profile_load(&p, t_path("child.yaml")) == 0);
	CHECK_STR(p.name.str, "child");
	/* Lists are replaced, not merged; entries sorted and deduplicated. */
	profile_arch_list(&p, &b);
	CHECK_STR(b.s, "10.0;12.0+PTX");
	/* Maps are merged key by key. */
	CHECK(p.features[FEAT_CUDA] == TRI_ON);
	CHECK(p.features[FEAT_NCCL] == TRI_OFF);
	CHECK(p.features[FEAT_FLASH_ATTENTION] == TRI_ON);
	CHECK(p.features[FEAT_MSLK] == TRI_UNSET);
	CHECK(p.feature_loc[FEAT_NCCL].line == 6);
	CHECK(strstr(p.feature_loc[FEAT_NCCL].file, "child.yaml") != NULL);
	CHECK(strstr(p.feature_loc[FEAT_CUDA].file, "base.yaml") != NULL);
	CHECK(p.nruntime_env == 2);
	CHECK_STR(p.source_ref.str, "v2.11.0");
	CHECK(p.jobs == 4);
	CHECK(p.mem_budget == 16ULL << 30);
	CHECK_STR(p.version_suffix.str, "+cu130");
	CHECK(p.ncmake == 1);
	profile_release(&p);
	buf_release(&b);
}

static void
t_bad(void)
{
	struct profile p;
	int before;

	t_write("cycle-a.yaml", "extends: cycle-b\nname: a\n");
	t_write("cycle-b.yaml", "extends: cycle-a.yaml\nname: b\n");
	before = diag_errors;
	CHECK(profile_load(&p, t_path("cycle-a.yaml")) < 0);
	CHECK(diag_errors == before + 1);
	profile_release(&p);

	t_write("many.yaml",
		"source: {repo: x, ref: y}\n"
		"cuda: {archs: [sm_120, \"8.0\"]}\n"
		"features: {flash: on, cuda: maybe}\n"
		"colour: blue\n");
	before = diag_errors;
	CHECK(profile_load(&p, t_path("many.yaml")) < 0);
	/* Every problem in one run, not just the first. */
	CHECK(diag_errors == before + 4);
	profile_release(&p);

	before = diag_errors;
	CHECK(profile_load(&p, "no-such-profile-anywhere") < 0);
	profile_release(&p);
	CHECK(ydoc_parse_buffer("x", "a: [1, 2", 8) < 0);
	CHECK(ydoc_parse_buffer("x", "a: 1\n", 5) == 0);
}

/* Issue 27 M3, M4, M7 and the lows: input the trial found mishandled. */
static void
t_input(void)
{
	static const char base[] = "source: {repo: https://example.invalid/x.git, ref: v2.11.0}\n"
				   "cuda: {archs: [\"12.0\"]}\n";
	struct profile p;
	struct strvec sets = STRVEC_INIT;
	struct buf b = BUF_INIT, big = BUF_INIT;
	char name[32], text[64];
	int before;

	/* a NUL in a value or a key, as libyaml gives its length: refused, not cut */
	CHECK(ydoc_parse_buffer("x", "a: \"8.0\\0;9.0\"\n", 15) < 0);
	CHECK(ydoc_parse_buffer("x", "\"k\\0ey\": 1\n", 11) < 0);
	CHECK(ydoc_parse_buffer("x", "a: \"8.0;9.0\"\n", 13) == 0);
	/* a second document refused; an explicit end of the first is fine */
	CHECK(ydoc_parse_buffer("x", "a: 1\n---\nb: 2\n", 14) < 0);
	CHECK(ydoc_parse_buffer("x", "---\na: 1\n...\n", 13) == 0);

	/* 30,000 keys are a large map, not an alias bomb; a duplicate among them is found */
	buf_addstr(&big, "m:\n");
	for (int i = 0; i < 30000; i++)
		buf_addf(&big, "  k%d: v\n", i);
	CHECK(ydoc_parse_buffer("x", big.s, big.len) == 0);
	buf_addstr(&big, "  k17: again\n");
	before = diag_errors;
	CHECK(ydoc_parse_buffer("x", big.s, big.len) < 0 && diag_errors == before + 1);
	/* ...while 9 aliases of 9 of 9 are still a bomb */
	CHECK(ydoc_parse_buffer("x", "a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
				   "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
				   "e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n", 164) < 0);

	/* merged key by key through the sorted index: 4,000 parent keys, half overridden */
	buf_reset(&big);
	buf_addf(&big, "%sruntime:\n  env:\n", base);
	for (int i = 0; i < 4000; i++)
		buf_addf(&big, "    K%d: parent\n", i);
	t_write("bigparent.yaml", big.s);
	buf_reset(&big);
	buf_addstr(&big, "extends: bigparent.yaml\nruntime:\n  env:\n");
	for (int i = 2000; i < 6000; i++)
		buf_addf(&big, "    K%d: child\n", i);
	t_write("bigchild.yaml", big.s);
	CHECK(profile_load(&p, t_path("bigchild.yaml")) == 0);
	CHECK(p.nruntime_env == 6000);
	CHECK(p.nruntime_env == 6000 && !strcmp(p.runtime_env[0].key, "K0") &&
	      !strcmp(p.runtime_env[0].val, "parent") && !strcmp(p.runtime_env[2000].key, "K2000") &&
	      !strcmp(p.runtime_env[2000].val, "child") && p.runtime_env[2000].loc.line == 4 &&
	      !strcmp(p.runtime_env[5999].val, "child"));
	profile_release(&p);

	/* --set: only the key is checked */
	t_write("plain.yaml", base);
	strvec_push(&sets, "build.env.CXXFLAGS=-I../inc");
	strvec_push(&sets, "build.env.CFLAGS=-DA=b");
	CHECK(profile_load_set(&p, t_path("plain.yaml"), &sets) == 0);
	CHECK(p.nbuild_env == 2 && !strcmp(p.build_env[0].val, "-I../inc") &&
	      !strcmp(p.build_env[1].val, "-DA=b"));
	profile_release(&p);
	strvec_clear(&sets);
	strvec_push(&sets, "build..env=x");
	CHECK(profile_load_set(&p, t_path("plain.yaml"), &sets) < 0);
	profile_release(&p);
	strvec_clear(&sets);

	/* shell characters in flags and compilers, not in other values */
	t_write("flags.yaml", "extends: plain.yaml\nbuild: {env: {CXXFLAGS: \"-O2 `id`\", CC: \"gcc;id\"}}\n"
		"cmake: {CMAKE_CXX_FLAGS: \"$(id)\"}\n");
	before = diag_errors;
	CHECK(profile_load(&p, t_path("flags.yaml")) < 0 && diag_errors == before + 3);
	profile_release(&p);
	t_write("flags-ok.yaml", "extends: plain.yaml\nbuild: {env: {CXXFLAGS: \"-O2 -DN='a b'\"}}\n"
		"cmake: {CMAKE_PREFIX_PATH: \"/a;/b\"}\n");
	CHECK(profile_load(&p, t_path("flags-ok.yaml")) == 0);
	profile_release(&p);

	/* extends: 64 profiles load, 65 are refused once */
	for (int i = 1; i <= 65; i++) {
		snprintf(name, sizeof(name), "chain%d.yaml", i);
		if (i == 64)
			t_write(name, base);
		else
			snprintf(text, sizeof(text), "extends: chain%d.yaml\n", i + 1), t_write(name, text);
	}
	CHECK(profile_load(&p, t_path("chain1.yaml")) == 0);
	profile_release(&p);
	snprintf(text, sizeof(text), "extends: chain65.yaml\n");
	t_write("chain64.yaml", text);
	t_write("chain65.yaml", base);
	before = diag_errors;
	CHECK(profile_load(&p, t_path("chain1.yaml")) < 0 && diag_errors == before + 1);
	profile_release(&p);

	/* quoted values: whole up to 80 bytes, else cut (not inside a UTF-8 character) */
	CHECK_STR(profile_echo(&b, "short"), "short");
	buf_reset(&big);
	for (int i = 0; i < 79; i++)
		buf_addch(&big, 'x');
	buf_addstr(&big, "\xc3\xa9tail");
	CHECK(!strncmp(profile_echo(&b, big.s), big.s, 79) && strstr(b.s, "\xe2\x80\xa6(85 bytes)") &&
	      b.s[79] != '\xc3');
	buf_release(&b);
	buf_release(&big);
}

/* Every row of the key table is named in docs/profile-format.md. */
static void
t_keys_documented(void)
{
	struct buf doc = BUF_INIT, name = BUF_INIT;
	size_t i;

	CHECK(read_file(&doc, "docs/profile-format.md") == 0);
	for (i = 0; doc.s && i < profile_nkeys; i++) {
		const struct profile_key *k = &profile_keys[i];
		int found;

		buf_reset(&name);
		if (k->section)
			buf_addf(&name, "`%s.%s", k->section, k->key);
		else
			buf_addf(&name, "`%s", k->key);
		/* `build.jobs` documents one key, `cmake.NAME` the entries of a map. */
		buf_addch(&name, '`');
		found = strstr(doc.s, name.s) != NULL;
		name.s[name.len - 1] = '.';
		found = found || strstr(doc.s, name.s);
		if (!found)
			fprintf(stderr, "%.*s` is not in docs/profile-format.md\n",
				(int)name.len - 1, name.s);
		CHECK(found);
		CHECK(k->doc && *k->doc);
	}
	CHECK(profile_nkeys > FEAT__COUNT);
	buf_release(&doc);
	buf_release(&name);
}

void
t_profile(void)
{
	fprintf(stderr, "-- profile tests (the errors below are expected)\n");
	t_valid();
	t_bad();
	t_input();
	t_keys_documented();
}
