#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "formats/elf.h"
#include "formats/manylinux.h"
#include "core/util.h"

/*
 * C++ runtime limits per policy, x86_64, from auditwheel's
 * manylinux-policy.json (docs/design/formats.md §9; 2_38 read from the file
 * at auditwheel 2d1ad63, 2_31 to 2_36 and 2_39 at 86154d1). Without the
 * rows between 2_28 and 2_38 a library of gcc 12 (GLIBCXX_3.4.30: Debian
 * 12, Ubuntu 22.04) was tagged manylinux_2_38, which pip refuses on the
 * very glibc 2.36 machine that built it; auditwheel gives it 2_35. auditwheel tests set membership; for the
 * runtime libraries every listed version up to the maximum is present, so
 * a maximum is the same test. Policies between two rows are judged by the
 * lower row (stricter, never wrongly permissive).
 */
static const struct policy {
	unsigned glibc;
	const char *glibcxx, *cxxabi, *gcc;
} policies[] = {
	{ 17, "3.4.19", "1.3.7", "4.8.0" },
	{ 28, "3.4.24", "1.3.11", "7.0.0" },
	{ 31, "3.4.28", "1.3.12", "7.0.0" },
	{ 34, "3.4.29", "1.3.13", "7.0.0" },
	{ 35, "3.4.30", "1.3.13", "12.0.0" },
	{ 36, "3.4.30", "1.3.13", "12.0.0" },
	{ 38, "3.4.30", "1.3.13", "12.0.0" },
	{ 39, "3.4.33", "1.3.15", "14.0.0" },
};

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
manylinux_assess(const struct elf_dynamic *d, struct manylinux_need *n)
{
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
			else if (!strcmp(us, "FLOAT128") && floor < 28) {
				floor = 28; /* not in the 2_17 policy */
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
	if (glibc_minor > floor) {
		floor = glibc_minor;
		floor_by = "";
		snprintf(n->decides, sizeof(n->decides), "GLIBC_%s", n->glibc);
	} else {
		snprintf(n->decides, sizeof(n->decides), "%s", floor_by);
	}
	for (i = 0; i < ARRAY_SIZE(policies); i++) {
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
	return 0;
}

unsigned
manylinux_arch_machine(const char *arch)
{
	if (!arch)
		return 0;
	if (!strcmp(arch, "x86_64"))
		return EM_X86_64_;
	if (!strcmp(arch, "aarch64"))
		return EM_AARCH64_;
	return 0;
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
