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

void manylinux_assess(const struct elf_dynamic *d, struct manylinux_need *n);

/*
 * The glibc minor a platform tag claims: manylinux_2_28_x86_64 -> 28,
 * manylinux2014_* -> 17, manylinux2010_* -> 12, manylinux1_* -> 5;
 * 0 for tags that claim nothing (linux_x86_64). `arch` gets the tag's
 * architecture ("x86_64") when not NULL.
 */
unsigned manylinux_tag_glibc(const char *platform, const char **arch);

/* ELF e_machine of a platform tag's architecture, 0 when unknown. */
unsigned manylinux_arch_machine(const char *arch);

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
