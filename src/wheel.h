#ifndef BWBUILD_WHEEL_H
#define BWBUILD_WHEEL_H

#include <stddef.h>

#include "strvec.h"

/*
 * Wheel verification: the file name and WHEEL tags, every RECORD row's
 * hash and size against the decompressed bytes, zip hygiene, and the CUDA
 * targets of every ELF library read from its .nv_fatbin section.
 */

struct wheel_lib {
	char *path;
	struct strvec sass;      /* sorted, unique: sm_80, sm_120 (.nv_fatbin) */
	struct strvec ptx;       /* compute_120 (.nv_fatbin) */
	struct strvec rel_sass;  /* __nv_relfatbin, reported apart */
	struct strvec rel_ptx;
	struct strvec codecs;    /* raw, zstd, lz4 seen */
	unsigned containers;
	unsigned entries;
	int has_fatbin;
};

struct wheel_report {
	char *path;
	char *filename;
	char *name;
	char *version;
	char *build_tag;         /* NULL when none */
	struct strvec tags;      /* expanded: cp311-cp311-linux_x86_64 */
	char sha256[65];
	size_t members;
	unsigned long long bytes;
	struct wheel_lib *libs;
	size_t nlibs;
	struct strvec sass;      /* unions over libraries */
	struct strvec ptx;
	struct strvec errors;
	struct strvec notes;
	char *macros_h;          /* the build-settings header, if present */
	char *macros_h_path;
	char *version_py;        /* <package>/version.py, if present */
	char *version_py_path;
};

struct wheel_expect {
	const struct strvec *sass; /* each CUDA library must carry these */
	const struct strvec *ptx;
};

/*
 * Verify `path`. Problems go into r->errors (the return is still 0); -1
 * only when the file cannot be read as a zip at all (reported).
 * `expect` may be NULL.
 */
int wheel_verify(struct wheel_report *r, const char *path, const struct wheel_expect *expect);
void wheel_report_release(struct wheel_report *r);

/* Keep a sorted, unique string set. */
void strset_add(struct strvec *set, const char *s);
int strset_has(const struct strvec *set, const char *s);

#endif
