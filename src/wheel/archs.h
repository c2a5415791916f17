#ifndef BWBUILD_ARCHS_H
#define BWBUILD_ARCHS_H

#include <stddef.h>
#include <stdint.h>

/*
 * `bwbuild archs`: which GPU targets each library really carries, the
 * question people ask `cuobjdump --list-elf --list-ptx`. Only the fatbin
 * headers are read (.nv_fatbin, and __nv_relfatbin reported apart): no
 * hashing, no decompression of fatbin entries, and mapped pages are
 * dropped as the walk passes them so memory stays small whatever the
 * library's size.
 */

/* A target and how many fatbin entries carry it: "sm_90" x 444. */
struct target_count {
	char *name;
	unsigned n;
};

/* Natural order (sm_90 before sm_100), one row per name. */
struct target_counts {
	struct target_count *v;
	size_t n, cap;
};

struct archs_lib {
	char *path;                  /* FILE, DIR/relative, or WHEEL:member */
	struct target_counts sass;   /* .nv_fatbin */
	struct target_counts ptx;
	struct target_counts rel_sass; /* __nv_relfatbin: relocatable device code */
	struct target_counts rel_ptx;
	unsigned containers, rel_containers;
	unsigned other;              /* entries that are neither SASS nor PTX */
	int has_cuda;                /* either section present */
	char *error;                 /* why it could not be read; NULL when it was */
};

struct archs_report {
	struct archs_lib *libs;      /* sorted by path */
	size_t n;
	size_t files;                /* ELF files looked at */
};

/*
 * Scan each of `paths`: an ELF file or a bare fatbin file, a directory
 * (every *.so / *.so.* below it, symbolic links not followed), or a wheel
 * (its library members, inflated one at a time per thread). `threads` 0:
 * one per CPU. -1 after reporting a path that does not exist or cannot be
 * read at all; problems with one library are in its `error`.
 */
int archs_scan(struct archs_report *r, char *const *paths, size_t npaths, unsigned threads);
void archs_report_release(struct archs_report *r);

/* One library from its bytes (exposed for tests and the fuzz target). */
void archs_scan_bytes(struct archs_lib *l, const uint8_t *data, size_t len, int drop_pages);
void archs_lib_release(struct archs_lib *l);

/* "sm_75 (444)  sm_80 (444)" or "none". */
struct buf;
void target_counts_format(const struct target_counts *c, struct buf *out);

#endif
