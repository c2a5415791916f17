#ifndef BWBUILD_VERIFY_H
#define BWBUILD_VERIFY_H

#include <stddef.h>

#include "formats/elfscan.h"
#include "core/strvec.h"

/*
 * Wheel verification: the file name and WHEEL tags, every RECORD row's
 * hash and size against the decompressed bytes (members in parallel), zip
 * hygiene, and per ELF library its CUDA targets, needed libraries and
 * manylinux policy (elfscan.h).
 */

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
	struct strvec errors;    /* the first VERIFY_ERRORS_LISTED, then "... and N more" */
	size_t errors_more;      /* problems found beyond those listed */
	int summarised;          /* the last of errors is the "... and N more" line */
	size_t mendable;         /* of all the problems, those repair mends: (needed), (runpath) */
	struct strvec notes;
	char *macros_h;          /* the build-settings header, if present */
	char *macros_h_path;
	char *version_py;        /* <package>/version.py, if present */
	char *version_py_path;
	struct strvec requires;  /* METADATA's Requires-Dist values */
};

/*
 * A crafted wheel can have millions of problems (a RECORD of 8 M empty
 * rows); the report lists this many and counts the rest, so memory and
 * output stay small whatever the input.
 */
#define VERIFY_ERRORS_LISTED 50

/*
 * A problem into r->errors: the first VERIFY_ERRORS_LISTED, then only
 * counted; every check of a wheel (verify*.c, against.c) reports through
 * it. verify_summarise then ends the list with "... and N more problems",
 * once, updated when more were counted since.
 */
void verify_error(struct wheel_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void verify_summarise(struct wheel_report *r);

/* A library allowed to lack some of the expected targets (a profile's verify.exceptions). */
struct wheel_exception {
	const char *library;        /* a member path, or a file name matching any directory */
	const char *const *missing; /* target names: sm_75, compute_120 */
	size_t nmissing;
	const char *reason;
};

/*
 * The profile's verify.exceptions as verify takes them (a malloc'd array
 * pointing into the profile; free() it); NULL with *n = 0 when there are
 * none (src/wheel/verify_policy.c; the name is older than the file).
 */
struct profile;
struct wheel_exception *plan_exceptions(const struct profile *p, size_t *n);

struct wheel_expect {
	const struct strvec *sass; /* each CUDA library must carry these; NULL: no check */
	const struct strvec *ptx;
	const struct wheel_exception *exceptions;
	size_t nexceptions;
	int deep;                  /* decompress every fatbin entry and check its cubin */
	int cxx11_abi;             /* 1: _GLIBCXX_USE_CXX11_ABI=1 expected, 2: =0; 0: only consistency */
	const struct strvec *provided; /* sonames another package provides (torch's, --against); sorted set */
	unsigned threads;          /* members hashed in parallel; 0: every CPU */
	int cuda_libs;             /* enum cuda_libs_form (wheel/cudalibs.h); 0: told by the wheel */
};

/*
 * Verify `path`. Problems go into r->errors (the return is still 0); -1
 * only when the file cannot be read as a zip at all (reported).
 * `expect` may be NULL. A directory is taken as an installed package
 * (installed_verify).
 */
int wheel_verify(struct wheel_report *r, const char *path, const struct wheel_expect *expect);
void wheel_report_release(struct wheel_report *r);

/*
 * The manylinux_2_X_<arch> tag every library of `r` earns (auditwheel's
 * policy, src/formats/manylinux.c), or manylinux_2_<require> when `require` is not
 * 0 and the libraries allow it, into `tag`; `why` names the library that
 * decided it. -1 with the library and symbol version in `why` when none
 * (or not the required one) is earned.
 */
struct buf;
int wheel_platform_earned(const struct wheel_report *r, unsigned require, struct buf *tag,
			  struct buf *why);

/* A library's targets as one line: "SASS sm_90 sm_120; PTX compute_120" ("PTX none"). */
void wheel_lib_targets(const struct wheel_lib *l, struct buf *out);

/*
 * The same report for a package installed by pip (site-packages/torch):
 * its .dist-info next to it, every RECORD hash against the files on disk
 * (rows without a hash, such as .pyc files, skipped), and its libraries.
 * The report's filename is the .dist-info directory's name. -1 after
 * reporting when there is no such package.
 */
int installed_verify(struct wheel_report *r, const char *pkgdir, const struct wheel_expect *expect);

#endif
