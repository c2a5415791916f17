#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/hash.h"
#include "pipeline/inputs.h"
#include "pipeline/journal.h"
#include "pipeline/era.h"
#include "core/json.h"
#include "wheel/manifest.h"
#include "pipeline/step.h"
#include "pipeline/uptodate.h"
#include "core/safefile.h"
#include "core/util.h"

/*
 * The publish step: the manifest made, then the wheel and it published
 * into --out as a pair through the journal (pipeline/journal.c), and the
 * build recorded for the up-to-date check.
 */

/* Before any step: --out must take files, or an hour of compiling is lost at the end. */
int
publish_check(struct build *b)
{
	const char *out = b->plan.out_dir;
	struct buf journal = BUF_INIT;
	struct stat st;
	int fd, bad;

	/* The journal is read at the end, before publishing: one that cannot be is said now. */
	buf_addf(&journal, "%s/%s", b->plan.work_dir, PUBLISH_JOURNAL);
	bad = lstat(journal.s, &st) == 0 && !S_ISREG(st.st_mode);
	if (bad) {
		error("'%s' is not a regular file (a FIFO, a device, a directory or a link)", journal.s);
		hint("it is bwbuild's record of an unfinished publish; remove it and build again");
	}
	buf_release(&journal);
	if (bad)
		return -1;
	if (mkdir_p(out) < 0)
		return -1;
	/* An unnamed file: nothing is created at a name, so nothing there can be followed. */
	fd = open(out, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return error("cannot write into the output directory '%s':", out);
	if (access(out, W_OK | X_OK) < 0)
		return error("cannot write into the output directory '%s':", out);
	return 0;
}

/* The manifest's "build" object: how this wheel was made. */
static struct json *
build_json(struct build *b)
{
	struct json *j = json_object(), *timings = json_object();
	const struct plan *pl = &b->plan;

	for (int i = 0; i < STEP__COUNT; i++)
		json_set(timings, step_names[i], json_number((double)(long)(b->seconds[i] * 1000) / 1000));
	json_set(timings, "total", json_number((double)(long)((now_seconds() - b->start) * 1000) / 1000));
	json_set(j, "timings", timings);
	json_set(j, "max_jobs", json_number(pl->jobs.jobs));
	json_set(j, "launcher", json_bool(pl->jobs.launcher));
	json_set(j, "oom_recoveries", b->recoveries);
	json_set(j, "cache", b->cache ? b->cache : json_null());
	json_set(j, "repair", b->vendored ? b->vendored : json_null());
	json_set(j, "cuda_libs", b->cuda_libs ? b->cuda_libs : json_null());
	b->recoveries = b->cache = b->vendored = b->cuda_libs = NULL;
	json_set(j, "mem_budget", json_number((double)pl->jobs.budget));
	json_set(j, "python", json_string(b->python.s));
	json_set(j, "pythonpath", b->pythonpath.len ? json_string(b->pythonpath.s) : json_null());
	json_set(j, "era", json_string(b->era ? b->era->name : "unknown"));
	json_set(j, "torch_cuda_arch_list", json_string(pl->arch_list));
	json_set(j, "work_dir", json_string(pl->work_dir));
	if (b->profile.nbuild_env) {
		struct json *env = json_object();

		for (size_t i = 0; i < b->profile.nbuild_env; i++)
			json_set(env, b->profile.build_env[i].key,
				 json_string(b->profile.build_env[i].val));
		json_set(j, "env", env);
	}
	json_set(j, "inherited_env", env_json(&pl->inherited));
	if (b->toolchain.n)
		json_set(j, "toolchain", toolchain_json(&b->toolchain));
	return j;
}

static char *
manifest_text(struct build *b, struct buf *hash)
{
	struct manifest_input mi;
	struct json *m, *inputs;
	char *text;

	memset(&mi, 0, sizeof(mi));
	mi.wheel = &b->report;
	mi.profile = &b->profile;
	mi.source_repo = b->profile.source_repo.str;
	mi.source_ref = b->profile.source_ref.str;
	mi.source_commit = b->tree.commit;
	mi.build = build_json(b);
	m = manifest_make(&mi);
	json_set(m, "features_effective", b->effective ? b->effective : json_null());
	json_merge_into((struct json *)json_get(m, "source"), b->source);
	if (b->have_torch)
		json_set(m, "torch", torch_ref_json(&b->torch));
	inputs = inputs_make(b);
	inputs_hash(inputs, hash);
	json_set(m, "inputs", inputs);
	json_set(m, "inputs_hash", json_string(hash->s));
	if (b->runtime)
		json_set(m, "runtime", b->runtime);
	b->runtime = NULL;
	b->source = b->effective = NULL;
	text = json_print(m, 1);
	json_free(m);
	return text;
}

int
publish_run(struct build *b)
{
	const char *name = strrchr(b->wheel.s, '/') + 1;
	struct buf whl = BUF_INIT, mpath = BUF_INIT, hash = BUF_INIT, local = BUF_INIT;
	struct buf msha = BUF_INIT;
	char *text;
	int rc;

	text = manifest_text(b, &hash);
	/* Beside the wheel in the work dir too: a later run publishes the pair again from there. */
	buf_addf(&local, "%.*s.manifest.json", (int)(strlen(b->wheel.s) - 4), b->wheel.s);
	rc = write_file_atomic(local.s, text, strlen(text));
	if (!rc && (b->report.errors.n || b->smoke_failed)) {
		/*
		 * A wheel that failed verify is not published where CI picks wheels
		 * up; its manifest (verify.ok false, the reasons) goes beside it.
		 */
		step_note(STEP_PUBLISH, "not published to %s: the wheel failed %s; it and its "
			  "manifest stay in %.*s", b->plan.out_dir,
			  step_names[b->report.errors.n ? STEP_VERIFY : STEP_SMOKE],
			  (int)(name - 1 - b->wheel.s), b->wheel.s);
		goto out;
	}
	if (!rc)
		rc = publish_pair(b->plan.work_dir, b->plan.out_dir, b->wheel.s, name, text,
				  strlen(text));
	buf_addf(&whl, "%s/%s", b->plan.out_dir, name);
	buf_addf(&mpath, "%s/%.*s.manifest.json", b->plan.out_dir, (int)(strlen(name) - 4), name);
	if (!rc) {
		struct buf e1 = BUF_INIT, e2 = BUF_INIT;

		diag_printf(stdout, "wheel:    %s\nmanifest: %s\n", diag_name(&e1, whl.s),
			    diag_name(&e2, mpath.s));
		buf_release(&e1);
		buf_release(&e2);
	}
	sha256_hex(&msha, text, strlen(text));
	if (!rc && uptodate_record(b, hash.s, whl.s, mpath.s, msha.s, local.s) < 0)
		warning("the next build will not know this one is up to date");
out:
	buf_release(&hash);
	free(text);
	buf_release(&whl);
	buf_release(&mpath);
	buf_release(&local);
	buf_release(&msha);
	return rc;
}
