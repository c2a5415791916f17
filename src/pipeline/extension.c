#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wheel/against.h"
#include "core/buf.h"
#include "profile/compat.h"
#include "core/diag.h"
#include "core/json.h"
#include "profile/knowledge.h"
#include "profile/profile.h"
#include "profile/releases.h"
#include "pipeline/step.h"
#include "core/safefile.h"
#include "core/util.h"
#include "wheel/verify.h"
#include "formats/zip.h"

/*
 * kind: extension: a package built on a torch (torchvision, torchaudio, a
 * CUDA extension). Before the fetch, the torch is found and read (its
 * archs must run what the extension asks for); after it, a companion's
 * release is checked against torch's and the torch is made importable
 * for the build only (<work>/torch-site, on PYTHONPATH). Verify then holds
 * the wheel against that torch (src/wheel/against.c). docs/extensions.md.
 */

int
extension_torch_published(const struct profile *p, struct buf *wheel, struct buf *why)
{
	struct profile t;
	struct buf rec = BUF_INIT, text = BUF_INIT, bad = BUF_INIT;
	struct json *j = NULL;
	int rc = 0;

	memset(&t, 0, sizeof(t));
	if (profile_load_set(&t, p->torch.str, NULL) < 0)
		return error_at(&p->torch.loc, "the torch profile '%s' cannot be loaded", p->torch.str);
	buf_addf(&rec, "work/%s/last-build.json", t.name.str);
	if (is_regular(rec.s) && read_file(&text, rec.s) == 0 &&
	    (j = json_parse(text.s, text.len, &bad)) && json_str(json_get(j, "wheel")) &&
	    is_regular(json_str(json_get(j, "wheel")))) {
		buf_addstr(wheel, json_str(json_get(j, "wheel")));
		rc = 1;
	} else {
		char *shown = profile_torch_shown(p);

		buf_addf(why, "the torch profile '%s' has no published build (%s); build it "
			 "first: bwbuild --profile %s", t.name.str, rec.s, shown);
		free(shown);
	}
	json_free(j);
	profile_release(&t);
	buf_release(&rec);
	buf_release(&text);
	buf_release(&bad);
	return rc;
}

/* The wheel or directory `torch:` means; a torch profile's is the wheel its last published build left. */
static int
torch_location(const struct profile *p, struct buf *out)
{
	struct buf why = BUF_INIT;
	int rc;

	if (!profile_torch_is_profile(p)) {
		buf_addstr(out, p->torch.str);
		if (is_regular(out->s) || is_dir(out->s))
			return 0;
		return error_at(&p->torch.loc, "'%s' is neither a torch wheel nor a directory "
				"(site-packages/torch)", p->torch.str);
	}
	rc = extension_torch_published(p, out, &why);
	if (rc == 0)
		error_at(&p->torch.loc, "%s", why.s);
	buf_release(&why);
	return rc == 1 ? 0 : -1;
}

static void
loc_text(const struct loc *l, struct buf *out)
{
	if (l && l->file)
		buf_addf(out, "%s:%d:%d", l->file, l->line, l->col);
	else
		buf_addstr(out, "cuda.archs");
}

/* The package a tree is: torchvision/torchaudio by its repository's name, else that name. */
static void
project_name(const struct profile *p, struct buf *out)
{
	const char *repo = p->source_repo.str ? p->source_repo.str : "", *base = strrchr(repo, '/');
	size_t n;

	base = base ? base + 1 : repo;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".git"))
		n -= 4;
	buf_add(out, base, n);
	if (!strcmp(out->s, "vision") || !strcmp(out->s, "audio")) {
		buf_reset(out);
		buf_addf(out, "torch%.*s", (int)n, base);
	}
}

/*
 * A companion (torchvision, torchaudio) whose tag is another torch's
 * release: refused before the fetch, so plan and doctor say it too; the
 * fetched tree's version.txt is judged again (extension_tree). -1 after
 * reporting.
 */
static int
companion_by_ref(const struct profile *p, const struct torch_ref *t)
{
	struct buf project = BUF_INIT, why = BUF_INIT;
	struct relver version, torch;
	int rc = 0;

	project_name(p, &project);
	if (kb_companion(project.s) && tree_version(p->source_ref.str, NULL, &version) &&
	    relver_parse(t->version, &torch, NULL) == 0 &&
	    kb_companion_check(project.s, &version, &torch, &why) < 0)
		rc = error_at(&p->source_ref.loc, "%s; a companion built against another torch "
			      "fails at import", why.s);
	buf_release(&project);
	buf_release(&why);
	return rc;
}

int
extension_torch(const struct profile *p, struct torch_ref *t, struct buf *where)
{
	struct buf how = BUF_INIT;
	int rc = 0;

	if (torch_location(p, where) < 0 || torch_ref_load(t, where->s) < 0)
		return -1;
	/* Each arch the extension asks for must be one this torch itself runs on. */
	for (size_t i = 0; i < p->narchs; i++) {
		int cc = p->archs[i].arch.major * 10 + p->archs[i].arch.minor;

		buf_reset(&how);
		if (library_runs_on(&t->sass, &t->ptx, cc, &how) < 0)
			rc = error_at(&p->archs[i].loc, "%s %s does not run on sm_%d (it carries %s): "
				      "the extension's '%s' would load with no torch to run; build "
				      "torch for it too, or drop it", t->name, t->version, cc,
				      t->targets, p->archs[i].text);
	}
	buf_release(&how);
	if (companion_by_ref(p, t) < 0)
		rc = -1;
	if (rc < 0)
		torch_ref_release(t);
	return rc;
}

int
extension_check(struct build *b)
{
	struct buf where = BUF_INIT;

	if (!profile_is_extension(&b->profile))
		return 0;
	if (extension_torch(&b->profile, &b->torch, &where) < 0) {
		buf_release(&where);
		return -1;
	}
	b->have_torch = 1;
	fprintf(stderr, "bwbuild: builds on %s %s (%s)\n", b->torch.name, b->torch.version, where.s);
	buf_release(&where);
	return 0;
}

/* A wheel's members under `dir` (a directory the build reads, never the user's site-packages). */
static int
extract_wheel(const char *wheel, const char *dir)
{
	struct zip z;
	struct buf path = BUF_INIT, data = BUF_INIT, why = BUF_INIT;
	int rc = 0;

	if (zip_open(&z, wheel) < 0)
		return -1;
	for (size_t i = 0; i < z.n && !rc; i++) {
		const struct zip_entry *e = &z.entries[i];

		if (e->name[0] == '/' || strstr(e->name, "..") || ends_with(e->name, "/"))
			continue; /* verify names these; nothing outside `dir` is written */
		buf_reset(&path);
		buf_reset(&data);
		buf_addf(&path, "%s/%s", dir, e->name);
		if (mkdir_p_parent(path.s) < 0 ||
		    zip_read_all(&z, e, &data, (uint64_t)8 << 30, &why) < 0 ||
		    write_file_atomic(path.s, data.s, data.len) < 0)
			rc = error("cannot unpack '%s' of '%s' into '%s'%s%s", e->name, wheel, dir,
				   why.len ? ": " : "", why.s ? why.s : "");
	}
	zip_close(&z);
	buf_release(&path);
	buf_release(&data);
	buf_release(&why);
	return rc;
}

/* <work>/torch-site with exactly that torch in it: the wheel unpacked, or links to the directory. */
static int
torch_site(struct build *b)
{
	const struct torch_ref *t = &b->torch;
	struct buf site = BUF_INIT, stamp = BUF_INIT, want = BUF_INIT, have = BUF_INIT;
	struct buf link = BUF_INIT, target = BUF_INIT;
	int rc = 0;

	buf_addf(&site, "%s/torch-site", b->plan.work_dir);
	buf_addf(&stamp, "%s/torch-site.stamp", b->plan.work_dir);
	buf_addf(&want, "%s %s\n", t->path, *t->sha256 ? t->sha256 : "directory");
	if (!*t->sha256) {
		/* An nvidia/ installed beside it later must be linked too. */
		buf_addf(&link, "%.*s/nvidia", (int)(strrchr(t->path, '/') - t->path), t->path);
		buf_addf(&want, "nvidia/ %s\n", is_dir(link.s) ? "present" : "absent");
		buf_reset(&link);
	}
	if (!(is_regular(stamp.s) && read_file(&have, stamp.s) == 0 && !strcmp(have.s, want.s))) {
		unlink(stamp.s);
		rc = remove_tree(site.s);
		if (!rc)
			rc = mkdir_p(site.s);
		if (!rc && *t->sha256) {
			step_note(STEP_FETCH, "unpacking %s into %s (for this build only)", t->path,
				site.s);
			rc = extract_wheel(t->path, site.s);
		} else if (!rc) {
			/*
			 * site-packages/torch and its .dist-info beside it, linked; and
			 * the nvidia/ its RUNPATH ($ORIGIN/../../nvidia/...) names.
			 */
			struct buf nv = BUF_INIT;
			const char *dirs[3] = { t->path, t->dist_info, NULL };

			buf_addf(&nv, "%.*s/nvidia", (int)(strrchr(t->path, '/') - t->path), t->path);
			if (is_dir(nv.s))
				dirs[2] = nv.s;
			for (int i = 0; i < 3 && !rc; i++) {
				if (!dirs[i])
					continue;
				buf_reset(&link);
				buf_addf(&link, "%s/%s", site.s, strrchr(dirs[i], '/') + 1);
				if (symlink(dirs[i], link.s) < 0)
					rc = error("cannot link '%s' to '%s':", link.s, dirs[i]);
			}
			buf_release(&nv);
		}
		if (!rc)
			rc = write_file_atomic(stamp.s, want.s, want.len);
	}
	if (!rc) {
		buf_reset(&b->torch_site);
		buf_addstr(&b->torch_site, site.s);
	}
	buf_release(&site);
	buf_release(&stamp);
	buf_release(&want);
	buf_release(&have);
	buf_release(&link);
	buf_release(&target);
	return rc;
}

/*
 * <work>/launch/bin/cc and c++: the C and C++ compilers of an extension's
 * build through the launcher. setuptools takes CC/CXX as one word when it
 * links (it swaps the linker's first word for CXX's), so CC/CXX name these
 * scripts, and the real compilers reach them in LAUNCHED_CC/_CXX:
 * expanded with globbing off, never evaluated as shell text.
 */
static int
compiler_wrappers(const struct build *b)
{
	static const char *const names[][2] = { { "cc", "LAUNCHED_CC" },
						{ "c++", "LAUNCHED_CXX" } };
	struct buf path = BUF_INIT, text = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < 2 && !rc; i++) {
		buf_reset(&path);
		buf_reset(&text);
		buf_addf(&path, "%s/launch/bin/%s", b->plan.work_dir, names[i][0]);
		buf_addf(&text, "#!/bin/sh\n# bwbuild: %s through 'bwbuild launch' (memory admission)\n"
			 "set -f\n[ -n \"$BWBUILD_LAUNCH_SELF\" ] || exec ${%s:-%s} \"$@\"\n"
			 "exec \"$BWBUILD_LAUNCH_SELF\" launch -- ${%s:-%s} \"$@\"\n",
			 names[i][0], names[i][1], names[i][0], names[i][1], names[i][0]);
		rc = mkdir_p_parent(path.s);
		if (!rc)
			rc = write_file_atomic(path.s, text.s, text.len);
		if (!rc && chmod(path.s, 0755) < 0)
			rc = error("cannot make '%s' executable:", path.s);
	}
	buf_release(&path);
	buf_release(&text);
	return rc;
}

/* Which of the two build styles the tree is, said once; a tree with no setup.py is refused. */
static int
build_style(const struct build *b)
{
	struct buf f = BUF_INIT;
	int rc = 0;

	buf_addf(&f, "%s/setup.py", b->plan.src_dir);
	if (!is_regular(f.s)) {
		rc = error("'%s' has no setup.py: kind: extension builds setup.py packages (torch."
			   "utils.cpp_extension, or a setup.py that runs CMake); build a "
			   "pyproject-only package with its own tools", b->plan.src_dir);
	} else {
		buf_reset(&f);
		buf_addf(&f, "%s/CMakeLists.txt", b->plan.src_dir);
		if (is_regular(f.s))
			step_note(STEP_FETCH, "CMake-built: find_package finds %s through "
				"CMAKE_PREFIX_PATH, compiles go through CMAKE_<LANG>_COMPILER_LAUNCHER, "
				"CMAKE_BUILD_PARALLEL_LEVEL=%u", b->torch.name, b->plan.jobs.jobs);
	}
	buf_release(&f);
	return rc;
}

int
extension_tree(struct build *b)
{
	struct buf project = BUF_INIT, why = BUF_INIT;
	struct relver version, torch;
	int known = tree_version(b->profile.source_ref.str, b->plan.src_dir, &version) &&
		    relver_parse(b->torch.version, &torch, NULL) == 0;
	int rc = build_style(b), lock;

	project_name(&b->profile, &project);
	lock = kb_companion(project.s) && known ?
		kb_companion_check(project.s, &version, &torch, &why) : 0;
	if (rc)
		; /* no tree to judge */
	else if (lock < 0)
		rc = error_at(&b->profile.source_ref.loc, "%s; a companion built against another "
			      "torch fails at import", why.s);
	else if (lock > 0)
		warning("%s", why.s);
	else if (kb_companion(project.s))
		step_note(STEP_FETCH, "%s %u.%u goes with %s %s", project.s, version.major,
			version.minor, b->torch.name, b->torch.version);
	if (!rc)
		rc = torch_site(b);
	if (!rc && b->plan.jobs.launcher)
		rc = compiler_wrappers(b);
	buf_release(&project);
	buf_release(&why);
	return rc;
}

void
extension_verify(struct build *b, int repacked)
{
	struct wheel_report *r = &b->report;
	const struct profile *p = &b->profile;
	struct buf at = BUF_INIT;

	loc_text(p->narchs ? &p->archs[0].loc : NULL, &at);
	for (size_t i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];
		struct buf extra = BUF_INIT;

		if (!l->has_fatbin)
			continue;
		for (size_t j = 0; j < l->sass.n; j++)
			if (!strset_has(&b->plan.sass, l->sass.v[j]))
				buf_addf(&extra, "%s%s", extra.len ? " " : "", l->sass.v[j]);
		for (size_t j = 0; j < l->ptx.n; j++)
			if (!strset_has(&b->plan.ptx, l->ptx.v[j]))
				buf_addf(&extra, "%s%s", extra.len ? " " : "", l->ptx.v[j]);
		if (extra.len) {
			struct buf e = BUF_INIT;

			buf_addf(&e, "%s: '%s' carries %s, which cuda.archs (%s) did not ask for: its "
				 "build ignores TORCH_CUDA_ARCH_LIST (a hard-coded -gencode list?); a "
				 "patch in patches/<project>/ makes it honour the profile (requested vs "
				 "effective)", at.s, l->path, extra.s, b->plan.arch_list);
			strvec_push(&r->errors, e.s);
			buf_release(&e);
		}
		buf_release(&extra);
	}
	/* Before the repack pins torch in METADATA, the pin is not judged yet. */
	against_check(r, b->wheel.s, &b->torch, repacked);
	buf_release(&at);
}
