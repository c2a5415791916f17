#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmakecache.h"
#include "configure.h"
#include "diag.h"
#include "json.h"
#include "plan.h"
#include "profile.h"
#include "util.h"

/* Why a tree turns a feature off by itself, where PyTorch's CMake says so. */
static const char *
off_reason(const struct profile *p, enum feature f, const struct cmake_cache *c)
{
	size_t i;
	int reach80 = 0, has10 = 0;

	for (i = 0; i < p->narchs; i++) {
		reach80 |= p->archs[i].arch.major * 10 + p->archs[i].arch.minor >= 80;
		has10 |= p->archs[i].arch.major == 10;
	}
	if (f != FEAT_CUDA && !cmake_truthy(cmakecache_get(c, "USE_CUDA")))
		return "USE_CUDA is off, which turns every CUDA feature off";
	switch (f) {
	case FEAT_FLASH_ATTENTION:
	case FEAT_MEM_EFF_ATTENTION:
		return reach80 ? NULL : "no arch of 8.0 or newer in TORCH_CUDA_ARCH_LIST";
	case FEAT_CUDNN:
		return "CMake did not find cuDNN (cudnn_version.h); install it or set CUDNN_ROOT";
	case FEAT_NCCL:
		return "CMake did not find NCCL (nccl.h); install libnccl-dev, or set "
		       "NCCL_INCLUDE_DIR with USE_SYSTEM_NCCL=1";
	case FEAT_MSLK:
	case FEAT_FBGEMM_GENAI:
		return has10 ? "it needs CUDA 12.8 or newer" : "it needs a 10.x arch in TORCH_CUDA_ARCH_LIST";
	case FEAT_CUDA:
		return "CMake did not find a CUDA compiler (see CUDACXX and cuda.home)";
	default:
		return NULL;
	}
}

int
features_effective(const struct profile *p, const struct cmake_cache *c, const char *cache_path,
		   struct json **effective)
{
	struct json *o = json_object();
	int before = diag_errors;
	size_t f;

	for (f = 0; f < FEAT__COUNT; f++) {
		const char *opt = feature_table[f].option;
		const char *v = cmakecache_get(c, opt);
		struct json *e = json_object();
		int eff;

		json_set(e, "requested", p->features[f] == TRI_UNSET ? json_null() :
					 json_string(p->features[f] == TRI_ON ? "on" : "off"));
		json_set(e, "effective", v ? json_bool(cmake_truthy(v)) : json_null());
		json_set(e, "option", json_string(opt));
		json_set(o, feature_table[f].key, e);
		if (!v || p->features[f] == TRI_UNSET)
			continue;
		eff = cmake_truthy(v);
		if (p->features[f] == TRI_ON && !eff) {
			const char *why = off_reason(p, (enum feature)f, c);

			error_at(&p->feature_loc[f], "features.%s is on, but the build turned %s off%s%s "
				 "(%s)", feature_table[f].key, opt, why ? ": " : "", why ? why : "",
				 cache_path);
		} else if (p->features[f] == TRI_OFF && eff) {
			error_at(&p->feature_loc[f], "features.%s is off, but the build turned %s on (%s)",
				 feature_table[f].key, opt, cache_path);
		}
	}
	*effective = o;
	return diag_errors > before ? -1 : 0;
}

int
configure_readback(const struct profile *p, const struct plan *pl, struct json **effective)
{
	struct buf path = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	struct cmake_cache c;
	int rc = -1;

	*effective = NULL;
	buf_addf(&path, "%s/build/CMakeCache.txt", pl->src_dir);
	if (read_file(&text, path.s) < 0)
		goto out;
	if (cmakecache_parse(&c, text.s, text.len, &why) < 0) {
		error("%s: %s", path.s, why.s);
		goto out;
	}
	rc = features_effective(p, &c, path.s, effective);
	cmakecache_release(&c);
out:
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	return rc;
}
