/*
 * What a configure leaves, settled: the read-back of what CMake decided,
 * printed and judged against the profile, then configure.stamp (what it
 * saw, for the next run to compare); and setuptools' staging, removed.
 * The configure step settles after its configure, the compile step after
 * a build that configures itself (era.h: compile_configures) and the
 * wheel step removes a staging cut short: shared, so no step calls
 * another (src/README.md, "Inside pipeline/").
 * May include: core/, formats/, host/, profile/, pipeline/.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/fault.h"
#include "core/json.h"
#include "core/proc.h"
#include "core/safefile.h"
#include "core/strvec.h"
#include "core/util.h"
#include "formats/cmakecache.h"
#include "formats/cmakeopts.h"
#include "pipeline/configure.h"
#include "pipeline/plan.h"
#include "pipeline/step.h"
#include "profile/profile.h"

/* The read-back's closing lines: the BLAS row, the options CMake turned off that nobody asked off. */
static int
readback_notes(const struct profile *p, const struct plan *pl, const struct cmake_cache *c,
	       const struct cmake_options *tree, const char *path, struct buf *notes)
{
	struct strvec dropped = STRVEC_INIT;
	int rc = readback_blas(p, c, &pl->inherited, path, notes);

	if (readback_dropped(c, tree, &pl->env, &pl->inherited, &dropped)) {
		buf_addstr(notes, "  turned off by the tree's CMake though it defaults them on "
			   "(neither the profile nor the environment asked):\n");
		for (size_t i = 0; i < dropped.n; i++)
			buf_addf(notes, "    %s\n", dropped.v[i]);
	}
	strvec_clear(&dropped);
	return rc;
}

int
configure_readback(const struct profile *p, const struct plan *pl, struct json **effective,
		   struct buf *notes)
{
	struct buf path = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	struct cmake_options tree;
	struct cmake_cache c;
	int rc = -1, have_tree;

	*effective = NULL;
	buf_addf(&path, "%s/build/" CONFIGURE_EFFECTIVE_FILE, pl->src_dir);
	if (!path_exists(path.s)) {
		buf_reset(&path);
		buf_addf(&path, "%s/build/CMakeCache.txt", pl->src_dir);
	}
	if (read_file(&text, path.s) < 0)
		goto out;
	if (cmakecache_parse(&c, text.s, text.len, &why) < 0) {
		error("%s: %s", path.s, why.s);
		goto out;
	}
	/* What the tree defaults on, for what CMake dropped unasked (quietly without). */
	diag_quiet++;
	have_tree = cmakeopts_scan_tree(&tree, pl->src_dir) == 0;
	diag_quiet--;
	rc = features_effective(p, &c, path.s, have_tree ? &tree : NULL, effective);
	if (readback_notes(p, pl, &c, have_tree ? &tree : NULL, path.s, notes) < 0)
		rc = -1;
	if (have_tree)
		cmakeopts_release(&tree);
	cmakecache_release(&c);
out:
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	return rc;
}

/*
 * Whether an environment entry can change what configure decides. Job
 * counts, the launcher's budget and slots (they change with free memory
 * and on OOM recovery), the compiler cache's settings and TMPDIR are read
 * while compiling only, so they must not force a fresh configure.
 */
static int
reaches_cmake(const char *entry)
{
	static const char *const compile_only[] = { "MAX_JOBS=", "FLASH_ATTENTION_MAX_JOBS=",
						    "CMAKE_BUILD_PARALLEL_LEVEL=", "TMPDIR=",
						    "BWBUILD_LAUNCH_", "CCACHE_", NULL };

	for (size_t i = 0; compile_only[i]; i++)
		if (starts_with(entry, compile_only[i]))
			return 0;
	return 1;
}

void
configure_stamp_text(const struct build *b, struct buf *out)
{
	struct proc p = PROC_INIT;

	step_env(&p, b);
	buf_addf(out, "commit %s\n", b->commit.s);
	for (size_t i = 0; i < p.env.n; i++)
		if (reaches_cmake(p.env.v[i]))
			buf_addf(out, "%s\n", p.env.v[i]);
	for (size_t i = 0; i < b->plan.inherited.n; i++)
		if (reaches_cmake(b->plan.inherited.v[i]))
			buf_addf(out, "inherited %s\n", b->plan.inherited.v[i]);
	/* Another compiler, CMake or generator means another configure. */
	toolchain_text(&b->toolchain, out);
	proc_release(&p);
}

void
configure_stamp_path(const struct build *b, struct buf *out)
{
	buf_addf(out, "%s/configure.stamp", b->plan.work_dir);
}

int
setuptools_staging_remove(const char *src_dir, int step)
{
	struct buf dir = BUF_INIT, path = BUF_INIT;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	buf_addf(&dir, "%s/build", src_dir);
	d = opendir(dir.s);
	while (d && (de = readdir(d))) {
		if (!starts_with(de->d_name, "lib.") && !starts_with(de->d_name, "bdist."))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir.s, de->d_name);
		if (remove_tree(path.s) < 0)
			ret = -1;
		else if (step >= 0)
			step_note((enum step)step, "'%s' is made afresh: the last compile or wheel "
				  "step did not finish", path.s);
	}
	if (d)
		closedir(d);
	buf_release(&dir);
	buf_release(&path);
	return ret;
}

/*
 * The read-back as a table on stderr: each feature the profile or the
 * tree names, what the profile asked and what CMakeCache.txt (with the
 * hook's dump) says the build will do. Mismatches were errors already.
 */
static void
print_effective(const struct json *effective, const struct plan *pl)
{
	const char *src_dir = pl->src_dir;
	int from_env = 0;
	const struct json **items = NULL;
	size_t n = json_items(effective, &items);

	step_note(STEP_CONFIGURE, "requested vs effective (%s/build: CMakeCache.txt and the values "
		"configure ended with):", src_dir);
	fprintf(stderr, "  %-20s %-28s %-10s %s\n", "feature", "CMake option", "requested",
		"effective");
	for (size_t i = 0; i < n; i++) {
		const struct json *req = json_get(items[i], "requested");
		const struct json *eff = json_get(items[i], "effective");
		const struct json *opt = json_get(items[i], "option");
		const struct json *def = json_get(items[i], "tree_default");
		const char *r = req && json_str(req) ? json_str(req) : !def || !json_is_bool(def) ?
				"(tree)" : json_is_true(def) ? "(tree: on)" : "(tree: off)";
		const char *e = !eff || !json_is_bool(eff) ? "unset" : json_is_true(eff) ? "on" : "off";
		const char *o = opt && json_str(opt) ? json_str(opt) : "?";
		struct buf inherited = BUF_INIT;
		long at = -1;

		/* Not the profile's and not the tree's: this shell's USE_MKLDNN=0 asked for it. */
		if (!(req && json_str(req)) && strcmp(o, "?"))
			at = strvec_env_find(&pl->inherited, o, strlen(o));
		if (at >= 0) {
			buf_addf(&inherited, "%s (env)", pl->inherited.v[at] + strlen(o) + 1);
			r = inherited.s;
			from_env++;
		}
		fprintf(stderr, "  %-20s %-28s %-10s %s\n", json_member_key(items[i]), o, r, e);
		buf_release(&inherited);
	}
	if (from_env)
		fprintf(stderr, "  (env): not in the profile, inherited from this shell's environment\n");
	free(items);
}

int
configure_settle(struct build *b)
{
	struct buf stamp = BUF_INIT, text = BUF_INIT, notes = BUF_INIT;
	int rc;

	json_free(b->effective);
	rc = configure_readback(&b->profile, &b->plan, &b->effective, &notes);
	if (rc < 0) {
		/* A feature CMake dropped because a check could not run (a full disk) says so. */
		step_cause(STEP_CONFIGURE, &b->plan);
		error("configure gave a build that differs from the profile; fix the cause above or "
		      "change the profile");
	} else {
		if (b->effective)
			print_effective(b->effective, &b->plan);
		fputs(notes.s, stderr);
		fault_point("configure-read-back");
		configure_stamp_path(b, &stamp);
		configure_stamp_text(b, &text);
		rc = write_file_atomic(stamp.s, text.s, text.len);
	}
	buf_release(&stamp);
	buf_release(&text);
	buf_release(&notes);
	return rc;
}
