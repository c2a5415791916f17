#ifndef BWBUILD_MANYLINUX_H
#define BWBUILD_MANYLINUX_H

struct buf;
struct elf_dynamic;

/*
 * manylinux policy for one ELF library, after auditwheel's rules
 * (docs/design/formats.md §9): the highest GLIBC, GLIBCXX, CXXABI and GCC
 * symbol versions it needs from .gnu.version_r (ld-linux skipped), and
 * hence the oldest manylinux_2_X policy it satisfies.
 */
struct manylinux_need {
	char glibc[16];       /* "2.34", "" when none */
	char glibcxx[16];
	char cxxabi[16];
	char gcc[16];
	unsigned min_glibc;   /* X of the best policy manylinux_2_X; 0: none fits */
	/*
	 * The symbol version that sets min_glibc: "GLIBC_2.34", or
	 * "CXXABI_1.3.9" when the C++ runtime rules out an older policy (the
	 * glibc needed is then not what decides); "" at the oldest policy.
	 */
	char decides[48];
	char blocker[160];    /* why none fits: "GLIBC_PRIVATE", "GLIBCXX_3.4.33" */
};

/* `machine` (e_machine) picks the architecture's policy rows: auditwheel keeps them per arch. */
void manylinux_assess(const struct elf_dynamic *d, unsigned machine, struct manylinux_need *n);

/*
 * The glibc minor a platform tag claims: manylinux_2_28_x86_64 -> 28,
 * manylinux2014_* -> 17, manylinux2010_* -> 12, manylinux1_* -> 5;
 * 0 for tags that claim nothing (linux_x86_64, musllinux_1_2_aarch64).
 * `arch` gets the tag's architecture ("x86_64") when not NULL.
 */
unsigned manylinux_tag_glibc(const char *platform, const char **arch);

/* ELF e_machine of a platform tag's architecture (x86_64, aarch64, armv7l ...), 0 when unknown. */
unsigned manylinux_arch_machine(const char *arch);

/* 1 for a musllinux_X_Y_ARCH tag: a wheel for musl systems, which cannot load glibc's libraries. */
int platform_is_musl(const char *platform);

/*
 * -1 with why into `why` when a Linux platform tag names no policy that
 * exists: manylinux1 and manylinux2010 are x86_64 and i686 only, every
 * other architecture starts at manylinux2014 (its glibc port's first
 * policy); an architecture no tag has. 0 otherwise (also for tags that
 * are not Linux ones: "any", "win_amd64").
 */
int manylinux_tag_exists(const char *platform, struct buf *why);

/*
 * The architecture, spelt as in platform tags, that a CPython extension's
 * file name is for: "x86_64" for "pkg/_C.cpython-311-x86_64-linux-gnu.so",
 * "armv7l" for "...-arm-linux-gnueabihf.so"; NULL when the name has no
 * such suffix (".abi3.so", plain libraries). `*musl` 1 for "-linux-musl".
 */
const char *manylinux_suffix_arch(const char *name, int *musl);

/*
 * Where a needed soname may come from outside the wheel: SONAME_SYSTEM for
 * the manylinux allow-list (and the dynamic loader), SONAME_CUDA for
 * libraries that nvidia-* wheels provide, SONAME_DRIVER for libcuda.so.1
 * and libnvidia-ml.so.1 (the driver's, never bundled), SONAME_UNKNOWN
 * otherwise.
 */
enum soname_origin { SONAME_UNKNOWN, SONAME_SYSTEM, SONAME_CUDA, SONAME_DRIVER };
enum soname_origin soname_origin(const char *soname);

/* Numeric comparison of dotted versions: "2.34" > "2.4". */
int version_cmp(const char *a, const char *b);

#endif
