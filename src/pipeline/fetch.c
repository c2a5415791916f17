#include <unistd.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/build.h"
#include "formats/cmakeopts.h"
#include "pipeline/doctor.h"
#include "core/diag.h"
#include "pipeline/doctor.h"
#include "pipeline/inputs.h"
#include "core/json.h"
#include "core/strvec.h"
#include "profile/knowledge.h"
#include "sources/repowork.h"
#include "pipeline/resolve.h"
#include "host/python.h"
#include "pipeline/step.h"
#include "core/util.h"

/*
 * The fetch step: the source at the profile's ref with its patches (or a
 * --source tree as it is), its build era, its own option() list checked
 * against the profile, and the version the wheel will get (version.c).
 */

/*
 * Option discovery: the switches this tree declares, checked against the
 * profile's features and USE_* cmake entries before anything is built.
 */
static int
check_tree_options(const struct build *b)
{
	struct cmake_options opts;
	struct buf label = BUF_INIT, ver = BUF_INIT;
	const struct plan *pl = &b->plan;
	int rc;

	if (cmakeopts_scan_tree(&opts, pl->src_dir) < 0)
		return -1;
	version_txt_read(pl->src_dir, &ver);
	buf_addf(&label, "torch %s (%s at %.12s)", ver.len ? ver.s : "of unknown version",
		 pl->local_source ? pl->src_dir : b->profile.source_ref.str, b->commit.s);
	step_note(STEP_FETCH, "%zu options declared in %zu build files", opts.n, opts.files);
	rc = opts.n ? kb_check_tree(&b->profile, &opts, label.s, b->opts->r.strict) : 0;
	/* The tree's default, now that it is here (features.numpy on: compile_check). */
	if (b->profile.features[FEAT_NUMPY] == TRI_UNSET &&
	    numpy_check(&b->profile, &opts, b->python.s) < 0)
		rc = -1;
	if (!opts.n)
		warning("no option() in '%s'; the profile's features cannot be checked against it",
			pl->src_dir);
	/* The archs and the toolkit against the tree's own CMake (a --source tree's archs: at resolve). */
	buf_reset(&ver);
	if (kb_check_source(&b->profile, pl->src_dir, pl->cuda_home, !pl->local_source, &ver) < 0)
		rc = -1;
	if (ver.len)
		step_note(STEP_FETCH, "%s", ver.s);
	cmakeopts_release(&opts);
	buf_release(&label);
	buf_release(&ver);
	return rc;
}

/* source.submodules for the manifest: [{path, url, commit}] */
static struct json *
submodules_json(const struct repo_tree_info *ti)
{
	struct json *a = json_array();

	for (size_t i = 0; i < ti->nsubs; i++) {
		struct json *o = json_object();

		json_set(o, "path", json_string(ti->subs[i].path));
		json_set(o, "url", json_string(ti->subs[i].url));
		json_set(o, "commit", json_string(ti->subs[i].commit));
		json_push(a, o);
	}
	return a;
}

/*
 * --source: the user's tree as it is. Nothing is checked out, patched or
 * cleaned; what it is (commit, submodules, local changes) is recorded.
 */
static int
use_local_source(struct build *b)
{
	const struct profile *p = &b->profile;
	const char *src = b->plan.src_dir;
	struct strvec changes = STRVEC_INIT;

	if (repo_describe(src, &b->tree, &changes) < 0) {
		warning("'%s' is not a git checkout; the manifest will name no commit", src);
	} else if (changes.n) {
		warning("building '%s' as it is, with %zu local change%s (recorded in the manifest)",
			src, changes.n, changes.n == 1 ? "" : "s");
		note_lines(changes.v, changes.n, 10);
	}
	if (p->source_patches.str && *p->source_patches.str)
		warning_at(&p->source_patches.loc, "source.patches '%s' is not applied to a --source "
			   "tree; it is built as it is", p->source_patches.str);
	json_set(b->source, "patches", json_array());
	json_set(b->source, "local", json_string(src));
	json_set(b->source, "changes", json_string_array(changes.v, changes.n));
	strvec_clear(&changes);
	return 0;
}



/* sources/ says what it does through this: the fetch step's lines. */
static void
fetch_line(void *ctx, const char *text)
{
	(void)ctx;
	step_note(STEP_FETCH, "%s", text);
}

/*
 * Whether the tree is already at the ref with exactly the profile's
 * patches (1: nothing to do), after undoing recorded patches otherwise
 * so the checkout finds a clean tree (0); -1 after reporting.
 */
static int
tree_is_current(struct build *b, const char *cache, const struct strvec *dirs, const char *record)
{
	const struct src_progress pr = { fetch_line, NULL, step_names[STEP_FETCH] };
	const struct profile *p = &b->profile;
	const char *src = b->plan.src_dir;
	struct buf target = BUF_INIT;
	struct relver rel;
	struct stat st;
	int skip = 0;

	/* Read through, a planted link was taken for patches an earlier build applied. */
	if (lstat(record, &st) == 0 && !S_ISREG(st.st_mode))
		return error("'%s' is %s, not the record of applied patches bwbuild writes; remove "
			     "it (and build with --force if the tree was patched by hand)", record,
			     S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
	if (p->source_patches.str && *p->source_patches.str) {
		if (patch_set_load(&b->patches, p->source_patches.str) < 0)
			return -1;
		if (path_exists(src)) {
			if (!b->opts->refresh)
				repo_resolve_source(cache, dirs, p->source_repo.str, p->source_ref.str,
						    &target);
			rel = patch_release_for(p->source_ref.str, src);
			skip = patches_before_checkout(&b->patches, &rel, src, record,
						       target.len ? target.s : NULL, b->opts->force,
						       &pr);
		}
		if (skip > 0)
			step_note(STEP_FETCH, "already at %.12s with its patches applied; nothing "
				"to do", target.s);
	} else if (path_exists(record)) {
		skip = error("'%s' has patches applied by an earlier build (%s) and this profile "
			     "names none; remove the work directory or set source.patches again",
			     src, record);
	}
	buf_release(&target);
	return skip;
}

/*
 * The checkout at the ref (from the cached mirrors), then the profile's
 * patch series for that release. A tree already at the commit with
 * exactly those patches applied is left alone (nothing rewritten,
 * nothing rebuilt, no network).
 */
static int
checkout_source(struct build *b)
{
	const struct profile *p = &b->profile;
	const struct src_progress pr = { fetch_line, NULL, step_names[STEP_FETCH] };
	struct buf record = BUF_INIT, cache = BUF_INIT;
	struct repo_checkout_opts co;
	struct json *patches = json_array();
	struct strvec dirs = STRVEC_INIT, exclude = STRVEC_INIT;
	struct relver rel;
	int rc, fresh;

	json_set(b->source, "patches", patches);
	repo_cache_dir(&cache);
	buf_addf(&record, "%s/patches.applied", b->plan.work_dir);
	/* $BWBUILD_MIRRORS (this machine's) first, then the profile's source.mirrors */
	repo_mirror_dirs_env(&dirs);
	if (p->source_mirrors.str && *p->source_mirrors.str)
		strvec_push(&dirs, p->source_mirrors.str);
	rc = repo_cache_dir_check(cache.s);
	if (!rc)
		rc = tree_is_current(b, cache.s, &dirs, record.s);
	if (rc > 0) {
		rc = repo_describe(b->plan.src_dir, &b->tree, NULL);
		if (rc < 0) {
			error("cannot read the checkout in '%s'", b->plan.src_dir);
		} else {
			rel = patch_release_for(p->source_ref.str, b->plan.src_dir);
			json_set(b->source, "patches", patch_selected_json(&b->patches, &rel,
									 "already applied"));
		}
	} else if (rc == 0) {
		memset(&co, 0, sizeof(co));
		co.url = p->source_repo.str;
		co.ref = p->source_ref.str;
		co.dir = b->plan.src_dir;
		co.cache_dir = cache.s;
		co.force = b->opts->force;
		co.refresh = b->opts->refresh;
		for (size_t i = 0; i < p->nsubmodules_exclude; i++)
			strvec_push(&exclude, p->submodules_exclude[i]);
		co.mirror_dirs = &dirs;
		co.exclude = &exclude;
		co.progress = &pr;
		for (size_t i = 0; i < dirs.n; i++)
			if (!is_dir(dirs.v[i]))
				warning("the mirror directory '%s' does not exist; fetching without it",
					dirs.v[i]);
		/*
		 * A checkout onto a tree the build already wrote into (a new patch
		 * series, the tree at its commit) leaves those outputs there: they stay
		 * the build's. Only a new tree starts without the marks.
		 */
		fresh = repo_dir_is_empty(b->plan.src_dir);
		rc = repo_checkout(&co, &b->tree);
		if (!rc && fresh)
			outputs_reset(b);
		if (!rc && b->patches.project) {
			rel = patch_release_for(p->source_ref.str, b->plan.src_dir);
			rc = patches_apply(&b->patches, &rel, b->plan.src_dir, record.s, patches, &pr);
		}
	}
	buf_release(&record);
	buf_release(&cache);
	strvec_clear(&dirs);
	strvec_clear(&exclude);
	return rc;
}

int
fetch_run(struct build *b)
{
	const struct profile *p = &b->profile;
	struct buf why = BUF_INIT;
	int rc = -1;

	/* A --source tree is whatever commit it is at (said below), not the profile's ref. */
	if (b->plan.local_source)
		step_note(STEP_FETCH, "--source %s, built as it is (the profile's %s @ %s is "
			  "not checked out)", b->plan.src_dir, p->source_repo.str, p->source_ref.str);
	else if (!b->plan.bundle)
		step_note(STEP_FETCH, "%s @ %s", p->source_repo.str, p->source_ref.str);
	/* Before the tree is read: what the build wrote into it is no local change. */
	outputs_load(b);
	if ((b->plan.local_source ? use_local_source(b) : b->plan.bundle ? bundle_fetch(b) :
	     checkout_source(b)) < 0)
		goto out;
	json_set(b->source, "submodules", submodules_json(&b->tree));
	/* files the mirrors lacked, not checked out (large files a snapshot leaves out) */
	if (b->tree.nabsent)
		json_set(b->source, "absent_files", json_string_array(b->tree.absent, b->tree.nabsent));
	if (p->nsubmodules_exclude)
		json_set(b->source, "submodules_excluded",
			 json_string_array((char *const *)p->submodules_exclude, p->nsubmodules_exclude));
	buf_addstr(&b->commit, b->tree.commit ? b->tree.commit : "none");
	if (b->tree.commit && !b->plan.bundle &&
	    repo_commit_time(b->plan.src_dir, b->tree.commit, &b->epoch) < 0)
		b->epoch = -1;
	if (b->tree.nsubs)
		step_note(STEP_FETCH, "%s at %s (%zu submodule%s)", b->plan.src_dir, b->commit.s,
			  b->tree.nsubs, b->tree.nsubs == 1 ? "" : "s");
	else
		step_note(STEP_FETCH, "%s at %s", b->plan.src_dir, b->commit.s);
	if (profile_is_extension(&b->profile)) {
		/* Not torch: its own setup.py, with the torch it builds on importable. */
		b->era = era_by_key("extension");
		step_note(STEP_FETCH, "build era: %s", b->era->name);
		rc = extension_tree(b);
		goto out;
	}
	b->era = era_detect(b->plan.src_dir, b->python.s, &why);
	if (!b->era) {
		error("%s", why.s);
		goto out;
	}
	step_note(STEP_FETCH, "build era: %s", b->era->name);
	if (check_tree_options(b) < 0)
		goto out;
	/* A fetched tree is what its own files say; a --source tree was read by the checks. */
	if (!b->plan.local_source && python_env_check(b, b->plan.src_dir) < 0)
		goto out;
	buf_reset(&why);
	if ((b->cmake_policy = cmake_policy_needed(b->plan.src_dir, &why)))
		step_note(STEP_FETCH, "%s", why.s);
	if (b->era->module && !python_imports(b->python.s, b->era->module)) {
		error("this tree builds with '%s', which %s cannot import; %s",
		      b->era->module_user, b->python.s, b->era->module_hint);
		goto out;
	}
	/* The compilers are inputs, which the wheel's label names. */
	step_toolchain(b);
	rc = wheel_version(b);
out:
	buf_release(&why);
	return rc;
}
