#ifndef BWBUILD_REPORT_H
#define BWBUILD_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/strvec.h"
#include "sources/patch.h"
#include "wheel/against.h"

struct buf;
struct gpu_list;
struct json;
struct plan;
struct profile;
struct wheel_report;

/*
 * What the commands print, over the engines' results, so that the
 * src/cli/cmd_*.c files only parse their options and call.
 */

/* A command's --json result on standard output; frees it. */
void report_json(struct json *j);

/*
 * verify's text: a line per ELF library (its manylinux policy, then its
 * SASS/PTX line, or "; no CUDA code"), the report's notes and errors
 * (diag.h), then "ok: ..." or "FAILED: ... (N problems)". With `deep`
 * each line counts the fatbin entries that were decompressed and checked.
 */
void report_wheel(const struct wheel_report *r, int deep, FILE *out);
/* verify --json: the wheel's manifest, with the profile it was checked against (or NULL). */
void report_wheel_json(const struct wheel_report *r, const struct profile *p);

/* `bwbuild smoke`'s result for people: one GPU's (report_smoke.c), or --gpu all's JSON. */
struct smoke_result;
void report_smoke(const struct smoke_result *r, FILE *out);
void report_smoke_multi(const struct json *r, FILE *out);
/* Why smoke did not pass (rc: smoke_target's), as one error; nothing when it passed. */
void report_smoke_verdict(int rc, const struct smoke_result *sr, const struct json *result);

/*
 * Whether every CUDA library of the wheel runs on each of `gpus` by
 * compat.h's rules: each library that cannot is an error naming what it
 * has. With `out`, a line per library that can, then the answer per GPU.
 * Returns the number of GPUs that some library cannot run on.
 */
size_t report_gpus(struct wheel_report *r, const struct gpu_list *gpus, FILE *out);

/*
 * The manifest a path describes: a manifest file (.json, schema
 * bwbuild-manifest/1) read back, else a wheel or an installed package,
 * verified now. NULL after reporting.
 */
struct json *report_manifest(const char *path);
/* The same for an extension wheel checked against its torch (verify --against); NULL against: as above. */
struct json *report_manifest_against(const char *path, const char *against);

/*
 * What `bwbuild plan` shows (src/cli/report_plan.c): the plan, an
 * extension's torch checked as the build checks it, the build's python,
 * what the steps set on top of the plan's environment (made by their own
 * step_env) and the patches the profile's release gets.
 */
struct plan_view {
	const struct plan *pl;
	const struct profile *p;
	struct torch_ref torch;
	int have_torch;
	struct buf torch_where;
	struct buf python, python_why;
	int python_found;
	struct buf pythonpath;       /* the prefix the build puts first on PYTHONPATH, or empty */
	struct buf build_env;        /* what the tree's build needs of python, and how it is met */
	int build_env_ok;
	struct buf cmake_said;       /* CMake 4 and the tree's oldest cmake_minimum_required */
	int cmake_policy;
	struct patch_set ps;
	int have_patches;
	struct strvec step_env;
};
/* -1 after reporting: the extension's torch, or the patch series, is not right. */
int plan_view_make(struct plan_view *v, const struct plan *pl, const struct profile *p);
void plan_view_release(struct plan_view *v);
void plan_view_text(const struct plan_view *v, struct buf *out);
/* plan_json's object with torch, python, step_env and patches. */
struct json *plan_view_json(const struct plan_view *v);

/*
 * The profiles on the search path, in its order, each checked as `plan`
 * checks it (resolve_profile): [{name, path, description, kind, torch,
 * archs, valid, problems, errors, warnings, shadowed}], errors and
 * warnings the lines plan prints. A directory reached twice is listed
 * once; a name found again later is shadowed.
 */
struct json *report_profiles(void);
/* That list as `bwbuild profiles` prints it: name and description, then the path. */
void report_profiles_format(const struct json *list, struct buf *out);

#endif
