/* The profile as plain data: what a wheel built from it must carry and the
 * profile as JSON, for the layers that check a wheel against its profile
 * without planning a build (wheel/manifest.c, wheel/smoke_setup.c, bwbuild verify). */
#include "core/buf.h"
#include "core/json.h"
#include "core/strvec.h"
#include "profile/arch.h"
#include "profile/profview.h"

int
profile_feature_on(const struct profile *p, enum feature f)
{
	/* Unset means the tree's default, which is ON for these. */
	return p->features[f] != TRI_OFF;
}

void
profile_targets(const struct profile *p, struct strvec *sass, struct strvec *ptx)
{
	struct buf b = BUF_INIT;
	size_t i;

	/* No CUDA, no CUDA code: archs a CPU profile inherits expect nothing. */
	for (i = 0; profile_feature_on(p, FEAT_CUDA) && i < p->narchs; i++) {
		arch_sass_name(&p->archs[i].arch, &b);
		strvec_push(sass, b.s);
		buf_reset(&b);
		if (p->archs[i].arch.ptx) {
			arch_ptx_name(&p->archs[i].arch, &b);
			strvec_push(ptx, b.s);
			buf_reset(&b);
		}
	}
	buf_release(&b);
}

static struct json *
pvalue_json(const struct pvalue *v)
{
	return v->str ? json_string(v->str) : json_null();
}

struct json *
profile_json(const struct profile *p)
{
	struct json *o = json_object(), *src = json_object(), *cuda = json_object();
	struct json *archs = json_array(), *feat = json_object(), *cm = json_object();
	struct json *build = json_object(), *wheel = json_object(), *rt = json_object();
	struct json *env = json_object();
	struct buf b = BUF_INIT;
	size_t i;

	json_set(o, "name", pvalue_json(&p->name));
	json_set(o, "description", pvalue_json(&p->description));
	json_set(o, "path", json_string(p->path));
	json_set(src, "repo", pvalue_json(&p->source_repo));
	json_set(src, "ref", pvalue_json(&p->source_ref));
	json_set(o, "source", src);
	for (i = 0; i < p->narchs; i++) {
		arch_format(&p->archs[i].arch, &b);
		json_push(archs, json_string(b.s));
		buf_reset(&b);
	}
	json_set(cuda, "archs", archs);
	if (p->cuda_home.str)
		json_set(cuda, "home", json_string(p->cuda_home.str));
	if (p->cuda_ptx.str)
		json_set(cuda, "ptx", json_string(p->cuda_ptx.str));
	json_set(o, "cuda", cuda);
	for (i = 0; i < FEAT__COUNT; i++)
		if (p->features[i] != TRI_UNSET)
			json_set(feat, feature_table[i].key, json_bool(p->features[i] == TRI_ON));
	json_set(o, "features", feat);
	for (i = 0; i < p->ncmake; i++)
		json_set(cm, p->cmake[i].key, json_string(p->cmake[i].val));
	json_set(o, "cmake", cm);
	if (p->jobs)
		json_set(build, "jobs", json_number((double)p->jobs));
	else
		json_set(build, "jobs", json_string("auto"));
	if (p->mem_budget)
		json_set(build, "mem_budget", json_number((double)p->mem_budget));
	else
		json_set(build, "mem_budget", json_string("auto"));
	if (p->python.str)
		json_set(build, "python", json_string(p->python.str));
	if (p->nbuild_env) {
		struct json *be = json_object();

		for (i = 0; i < p->nbuild_env; i++)
			json_set(be, p->build_env[i].key, json_string(p->build_env[i].val));
		json_set(build, "env", be);
	}
	json_set(o, "build", build);
	if (p->version_suffix.str)
		json_set(wheel, "version_suffix", json_string(p->version_suffix.str));
	if (p->cuda_libs.str)
		json_set(wheel, "cuda_libs", json_string(p->cuda_libs.str));
	json_set(o, "wheel", wheel);
	for (i = 0; i < p->nruntime_env; i++)
		json_set(env, p->runtime_env[i].key, json_string(p->runtime_env[i].val));
	json_set(rt, "env", env);
	json_set(o, "runtime", rt);
	if (p->nexceptions) {
		struct json *ver = json_object(), *exc = json_array();

		for (i = 0; i < p->nexceptions; i++) {
			const struct pexception *e = &p->exceptions[i];
			struct json *je = json_object();

			json_set(je, "library", json_string(e->library));
			json_set(je, "missing", json_string_array((char *const *)e->missing,
								  e->nmissing));
			json_set(je, "reason", json_string(e->reason));
			json_push(exc, je);
		}
		json_set(ver, "exceptions", exc);
		json_set(o, "verify", ver);
	}
	buf_release(&b);
	return o;
}
