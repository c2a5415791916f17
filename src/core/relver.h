#ifndef BWBUILD_RELVER_H
#define BWBUILD_RELVER_H

struct buf;

/*
 * A release version as bwbuild compares them: torch 2.11.0, torchvision
 * 0.26, CUDA 13.0.88, the bounds of a patch's `when`. Only the numbers
 * count: a pre-release or local suffix ("2.6.0a0+gitabc", "2.11.0+cu130")
 * is the release it names, as a release branch's version.txt says
 * "2.6.0a0" at the tag v2.6.0. PEP 440 order (2.6.0a0 < 2.6.0) is
 * host/pyreqs.h's, through the build Python's packaging; ELF symbol versions
 * (GLIBC_2.2.5) are formats/manylinux.h's version_cmp, where a missing
 * component is lower, not "any". (core/version.h is bwbuild's own
 * version, a macro.)
 */
struct relver {
	unsigned major, minor, patch;
	int has_patch; /* "2.6" stands for every 2.6.x; "2.6.0" for one */
};

/*
 * "v2.11.1", "2.11", "2.6.0a0+gitabc" -> the numbers; 0, or -1 when `s`
 * (NULL allowed) does not open with MAJOR.MINOR (`v` zeroed). `end` (may
 * be NULL) gets what follows the numbers.
 */
int relver_parse(const char *s, struct relver *v, const char **end);
/*
 * <0, 0, >0. Patch levels count only when both sides have one: "2.6" is
 * equal to 2.6.0 and to 2.6.3 (a bound of "<=2.6" takes every 2.6.x),
 * while 2.6.1 is above 2.6.0.
 */
int relver_cmp(const struct relver *a, const struct relver *b);
/* Whether `v` is known (not the zero version a failed parse leaves). */
int relver_known(const struct relver *v);
/* "2.11" (with_patch 0, or no patch level), "2.11.1". */
void relver_format(const struct relver *v, int with_patch, struct buf *out);
/* major*100+minor (2.11 -> 211, CUDA 13.0 -> 1300): the keys of tables by minor release. */
unsigned relver_key(const struct relver *v);

#endif
