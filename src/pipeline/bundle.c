#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/json.h"
#include "core/safefile.h"
#include "core/strvec.h"
#include "core/util.h"
#include "core/version.h"
#include "formats/tarzst.h"
#include "pipeline/build.h"
#include "pipeline/inputs.h"
#include "pipeline/step.h"
#include "sources/bundle.h"
#include "sources/git.h"
#include "sources/patch.h"

/*
 * Source bundles in the pipeline: `bwbuild bundle` (bundle_make) packs the
 * checkout a profile's build reads, after its configure, with what the
 * configured build never names left out; `bwbuild build --bundle FILE`
 * (bundle_fetch, the fetch step) extracts it into <work>/src and takes the
 * tree's identity (commit, submodules, patches, changes) from it, so the
 * wheel is versioned and labelled as from the checkout.
 */

#define RECORD "bundle.applied"

/* The bundle is of the profile's source: its ref (refused otherwise) and its repository (warned). */
static int
bundle_matches(const struct build *b, const struct json *meta)
{
	const struct profile *p = &b->profile;
	const char *file = b->plan.bundle, *ref = json_str(json_get(meta, "ref"));
	const char *repo = json_str(json_get(meta, "repo"));

	if (!p->source_ref.str || strcmp(ref, p->source_ref.str))
		return error("'%s' holds %s @ %s, and the profile asks for %s; make a bundle of this "
			     "profile ('bwbuild bundle --profile %s')", file, repo, ref,
			     p->source_ref.str ? p->source_ref.str : "(no ref)", p->name.str);
	if (!p->source_repo.str || strcmp(repo, p->source_repo.str))
		warning("'%s' was made from %s, and the profile names %s; the commit (%.12s) is "
			"what the build records", file, repo, p->source_repo.str ? p->source_repo.str
			: "(none)", json_str(json_get(meta, "commit")));
	return 0;
}

/*
 * The bundle's patches are the ones the profile's series selects for the
 * extracted tree's release (its ref, else its version.txt, as fetch selects).
 */
static int
series_matches(struct build *b, const struct json *meta)
{
	const struct profile *p = &b->profile;
	struct json *want;
	struct relver rel = patch_release_for(p->source_ref.str, b->plan.src_dir);
	int rc = 0;

	if (p->source_patches.str && *p->source_patches.str && !b->patches.n &&
	    patch_set_load(&b->patches, p->source_patches.str) < 0)
		return -1;
	want = patch_selected_json(&b->patches, &rel, NULL);
	if (!json_equal(want, json_get(meta, "patches")))
		rc = error("'%s' was made with another patch series than the profile's '%s' gives "
			   "for %s (%zu patches there, %zu here); make the bundle again",
			   b->plan.bundle, p->source_patches.str ? p->source_patches.str : "(none)",
			   json_str(json_get(meta, "ref")), json_len(json_get(meta, "patches")),
			   json_len(want));
	json_free(want);
	return rc;
}

/* What <work>/bundle.applied says was extracted (a regular file of ours, a digest); "" when none. */
static int
record_read(const char *path, struct buf *out)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : error("cannot read '%s':", path);
	if (!S_ISREG(st.st_mode) || st.st_size > 128)
		return error("'%s' is not the record bwbuild writes; remove it", path);
	if (read_file(out, path) < 0)
		return -1;
	buf_rtrim(out);
	return 0;
}

/* The tree's identity from the metadata: commit, submodules, the time of the commit. */
static void
identity_from(struct build *b, const struct json *meta)
{
	const struct json *subs = json_get(meta, "submodules"), *t = json_get(meta, "commit_time");
	struct repo_tree_info *ti = &b->tree;

	ti->commit = xstrdup(json_str(json_get(meta, "commit")));
	for (size_t i = 0; i < json_len(subs); i++) {
		const struct json *s = json_at(subs, i);

		ALLOC_GROW(ti->subs, ti->nsubs + 1, ti->alloc);
		ti->subs[ti->nsubs].path = xstrdup(json_str(json_get(s, "path")));
		ti->subs[ti->nsubs].url = xstrdup(json_str(json_get(s, "url")));
		ti->subs[ti->nsubs].commit = xstrdup(json_str(json_get(s, "commit")));
		ti->nsubs++;
	}
	b->epoch = t && json_number_value(t) > 0 ? (long long)json_number_value(t) : -1;
}

/* The manifest's source: the patches as applied in the bundle, and the bundle itself. */
static void
source_from(struct build *b, const struct json *meta)
{
	const struct json *pt = json_get(meta, "patches"), *cuts = json_get(meta, "left_out");
	struct json *patches = json_array(), *bundle = json_object(), *left = json_array();

	for (size_t i = 0; i < json_len(pt); i++) {
		struct json *o = json_dup(json_at(pt, i));

		json_set(o, "status", json_string("applied (in the bundle)"));
		json_push(patches, o);
	}
	for (size_t i = 0; i < json_len(cuts); i++)
		if (json_is_true(json_get(json_at(cuts, i), "left_out")) &&
		    json_str(json_get(json_at(cuts, i), "path")))
			json_push(left, json_string(json_str(json_get(json_at(cuts, i), "path"))));
	json_set(b->source, "patches", patches);
	json_set(bundle, "file", json_string(path_tail(b->plan.bundle)));
	json_set(bundle, "tree_sha256", json_string(json_str(json_get(meta, "tree_sha256"))));
	json_set(bundle, "left_out", left);
	json_set(b->source, "bundle", bundle);
}

/* <work>/src from the bundle, unless it is there already; -1 after reporting. */
static int
extract_once(struct build *b, struct json **meta)
{
	const char *src = b->plan.src_dir;
	const char *digest = json_str(json_get(*meta, "tree_sha256"));
	struct buf record = BUF_INIT, have = BUF_INIT;
	struct json *got = NULL;
	int rc = -1;

	buf_addf(&record, "%s/" RECORD, b->plan.work_dir);
	if (record_read(record.s, &have) < 0)
		goto out;
	if (path_exists(src) && !strcmp(have.s, digest)) {
		step_note(STEP_FETCH, "%s is the bundle's tree already (%.12s); nothing to do", src,
			  digest);
		rc = 0;
		goto out;
	}
	if (path_exists(src)) {
		if (!b->opts->force) {
			rc = error("'%s' holds another tree than the bundle's; build with --force to "
				   "replace it, or give another --work", src);
			goto out;
		}
		step_note(STEP_FETCH, "--force: removing %s", src);
		if (remove_tree(src) < 0)
			goto out;
	}
	if ((unlink(record.s) < 0 && errno != ENOENT) ||
	    bundle_extract(b->plan.bundle, src, NULL, &got) < 0)
		goto out;
	if (!json_equal(json_get(got, "tree_sha256"), json_get(*meta, "tree_sha256"))) {
		rc = error("'%s' changed while it was read; run the same command again",
			   b->plan.bundle);
		json_free(got);
		goto out;
	}
	/* the tree is the one read now; the first read's metadata (and `digest`) goes */
	json_free(*meta);
	*meta = got;
	digest = json_str(json_get(got, "tree_sha256"));
	step_note(STEP_FETCH, "%s: %.0f files extracted (tree %.12s)", src,
		  json_number_value(json_get(got, "files")), digest);
	rc = write_file_atomic(record.s, digest, strlen(digest));
out:
	buf_release(&record);
	buf_release(&have);
	return rc;
}

int
bundle_fetch(struct build *b)
{
	struct json *meta = NULL;
	const struct json *cuts;
	size_t left = 0;

	step_note(STEP_FETCH, "--bundle %s", b->plan.bundle);
	if (bundle_read_meta(b->plan.bundle, &meta) < 0 || bundle_matches(b, meta) < 0 ||
	    extract_once(b, &meta) < 0 || series_matches(b, meta) < 0) {
		json_free(meta);
		return -1;
	}
	cuts = json_get(meta, "left_out");
	for (size_t i = 0; i < json_len(cuts); i++)
		left += json_is_true(json_get(json_at(cuts, i), "left_out"));
	step_note(STEP_FETCH, "%s @ %s, commit %s (%zu submodules, %zu parts the configured "
		  "build never named left out)", json_str(json_get(meta, "repo")),
		  json_str(json_get(meta, "ref")), json_str(json_get(meta, "commit")),
		  json_len(json_get(meta, "submodules")), left);
	identity_from(b, meta);
	source_from(b, meta);
	b->bundle_meta = meta;
	return 0;
}

/*
 * For the up-to-date check: the tree a bundle build left, read without
 * extracting (its record names the bundle's digest). 0, or -1 with why.
 */
int
bundle_recall(struct build *t, struct buf *why)
{
	struct json *meta = NULL;
	struct buf record = BUF_INIT, have = BUF_INIT;
	int rc = -1;

	diag_quiet++;
	buf_addf(&record, "%s/" RECORD, t->plan.work_dir);
	if (bundle_read_meta(t->plan.bundle, &meta) < 0 || record_read(record.s, &have) < 0)
		buf_addf(why, "the bundle '%s' cannot be read", t->plan.bundle);
	else if (strcmp(have.s, json_str(json_get(meta, "tree_sha256"))))
		buf_addf(why, "the work tree is not the bundle's (%.12s)",
			 json_str(json_get(meta, "tree_sha256")));
	else if (bundle_matches(t, meta) < 0 || series_matches(t, meta) < 0)
		buf_addstr(why, "the bundle is not of this profile's source");
	else
		rc = 0;
	diag_quiet--;
	if (!rc) {
		identity_from(t, meta);
		buf_addstr(&t->commit, t->tree.commit);
		t->bundle_meta = meta;
		meta = NULL;
	}
	json_free(meta);
	buf_release(&record);
	buf_release(&have);
	return rc;
}

/* ---- bwbuild bundle ---- */

/* The tree's files from the top: the superproject's and each submodule's (repo_tree_files). */
static int
tree_files(const char *src, const struct repo_tree_info *ti, struct strvec *out)
{
	struct buf dir = BUF_INIT, pre = BUF_INIT;
	int rc = repo_tree_files(src, "", out);

	for (size_t i = 0; i < ti->nsubs && !rc; i++) {
		struct strvec sub = STRVEC_INIT;

		buf_reset(&dir);
		buf_addf(&dir, "%s/%s", src, ti->subs[i].path);
		if (!is_dir(dir.s))
			continue;
		buf_reset(&pre);
		buf_addf(&pre, "%s/", ti->subs[i].path);
		rc = repo_tree_files(dir.s, pre.s, &sub);
		for (size_t j = 0; j < sub.n; j++)
			strvec_pushf(out, "%s/%s", ti->subs[i].path, sub.v[j]);
		strvec_clear(&sub);
	}
	if (rc)
		error("cannot list the files of '%s'", src);
	buf_release(&dir);
	buf_release(&pre);
	return rc;
}

/* The text of the configured build's files that name what it reads. */
static int
configured_text(const char *src, struct buf *text)
{
	static const char *const names[] = { "build.ninja", "CMakeCache.txt",
					     "compile_commands.json" };
	struct buf path = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !rc; i++) {
		struct buf one = BUF_INIT;

		buf_reset(&path);
		buf_addf(&path, "%s/build/%s", src, names[i]);
		if (!i && !is_regular(path.s))
			rc = error("'%s' is missing: the tree is not configured, so what its build "
				   "reads is unknown", path.s);
		else if (is_regular(path.s) && read_file(&one, path.s) < 0)
			rc = -1;
		buf_add(text, one.s, one.len);
		buf_addch(text, '\n');
		buf_release(&one);
	}
	buf_release(&path);
	return rc;
}

static struct json *
bundle_meta_of(const struct build *b, const struct repo_tree_info *ti, long long when)
{
	const struct profile *p = &b->profile;
	struct json *m = json_object(), *subs = json_array();
	struct relver rel;

	json_set(m, "profile", json_string(p->name.str));
	json_set(m, "repo", json_string(p->source_repo.str));
	json_set(m, "ref", json_string(p->source_ref.str));
	json_set(m, "commit", json_string(ti->commit));
	json_set(m, "commit_time", json_number((double)when));
	for (size_t i = 0; i < ti->nsubs; i++) {
		struct json *s = json_object();

		json_set(s, "path", json_string(ti->subs[i].path));
		json_set(s, "url", json_string(ti->subs[i].url));
		json_set(s, "commit", json_string(ti->subs[i].commit));
		json_push(subs, s);
	}
	json_set(m, "submodules", subs);
	rel = patch_release_for(p->source_ref.str, b->plan.src_dir);
	json_set(m, "patches", patch_selected_json(&b->patches, &rel, NULL));
	json_set(m, "changes", inputs_changes(b->plan.src_dir));
	json_set(m, "bwbuild", json_string(BWBUILD_VERSION));
	return m;
}

/* The summary for people: what went in, what was left out and why. */
static void
bundle_report(const char *out, const struct json *meta, const struct bundle_cuts *cuts)
{
	struct stat st;
	struct buf size = BUF_INIT;

	if (stat(out, &st) == 0)
		format_size(&size, (uint64_t)st.st_size);
	diag_printf(stdout, "bundle: %s (%s): %s @ %s, commit %.12s, %.0f files, %.0f bytes of tree\n", out,
	       size.len ? size.s : "?", json_str(json_get(meta, "repo")),
	       json_str(json_get(meta, "ref")), json_str(json_get(meta, "commit")),
	       json_number_value(json_get(meta, "files")), json_number_value(json_get(meta, "bytes")));
	for (size_t i = 0; i < cuts->n; i++)
		if (!cuts->v[i].inner)
			diag_printf(stdout, "  %s %s %s: %s\n", cuts->v[i].kept ? "kept" : "left out",
				    cuts->v[i].submodule ? "submodule" : "folder", cuts->v[i].path,
				    cuts->v[i].why);
	buf_release(&size);
}

/* The checkout at <work>/src, configured: its files into `out`, after bundle_decide. */
static int
bundle_pack(struct build *b, const char *out, const struct strvec *keep)
{
	const char *src = b->plan.src_dir;
	struct strvec files = STRVEC_INIT, subs = STRVEC_INIT;
	struct buf text = BUF_INIT;
	struct bundle_cuts cuts = { 0 };
	struct json *meta = NULL;
	char *real = NULL;
	long long when = 0;
	int rc = -1;

	if (repo_describe(src, &b->tree, NULL) < 0 || !b->tree.commit) {
		error("'%s' is not a checkout bwbuild made; run 'bwbuild build --profile %s "
		      "--until configure' first", src, b->profile.name.str);
		goto out;
	}
	/* what configure wrote into the checkout is no file of the tree */
	outputs_load(b);
	if (repo_commit_time(src, b->tree.commit, &when) < 0)
		when = 0;
	if (b->profile.source_patches.str && *b->profile.source_patches.str &&
	    patch_set_load(&b->patches, b->profile.source_patches.str) < 0)
		goto out;
	if (tree_files(src, &b->tree, &files) < 0 || configured_text(src, &text) < 0)
		goto out;
	for (size_t i = 0; i < b->tree.nsubs; i++)
		strvec_push(&subs, b->tree.subs[i].path);
	/* the build may name the tree through its real path: that spelling is the one to read */
	real = realpath(src, NULL);
	if (real && !strstr(text.s, src) && strstr(text.s, real))
		src = real;
	if (!strstr(text.s, src)) {
		error("the configured build in '%s/build' names no file of '%s'; it is not this "
		      "tree's: run 'bwbuild build --profile %s --until configure' again", src, src,
		      b->profile.name.str);
		goto out;
	}
	bundle_decide(src, text.s, text.len, &files, &subs, keep, &cuts);
	meta = bundle_meta_of(b, &b->tree, when);
	if (bundle_write(out, src, &files, &cuts, meta, when) < 0)
		goto out;
	bundle_report(out, meta, &cuts);
	rc = 0;
out:
	json_free(meta);
	bundle_cuts_release(&cuts);
	strvec_clear(&files);
	strvec_clear(&subs);
	free(real);
	buf_release(&text);
	return rc;
}

int
bundle_make(const struct build_opts *o, const char *out, const struct strvec *keep)
{
	struct build b;
	int ret = EXIT_USAGE;

	if (o->r.source_dir || o->r.bundle)
		return error("a bundle is made from the profile's own checkout; leave out --source "
			     "and --bundle"), EXIT_USAGE;
	for (size_t i = 0; keep && i < keep->n; i++)
		if (!tar_name_ok(keep->v[i], strlen(keep->v[i])))
			return error("--keep '%s': give a path inside the tree, such as "
				     "third_party/cudnn_frontend", keep->v[i]), EXIT_USAGE;
	build_init(&b, o);
	if (resolve_profile(&b.profile, &o->r) == 0 && resolve_plan(&b.plan, &b.profile, &o->r) == 0)
		ret = bundle_pack(&b, out, keep) < 0 ? EXIT_FAIL : EXIT_OK;
	build_release(&b);
	return ret;
}
