#ifndef BWBUILD_CCACHE_H
#define BWBUILD_CCACHE_H

struct strvec;
struct json;

/*
 * ccache's counters (`ccache --print-stats`), read before and after the
 * compile so the manifest gets this build's hits and misses only.
 */
struct ccache_stats {
	unsigned long long hits;          /* direct + preprocessed */
	unsigned long long misses;
	unsigned long long local_hits;
	unsigned long long remote_hits;
	unsigned long long remote_misses;
	unsigned long long remote_errors; /* errors + timeouts */
	unsigned long long uncacheable;   /* calls ccache could not cache */
};

/* Run `ccache --print-stats` with `env` on top; -1 if it cannot be read. */
int ccache_stats_read(const char *ccache, const struct strvec *env, struct ccache_stats *out);
/* Parse --print-stats' "key<TAB>value" lines (exposed for tests). */
void ccache_stats_parse(const char *text, struct ccache_stats *out);
/*
 * Whether one compile's stats log (CCACHE_STATSLOG: "# SOURCE" comments and
 * one counter name a line) says ccache served it from its cache: a
 * "direct_cache_hit" or "preprocessed_cache_hit" line.
 */
int ccache_log_hit(const char *text);
/*
 * The compiler cache a command runs behind, by its first word ("ccache",
 * "/usr/bin/sccache"): the compiler is then argv[1]. Only ccache takes
 * CCACHE_STATSLOG and CCACHE_PREFIX; sccache is only stepped over.
 */
enum cache_tool { CACHE_NONE, CACHE_CCACHE, CACHE_SCCACHE };
enum cache_tool ccache_tool(const char *argv0);

/* after - before, as the manifest's build.cache object. */
struct json *ccache_stats_json(const struct ccache_stats *before, const struct ccache_stats *after,
			       const char *remote);

#endif
