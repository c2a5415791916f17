#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wheel/against.h"
#include "core/buf.h"
#include "profile/compat.h"
#include "core/diag.h"
#include "core/json.h"
#include "profile/knowledge.h"
#include "wheel/manifest.h"
#include "sources/patch.h"
#include "pipeline/build.h"
#include "pipeline/plan.h"
#include "pipeline/resolve.h"
#include "profile/profile.h"
#include "cli/report.h"
#include "core/strvec.h"
#include "core/util.h"
#include "wheel/verify.h"

void
report_json(struct json *j)
{
	json_print_stdout(j);
	json_free(j);
}

static void
lib_line(const struct wheel_lib *l, int deep, struct buf *out)
{
	struct buf esc = BUF_INIT;

	buf_addf(out, "%s:", diag_name(&esc, l->path));
	buf_release(&esc);
	if (l->ml.min_glibc)
		buf_addf(out, " manylinux_2_%u", l->ml.min_glibc);
	else if (*l->ml.blocker)
		buf_addf(out, " no manylinux (%s)", l->ml.blocker);
	if (!l->has_fatbin) {
		buf_addstr(out, "; no CUDA code");
		return;
	}
	buf_addstr(out, "; ");
	wheel_lib_targets(l, out);
	if (l->rel_sass.n || l->rel_ptx.n)
		buf_addstr(out, " (+ relocatable code)");
	if (deep)
		buf_addf(out, " [%u entries decompressed and checked]", l->deep_checked);
}

void
report_wheel(const struct wheel_report *r, int deep, FILE *out)
{
	struct buf line = BUF_INIT;
	size_t k;

	for (k = 0; k < r->nlibs; k++) {
		buf_reset(&line);
		lib_line(&r->libs[k], deep, &line);
		diag_printf(out, "%s\n", line.s);
	}
	for (k = 0; k < r->notes.n; k++)
		note("%s", r->notes.v[k]);
	for (k = 0; k < r->errors.n; k++)
		error("%s", r->errors.v[k]);
	if (!r->errors.n)
		diag_printf(out, "ok: %s (%zu members, every RECORD hash matches)\n",
			    diag_name(&line, r->filename), r->members);
	else
		diag_printf(out, "FAILED: %s (%zu problem%s)\n", diag_name(&line, r->filename),
			    r->errors.n + r->errors_more - (r->errors_more ? 1 : 0),
			    r->errors.n + r->errors_more == 1 ? "" : "s");
	buf_release(&line);
}

void
report_wheel_json(const struct wheel_report *r, const struct profile *p)
{
	struct manifest_input mi = { r, p, NULL, NULL, NULL, NULL };

	report_json(manifest_make(&mi));
}

/* One GPU: the number of CUDA libraries that cannot run on it. */
static size_t
report_gpu(struct wheel_report *r, int cc, FILE *out)
{
	struct buf how = BUF_INIT, esc = BUF_INIT;
	size_t k, cuda_libs = 0, bad = 0;

	for (k = 0; k < r->nlibs; k++) {
		const struct wheel_lib *l = &r->libs[k];

		if (!l->has_fatbin)
			continue;
		cuda_libs++;
		buf_reset(&how);
		if (library_runs_on(&l->sass, &l->ptx, cc, &how) == 0) {
			if (out)
				diag_printf(out, "sm_%d: %s runs (%s)\n", cc, diag_name(&esc, l->path),
					    how.s);
			continue;
		}
		buf_reset(&how);
		wheel_lib_targets(l, &how);
		/* Into the report too: --json must not say "ok" about a wheel that fails here. */
		strvec_pushf(&r->errors, "'%s' has no code that runs on sm_%d (it has %s)", l->path,
			     cc, how.s);
		/* Printed with the others by report_wheel; with --json, now. */
		if (!out)
			error("%s", r->errors.v[r->errors.n - 1]);
		bad++;
	}
	buf_release(&how);
	buf_release(&esc);
	if (out)
		fprintf(out, "sm_%d: %s\n", cc, !cuda_libs ? "no CUDA libraries in this wheel" :
			bad ? "NO: the wheel would fail with 'no kernel image is available'" :
			      "yes, every CUDA library runs");
	return bad;
}

size_t
report_gpus(struct wheel_report *r, const struct gpu_list *gpus, FILE *out)
{
	size_t g, failed = 0;

	for (g = 0; g < gpus->n; g++)
		failed += report_gpu(r, gpus->cc[g], out) > 0;
	return failed;
}

static struct json *
manifest_file(const char *path)
{
	struct buf text = BUF_INIT, why = BUF_INIT;
	struct json *m;
	const char *schema;

	if (read_file(&text, path) < 0)
		return NULL;
	m = json_parse(text.s, text.len, &why);
	buf_release(&text);
	if (!m) {
		error("'%s' is not a manifest: %s", path, why.s);
		buf_release(&why);
		return NULL;
	}
	schema = json_str(json_get(m, "schema"));
	if (!schema || strcmp(schema, "bwbuild-manifest/1")) {
		error("'%s' is not a bwbuild manifest (schema '%s', expected 'bwbuild-manifest/1')",
		      path, schema ? schema : "none");
		json_free(m);
		return NULL;
	}
	if (manifest_check_shape(m, &why) < 0) {
		error("'%s' is not a bwbuild manifest: %s", path, why.s);
		json_free(m);
		m = NULL;
	}
	buf_release(&why);
	return m;
}

struct json *
report_manifest(const char *path)
{
	return report_manifest_against(path, NULL);
}

/* The manifest of a verified wheel (released here); `t` the torch it was checked against. */
static struct json *
report_manifest_of(struct wheel_report *r, const struct torch_ref *t)
{
	struct manifest_input mi;
	struct json *m;

	memset(&mi, 0, sizeof(mi));
	mi.wheel = r;
	m = manifest_make(&mi);
	if (t)
		json_set(m, "torch", torch_ref_json(t));
	wheel_report_release(r);
	return m;
}

struct json *
report_manifest_against(const char *path, const char *against)
{
	struct wheel_report r;
	struct wheel_expect ex;
	struct torch_ref t;
	struct json *m;
	int rc;

	if (ends_with(path, ".json"))
		return manifest_file(path);
	if (!against)
		return wheel_verify(&r, path, NULL) < 0 ? NULL : report_manifest_of(&r, NULL);
	if (torch_ref_load(&t, against) < 0)
		return NULL;
	memset(&ex, 0, sizeof(ex));
	rc = against_verify(&r, path, &ex, &t);
	m = rc < 0 ? NULL : report_manifest_of(&r, &t);
	torch_ref_release(&t);
	return m;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .yaml files of `dir`, sorted; -1 if it cannot be read. */
static int
yaml_files(const char *dir, struct strvec *files)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (ends_with(de->d_name, ".yaml") && de->d_name[0] != '.')
			strvec_push(files, de->d_name);
	closedir(d);
	qsort(files->v, files->n, sizeof(*files->v), by_name);
	return 0;
}

/*
 * One profile as `plan` judges it (resolve_profile: loaded, merged,
 * validated, checked against the knowledge base), its problems kept as
 * the lines plan prints. Whether an extension's torch profile has been
 * built here is this machine's state, not the profile's: not a problem
 * (a CI run builds that torch first), but plan refuses the profile until
 * then, so it is said apart, as "waits".
 */
static struct json *
profile_entry(const char *dir, const char *file, const struct json *list)
{
	struct buf path = BUF_INIT, name = BUF_INIT, archs = BUF_INIT, wheel = BUF_INIT;
	struct buf waits = BUF_INIT;
	struct strvec errors = STRVEC_INIT, warnings = STRVEC_INIT;
	struct resolve_opts o;
	struct json *e = json_object();
	struct profile p;
	int ok, shadowed = 0, errors_before = diag_errors, warnings_before = diag_warnings;
	char *shown;
	size_t q;

	buf_addf(&path, "%s/%s", dir, file);
	buf_add(&name, file, strlen(file) - strlen(".yaml"));
	for (q = 0; q < json_len(list); q++)
		if (!strcmp(json_str(json_get(json_at(list, q), "name")), name.s))
			shadowed = 1;
	memset(&o, 0, sizeof(o));
	memset(&p, 0, sizeof(p));
	o.profile = path.s;
	diag_capture_begin(&errors, &warnings);
	ok = resolve_profile(&p, &o) == 0;
	if (ok && profile_is_extension(&p) && profile_torch_is_profile(&p) &&
	    extension_torch_published(&p, &wheel, &waits) < 0)
		ok = 0;
	diag_capture_end();
	/* Findings as data, not as this command's own errors. */
	diag_errors = errors_before;
	diag_warnings = warnings_before;
	/* An extension's are its torch profile's unless it lists its own. */
	if (ok && p.narchs && p.features[FEAT_CUDA] != TRI_OFF)
		profile_arch_list(&p, &archs);
	json_set(e, "name", json_string(name.s));
	json_set(e, "path", json_string(path.s));
	json_set(e, "description",
		 p.description.str ? json_string(p.description.str) : json_null());
	json_set(e, "kind", json_string(profile_is_extension(&p) ? "extension" : "torch"));
	json_set(e, "torch", p.torch.str ? json_string(p.torch.str) : json_null());
	shown = profile_torch_shown(&p);
	json_set(e, "torch_name", shown ? json_string(shown) : json_null());
	free(shown);
	json_set(e, "archs", archs.len ? json_string(archs.s) : json_null());
	json_set(e, "host_arch", p.host_arch.str ? json_string(p.host_arch.str) : json_null());
	json_set(e, "valid", json_bool(ok));
	json_set(e, "problems", json_number(ok ? 0 : errors.n ? (double)errors.n : 1));
	json_set(e, "errors", json_string_array(errors.v, errors.n));
	json_set(e, "warnings", json_string_array(warnings.v, warnings.n));
	json_set(e, "shadowed", json_bool(shadowed));
	json_set(e, "waits", ok && waits.len ? json_string(waits.s) : json_null());
	profile_release(&p);
	buf_release(&wheel);
	buf_release(&waits);
	strvec_clear(&errors);
	strvec_clear(&warnings);
	buf_release(&path);
	buf_release(&name);
	buf_release(&archs);
	return e;
}

struct json *
report_profiles(void)
{
	struct strvec dirs = STRVEC_INIT, seen = STRVEC_INIT;
	struct json *list = json_array();
	size_t d, k;

	profile_search_path(&dirs);
	for (d = 0; d < dirs.n; d++) {
		struct strvec files = STRVEC_INIT;
		char *real = realpath(dirs.v[d], NULL);

		/* A directory reached twice (profiles/ here is bwbuild's own) is listed once. */
		if (real && !strset_has(&seen, real) && yaml_files(real, &files) == 0) {
			strset_add(&seen, real);
			for (k = 0; k < files.n; k++)
				json_push(list, profile_entry(real, files.v[k], list));
		}
		strvec_clear(&files);
		free(real);
	}
	strvec_clear(&dirs);
	strvec_clear(&seen);
	return list;
}

void
report_profiles_format(const struct json *list, struct buf *out)
{
	size_t q;

	for (q = 0; q < json_len(list); q++) {
		const struct json *o = json_at(list, q);
		const char *description = json_str(json_get(o, "description"));
		const char *path = json_str(json_get(o, "path"));
		struct buf invalid = BUF_INIT, desc = BUF_INIT;

		/* Named by its path: a shadowed one is not what its name finds. */
		if (!json_is_true(json_get(o, "valid"))) {
			double n = json_number_value(json_get(o, "problems"));

			buf_addf(&invalid, "(invalid, %.0f problem%s: 'bwbuild plan --profile %s' "
				 "shows %s)", n, n == 1 ? "" : "s", path, n == 1 ? "it" : "them");
		}
		diag_name(&desc, description ? description : "");
		buf_addf(out, "%-16s %s%s%s%s\n%-16s   %s", json_str(json_get(o, "name")), desc.s,
			 desc.len && invalid.len ? " " : "", invalid.len ? invalid.s : "",
			 json_is_true(json_get(o, "shadowed")) ? " [shadowed]" : "", "", path);
		if (json_str(json_get(o, "torch_name")))
			buf_addf(out, " (extension on torch '%s')", json_str(json_get(o, "torch_name")));
		buf_addch(out, '\n');
		if (json_str(json_get(o, "waits")))
			buf_addf(out, "%-16s   plan and build wait: %s\n", "",
				 json_str(json_get(o, "waits")));
		buf_release(&invalid);
		buf_release(&desc);
	}
}
