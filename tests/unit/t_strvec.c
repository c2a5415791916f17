#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strhash.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "t.h"

/* argv/envp vectors, natural order and the sorted set over them. */

static void
t_vec(void)
{
	struct strvec sv = STRVEC_INIT;
	struct buf b = BUF_INIT;
	size_t i;

	CHECK(sv.n == 0 && sv.v[0] == NULL);
	strvec_push(&sv, "cmake");
	strvec_pushf(&sv, "-j%d", 4);
	strvec_pushl(&sv, "--build", ".", NULL);
	strvec_push_nodup(&sv, xstrdup("--target"));
	CHECK(sv.n == 5 && sv.v[5] == NULL);
	strvec_join(&sv, " ", &b);
	CHECK_STR(b.s, "cmake -j4 --build . --target");

	strvec_sort(&sv);
	buf_reset(&b);
	strvec_join(&sv, ",", &b);
	CHECK_STR(b.s, "--build,--target,-j4,.,cmake");

	/* Growth keeps the NULL terminator. */
	for (i = 0; i < 100; i++)
		strvec_pushf(&sv, "a%zu", i);
	CHECK(sv.n == 105 && sv.v[105] == NULL);
	CHECK_STR(sv.v[104], "a99");
	strvec_clear(&sv);
	CHECK(sv.n == 0 && sv.v == strvec_empty);
	buf_reset(&b);
	strvec_join(&sv, ",", &b);
	CHECK_STR(b.s, "");
	strvec_init(&sv);
	CHECK(sv.v[0] == NULL);
	buf_release(&b);
}

static void
t_env(void)
{
	struct strvec env = STRVEC_INIT;

	strvec_env_set(&env, "CC", "gcc");
	strvec_env_set(&env, "CCACHE_DIR", "/c");
	strvec_env_set(&env, "CC", "clang");      /* replaces, never duplicates */
	CHECK(env.n == 2);
	CHECK_STR(env.v[0], "CC=clang");
	CHECK_STR(strvec_env_get(&env, "CC"), "clang");
	CHECK_STR(strvec_env_get(&env, "CCACHE_DIR"), "/c");
	CHECK(strvec_env_get(&env, "C") == NULL); /* a prefix is not a name */
	CHECK(strvec_env_get(&env, "CXX") == NULL);
	CHECK(strvec_env_find(&env, "CCACHE_DIR", 10) == 1);
	CHECK(strvec_env_find(&env, "CCACHE", 6) == -1);
	{
		struct strvec jobs = STRVEC_INIT;

		strvec_env_setf(&jobs, "MAX_JOBS", "%u", 6u);
		strvec_env_setf(&jobs, "MAX_JOBS", "%u", 3u);  /* formatted, and replaces as well */
		CHECK(jobs.n == 1);
		CHECK_STR(strvec_env_get(&jobs, "MAX_JOBS"), "3");
		strvec_clear(&jobs);
	}

	setenv("T_STRVEC_PATH", "/usr/bin:/bin", 1);
	strvec_env_prepend_path(&env, "T_STRVEC_PATH", "/opt/cuda/bin");
	CHECK_STR(strvec_env_get(&env, "T_STRVEC_PATH"), "/opt/cuda/bin:/usr/bin:/bin");
	setenv("T_STRVEC_PATH", "", 1);
	strvec_env_prepend_path(&env, "T_STRVEC_PATH", "/x");
	CHECK_STR(strvec_env_get(&env, "T_STRVEC_PATH"), "/x");
	unsetenv("T_STRVEC_PATH");
	strvec_env_prepend_path(&env, "T_STRVEC_PATH", "/y");
	CHECK_STR(strvec_env_get(&env, "T_STRVEC_PATH"), "/y");
	CHECK(env.n == 3);
	strvec_clear(&env);
}

static void
t_natural(void)
{
	struct strvec set = STRVEC_INIT;
	struct buf b = BUF_INIT;

	CHECK(natcmp("sm_90", "sm_100") < 0);
	CHECK(natcmp("sm_100", "sm_90") > 0);
	CHECK(natcmp("sm_120", "sm_120") == 0);
	CHECK(natcmp("sm_120", "sm_120a") < 0);
	CHECK(natcmp("compute_90", "sm_80") < 0);
	CHECK(natcmp("", "a") < 0);
	CHECK(natcmp("a10b2", "a10b10") < 0);

	strset_add(&set, "sm_120");
	strset_add(&set, "sm_90");
	strset_add(&set, "sm_100");
	strset_add(&set, "sm_90");
	strset_add(&set, "sm_75");
	CHECK(set.n == 4);
	strvec_join(&set, " ", &b);
	CHECK_STR(b.s, "sm_75 sm_90 sm_100 sm_120");
	CHECK(strset_has(&set, "sm_100"));
	CHECK(!strset_has(&set, "sm_10"));
	CHECK(set.v[4] == NULL);
	strvec_clear(&set);
	buf_release(&b);
}

/* The hash set: each string once, found after growing, keys not copied. */
static void
t_hashset(void)
{
	struct strhash h = STRHASH_INIT;
	struct strvec keys = STRVEC_INIT;

	CHECK(!strhash_has(&h, "x"));
	for (int i = 0; i < 1000; i++)
		strvec_pushf(&keys, "lib%d.so", i);
	for (size_t i = 0; i < keys.n; i++)
		CHECK(strhash_add(&h, keys.v[i]) == 1);
	CHECK(strhash_add(&h, "lib7.so") == 0);
	CHECK(strhash_add(&h, "") == 1 && strhash_add(&h, "") == 0);
	CHECK(h.n == 1001 && h.cap >= 2 * h.n);
	CHECK(strhash_has(&h, "lib999.so") && strhash_has(&h, "lib0.so"));
	CHECK(!strhash_has(&h, "lib1000.so"));
	strhash_release(&h);
	CHECK(h.n == 0 && !strhash_has(&h, "lib0.so"));
	strvec_clear(&keys);
}

void
t_strvec(void)
{
	t_vec();
	t_env();
	t_natural();
	t_hashset();
}
