#ifndef BWBUILD_CMAKECACHE_H
#define BWBUILD_CMAKECACHE_H

#include <stddef.h>

struct buf;

/* One entry of a CMakeCache.txt. Format at the top of cmakecache.c. */
struct cmake_entry {
	char *key;
	char *type;   /* BOOL, STRING, PATH, FILEPATH, INTERNAL, STATIC, UNINITIALIZED */
	char *value;
};

struct cmake_cache {
	struct cmake_entry *v;
	size_t n, cap;
};

/* Parse; -1 with "line N: ..." in `why` on a malformed line. */
int cmakecache_parse(struct cmake_cache *c, const char *text, size_t len, struct buf *why);
void cmakecache_release(struct cmake_cache *c);
/* The value of KEY, or NULL (the last entry wins, as CMake reads it). */
const char *cmakecache_get(const struct cmake_cache *c, const char *key);
/* CMake's truth: ON, 1, TRUE, YES, Y (any case) and non-zero numbers. */
int cmake_truthy(const char *v);

#endif
