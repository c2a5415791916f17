#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/doctor.h"
#include "pipeline/plan.h"
#include "pipeline/pyenv.h"
#include "pipeline/build.h"
#include "cli/report.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/json.h"
#include "core/proc.h"
#include "core/strvec.h"
#include "core/util.h"
#include "profile/knowledge.h"
#include "profile/profile.h"
#include "profile/releases.h"
#include "sources/patch.h"
#include "wheel/against.h"

/*
 * What `bwbuild plan` shows beyond plan_format: what the build finds
 * before its first step (an extension's torch, checked as the build checks
 * it; the build's interpreter) and the variables its steps set on top of
 * the plan's environment (the patch series' env; an extension's
 * PYTHONPATH, CMAKE_PREFIX_PATH, PYTORCH_NVCC and CC/CXX wrappers), made by
 * the steps' own step_env_of so that the plan cannot say otherwise.
 */

/* The build environment as the build's checks find it (pyenv.h), said for the plan. */
/*
 * Each part of the text from outside (build.python_path, build.python, what
 * the interpreter says) escaped to its line (diag_name): a newline in
 * build.python_path forged a line of the plan (issue 40, F3).
 */
static void
plan_view_build_env(struct plan_view *v, const char *src)
{
	struct pyenv e = PYENV_INIT;
	struct buf x[3] = { BUF_INIT, BUF_INIT, BUF_INIT };

	v->build_env_ok = pyenv_for(&e, v->p, v->python.s, src) == 0;
	if (!v->build_env_ok)
		buf_addf(&v->build_env, "not met: %s", diag_name(&x[0], e.error.s));
	else if (e.pythonpath.len)
		buf_addf(&v->build_env, "PYTHONPATH=%s (%s), for %s", diag_name(&x[0], e.pythonpath.s),
			 diag_name(&x[1], e.have.s), diag_name(&x[2], pyenv_first_hard(&e)));
	else if (e.have.len)
		buf_addf(&v->build_env, "%s has %s, for %s", diag_name(&x[0], v->python.s),
			 diag_name(&x[1], e.have.s), diag_name(&x[2], pyenv_first_hard(&e)));
	for (size_t i = 0; i < e.soft.n; i++)
		buf_addf(&v->build_env, "%snote: it has %s; not needed to start the build",
			 v->build_env.len ? "\n             " : "", diag_name(&x[0], e.soft.v[i]));
	buf_addstr(&v->pythonpath, e.pythonpath.s);
	for (size_t i = 0; i < ARRAY_SIZE(x); i++)
		buf_release(&x[i]);
	pyenv_release(&e);
}

int
plan_view_make(struct plan_view *v, const struct plan *pl, const struct profile *p)
{
	struct step_env_in in = { .plan = pl, .epoch = -1 };
	struct buf torch_site = BUF_INIT, wheel_prefix = BUF_INIT;
	struct strvec env = STRVEC_INIT;

	memset(v, 0, sizeof(*v));
	v->pl = pl;
	v->p = p;
	if (profile_is_extension(p)) {
		if (extension_torch(p, &v->torch, &v->torch_where) < 0)
			return -1;
		v->have_torch = 1;
	}
	if (p->source_patches.str && *p->source_patches.str) {
		if (patch_set_load(&v->ps, p->source_patches.str) < 0) {
			patch_set_release(&v->ps);
			return -1;
		}
		v->have_patches = 1;
	}
	/* build.python that builds wheels only with the prefix under the cache: as the build takes it. */
	v->python_found = pyenv_find_python(&v->python, p->python.str, &v->python_why,
					    &wheel_prefix) == 0;
	if (v->python_found && !profile_is_extension(p))
		plan_view_build_env(v, pl->local_source ? pl->src_dir : NULL);
	if (v->python_found && !v->pythonpath.len && wheel_prefix.len) {
		buf_addstr(&v->pythonpath, wheel_prefix.s);
		buf_addf(&v->build_env, "%sPYTHONPATH=%s: %s builds wheels with it",
			 v->build_env.len ? "\n             " : "", wheel_prefix.s, v->python.s);
	}
	v->cmake_policy = !profile_is_extension(p) &&
			  cmake_policy_needed(pl->local_source ? pl->src_dir : NULL, &v->cmake_said);

	in.pythonpath = v->pythonpath.s;
	in.cmake_policy = v->cmake_policy;
	/* A --source tree gets nothing of the series, its env included (as fetch.c builds it). */
	if (v->have_patches && !pl->local_source)
		in.patch_env = &v->ps.env;
	if (v->have_torch) {
		buf_addf(&torch_site, "%s/torch-site", pl->work_dir);
		in.torch_site = torch_site.s;
		in.torch_package = v->torch.package;
	}
	step_env_of(&in, &env);
	for (size_t i = 0; i < env.n; i++) {
		size_t k;

		for (k = 0; k < pl->env.n && strcmp(pl->env.v[k], env.v[i]); k++)
			;
		if (k == pl->env.n)
			strvec_push(&v->step_env, env.v[i]);
	}
	strvec_clear(&env);
	buf_release(&torch_site);
	buf_release(&wheel_prefix);
	return 0;
}

void
plan_view_release(struct plan_view *v)
{
	if (v->have_torch)
		torch_ref_release(&v->torch);
	if (v->have_patches)
		patch_set_release(&v->ps);
	buf_release(&v->torch_where);
	buf_release(&v->python);
	buf_release(&v->python_why);
	buf_release(&v->pythonpath);
	buf_release(&v->build_env);
	buf_release(&v->cmake_said);
	strvec_clear(&v->step_env);
}

/*
 * What bwbuild's table says of the release: its Python, the CUDA of its
 * official wheels. The release is the tree's own for a --source tree (its
 * version.txt), the profile's ref otherwise: the one that is built.
 */
static void
plan_release_line(const struct relver *torch, const char *from, struct buf *out)
{
	const struct torch_release *r = release_find(torch);

	if (r && r->python && r->cuda && r->configure)
		buf_addf(out, "release      torch %u.%u (%s): Python %s; official wheels built with "
			 "CUDA %s; configure-only by %s%s%s\n", torch->major, torch->minor, from,
			 r->python, r->cuda, r->configure, r->provisional ? "; provisional: " : "",
			 r->provisional ? r->provisional : "");
}

void
plan_view_text(const struct plan_view *v, struct buf *out)
{
	const struct profile *p = v->p;
	struct relver ver, tv;
	size_t n = 0;
	struct buf x[4] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT };

	tree_version(p->source_ref.str, NULL, &ver);
	plan_format(v->pl, out);
	buf_addstr(out, "\nwheel version ");
	wheel_version_plan(p, v->pl, out);
	buf_addch(out, '\n');
	/* Names from outside (a torch's, build.python's, the environment's) each to its line. */
	if (v->have_torch)
		buf_addf(out, "\ntorch        %s %s  (%s)\n  carries    %s\n",
			 diag_name(&x[0], v->torch.name), diag_name(&x[1], v->torch.version),
			 diag_name(&x[2], v->torch.path), diag_name(&x[3], v->torch.targets));
	if (v->python_found)
		buf_addf(out, "\npython       %s\n", diag_name(&x[0], v->python.s));
	else
		buf_addf(out, "\npython       none that can build wheels:\n%s", v->python_why.s);
	if (v->build_env.len)
		buf_addf(out, "build env    %s\n", v->build_env.s);
	if (v->cmake_said.len)
		buf_addf(out, "cmake        %s\n", diag_name(&x[0], v->cmake_said.s));
	if (v->pl->local_source) {
		tree_version(NULL, v->pl->src_dir, &tv);
		plan_release_line(&tv, "the tree's version.txt", out);
	} else {
		plan_release_line(&ver, "source.ref", out);
	}
	if (v->step_env.n) {
		buf_addstr(out, "\nset by the steps on top of the environment above\n");
		for (size_t i = 0; i < v->step_env.n; i++)
			buf_addf(out, "  %s\n", diag_name(&x[0], v->step_env.v[i]));
	}
	for (size_t i = 0; i < ARRAY_SIZE(x); i++)
		buf_release(&x[i]);
	if (!v->have_patches)
		return;
	if (v->pl->local_source) {
		/* Not the profile's ref: that is not what is built. */
		buf_addf(out, "\npatches      none: a --source tree is built as it is (source.patches "
			 "'%s' is not applied)\n", p->source_patches.str);
		for (size_t i = 0; relver_known(&tv) && i < v->ps.n; i++)
			n += patch_selected(&v->ps.v[i], &tv);
		if (n)
			buf_addf(out, "  the series has %zu for torch %u.%u (its version.txt): 'bwbuild "
				 "doctor --source %s' says whether the tree has them\n", n, tv.major,
				 tv.minor, v->pl->src_dir);
		return;
	}
	buf_addf(out, "\npatches (%s, for %s)\n", v->ps.index,
		 relver_known(&ver) ? p->source_ref.str : "an unknown release: only patches without 'when'");
	for (size_t i = 0; i < v->ps.n; i++) {
		if (!patch_selected(&v->ps.v[i], &ver))
			continue;
		buf_addf(out, "  %s  (when %s)  %.12s\n", v->ps.v[i].file,
			 v->ps.v[i].when ? v->ps.v[i].when : "always", v->ps.v[i].sha256);
		n++;
	}
	if (!n)
		buf_addstr(out, "  none for this release\n");
}

struct json *
plan_view_json(const struct plan_view *v)
{
	struct json *o = plan_json(v->pl), *t, *ps, *sel;
	struct relver ver;
	struct buf wv = BUF_INIT;

	tree_version(v->p->source_ref.str, NULL, &ver);
	wheel_version_plan(v->p, v->pl, &wv);
	json_set(o, "wheel_version", json_string(wv.s));
	buf_release(&wv);

	if (v->have_torch) {
		t = json_object();
		json_set(t, "name", json_string(v->torch.name));
		json_set(t, "version", json_string(v->torch.version));
		json_set(t, "path", json_string(v->torch.path));
		json_set(t, "sha256", *v->torch.sha256 ? json_string(v->torch.sha256) : json_null());
		json_set(t, "sass", json_string_array(v->torch.sass.v, v->torch.sass.n));
		json_set(t, "ptx", json_string_array(v->torch.ptx.v, v->torch.ptx.n));
		json_set(o, "torch", t);
	} else {
		json_set(o, "torch", json_null());
	}
	json_set(o, "python", v->python_found ? json_string(v->python.s) : json_null());
	json_set(o, "pythonpath", v->pythonpath.len ? json_string(v->pythonpath.s) : json_null());
	json_set(o, "build_env_ok", json_bool(!v->build_env.len || v->build_env_ok));
	json_set(o, "cmake_policy_version_minimum", v->cmake_policy ? json_string("3.5") : json_null());
	json_set(o, "step_env", json_string_array(v->step_env.v, v->step_env.n));
	if (!v->have_patches) {
		json_set(o, "patches", json_null());
		return o;
	}
	ps = json_object();
	sel = json_array();
	json_set(ps, "project", json_string(v->ps.project));
	json_set(ps, "index", json_string(v->ps.index));
	/* A --source tree is built as it is: nothing of the series reaches it. */
	if (v->pl->local_source)
		json_set(ps, "not_applied", json_string("a --source tree is built as it is"));
	for (size_t i = 0; !v->pl->local_source && i < v->ps.n; i++) {
		struct json *e;

		if (!patch_selected(&v->ps.v[i], &ver))
			continue;
		e = json_object();
		json_set(e, "file", json_string(v->ps.v[i].file));
		json_set(e, "when", v->ps.v[i].when ? json_string(v->ps.v[i].when) : json_null());
		json_set(e, "sha256", json_string(v->ps.v[i].sha256));
		json_push(sel, e);
	}
	json_set(ps, "selected", sel);
	json_set(o, "patches", ps);
	return o;
}
