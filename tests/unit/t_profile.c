#include <stdio.h>
#include <string.h>

#include "../../src/buf.h"
#include "../../src/diag.h"
#include "../../src/profile.h"
#include "../../src/util.h"
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
	CHECK(profile_load(&p, "tests/tmp/unit/child.yaml") == 0);
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
	CHECK(profile_load(&p, "tests/tmp/unit/cycle-a.yaml") < 0);
	CHECK(diag_errors == before + 1);
	profile_release(&p);

	t_write("many.yaml",
		"source: {repo: x, ref: y}\n"
		"cuda: {archs: [sm_120, \"8.0\"]}\n"
		"features: {flash: on, cuda: maybe}\n"
		"colour: blue\n");
	before = diag_errors;
	CHECK(profile_load(&p, "tests/tmp/unit/many.yaml") < 0);
	/* Every problem in one run, not just the first. */
	CHECK(diag_errors == before + 4);
	profile_release(&p);

	before = diag_errors;
	CHECK(profile_load(&p, "no-such-profile-anywhere") < 0);
	profile_release(&p);
	CHECK(profile_parse_buffer("x", "a: [1, 2", 8) < 0);
	CHECK(profile_parse_buffer("x", "a: 1\n", 5) == 0);
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
	t_keys_documented();
}
