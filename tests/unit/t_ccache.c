#include <stdlib.h>
#include <string.h>

#include "../../src/launch/ccache.h"
#include "../../src/core/json.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "t.h"

/*
 * `ccache --print-stats` of ccache 4.7.5 (Debian 12), verbatim: a local
 * cache after two misses, two direct hits, a -E call and a -save-temps
 * compile.
 */
static const char local_stats[] =
	"autoconf_test\t0\n"
	"bad_compiler_arguments\t0\n"
	"bad_output_file\t0\n"
	"cache_miss\t3\n"
	"cache_size_kibibyte\t24\n"
	"called_for_link\t0\n"
	"called_for_preprocessing\t1\n"
	"cleanups_performed\t0\n"
	"compile_failed\t0\n"
	"compiler_check_failed\t0\n"
	"compiler_produced_empty_output\t0\n"
	"compiler_produced_no_output\t0\n"
	"compiler_produced_stdout\t0\n"
	"could_not_find_compiler\t0\n"
	"could_not_use_modules\t0\n"
	"could_not_use_precompiled_header\t0\n"
	"direct_cache_hit\t2\n"
	"direct_cache_miss\t4\n"
	"error_hashing_extra_file\t0\n"
	"files_in_cache\t6\n"
	"internal_error\t0\n"
	"local_storage_hit\t2\n"
	"local_storage_miss\t3\n"
	"local_storage_read_hit\t4\n"
	"local_storage_read_miss\t7\n"
	"local_storage_write\t6\n"
	"missing_cache_file\t0\n"
	"multiple_source_files\t0\n"
	"no_input_file\t0\n"
	"output_to_stdout\t0\n"
	"preprocessed_cache_hit\t0\n"
	"preprocessed_cache_miss\t3\n"
	"preprocessor_error\t1\n"
	"recache\t0\n"
	"remote_storage_error\t0\n"
	"remote_storage_hit\t0\n"
	"remote_storage_miss\t0\n"
	"remote_storage_read_hit\t0\n"
	"remote_storage_read_miss\t0\n"
	"remote_storage_timeout\t0\n"
	"remote_storage_write\t0\n"
	"stats_updated_timestamp\t1795462215\n"
	"stats_zeroed_timestamp\t0\n"
	"unsupported_code_directive\t0\n"
	"unsupported_compiler_option\t1\n"
	"unsupported_environment_variable\t0\n"
	"unsupported_source_language\t0\n";

/*
 * The same with a Redis remote (CCACHE_REMOTE_STORAGE): a miss, a hit from
 * Redis after `ccache -C`, a compile whose remote was down; the counters
 * that are not zero, in ccache's order.
 */
static const char remote_stats[] =
	"cache_miss\t2\n"
	"cache_size_kibibyte\t16\n"
	"cleanups_performed\t2\n"
	"direct_cache_hit\t1\n"
	"direct_cache_miss\t2\n"
	"files_in_cache\t4\n"
	"local_storage_miss\t3\n"
	"local_storage_read_miss\t6\n"
	"local_storage_write\t6\n"
	"preprocessed_cache_miss\t2\n"
	"remote_storage_error\t1\n"
	"remote_storage_hit\t1\n"
	"remote_storage_miss\t1\n"
	"remote_storage_read_hit\t2\n"
	"remote_storage_read_miss\t2\n"
	"remote_storage_write\t2\n"
	"stats_updated_timestamp\t1795462222\n";

static int
stats_are(const struct ccache_stats *s, unsigned long long hits, unsigned long long misses,
	  unsigned long long local_hits, unsigned long long remote_hits,
	  unsigned long long remote_misses, unsigned long long remote_errors,
	  unsigned long long uncacheable)
{
	return s->hits == hits && s->misses == misses && s->local_hits == local_hits &&
	       s->remote_hits == remote_hits && s->remote_misses == remote_misses &&
	       s->remote_errors == remote_errors && s->uncacheable == uncacheable;
}

static void
t_parse(void)
{
	struct ccache_stats s;

	ccache_stats_parse(local_stats, &s);
	CHECK(stats_are(&s, 2, 3, 2, 0, 0, 0, 1));
	ccache_stats_parse(remote_stats, &s);
	CHECK(stats_are(&s, 1, 2, 0, 1, 1, 1, 0));

	/* Hits of both modes, errors and timeouts, the uncacheable kinds: summed. */
	ccache_stats_parse("direct_cache_hit\t5\npreprocessed_cache_hit\t7\n"
			   "remote_storage_error\t1\nremote_storage_timeout\t2\n"
			   "unsupported_compiler_option\t1\nunsupported_source_language\t2\n"
			   "could_not_find_compiler\t4",
			   &s);
	CHECK(s.hits == 12 && s.remote_errors == 3 && s.uncacheable == 7);

	/* Whole keys and tabs only; a last line without its newline still counts. */
	ccache_stats_parse("cache_miss_total\t9\ncache\t9\ncache_miss 9\n cache_miss\t9\n"
			   "cache_miss\t4",
			   &s);
	CHECK(stats_are(&s, 0, 4, 0, 0, 0, 0, 0));
	/* Big counters are not cut to 32 bits. */
	ccache_stats_parse("cache_miss\t8589934592\n", &s);
	CHECK(s.misses == 8589934592ULL);

	/* Nothing to read (ccache missing): every counter 0. */
	ccache_stats_parse(NULL, &s);
	CHECK(stats_are(&s, 0, 0, 0, 0, 0, 0, 0));
	ccache_stats_parse("ccache: error: something\n", &s);
	CHECK(stats_are(&s, 0, 0, 0, 0, 0, 0, 0));
}

static void
t_ccache_json(void)
{
	struct ccache_stats before, after;
	struct json *j;

	ccache_stats_parse(local_stats, &before);
	ccache_stats_parse("direct_cache_hit\t10\ncache_miss\t3\nlocal_storage_hit\t1\n", &after);
	j = ccache_stats_json(&before, &after, "redis://cache:6379");
	CHECK_STR(json_str(json_get(j, "tool")), "ccache");
	CHECK_STR(json_str(json_get(j, "remote")), "redis://cache:6379");
	/* This build's share: after - before. */
	CHECK(json_number_value(json_get(j, "hits")) == 8);
	CHECK(json_number_value(json_get(j, "misses")) == 0);
	/* A counter that went down (stats zeroed during the build): 0, not a wrapped number. */
	CHECK(json_number_value(json_get(j, "local_hits")) == 0);
	CHECK(json_number_value(json_get(j, "uncacheable")) == 0);
	json_free(j);
	j = ccache_stats_json(&after, &after, NULL);
	CHECK(json_get(j, "remote") != NULL && json_str(json_get(j, "remote")) == NULL);
	json_free(j);
}

/* The real ccache on an empty cache directory, when it is installed. */
static void
t_read(void)
{
	struct strvec env = STRVEC_INIT;
	struct ccache_stats s;
	char *ccache = find_program("ccache");

	fprintf(stderr, "-- ccache tests (the error below is expected)\n");
	CHECK(ccache_stats_read(t_path("no-such-ccache"), NULL, &s) < 0);
	CHECK(stats_are(&s, 0, 0, 0, 0, 0, 0, 0));
	if (!ccache) {
		t_skip("ccache is not installed: the stats of a real ccache are not read");
		return;
	}
	strvec_pushf(&env, "CCACHE_DIR=%s", t_path("ccache"));
	CHECK(ccache_stats_read(ccache, &env, &s) == 0);
	CHECK(stats_are(&s, 0, 0, 0, 0, 0, 0, 0));
	strvec_clear(&env);
	free(ccache);
}

/* One compile's CCACHE_STATSLOG, as ccache 4.7 writes it for a miss and for hits. */
static void
t_log_hit(void)
{
	CHECK(!ccache_log_hit("# a.cpp\ncache_miss\ndirect_cache_miss\nlocal_storage_miss\n"
			      "local_storage_write\npreprocessed_cache_miss\n"));
	CHECK(ccache_log_hit("# a.cpp\ndirect_cache_hit\nlocal_storage_hit\nlocal_storage_read_hit\n"));
	CHECK(ccache_log_hit("# a.cpp\nlocal_storage_hit\npreprocessed_cache_hit"));
	/* Names that only contain a hit's are not one; a source named like one is a comment. */
	CHECK(!ccache_log_hit("# direct_cache_hit\nremote_storage_hit_rate\nxdirect_cache_hit\n"));
	CHECK(!ccache_log_hit("") && !ccache_log_hit(NULL));
}

/* The cache a command runs behind, by its first word: the compiler is then argv[1]. */
static void
t_tool(void)
{
	CHECK(ccache_tool("ccache") == CACHE_CCACHE);
	CHECK(ccache_tool("/usr/lib/ccache/ccache") == CACHE_CCACHE);
	CHECK(ccache_tool("/opt/bin/sccache") == CACHE_SCCACHE);
	CHECK(ccache_tool("/usr/bin/gcc") == CACHE_NONE);
	CHECK(ccache_tool("ccache-4.8") == CACHE_NONE);
	CHECK(ccache_tool(NULL) == CACHE_NONE);
}

void
t_ccache(void)
{
	t_tool();
	t_log_hit();
	t_parse();
	t_ccache_json();
	t_read();
}
