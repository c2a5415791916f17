#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "launch/ccache.h"
#include "core/json.h"
#include "core/proc.h"
#include "core/util.h"

void
ccache_stats_parse(const char *text, struct ccache_stats *out)
{
	static const struct {
		const char *key;
		size_t off;
	} map[] = {
		{ "direct_cache_hit", offsetof(struct ccache_stats, hits) },
		{ "preprocessed_cache_hit", offsetof(struct ccache_stats, hits) },
		{ "cache_miss", offsetof(struct ccache_stats, misses) },
		{ "local_storage_hit", offsetof(struct ccache_stats, local_hits) },
		{ "remote_storage_hit", offsetof(struct ccache_stats, remote_hits) },
		{ "remote_storage_miss", offsetof(struct ccache_stats, remote_misses) },
		{ "remote_storage_error", offsetof(struct ccache_stats, remote_errors) },
		{ "remote_storage_timeout", offsetof(struct ccache_stats, remote_errors) },
		{ "unsupported_compiler_option", offsetof(struct ccache_stats, uncacheable) },
		{ "unsupported_source_language", offsetof(struct ccache_stats, uncacheable) },
		{ "could_not_find_compiler", offsetof(struct ccache_stats, uncacheable) },
	};
	const char *p;

	memset(out, 0, sizeof(*out));
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t klen = strcspn(p, "\t\n"), i;

		if (p[klen] != '\t')
			continue;
		for (i = 0; i < ARRAY_SIZE(map); i++)
			if (strlen(map[i].key) == klen && !strncmp(p, map[i].key, klen))
				*(unsigned long long *)((char *)out + map[i].off) +=
					strtoull(p + klen + 1, NULL, 10);
	}
}

int
ccache_log_hit(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n = strcspn(p, "\r\n");

		if ((n == 16 && !strncmp(p, "direct_cache_hit", n)) ||
		    (n == 22 && !strncmp(p, "preprocessed_cache_hit", n)))
			return 1;
	}
	return 0;
}

int
ccache_stats_read(const char *ccache, const struct strvec *env, struct ccache_stats *out)
{
	struct proc p = PROC_INIT;
	struct buf text = BUF_INIT;
	size_t i;
	int rc;

	strvec_push(&p.args, ccache);
	strvec_push(&p.args, "--print-stats");
	for (i = 0; env && i < env->n; i++)
		strvec_push(&p.env, env->v[i]);
	rc = proc_run_capture(&p, &text);
	proc_release(&p);
	ccache_stats_parse(text.s, out);
	buf_release(&text);
	return rc == 0 ? 0 : -1;
}

struct json *
ccache_stats_json(const struct ccache_stats *a, const struct ccache_stats *b, const char *remote)
{
	struct json *o = json_object();

#define DIFF(f) json_number((double)(b->f >= a->f ? b->f - a->f : 0))
	json_set(o, "tool", json_string("ccache"));
	json_set(o, "remote", remote ? json_string(remote) : json_null());
	json_set(o, "hits", DIFF(hits));
	json_set(o, "misses", DIFF(misses));
	json_set(o, "local_hits", DIFF(local_hits));
	json_set(o, "remote_hits", DIFF(remote_hits));
	json_set(o, "remote_misses", DIFF(remote_misses));
	json_set(o, "remote_errors", DIFF(remote_errors));
	json_set(o, "uncacheable", DIFF(uncacheable));
#undef DIFF
	return o;
}

enum cache_tool
ccache_tool(const char *argv0)
{
	const char *name = argv0 ? path_tail(argv0) : "";

	if (!strcmp(name, "ccache"))
		return CACHE_CCACHE;
	return strcmp(name, "sccache") ? CACHE_NONE : CACHE_SCCACHE;
}
