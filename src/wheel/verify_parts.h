#ifndef BWBUILD_VERIFY_PARTS_H
#define BWBUILD_VERIFY_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/hash.h"
#include "core/strvec.h"

/*
 * What the files of wheel verification share, and nothing outside them
 * includes (the public side is wheel/verify.h): verify.c walks a wheel or
 * an installed package; verify_record.c checks RECORD and turns its rows
 * into jobs; verify_members.c runs the jobs on every core; verify_policy.c
 * judges the libraries. Only pointers to the report pass, so this header
 * does not include verify.h.
 */
struct buf;
struct record_row;
struct wheel_expect;
struct wheel_lib;
struct wheel_report;
struct zip;
struct zip_entry;

/* A text member kept for the report (macros.h, version.py) is at most this big. */
#define MAX_TEXT_BYTES (16ULL << 20)

/* One member RECORD lists (a row with a hash): read, hashed and scanned on some core. */
struct job {
	const char *name;             /* the RECORD path */
	const struct zip_entry *e;    /* in a wheel, or */
	char *file;                   /* an installed file on disk */
	uint64_t order_size;          /* for scheduling */
	const struct record_row *row;
	char algo[16];
	uint8_t want[DIGEST_MAX];
	size_t want_len;
	unsigned long long size;
	int keep_text;
	/* results, merged in RECORD order */
	struct strvec errors;
	struct wheel_lib *lib;
	char *text;
	uint64_t got;
};

/* verify_record.c */
/* Whether member `name` is <dist_info>/<file>. */
int verify_is_dist_info_file(const char *name, const char *dist_info, const char *file);
/* The archive's members sorted by name; dup[i] set for each name seen before. */
size_t *verify_names_index(const struct zip *z, char *dup);
/*
 * Check every RECORD row and turn each hashed one into a job: a zip member
 * (z, looked up through `names`, marked in seen_rows) or, for an installed
 * package, a file under `root`. Returns the number of jobs.
 */
size_t verify_plan_jobs(struct wheel_report *r, const struct record_row *rows, size_t nrows,
			const char *record_name, const char *dist_info, const struct zip *z,
			const size_t *names, char *seen_rows, const char *root, struct job *jobs);
/* The jobs' results into the report, in RECORD order, so reports do not depend on timing. */
void verify_merge_jobs(struct wheel_report *r, struct job *jobs, size_t njobs);

/* verify_members.c: the jobs on `threads` cores (0: every CPU), biggest first. */
void verify_run_jobs(const struct zip *z, struct job *jobs, size_t n, unsigned threads, int deep);

/* verify_policy.c */
/* Needed libraries, RUNPATHs, bundled driver libraries and the platform tag. */
void verify_libraries(struct wheel_report *r, char *const *paths, size_t npaths,
		      const struct strvec *provided);
/* verify_cuda.c: CUDA's libraries, pip form or the machine's; `root` is site-packages when installed. */
void verify_cuda_libs(struct wheel_report *r, char *const *paths, size_t npaths,
		      const struct wheel_expect *opts, const char *root);
/* _GLIBCXX_USE_CXX11_ABI: 1 expected, 2: =0 expected, 0: only consistency. */
void verify_cxx_abi(struct wheel_report *r, int expect);
/* The SASS/PTX targets `opts` asks for, with its exceptions. */
void verify_coverage(struct wheel_report *r, const struct wheel_expect *opts);

#endif
