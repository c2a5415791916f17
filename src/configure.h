#ifndef BWBUILD_CONFIGURE_H
#define BWBUILD_CONFIGURE_H

struct profile;
struct plan;
struct json;
struct cmake_cache;

/*
 * After configure: what CMake really decided. Every feature the profile
 * sets is compared with its option in CMakeCache.txt (the tree turns some
 * off by itself: flash attention without an arch >= 8.0, cuDNN or NCCL not
 * found). `*effective` gets { feature: { requested, effective } } for the
 * manifest. A feature the build turned against the profile is an error
 * naming the reason where known; returns -1 after reporting such errors
 * (or an unreadable cache).
 */
int configure_readback(const struct profile *p, const struct plan *pl, struct json **effective);

/* What the CMake hook writes into the build directory; read before CMakeCache.txt. */
#define CONFIGURE_EFFECTIVE_FILE "bwbuild-effective.txt"
/* Write the hook (<work>/cmake/bwbuild-effective.cmake) and give its path. -1 after reporting. */
struct buf;
int configure_hook(const char *work_dir, struct buf *path);

/* The comparison itself, on a parsed cache (for tests). */
int features_effective(const struct profile *p, const struct cmake_cache *c, const char *cache_path,
		       struct json **effective);

#endif
