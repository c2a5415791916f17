#ifndef BWBUILD_REMOTECHECK_H
#define BWBUILD_REMOTECHECK_H

#include <stddef.h>

struct buf;
struct remote_host;

/*
 * doctor's check of one build.remote host (remotecheck.c): its distccd
 * answers (TCP, seconds at most), it compiles a probe with the host
 * compiler `cxx` (its allow-list has it: /usr/lib/distcc on Debian), and
 * the object is byte for byte the one this machine's `cxx` makes (the
 * same compiler version, or the wheel's bytes would depend on where a
 * unit ran). 0 ok, 1 a warning, 2 a failure; what was found into `detail`.
 */
int remote_check_host(const struct remote_host *h, const char *cxx, struct buf *detail);

/*
 * Every host of `list` (build.remote as the plan holds it), each reported
 * as report(ctx, status, "HOST: what was found"); first distcc here (a
 * failure without it).
 */
void remote_check_all(const char *list, void (*report)(void *ctx, int status, const char *detail),
		      void *ctx);

/* The compiler's identification in an object's .comment ("GCC: (Debian 12.2.0-14) 12.2.0"), or "". */
void object_compiler_id(const char *bytes, size_t n, struct buf *out);

#endif
