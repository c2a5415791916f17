#include <stddef.h>

#include "../../src/core/suggest.h"
#include "t.h"

static const char *
nearest(const char *word, const char *const *names)
{
	struct suggest s;

	suggest_init(&s, word);
	for (; *names; names++)
		suggest_add(&s, *names);
	return suggest_best(&s);
}

void
t_suggest(void)
{
	static const char *const commands[] = { "build", "plan", "verify", "smoke", "archs",
		"manifest", "diff", "doctor", "provenance", "profiles", "launch", NULL };
	static const char *const cuda[] = { "archs", "home", "version", "ptx", NULL };
	static const char *const options[] = { "profile", "work", "out", "source", "set",
		"strict", "json", NULL };
	static const char *const features[] = { "cuda", "cudnn", "nccl", "distributed",
		"flash_attention", "mem_eff_attention", "mslk", NULL };
	static const char *const names[] = { "sm120", "sm100", "sm120-cu130", "minitorch", NULL };

	CHECK(edit_distance("archz", "archs") == 1);
	CHECK(edit_distance("buidl", "build") == 1);
	CHECK(edit_distance("", "abc") == 3);
	CHECK(edit_distance("kitten", "sitting") == 3);
	CHECK(edit_distance("PLAN", "plan") == 0);

	CHECK_STR(nearest("buidl", commands), "build");
	CHECK_STR(nearest("pln", commands), "plan");
	CHECK_STR(nearest("verfiy", commands), "verify");
	CHECK_STR(nearest("profile", commands), "profiles");
	CHECK(nearest("xyzzy", commands) == NULL);
	CHECK(nearest("x", commands) == NULL);
	CHECK_STR(nearest("archz", cuda), "archs");
	CHECK_STR(nearest("arch", cuda), "archs");
	CHECK(nearest("archs", cuda) == NULL);
	CHECK_STR(nearest("profle", options), "profile");
	CHECK_STR(nearest("stict", options), "strict");
	/* No edit reaches it; the one name it starts does. */
	CHECK_STR(nearest("flash", features), "flash_attention");
	/* A start shared by several names says nothing. */
	CHECK(nearest("cud", (const char *const[]){ "cudnn", "cudart", NULL }) == NULL);
	CHECK_STR(nearest("sm12", names), "sm120");
	/* Case alone: the name itself, not the nearest other one (issue 41). */
	CHECK_STR(nearest("SM120", names), "sm120");
	CHECK_STR(nearest("sm120-cu13", names), "sm120-cu130");
}
