#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "fault.h"
#include "inputs.h"
#include "era.h"
#include "json.h"
#include "manifest.h"
#include "step.h"
#include "uptodate.h"
#include "util.h"

/*
 * The publish step: the verified wheel and its manifest into --out,
 * together. The wheel is copied under a temporary name first, then the
 * manifest is renamed into place, then the wheel: a run killed in
 * between leaves a manifest whose sha256 names the new wheel (verify
 * tells them apart), never a new wheel beside a manifest that describes
 * the old one. Temporary files of killed runs are removed.
 */

/* Whether `name` is "<anything>.tmp.<pid>" of a process that is gone. */
static int
stale_temporary(const char *name)
{
	const char *t = strstr(name, ".tmp.");
	char *end;
	long pid;

	while (t && strstr(t + 1, ".tmp."))
		t = strstr(t + 1, ".tmp.");
	if (!t || !t[5])
		return 0;
	pid = strtol(t + 5, &end, 10);
	if (*end || pid <= 0)
		return 0;
	return pid != getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

static void
remove_stale_temporaries(const char *dir)
{
	struct buf path = BUF_INIT;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (!stale_temporary(de->d_name))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, de->d_name);
		if (unlink(path.s) == 0)
			fprintf(stderr, "publish: removed '%s', left by a run that was killed\n", path.s);
	}
	if (d)
		closedir(d);
	buf_release(&path);
}

/* Before any step: --out must take files, or an hour of compiling is lost at the end. */
int
publish_check(struct build *b)
{
	const char *out = b->plan.out_dir;
	struct buf probe = BUF_INIT;
	int fd, rc = 0;

	if (mkdir_p(out) < 0)
		return -1;
	buf_addf(&probe, "%s/.bwbuild-probe.tmp.%ld", out, (long)getpid());
	fd = open(probe.s, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		rc = error("cannot write into the output directory '%s':", out);
	else
		close(fd), unlink(probe.s);
	if (!rc)
		remove_stale_temporaries(out);
	buf_release(&probe);
	return rc;
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
	b->recoveries = b->cache = NULL;
	json_set(j, "mem_budget", json_number((double)pl->jobs.budget));
	json_set(j, "python", json_string(b->python.s));
	json_set(j, "era", json_string(era_name(b->era)));
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
	struct buf whl = BUF_INIT, tmp = BUF_INIT, mpath = BUF_INIT, hash = BUF_INIT;
	char *text;
	int rc;

	text = manifest_text(b, &hash);
	if (b->report.errors.n || b->smoke_failed) {
		/*
		 * A wheel that failed verify is not published where CI picks wheels
		 * up; its manifest (verify.ok false, the reasons) goes beside it.
		 */
		buf_addf(&mpath, "%.*s.manifest.json", (int)(strlen(b->wheel.s) - 4), b->wheel.s);
		rc = write_file_atomic(mpath.s, text, strlen(text));
		if (!rc)
			fprintf(stderr, "publish: not published to %s: the wheel failed %s; it "
				"and its manifest stay in %.*s\n", b->plan.out_dir,
				b->report.errors.n ? "verify" : "smoke",
				(int)(name - 1 - b->wheel.s), b->wheel.s);
		free(text);
		buf_release(&mpath);
		buf_release(&hash);
		return rc;
	}
	buf_addf(&whl, "%s/%s", b->plan.out_dir, name);
	buf_addf(&tmp, "%s.tmp.%ld", whl.s, (long)getpid());
	buf_addf(&mpath, "%s/%.*s.manifest.json", b->plan.out_dir, (int)(strlen(name) - 4), name);
	rc = copy_file(b->wheel.s, tmp.s);
	if (!rc) {
		fault_point("publish-wheel-copied");
		rc = write_file_atomic(mpath.s, text, strlen(text));
	}
	if (!rc)
		fault_point("publish-manifest-renamed");
	if (!rc && rename(tmp.s, whl.s) < 0)
		rc = error("cannot rename '%s' to '%s':", tmp.s, whl.s);
	if (rc)
		unlink(tmp.s);
	else
		printf("wheel:    %s\nmanifest: %s\n", whl.s, mpath.s);
	if (!rc && uptodate_record(b, hash.s, whl.s, mpath.s) < 0)
		warning("the next build will not know this one is up to date");
	buf_release(&hash);
	free(text);
	buf_release(&whl);
	buf_release(&tmp);
	buf_release(&mpath);
	return rc;
}
