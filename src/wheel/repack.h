#ifndef BWBUILD_REPACK_H
#define BWBUILD_REPACK_H

#include <stddef.h>

struct buf;
struct strvec;

/*
 * A wheel rewritten the same way every time: members in a fixed order
 * (the package's files by name, then .dist-info's with RECORD last), one
 * timestamp (SOURCE_DATE_EPOCH), modes 0644 or 0755, no extra fields, no
 * data descriptors; member data copied as compressed, never recompressed.
 * With a platform tag, WHEEL's Tag lines, the file name and RECORD's row
 * for WHEEL follow it; with `requires`, METADATA's requirement on that
 * package (and RECORD's row for METADATA). With `files`, those members
 * come from files (deflated at level 6, the same bytes every time) and
 * RECORD's rows follow them: replaced rows in place, added ones before
 * RECORD's own row.
 */
/* A member taken from a file instead of the wheel: it replaces the member of that name, or is added. */
struct repack_file {
	const char *member;    /* "torch/lib/libtorch_cpu.so", "torch.libs/libgomp-0123abcd.so.1" */
	const char *path;      /* the file's bytes, deflated into the wheel */
	unsigned mode;         /* 0644 or 0755 */
};

struct repack_opts {
	const char *platform;  /* "manylinux_2_28_x86_64"; NULL keeps the wheel's */
	long long epoch;       /* every member's time; before 1980 (or < 0): 1980-01-01 */
	const char *requires_name; /* METADATA's Requires-Dist on this package ... */
	const char *requires;      /* ... becomes this ("torch==2.11.0+cu130"), added if absent */
	const struct strvec *add_requires; /* whole Requires-Dist values, each replacing one on its package */
	const struct repack_file *files; /* members replaced or added (RECORD follows them) */
	size_t nfiles;
};

/*
 * Rewrite the wheel at `in` into the directory `dir` (a temporary name,
 * then renamed: `in` itself is replaced when the name stays the same);
 * its path into `out`. -1 with the reason in `why`.
 */
int wheel_repack(const char *in, const char *dir, const struct repack_opts *o, struct buf *out,
		 struct buf *why);

/* The wheel file name `filename` with its platform tag replaced by `platform`, into `out`. */
int wheel_name_with_platform(const char *filename, const char *platform, struct buf *out);

#endif
