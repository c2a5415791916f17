#ifndef BWBUILD_MANIFEST_H
#define BWBUILD_MANIFEST_H

struct buf;
struct json;
struct wheel_report;
struct profile;
struct strvec;

/*
 * The feature manifest ("bwbuild-manifest/1", docs/manifest-format.md):
 * what a wheel really contains, read from the wheel itself, plus the
 * profile and source it was built from when known.
 */
struct manifest_input {
	const struct wheel_report *wheel;
	const struct profile *profile;  /* NULL for `bwbuild manifest WHEEL` */
	const char *source_repo;        /* NULL when unknown */
	const char *source_ref;
	const char *source_commit;      /* NULL: taken from version.py's git_version */
	struct json *build;             /* step timings, jobs; NULL when not built here */
};

struct json *manifest_make(const struct manifest_input *in);
/* 1 when the manifest at `path` says profile.cuda.ptx is "none" (its profile asked for no PTX). */
int manifest_ptx_none(const char *path);
/* 1 when the manifest at `path` says features.cuda is off (its profile's, else its build settings'). */
int manifest_cuda_off(const char *path);

/*
 * Parse the build-settings header (torch's caffe2/core/macros.h): lines
 * {"KEY", "VALUE"}, into a JSON object KEY -> VALUE. Exposed for tests.
 */
struct json *macros_h_parse(const char *text);
/* version.py's assignments (__version__ as "version", cuda, git_version, ...) as a JSON object. */
struct json *version_py_parse(const char *text);

/*
 * 0 when each member a reader of manifests (diff, the Markdown) relies on
 * has its type where present: features an object of booleans, libraries
 * an array of objects, ...; -1 with which one is not, in `why`.
 */
int manifest_check_shape(const struct json *m, struct buf *why);

/* Render a manifest as Markdown: summary, feature table with ✅/❌/⚠️, libraries. */
struct buf;
void manifest_markdown(const struct json *m, struct buf *out);
/*
 * `s`, a value from a manifest, into a Markdown table cell: escaped to one
 * line (diag_name: a line break or control byte as \xNN), then each
 * character that could begin markup (the cell's '|', HTML, code, links,
 * emphasis, autolinks; a backslash that would escape) behind a backslash,
 * so the cell shows `s` and nothing else; '-' for none. No code span
 * around it: a backslash inside one shows. Every Markdown bwbuild writes
 * puts outside text through here.
 */
void manifest_md_cell(struct buf *md, const char *s);

/* Features (profile key -> bool) evidenced by the build settings. */
struct json *features_from_settings(const struct json *settings);

/*
 * What configure ended with (features_effective: key -> {effective, option})
 * against the wheel's own evidence: its build settings (macros.h,
 * CXX_FLAGS) and the kernel families its CUDA libraries export. One line
 * per disagreement into `errors`; a feature without evidence is not judged.
 */
void features_crosscheck(const struct wheel_report *w, const struct json *effective,
			 struct strvec *errors);

#endif
