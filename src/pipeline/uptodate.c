#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/diag.h"
#include "sources/git.h"
#include "pipeline/inputs.h"
#include "core/json.h"
#include "pipeline/plan.h"
#include "core/proc.h"
#include "host/python.h"
#include "pipeline/journal.h"
#include "pipeline/step.h"
#include "host/toolchain.h"
#include "pipeline/uptodate.h"
#include "core/safefile.h"
#include "core/util.h"
#include "wheel/cudalibs.h"
#include "wheel/verify.h"

static void
record_path(const struct build *b, struct buf *out)
{
	buf_addf(out, "%s/last-build.json", b->plan.work_dir);
}

/*
 * python_find judges its candidates by starting them; the check may not.
 * The first candidate as it was then: while it is unchanged, the judgement
 * (and so the interpreter) is the same.
 */
static struct json *
python_first_json(const struct build *b)
{
	struct json *o = json_object();
	struct buf first = BUF_INIT;
	char *id;

	python_guess(&first, b->profile.python.str);
	id = file_identity(first.s);
	json_set(o, "path", json_string(first.s));
	json_set(o, "identity", json_string(id));
	free(id);
	buf_release(&first);
	return o;
}

int
uptodate_record(const struct build *b, const char *inputs_hash, const char *wheel,
		const char *manifest, const char *manifest_sha256, const char *work_manifest)
{
	struct json *j = json_object();
	struct buf path = BUF_INIT;
	char *text;
	int rc;

	json_set(j, "inputs_hash", json_string(inputs_hash));
	/* The inputs themselves: the next build names the ones that changed. */
	json_set(j, "inputs", inputs_make(b));
	json_set(j, "wheel", json_string(wheel));
	json_set(j, "manifest", json_string(manifest));
	json_set(j, "sha256", json_string(b->report.sha256));
	json_set(j, "manifest_sha256", json_string(manifest_sha256));
	json_set(j, "out_dir", json_string(b->plan.out_dir));
	json_set(j, "work_wheel", json_string(b->wheel.s));
	json_set(j, "work_manifest", json_string(work_manifest));
	json_set(j, "toolchain", toolchain_identity_json(&b->toolchain));
	json_set(j, "python_first", python_first_json(b));
	/* What the checks chose from the tree, which the check may not run again (pyenv.h, doctor.h). */
	json_set(j, "pythonpath", json_string(b->pythonpath.len ? b->pythonpath.s : ""));
	json_set(j, "cmake_policy", json_bool(b->cmake_policy));
	text = json_print(j, 1);
	record_path(b, &path);
	rc = write_file_atomic(path.s, text, strlen(text));
	free(text);
	json_free(j);
	buf_release(&path);
	return rc;
}

/* The source as the fetch step would leave it, read without fetching; why not into `why`. */
static int
recall_source(struct build *t, struct buf *why)
{
	const struct profile *p = &t->profile;
	struct buf cache = BUF_INIT, want = BUF_INIT, head = BUF_INIT;
	int rc = -1;

	if (t->plan.bundle)
		return bundle_recall(t, why);
	if (!t->plan.local_source) {
		repo_cache_dir(&cache);
		if (repo_resolve_cached(cache.s, p->source_repo.str, p->source_ref.str, &want) < 0) {
			buf_addf(why, "'%s' is not in the cached mirror", p->source_ref.str);
			goto out;
		}
		if (repo_head_commit(t->plan.src_dir, &head) < 0 || strcmp(head.s, want.s)) {
			buf_addf(why, "the work tree is not at %.12s", want.s);
			goto out;
		}
		if (p->source_patches.str && *p->source_patches.str &&
		    patch_set_load(&t->patches, p->source_patches.str) < 0) {
			buf_addf(why, "the patch series '%s' cannot be read", p->source_patches.str);
			goto out;
		}
	}
	if (repo_describe(t->plan.src_dir, &t->tree, NULL) < 0 || !t->tree.commit) {
		buf_addf(why, "'%s' is not a git checkout", t->plan.src_dir);
		goto out;
	}
	buf_addstr(&t->commit, t->tree.commit);
	if (repo_commit_time(t->plan.src_dir, t->tree.commit, &t->epoch) < 0)
		t->epoch = -1;
	rc = 0;
out:
	buf_release(&cache);
	buf_release(&want);
	buf_release(&head);
	return rc;
}

/*
 * The prefix the last build put on PYTHONPATH and its CMake 4 policy
 * setting, as recorded: while the tree and the toolchain are the same
 * (the inputs and the setuptools it found say so), so are they.
 */
static void
recall_choices(struct build *t, const struct json *last, struct buf *why)
{
	const char *pp = json_str(json_get(last, "pythonpath"));
	const struct json *policy = json_get(last, "cmake_policy");

	if (!pp || !json_is_bool(policy)) {
		buf_addstr(why, "its record is from an older bwbuild");
		return;
	}
	if (*pp && !is_dir(pp))
		buf_addf(why, "'%s' (on the last build's PYTHONPATH) is gone", pp);
	buf_addstr(&t->pythonpath, pp);
	t->cmake_policy = json_is_true(policy);
}

/*
 * `path` is a file of its own, not a link: a link in --out to the pair in
 * <work>/dist has the right bytes until the next build empties dist/
 * (issue 31). The reason into `why` when not.
 */
static int
plain_file(const char *path, struct buf *why)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		buf_addf(why, "'%s' is gone", path);
	else if (S_ISLNK(st.st_mode))
		buf_addf(why, "'%s' is a symbolic link, not a published file", path);
	else if (!S_ISREG(st.st_mode))
		buf_addf(why, "'%s' is not a regular file", path);
	else
		return 1;
	return 0;
}

/* The published wheel still there, still the same bytes, still passing verify. */
static int
wheel_still_good(struct build *t, const char *wheel, const char *sha256, struct buf *why)
{
	struct wheel_expect ex = { .sass = &t->plan.sass, .ptx = &t->plan.ptx };
	struct wheel_exception *exc = plan_exceptions(&t->profile, &ex.nexceptions);
	int rc = -1;

	ex.exceptions = exc;
	ex.cxx11_abi = t->profile.cxx11_abi == TRI_OFF ? 2 : 1;
	ex.cuda_libs = cuda_libs_form_of(&t->profile);
	if (t->have_report) {
		wheel_report_release(&t->report);
		t->have_report = 0;
	}
	if (!plain_file(wheel, why)) {
		/* why says it */
	} else if (wheel_verify(&t->report, wheel, &ex) < 0) {
		buf_addf(why, "'%s' cannot be read", wheel);
	} else {
		t->have_report = 1;
		if (t->report.errors.n)
			buf_addf(why, "'%s' no longer verifies: %s", wheel, t->report.errors.v[0]);
		else if (!sha256 || strcmp(sha256, t->report.sha256))
			buf_addf(why, "'%s' is not the wheel that was built", wheel);
		else
			rc = 0;
	}
	free(exc);
	return rc;
}

/* 1 if `path` is a regular file whose sha256 is `sha`. */
static int
file_is(const char *path, const char *sha)
{
	struct buf h = BUF_INIT;
	int same = sha && sha256_file(path, &h) == 0 && !strcmp(h.s, sha);

	buf_release(&h);
	return same;
}

/* Whether the file `path` lies in the directory `dir` (through links). */
static int
same_dir(const char *path, const char *dir)
{
	char *d = xstrndup(path, (size_t)(strrchr(path, '/') - path));
	char *a = realpath(d, NULL), *b = realpath(dir, NULL);
	int same = a && b ? !strcmp(a, b) : !strcmp(d, dir);

	free(a);
	free(b);
	free(d);
	return same;
}

/*
 * The wheel and manifest last published, in THIS --out: 1 when they are
 * there and the ones recorded; 2 when they were not but the pair kept in
 * the work dir still is, and was published again; 0 with the reason in
 * `why` (a build is needed). Their paths into `wheel` and `manifest`.
 */
static int
published_pair(struct build *t, const struct json *last, struct buf *why, struct buf *wheel,
	       struct buf *manifest)
{
	const char *recorded = json_str(json_get(last, "wheel"));
	const char *sha = json_str(json_get(last, "sha256"));
	const char *msha = json_str(json_get(last, "manifest_sha256"));
	const char *lw = json_str(json_get(last, "work_wheel"));
	const char *lm = json_str(json_get(last, "work_manifest"));
	const char *name = strrchr(recorded, '/') ? strrchr(recorded, '/') + 1 : recorded;
	struct buf outwhy = BUF_INIT, text = BUF_INIT;
	int rc = 0;

	if (!sha || !msha || !lw || !lm || !ends_with(name, ".whl")) {
		buf_addstr(why, "its record is from an older bwbuild");
		return 0;
	}
	buf_addf(wheel, "%s/%s", t->plan.out_dir, name);
	buf_addf(manifest, "%s/%.*s.manifest.json", t->plan.out_dir, (int)(strlen(name) - 4), name);
	/* A new --out is not a loss: nothing of this build was ever there. */
	if (!path_exists(manifest->s) && strrchr(recorded, '/') &&
	    !same_dir(recorded, t->plan.out_dir))
		buf_addf(&outwhy, "it was published into '%.*s', and '%s' has no copy yet",
			 (int)(strrchr(recorded, '/') - recorded), recorded, t->plan.out_dir);
	else if (plain_file(manifest->s, &outwhy)) {
		if (!file_is(manifest->s, msha))
			buf_addf(&outwhy, "'%s' is not the manifest of the wheel that was built",
				 manifest->s);
		else if (wheel_still_good(t, wheel->s, sha, &outwhy) == 0)
			return 1;
	}
	/* The pair kept in the work dir: published again, nothing built. */
	if (wheel_still_good(t, lw, sha, why) < 0) {
		buf_addf(why, " (and %s)", outwhy.s);
		goto out;
	}
	if (!file_is(lm, msha) || read_file(&text, lm) < 0) {
		buf_addf(why, "%s, and '%s' is not the manifest of the wheel that was built",
			 outwhy.s, lm);
		goto out;
	}
	fprintf(stderr, "bwbuild: publishing the last build again into '%s': %s\n",
		t->plan.out_dir, outwhy.s);
	if (mkdir_p(t->plan.out_dir) < 0 ||
	    publish_pair(t->plan.work_dir, t->plan.out_dir, lw, name, text.s, text.len) < 0) {
		buf_addf(why, "%s, and publishing it again failed", outwhy.s);
		goto out;
	}
	rc = 2;
out:
	buf_release(&outwhy);
	buf_release(&text);
	return rc;
}

/* A value as the rebuild message shows it: compact JSON, cut at 60 bytes. */
static void
shown(const struct json *v, struct buf *out)
{
	char *text = v ? json_print(v, 0) : NULL;

	if (!text)
		buf_addstr(out, "(none)");
	else if (strlen(text) > 60)
		buf_addf(out, "%.57s...", text);
	else
		buf_addstr(out, text);
	free(text);
}

/*
 * The places where two inputs differ, "KEY.KEY[i]: OLD -> NEW", depth
 * first in the order the inputs list them, up to `most`. Hashes made from
 * what is compared beside them (the profile's sha256, the version the
 * label makes) are not named.
 */
static void
changed_paths(const struct json *was, const struct json *now, struct buf *path,
	      struct strvec *out, size_t most)
{
	const struct json **items;
	size_t len = path->len, n, i;

	if (out->n >= most || !strcmp(path->s, "profile.sha256") ||
	    !strcmp(path->s, "env.PYTORCH_BUILD_VERSION") || json_equal(was, now))
		return;
	if (json_is_object(was) && json_is_object(now)) {
		for (int side = 0; side < 2; side++) {
			n = json_items(side ? was : now, &items);
			for (i = 0; i < n; i++) {
				const char *k = json_member_key(items[i]);

				if (!k || (side && json_get(now, k)))
					continue;
				buf_addf(path, "%s%s", len ? "." : "", k);
				changed_paths(json_get(was, k), json_get(now, k), path, out, most);
				buf_setlen(path, len);
			}
			free(items);
		}
		return;
	}
	if (json_is_array(was) && json_is_array(now)) {
		const struct json **other;
		size_t m = json_items(now, &other);

		n = json_items(was, &items);
		for (i = 0; i < n || i < m; i++) {
			buf_addf(path, "[%zu]", i);
			changed_paths(i < n ? items[i] : NULL, i < m ? other[i] : NULL, path, out, most);
			buf_setlen(path, len);
		}
		free(items);
		free(other);
		return;
	}
	buf_addf(path, ": ");
	shown(was, path);
	buf_addstr(path, " -> ");
	shown(now, path);
	strvec_push(out, path->s);
	buf_setlen(path, len);
}

/* What changed since the recorded inputs, after "the inputs changed" in `why`. */
static void
inputs_changed(const struct json *was, const struct json *now, struct buf *why)
{
	struct strvec paths = STRVEC_INIT;
	struct buf path = BUF_INIT;

	/* A record from before the inputs were kept names nothing. */
	if (!json_is_object(was))
		return;
	changed_paths(was, now, &path, &paths, 4);
	if (paths.n) {
		buf_addstr(why, ": ");
		strvec_join(&paths, "; ", why);
	}
	strvec_clear(&paths);
	buf_release(&path);
}

int
uptodate_check(const struct build *b)
{
	struct build t;
	struct buf path = BUF_INIT, text = BUF_INIT, why = BUF_INIT, hash = BUF_INIT;
	struct buf wheel_out = BUF_INIT, manifest_out = BUF_INIT;
	struct json *last = NULL, *inputs = NULL;
	const char *want, *wheel, *manifest;
	int up = 0;

	record_path(b, &path);
	if (!is_regular(path.s) || read_file(&text, path.s) < 0 ||
	    !(last = json_parse(text.s, text.len, &why))) {
		buf_release(&path);
		buf_release(&text);
		buf_release(&why);
		return 0;
	}
	buf_reset(&why);
	/* A context of its own: what it fills is released here, the profile and plan are b's. */
	build_init_from(&t, b);
	want = json_str(json_get(last, "inputs_hash"));
	wheel = json_str(json_get(last, "wheel"));
	manifest = json_str(json_get(last, "manifest"));
	if (!want || !wheel || !manifest) {
		buf_addstr(&why, "its record is incomplete");
	} else if (profile_is_extension(&t.profile) && extension_check(&t) < 0) {
		buf_addstr(&why, "its torch cannot be read");
	} else if (recall_source(&t, &why) == 0) {
		struct proc p = PROC_INIT;
		const struct json *was = json_get(last, "python_first");
		struct json *now = python_first_json(&t);
		const char *py = json_str(json_get(json_get(json_get(last, "toolchain"), "python"),
						   "path"));

		if (t.have_torch)
			buf_addf(&t.torch_site, "%s/torch-site", t.plan.work_dir);
		if (!json_equal(was, now) || !py)
			buf_addstr(&why, "the python on PATH changed");
		json_free(now);
		buf_addstr(&t.python, py ? py : "");
		recall_choices(&t, last, &why);
		step_env(&p, &t);
		if (!why.len && toolchain_recall(&t.toolchain, &p.env, t.plan.cuda_home, t.python.s,
						 json_get(last, "toolchain")))
			buf_addstr(&why, "a compiler or tool changed");
		proc_release(&p);
		/* What the last build wrote into the tree is no change to it (outputs.c). */
		outputs_load(&t);
		/* After the toolchain: the wheel's label names the inputs (inputs_label). */
		if (!why.len && wheel_version(&t) < 0)
			buf_addstr(&why, "the wheel's version cannot be told");
		if (!why.len) {
			inputs = inputs_make(&t);
			inputs_hash(inputs, &hash);
			if (strcmp(hash.s, want)) {
				buf_addstr(&why, "the inputs changed");
				inputs_changed(json_get(last, "inputs"), inputs, &why);
			} else {
				up = published_pair(&t, last, &why, &wheel_out, &manifest_out);
			}
		}
	}
	if (up) {
		struct buf e1 = BUF_INIT, e2 = BUF_INIT;

		diag_printf(stdout, "bwbuild: up to date (inputs %.12s)%s\nwheel:    %s\nmanifest: %s\n",
			    hash.s, up == 2 ? "; published again" : "", diag_name(&e1, wheel_out.s),
			    diag_name(&e2, manifest_out.s));
		buf_release(&e1);
		buf_release(&e2);
	} else {
		diag_printf(stderr, "bwbuild: not up to date: %s\n", why.s);
	}
	json_free(inputs);
	json_free(last);
	build_release(&t);
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	buf_release(&hash);
	buf_release(&wheel_out);
	buf_release(&manifest_out);
	return up > 0;
}
