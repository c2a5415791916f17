/*
 * CMakeCache.txt, as cmake writes it (cmCacheManager):
 *
 *	# comment               ignored
 *	// help text            ignored (describes the next entry)
 *	KEY:TYPE=VALUE          an entry; VALUE runs to the end of the line
 *	"KEY:WITH:COLONS":TYPE=VALUE   a quoted key
 *	KEY=VALUE               an entry without a type (UNINITIALIZED)
 *	blank lines             ignored; "\r\n" line ends accepted
 *
 * The key ends at the first ':' (or the closing quote); the type runs to
 * the first '=' after it. A line that is none of these is an error naming
 * its number.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "formats/cmakecache.h"
#include "core/util.h"

static int
add(struct cmake_cache *c, const char *k, size_t kn, const char *t, size_t tn, const char *v,
    size_t vn)
{
	ALLOC_GROW(c->v, c->n + 1, c->cap);
	c->v[c->n].key = xstrndup(k, kn);
	c->v[c->n].type = xstrndup(t, tn);
	c->v[c->n].value = xstrndup(v, vn);
	c->n++;
	return 0;
}

int
cmakecache_parse(struct cmake_cache *c, const char *text, size_t len, struct buf *why)
{
	size_t pos = 0;
	int line = 0;

	memset(c, 0, sizeof(*c));
	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		const char *key, *colon, *eq, *end;
		size_t kn;

		pos += n + (nl ? 1 : 0);
		line++;
		if (n && s[n - 1] == '\r')
			n--;
		end = s + n;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s == end || *s == '#' || (end - s >= 2 && s[0] == '/' && s[1] == '/'))
			continue;
		if (memchr(s, '\0', (size_t)(end - s))) {
			buf_addf(why, "line %d: NUL byte", line);
			goto fail;
		}
		if (*s == '"') {
			const char *q = memchr(s + 1, '"', (size_t)(end - s - 1));

			if (!q) {
				buf_addf(why, "line %d: unterminated quoted key", line);
				goto fail;
			}
			key = s + 1;
			kn = (size_t)(q - key);
			colon = q + 1;
		} else {
			key = s;
			colon = key;
			while (colon < end && *colon != ':' && *colon != '=')
				colon++;
			kn = (size_t)(colon - key);
		}
		eq = memchr(colon, '=', (size_t)(end - colon));
		if (!kn || !eq || (colon < end && *colon != ':' && *colon != '=')) {
			buf_addf(why, "line %d: not KEY:TYPE=VALUE", line);
			goto fail;
		}
		if (*colon == ':')
			add(c, key, kn, colon + 1, (size_t)(eq - colon - 1), eq + 1, (size_t)(end - eq - 1));
		else
			add(c, key, kn, "UNINITIALIZED", 13, eq + 1, (size_t)(end - eq - 1));
	}
	return 0;
fail:
	cmakecache_release(c);
	return -1;
}

void
cmakecache_release(struct cmake_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].key);
		free(c->v[i].type);
		free(c->v[i].value);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

const char *
cmakecache_get(const struct cmake_cache *c, const char *key)
{
	size_t i;

	for (i = c->n; i > 0; i--)
		if (!strcmp(c->v[i - 1].key, key))
			return c->v[i - 1].value;
	return NULL;
}

int
cmake_truthy(const char *v)
{
	static const char *const yes[] = { "ON", "1", "TRUE", "YES", "Y" };
	char *end;
	size_t i;

	if (!v)
		return 0;
	for (i = 0; i < ARRAY_SIZE(yes); i++)
		if (!strcasecmp(v, yes[i]))
			return 1;
	if (*v && strtod(v, &end) != 0 && !*end)
		return 1;
	return 0;
}
