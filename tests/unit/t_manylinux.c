#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/formats/elf.h"
#include "../../src/formats/manylinux.h"
#include "../../src/core/util.h"
#include "t.h"

static void
need(struct elf_dynamic *d, const char *file, const char *version)
{
	strvec_push(&d->vfile, file);
	strvec_push(&d->vname, version);
}

static struct manylinux_need n;

/* The policy, and in n what decides it. */
static unsigned
assess_on(unsigned machine, const char *const *versions)
{
	struct elf_dynamic d;

	memset(&d, 0, sizeof(d));
	strvec_init(&d.needed);
	strvec_init(&d.vfile);
	strvec_init(&d.vname);
	for (; *versions; versions++)
		need(&d, strncmp(*versions, "GLIBC_", 6) ? "libstdc++.so.6" : "libc.so.6", *versions);
	manylinux_assess(&d, machine, &n);
	elf_dynamic_release(&d);
	return n.min_glibc;
}

static unsigned
assess(const char *const *versions)
{
	return assess_on(EM_X86_64_, versions);
}

/*
 * auditwheel's aarch64 rows (manylinux-policy.json at 86154d1), not
 * x86_64's: GCC_4.8.0 is past 2_17 there, GCC_12.0.0 past 2_38,
 * GLIBC_2.18 still 2_17, GLIBCXX_3.4.22 is 2_24 (a row x86_64 lacks
 * here), CXXABI_FLOAT128 in no policy.
 */
static void
aarch64_rows(void)
{
	static const char *const gcc48[] = { "GLIBC_2.17", "GCC_4.8.0", NULL };
	static const char *const gcc12[] = { "GLIBC_2.34", "GLIBCXX_3.4.30", "GCC_12.0.0", NULL };
	static const char *const gcc11[] = { "GLIBC_2.34", "GLIBCXX_3.4.29", "GCC_11.0", NULL };
	static const char *const glibc218[] = { "GLIBC_2.17", "GLIBC_2.18", NULL };
	static const char *const cxx22[] = { "GLIBC_2.17", "GLIBCXX_3.4.22", NULL };
	static const char *const f128[] = { "GLIBC_2.17", "CXXABI_FLOAT128", NULL };

	CHECK(assess_on(EM_X86_64_, gcc48) == 17);
	CHECK(assess_on(EM_AARCH64_, gcc48) == 26);
	CHECK_STR(n.decides, "GCC_4.8.0");
	CHECK(assess_on(EM_X86_64_, gcc12) == 35);
	CHECK(assess_on(EM_AARCH64_, gcc12) == 39);
	CHECK(assess_on(EM_AARCH64_, gcc11) == 34);
	CHECK(assess_on(EM_X86_64_, glibc218) == 18);
	CHECK(assess_on(EM_AARCH64_, glibc218) == 17);
	CHECK(assess_on(EM_AARCH64_, cxx22) == 24);
	CHECK(assess_on(EM_X86_64_, f128) == 28);
	CHECK(assess_on(EM_AARCH64_, f128) == 0);
	CHECK_STR(n.blocker, "CXXABI_FLOAT128, which no aarch64 policy lists");
}

/* Which tags exist per arch, and what an extension's file name says it is for. */
static void
tags_per_arch(void)
{
	struct buf why = BUF_INIT;
	const char *arch;
	int musl;

	CHECK(manylinux_tag_exists("manylinux1_x86_64", &why) == 0);
	CHECK(manylinux_tag_exists("manylinux2014_aarch64", &why) == 0);
	CHECK(manylinux_tag_exists("manylinux_2_28_aarch64", &why) == 0);
	CHECK(manylinux_tag_exists("linux_armv7l", &why) == 0);
	CHECK(manylinux_tag_exists("musllinux_1_2_aarch64", &why) == 0);
	CHECK(manylinux_tag_exists("any", &why) == 0);
	CHECK(!why.len);
	CHECK(manylinux_tag_exists("manylinux1_aarch64", &why) == -1);
	CHECK_STR(why.s, "the platform tag 'manylinux1_aarch64' names no policy: aarch64 wheels start "
		  "at manylinux_2_17 (manylinux2014); manylinux1 and manylinux2010 are x86_64 and "
		  "i686 only");
	buf_reset(&why);
	CHECK(manylinux_tag_exists("manylinux_2_12_aarch64", &why) == -1);
	buf_reset(&why);
	CHECK(manylinux_tag_exists("linux_sparc", &why) == -1);
	CHECK(strstr(why.s, "'sparc'") != NULL);
	buf_release(&why);

	CHECK(manylinux_tag_glibc("musllinux_1_2_aarch64", &arch) == 0 && !strcmp(arch, "aarch64"));
	CHECK(manylinux_tag_glibc("musllinux_1_x_aarch64", &arch) == 0 && !arch);
	CHECK(platform_is_musl("musllinux_1_2_aarch64") && !platform_is_musl("manylinux2014_aarch64"));
	CHECK(manylinux_arch_machine("aarch64") == EM_AARCH64_);
	CHECK(manylinux_arch_machine("armv7l") == EM_ARM_);

	CHECK_STR(manylinux_suffix_arch("t/_C.cpython-311-x86_64-linux-gnu.so", &musl), "x86_64");
	CHECK(!musl);
	CHECK_STR(manylinux_suffix_arch("_C.cpython-313t-aarch64-linux-gnu.so", &musl), "aarch64");
	CHECK_STR(manylinux_suffix_arch("x.cpython-311-arm-linux-gnueabihf.so", &musl), "armv7l");
	CHECK_STR(manylinux_suffix_arch("x.cpython-312-aarch64-linux-musl.so", &musl), "aarch64");
	CHECK(musl);
	CHECK(manylinux_suffix_arch("x.abi3.so", &musl) == NULL);
	CHECK(manylinux_suffix_arch("libtorch.so", &musl) == NULL);
	CHECK(manylinux_suffix_arch("x.cpython-311.so", &musl) == NULL);
	CHECK(manylinux_suffix_arch("x.cpython-311-x86_64-linux-gnu.so.1", &musl) == NULL);

	{
		char spare[32];

		CHECK_STR(elf_machine_name(EM_X86_64_, spare, sizeof(spare)), "x86-64");
		CHECK_STR(elf_machine_name(EM_AARCH64_, spare, sizeof(spare)), "aarch64");
		CHECK_STR(elf_machine_name(99, spare, sizeof(spare)), "ELF machine 99");
	}
}

void
t_manylinux(void)
{
	static const char *const old[] = { "GLIBC_2.2.5", "GLIBC_2.14", "CXXABI_1.3", NULL };
	static const char *const new_glibc[] = { "GLIBC_2.2.5", "GLIBC_2.34", "GLIBC_2.4", NULL };
	static const char *const cxx[] = { "GLIBC_2.14", "GLIBCXX_3.4.21", "CXXABI_1.3.9", NULL };
	static const char *const gcc12[] = { "GLIBC_2.17", "GLIBCXX_3.4.30", NULL };
	static const char *const cxxabi[] = { "GLIBC_2.2.5", "CXXABI_1.3.9", NULL };
	static const char *const glibc_wins[] = { "GLIBC_2.34", "CXXABI_1.3.9", NULL };
	static const char *const private_[] = { "GLIBC_2.17", "GLIBC_PRIVATE", NULL };
	static const char *const future[] = { "GLIBCXX_3.4.40", NULL };
	const char *arch;

	aarch64_rows();
	tags_per_arch();
	CHECK(version_cmp("2.34", "2.4") > 0);
	CHECK(version_cmp("2.17", "2.17") == 0);
	CHECK(version_cmp("3.4.9", "3.4.19") < 0);
	CHECK(version_cmp("2.2.5", "2.2") > 0);

	CHECK(assess(old) == 17);
	CHECK_STR(n.decides, "");
	CHECK(assess(new_glibc) == 34);
	CHECK_STR(n.decides, "GLIBC_2.34");
	CHECK(assess(cxx) == 28);      /* GLIBCXX 3.4.21 is past 2_17's 3.4.19 */
	CHECK_STR(n.decides, "GLIBCXX_3.4.21");
	CHECK(assess(cxxabi) == 28);   /* issue 32: CXXABI_1.3.9 decides, not GLIBC 2.2.5 */
	CHECK_STR(n.decides, "CXXABI_1.3.9");
	/* gcc 12's libstdc++ (GLIBCXX_3.4.30) is auditwheel's 2_35, which Debian 12 (glibc 2.36) installs; it was 2_38. */
	CHECK(assess(gcc12) == 35);
	CHECK_STR(n.decides, "GLIBCXX_3.4.30");
	CHECK(assess(glibc_wins) == 34);
	CHECK_STR(n.decides, "GLIBC_2.34");
	CHECK(assess(private_) == 0);
	CHECK(assess(future) == 0);

	CHECK(manylinux_tag_glibc("manylinux_2_28_x86_64", &arch) == 28 && !strcmp(arch, "x86_64"));
	CHECK(manylinux_tag_glibc("manylinux2014_aarch64", &arch) == 17 && !strcmp(arch, "aarch64"));
	CHECK(manylinux_tag_glibc("manylinux1_x86_64", NULL) == 5);
	CHECK(manylinux_tag_glibc("linux_x86_64", &arch) == 0 && !strcmp(arch, "x86_64"));
	CHECK(manylinux_tag_glibc("manylinux_2__x86_64", NULL) == 0);
	CHECK(manylinux_arch_machine("x86_64") == EM_X86_64_);

	CHECK(soname_origin("libc.so.6") == SONAME_SYSTEM);
	CHECK(soname_origin("ld-linux-x86-64.so.2") == SONAME_SYSTEM);
	CHECK(soname_origin("libcudart.so.13") == SONAME_CUDA);
	CHECK(soname_origin("libcublasLt.so.12") == SONAME_CUDA);
	CHECK(soname_origin("libcuda.so.1") == SONAME_DRIVER);
	CHECK(soname_origin("libcudart_static.a") == SONAME_UNKNOWN);
	CHECK(soname_origin("libfoo.so") == SONAME_UNKNOWN);
}
