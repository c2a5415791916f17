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
assess(const char *const *versions)
{
	struct elf_dynamic d;

	memset(&d, 0, sizeof(d));
	strvec_init(&d.needed);
	strvec_init(&d.vfile);
	strvec_init(&d.vname);
	for (; *versions; versions++)
		need(&d, strncmp(*versions, "GLIBC_", 6) ? "libstdc++.so.6" : "libc.so.6", *versions);
	manylinux_assess(&d, &n);
	elf_dynamic_release(&d);
	return n.min_glibc;
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
