#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "formats/elf.h"
#include "formats/manylinux.h"
#include "core/util.h"

/*
 * C++ runtime limits per policy and architecture, from auditwheel's
 * manylinux-policy.json (docs/design/formats.md §9; x86_64's 2_38 read
 * from the file at auditwheel 2d1ad63, 2_31 to 2_36 and 2_39 at 86154d1,
 * aarch64's every row at 86154d1). Without the rows between 2_28 and 2_38
 * a library of gcc 12 (GLIBCXX_3.4.30: Debian 12, Ubuntu 22.04) was tagged
 * manylinux_2_38, which pip refuses on the very glibc 2.36 machine that
 * built it; auditwheel gives it 2_35. auditwheel tests set membership; for
 * the runtime libraries every listed version up to the maximum is present,
 * so a maximum is the same test. Policies between two rows are judged by
 * the lower row (stricter, never wrongly permissive).
 *
 * auditwheel keeps rows per architecture because the runtimes differ:
 * aarch64's libgcc_s has no GCC_4.8.0 and its 2_34 to 2_38 stop at
 * GCC_11.0 where x86_64's allow GCC_12.0.0; CXXABI_FLOAT128 exists only
 * where long double is not already IEEE quad (never on aarch64); and
 * manylinux2014_aarch64 lists GLIBC_2.18, so a library that needs it is
 * still 2_17 there. aarch64 rows equal to the one before are left out.
 */
struct policy {
	unsigned glibc;
	const char *glibcxx, *cxxabi, *gcc;
};

static const struct policy x86_64_rows[] = {
	{ 17, "3.4.19", "1.3.7", "4.8.0" },
	{ 28, "3.4.24", "1.3.11", "7.0.0" },
	{ 31, "3.4.28", "1.3.12", "7.0.0" },
	{ 34, "3.4.29", "1.3.13", "7.0.0" },
	{ 35, "3.4.30", "1.3.13", "12.0.0" },
	{ 36, "3.4.30", "1.3.13", "12.0.0" },
	{ 38, "3.4.30", "1.3.13", "12.0.0" },
	{ 39, "3.4.33", "1.3.15", "14.0.0" },
};

static const struct policy aarch64_rows[] = {
	{ 17, "3.4.19", "1.3.7", "4.7.0" },
	{ 24, "3.4.22", "1.3.10", "4.7.0" },
	{ 26, "3.4.24", "1.3.11", "7.0.0" },
	{ 31, "3.4.28", "1.3.12", "7.0.0" },
	{ 34, "3.4.29", "1.3.13", "11.0" },
	{ 35, "3.4.30", "1.3.13", "11.0" },
	{ 39, "3.4.33", "1.3.15", "14.0.0" },
};

struct arch_rows {
	unsigned machine;
	const struct policy *rows;
	size_t n;
	unsigned float128_from;   /* the first policy with CXXABI_FLOAT128; 0: none */
	unsigned glibc_2_17_max;  /* the newest GLIBC_2.X the 2_17 policy lists */
};

static const struct arch_rows arches[] = {
	{ EM_AARCH64_, aarch64_rows, ARRAY_SIZE(aarch64_rows), 0, 18 },
	/* x86_64, and what bwbuild has no rows of: judged by x86_64's, as before. */
	{ 0, x86_64_rows, ARRAY_SIZE(x86_64_rows), 28, 17 },
};

static const struct arch_rows *
rows_of(unsigned machine)
{
	for (size_t i = 0; i + 1 < ARRAY_SIZE(arches); i++)
		if (arches[i].machine == machine)
			return &arches[i];
	return &arches[ARRAY_SIZE(arches) - 1];
}

int
version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);

		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		else if (*a)
			break;
		if (*b == '.')
			b++;
		else if (*b)
			break;
	}
	return strcmp(a, b);
}

static int
is_numeric_version(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s >= '0' && *s <= '9') && *s != '.')
			return 0;
	return 1;
}

static void
keep_max(char *slot, size_t size, const char *v)
{
	if (!*slot || version_cmp(v, slot) > 0)
		snprintf(slot, size, "%s", v);
}

static int
is_loader(const char *file)
{
	return !strncmp(file, "ld-linux", 8) || !strncmp(file, "ld64.so", 7);
}

static int
policy_allows(const struct policy *p, const struct manylinux_need *n)
{
	return (!*n->glibcxx || version_cmp(n->glibcxx, p->glibcxx) <= 0) &&
	       (!*n->cxxabi || version_cmp(n->cxxabi, p->cxxabi) <= 0) &&
	       (!*n->gcc || version_cmp(n->gcc, p->gcc) <= 0);
}

/* The first of the C++ runtime's versions past what policy `p` allows, as "CXXABI_1.3.9". */
static void
past_policy(const struct policy *p, const struct manylinux_need *n, char *out, size_t size)
{
	if (*n->glibcxx && version_cmp(n->glibcxx, p->glibcxx) > 0)
		snprintf(out, size, "GLIBCXX_%s", n->glibcxx);
	else if (*n->cxxabi && version_cmp(n->cxxabi, p->cxxabi) > 0)
		snprintf(out, size, "CXXABI_%s", n->cxxabi);
	else if (*n->gcc && version_cmp(n->gcc, p->gcc) > 0)
		snprintf(out, size, "GCC_%s", n->gcc);
}

void
manylinux_assess(const struct elf_dynamic *d, unsigned machine, struct manylinux_need *n)
{
	const struct arch_rows *a = rows_of(machine);
	const struct policy *policies = a->rows;
	unsigned floor = 17, glibc_minor = 0;
	const char *floor_by = "";
	size_t i;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < d->vname.n; i++) {
		const char *v = d->vname.v[i], *us = strchr(v, '_');
		size_t plen;

		if (is_loader(d->vfile.v[i]) || !us)
			continue;
		plen = (size_t)(us - v);
		us++;
		if (plen == 5 && !strncmp(v, "GLIBC", 5)) {
			if (is_numeric_version(us))
				keep_max(n->glibc, sizeof(n->glibc), us);
			else if (!strcmp(us, "ABI_DT_RELR") && floor < 36) {
				floor = 36; /* glibc 2.36 added DT_RELR */
				floor_by = "GLIBC_ABI_DT_RELR";
			}
			else if (!*n->blocker)
				snprintf(n->blocker, sizeof(n->blocker), "%s", v);
		} else if (plen == 7 && !strncmp(v, "GLIBCXX", 7) && is_numeric_version(us)) {
			keep_max(n->glibcxx, sizeof(n->glibcxx), us);
		} else if (plen == 6 && !strncmp(v, "CXXABI", 6)) {
			if (is_numeric_version(us))
				keep_max(n->cxxabi, sizeof(n->cxxabi), us);
			else if (!strcmp(us, "FLOAT128") && !a->float128_from && !*n->blocker)
				snprintf(n->blocker, sizeof(n->blocker), "%s, which no aarch64 policy "
					 "lists", v);
			else if (!strcmp(us, "FLOAT128") && floor < a->float128_from) {
				floor = a->float128_from; /* not in the 2_17 policy */
				floor_by = "CXXABI_FLOAT128";
			}
		} else if (plen == 3 && !strncmp(v, "GCC", 3) && is_numeric_version(us)) {
			keep_max(n->gcc, sizeof(n->gcc), us);
		}
	}
	if (*n->blocker)
		return;
	if (*n->glibc && !strncmp(n->glibc, "2.", 2))
		glibc_minor = (unsigned)strtoul(n->glibc + 2, NULL, 10);
	if (glibc_minor > 17 && glibc_minor <= a->glibc_2_17_max)
		glibc_minor = 17;
	if (glibc_minor > floor) {
		floor = glibc_minor;
		floor_by = "";
		snprintf(n->decides, sizeof(n->decides), "GLIBC_%s", n->glibc);
	} else {
		snprintf(n->decides, sizeof(n->decides), "%s", floor_by);
	}
	for (i = 0; i < a->n; i++) {
		if (policy_allows(&policies[i], n)) {
			n->min_glibc = floor > policies[i].glibc ? floor : policies[i].glibc;
			/* An older policy was ruled out by the C++ runtime, not by glibc. */
			if (i && policies[i].glibc > floor)
				past_policy(&policies[i - 1], n, n->decides, sizeof(n->decides));
			return;
		}
	}
	n->decides[0] = '\0';
	snprintf(n->blocker, sizeof(n->blocker), "GLIBCXX_%s / CXXABI_%s / GCC_%s, newer than any "
		 "policy bwbuild knows", *n->glibcxx ? n->glibcxx : "-",
		 *n->cxxabi ? n->cxxabi : "-", *n->gcc ? n->gcc : "-");
}

/*
 * The architectures of platform tags (auditwheel's policy files), their
 * e_machine, the first glibc of a manylinux policy for them (manylinux1
 * and manylinux2010 are x86_64 and i686 only; every other port starts at
 * manylinux2014), and the first word of CPython's multiarch triplet for
 * them (the extension suffix: ".cpython-311-aarch64-linux-gnu.so").
 */
static const struct tag_arch {
	const char *arch;
	unsigned machine;
	unsigned first_glibc;
	const char *triplet;
} tag_arches[] = {
	{ "x86_64", EM_X86_64_, 5, "x86_64" },
	{ "i686", EM_386_, 5, "i386" },
	{ "aarch64", EM_AARCH64_, 17, "aarch64" },
	{ "armv7l", EM_ARM_, 17, "arm" },
	{ "ppc64le", EM_PPC64_, 17, "powerpc64le" },
	{ "ppc64", EM_PPC64_, 17, "powerpc64" },
	{ "s390x", EM_S390_, 17, "s390x" },
	{ "riscv64", EM_RISCV_, 31, "riscv64" },
	{ "loongarch64", EM_LOONGARCH_, 36, "loongarch64" },
};

static const struct tag_arch *
tag_arch(const char *arch)
{
	for (size_t i = 0; arch && i < ARRAY_SIZE(tag_arches); i++)
		if (!strcmp(arch, tag_arches[i].arch))
			return &tag_arches[i];
	return NULL;
}

unsigned
manylinux_arch_machine(const char *arch)
{
	const struct tag_arch *t = tag_arch(arch);

	return t ? t->machine : 0;
}

int
platform_is_musl(const char *platform)
{
	return !strncmp(platform, "musllinux_", 10);
}

/* The architecture of a musllinux_X_Y_ARCH tag, NULL when malformed. */
static const char *
musl_arch(const char *platform)
{
	const char *p = platform + 10;

	for (int i = 0; i < 2; i++) {
		if (*p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != '_')
			return NULL;
	}
	return *p ? p : NULL;
}

unsigned
manylinux_tag_glibc(const char *platform, const char **arch)
{
	static const struct { const char *prefix; unsigned glibc; } legacy[] = {
		{ "manylinux2014_", 17 }, { "manylinux2010_", 12 }, { "manylinux1_", 5 },
	};
	size_t i;

	if (arch)
		*arch = NULL;
	for (i = 0; i < ARRAY_SIZE(legacy); i++) {
		size_t n = strlen(legacy[i].prefix);

		if (!strncmp(platform, legacy[i].prefix, n)) {
			if (arch)
				*arch = platform + n;
			return legacy[i].glibc;
		}
	}
	if (!strncmp(platform, "manylinux_2_", 12)) {
		char *end;
		unsigned long minor = strtoul(platform + 12, &end, 10);

		if (*end == '_' && end > platform + 12 && minor < 1000) {
			if (arch)
				*arch = end + 1;
			return (unsigned)minor;
		}
	}
	if (!strncmp(platform, "linux_", 6) && arch)
		*arch = platform + 6;
	if (platform_is_musl(platform) && arch)
		*arch = musl_arch(platform);
	return 0;
}

int
manylinux_tag_exists(const char *platform, struct buf *why)
{
	const char *arch;
	unsigned claim = manylinux_tag_glibc(platform, &arch);
	const struct tag_arch *t = tag_arch(arch);

	if (!arch && strncmp(platform, "manylinux", 9) && strncmp(platform, "musllinux_", 10) &&
	    strncmp(platform, "linux_", 6))
		return 0;
	if (!arch) {
		buf_addf(why, "the platform tag '%s' is malformed: it names no architecture",
			 platform);
		return -1;
	}
	if (!t) {
		buf_addf(why, "the platform tag '%s' names architecture '%s', which no manylinux "
			 "or musllinux policy has", platform, arch);
		return -1;
	}
	if (claim && claim < t->first_glibc) {
		buf_addf(why, "the platform tag '%s' names no policy: %s wheels start at "
			 "manylinux_2_%u%s", platform, arch, t->first_glibc,
			 t->first_glibc == 17 ? " (manylinux2014); manylinux1 and manylinux2010 "
			 "are x86_64 and i686 only" : "");
		return -1;
	}
	return 0;
}

const char *
manylinux_suffix_arch(const char *name, int *musl)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	const char *c = strstr(base, ".cpython-"), *triplet, *end;
	size_t n = strlen(base);

	*musl = 0;
	if (!c || n < 3 || strcmp(base + n - 3, ".so"))
		return NULL;
	triplet = strchr(c + 9, '-');
	end = base + n - 3;
	if (!triplet || triplet >= end)
		return NULL;
	triplet++;
	for (size_t i = 0; i < ARRAY_SIZE(tag_arches); i++) {
		size_t k = strlen(tag_arches[i].triplet);

		if ((size_t)(end - triplet) > k && !strncmp(triplet, tag_arches[i].triplet, k) &&
		    !strncmp(triplet + k, "-linux-", 7)) {
			*musl = !strncmp(triplet + k + 7, "musl", 4);
			return tag_arches[i].arch;
		}
	}
	return NULL;
}

/* auditwheel's lib_whitelist for manylinux_2_28 (2_17 lacks libmvec). */
static const char *const system_libs[] = {
	"libatomic.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libm.so.6", "libmvec.so.1",
	"libanl.so.1", "libdl.so.2", "librt.so.1", "libc.so.6", "libnsl.so.1", "libutil.so.1",
	"libpthread.so.0", "libX11.so.6", "libXext.so.6", "libXrender.so.1", "libICE.so.6",
	"libSM.so.6", "libGL.so.1", "libgobject-2.0.so.0", "libgthread-2.0.so.0",
	"libglib-2.0.so.0", "libresolv.so.2", "libexpat.so.1", "libz.so.1",
};

/*
 * Sonames that nvidia-* wheels (the CUDA 12 and 13 runtime, math
 * libraries, cuDNN, NCCL, NVSHMEM, cuSPARSELt, cuFile) install and that
 * torch's RUNPATH points at; matched on the part before ".so".
 */
static const char *const cuda_libs[] = {
	"libcudart", "libcublas", "libcublasLt", "libcudnn", "libcudnn_graph", "libcudnn_ops",
	"libcudnn_cnn", "libcudnn_adv", "libcudnn_heuristic", "libcudnn_engines_precompiled",
	"libcudnn_engines_runtime_compiled", "libnccl", "libcusparse", "libcusparseLt",
	"libcufft", "libcufftw", "libcurand", "libcusolver", "libcusolverMg", "libcufile",
	"libcufile_rdma", "libnvJitLink", "libnvrtc", "libnvrtc-builtins", "libnvToolsExt",
	"libnvtx3interop", "libcupti", "libnvperf_host", "libnvshmem_host", "libnvjpeg",
	"libnpp", "libcudss",
};

enum soname_origin
soname_origin(const char *soname)
{
	const char *dot = strstr(soname, ".so");
	size_t i, stem;

	if (!strcmp(soname, "libcuda.so.1") || !strcmp(soname, "libcuda.so") ||
	    !strcmp(soname, "libnvidia-ml.so.1"))
		return SONAME_DRIVER;
	if (is_loader(soname))
		return SONAME_SYSTEM;
	for (i = 0; i < ARRAY_SIZE(system_libs); i++)
		if (!strcmp(soname, system_libs[i]))
			return SONAME_SYSTEM;
	if (!dot)
		return SONAME_UNKNOWN;
	stem = (size_t)(dot - soname);
	for (i = 0; i < ARRAY_SIZE(cuda_libs); i++)
		if (strlen(cuda_libs[i]) == stem && !strncmp(soname, cuda_libs[i], stem))
			return SONAME_CUDA;
	return SONAME_UNKNOWN;
}
