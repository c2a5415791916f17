/*
 * The doctor's checks of the libraries a profile's features need on a
 * machine (doctor.h): cuDNN's and NCCL's headers and shared objects where
 * PyTorch's CMake looks for them, nvml.h that c10_cuda includes, and the
 * BLAS (doctor_needs.c).
 * May include: core/, formats/, host/, profile/, sources/, pipeline/.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/strvec.h"
#include "core/util.h"
#include "host/host.h"
#include "pipeline/doctor.h"
#include "profile/profile.h"

/*
 * Where a library's header and shared object may be, on `h`: its own
 * hints first (what PyTorch's FindCUDNN/FindNCCL read: CUDNN_INCLUDE_DIR,
 * CUDNN_LIB_DIR, CUDNN_ROOT_DIR and NCCL's likewise), then the toolkit
 * (include/, lib64/, and targets/<x86_64-linux|sbsa-linux>/, where
 * NVIDIA's packages put them), then the system's directories with the
 * machine's own multiarch triplet: NVIDIA's arm64 cuDNN and NCCL packages
 * install into /usr/lib/aarch64-linux-gnu, never x86_64's.
 */
static void
library_dirs(const struct doctor_host *h, const char *cuda_home, const char *hint, int lib,
	     struct strvec *dirs)
{
	const char *triplet = host_triplet_of(h->machine);
	const char *target = host_cuda_target_of(h->machine);
	const char *sub = lib ? "lib" : "include";
	struct buf var = BUF_INIT;
	const char *v;

	buf_addf(&var, "%s_%s", hint, lib ? "LIB_DIR" : "INCLUDE_DIR");
	if ((v = getenv(var.s)) && *v)
		strvec_push(dirs, v);
	buf_reset(&var);
	buf_addf(&var, "%s_ROOT_DIR", hint);
	if ((v = getenv(var.s)) && *v) {
		strvec_pushf(dirs, "%s/%s", v, sub);
		if (lib)
			strvec_pushf(dirs, "%s/lib64", v);
	}
	buf_release(&var);
	if (lib)
		strvec_pushf(dirs, "%s/lib64", cuda_home);
	strvec_pushf(dirs, "%s/%s", cuda_home, sub);
	if (target)
		strvec_pushf(dirs, "%s/targets/%s/%s", cuda_home, target, sub);
	if (lib) {
		if (triplet)
			strvec_pushf(dirs, "%s/usr/lib/%s", h->root, triplet);
		strvec_pushf(dirs, "%s/usr/lib64", h->root);
		strvec_pushf(dirs, "%s/usr/lib", h->root);
	} else {
		strvec_pushf(dirs, "%s/usr/include", h->root);
		if (triplet)
			strvec_pushf(dirs, "%s/usr/include/%s", h->root, triplet);
	}
}

static int
any_exists(const struct strvec *dirs, const char *file, struct buf *found)
{
	for (size_t i = 0; i < dirs->n; i++) {
		buf_reset(found);
		buf_addf(found, "%s/%s", dirs->v[i], file);
		if (path_exists(found->s))
			return 1;
	}
	return 0;
}

static void
check_library(struct doctor *d, const struct profile *p, enum feature f, const char *cuda_home,
	      const struct doctor_host *host, const char *hint, const char *header,
	      const char *lib, const char *pkg)
{
	struct strvec inc = STRVEC_INIT, libs = STRVEC_INIT;
	struct buf h = BUF_INIT, l = BUF_INIT, where = BUF_INIT;
	const char *key = feature_table[f].key;

	if (!p || p->features[f] != TRI_ON)
		return;
	library_dirs(host, cuda_home, hint, 0, &inc);
	library_dirs(host, cuda_home, hint, 1, &libs);
	if (!any_exists(&inc, header, &h)) {
		strvec_join(&inc, ", ", &where);
		doctor_add(d, CHECK_FAIL, key, "features.%s is on (%s:%d) but no %s was found (in %s); "
		           "install %s, name its directory in %s_INCLUDE_DIR, or set features.%s: off",
		           key, p->feature_loc[f].file, p->feature_loc[f].line, header, where.s, pkg, hint,
		           key);
	} else if (!any_exists(&libs, lib, &l)) {
		strvec_join(&libs, ", ", &where);
		doctor_add(d, CHECK_FAIL, key, "found %s but no %s (in %s); install %s, or name its "
		           "directory in %s_LIB_DIR", h.s, lib, where.s, pkg, hint);
	} else {
		doctor_add(d, CHECK_OK, key, "%s and %s", h.s, l.s);
	}
	strvec_clear(&inc);
	strvec_clear(&libs);
	buf_release(&h);
	buf_release(&l);
	buf_release(&where);
}

/* Push each non-empty field of `s` split at `sep` (doctor_needs.c's too). */
void
doctor_push_fields(struct strvec *sv, const char *s, char sep)
{
	while (*s) {
		const char *e = strchr(s, sep);
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n)
			strvec_push_nodup(sv, xstrndup(s, n));
		s += n + (e ? 1 : 0);
	}
}

/*
 * The include directories a compile of this build searches besides the
 * toolkit's: CPATH/CPLUS_INCLUDE_PATH, and -I/-isystem in the profile's
 * build.env CXXFLAGS (split on blanks: a directory with a blank is not
 * found, and the check then says where it looked).
 */
static void
extra_include_dirs(const struct profile *p, struct strvec *dirs)
{
	static const char *const envs[] = { "CPATH", "CPLUS_INCLUDE_PATH", NULL };

	for (size_t i = 0; envs[i]; i++) {
		const char *v = getenv(envs[i]);

		if (v && *v)
			doctor_push_fields(dirs, v, ':');
	}
	for (size_t i = 0; p && i < p->nbuild_env; i++) {
		struct strvec w = STRVEC_INIT;

		if (strcmp(p->build_env[i].key, "CXXFLAGS") && strcmp(p->build_env[i].key, "CFLAGS"))
			continue;
		doctor_push_fields(&w, p->build_env[i].val, ' ');
		for (size_t j = 0; j < w.n; j++) {
			const char *a = w.v[j];

			if ((!strcmp(a, "-isystem") || !strcmp(a, "-I")) && j + 1 < w.n)
				strvec_push(dirs, w.v[++j]);
			else if (starts_with(a, "-isystem") && a[8])
				strvec_push(dirs, a + 8);
			else if (starts_with(a, "-I") && a[2])
				strvec_push(dirs, a + 2);
		}
		strvec_clear(&w);
	}
}

/*
 * nvml.h: PyTorch's c10/cuda/driver_api.h includes it on Linux (v2.6.0
 * and later), and a toolkit installed without its NVML component lacks it:
 * the compile of c10_cuda stops there, an hour into a build.
 */
static void
check_nvml(struct doctor *d, const struct profile *p, const char *src, const char *cuda_home,
	   const struct doctor_host *h)
{
	const char *triplet = host_triplet_of(h->machine), *target = host_cuda_target_of(h->machine);
	struct strvec dirs = STRVEC_INIT;
	struct buf f = BUF_INIT, where = BUF_INIT;
	int found = 0;

	if (!p || p->features[FEAT_CUDA] != TRI_ON || profile_is_extension(p) || !doctor_real_tree(p, src)) {
		strvec_clear(&dirs);
		return;
	}
	strvec_pushf(&dirs, "%s/include", cuda_home);
	if (target)
		strvec_pushf(&dirs, "%s/targets/%s/include", cuda_home, target);
	strvec_pushf(&dirs, "%s/usr/include", h->root);
	if (triplet)
		strvec_pushf(&dirs, "%s/usr/include/%s", h->root, triplet);
	extra_include_dirs(p, &dirs);
	for (size_t i = 0; i < dirs.n && !found; i++) {
		buf_reset(&f);
		buf_addf(&f, "%s/nvml.h", dirs.v[i]);
		found = is_regular(f.s);
	}
	strvec_join(&dirs, ", ", &where);
	if (found)
		doctor_add(d, CHECK_OK, "nvml", "%s (c10/cuda/driver_api.h includes it)", f.s);
	else
		doctor_add(d, CHECK_FAIL, "nvml", "no nvml.h in %s; PyTorch's c10_cuda includes it "
		           "(c10/cuda/driver_api.h); install the toolkit's NVML headers (cuda-nvml-dev, or "
		           "Debian's libnvidia-ml-dev from non-free), or name their directory in "
		           "build.env.CXXFLAGS as -isystem DIR", where.s);
	strvec_clear(&dirs);
	buf_release(&f);
	buf_release(&where);
}

void
doctor_check_host_libs(struct doctor *d, const struct profile *p, const char *src,
		       const char *cuda_home, const struct doctor_host *h)
{
	if (p)
		doctor_check_blas(d, p, src, h);
	check_library(d, p, FEAT_CUDNN, cuda_home, h, "CUDNN", "cudnn_version.h", "libcudnn.so",
		      "cuDNN");
	check_library(d, p, FEAT_NCCL, cuda_home, h, "NCCL", "nccl.h", "libnccl.so",
		      "NCCL (libnccl-dev)");
	check_nvml(d, p, src, cuda_home, h);
}
