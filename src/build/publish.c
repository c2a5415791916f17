#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/fault.h"
#include "core/hash.h"
#include "build/inputs.h"
#include "sources/era.h"
#include "core/json.h"
#include "wheel/manifest.h"
#include "build/step.h"
#include "build/uptodate.h"
#include "core/util.h"

/*
 * The publish step: the verified wheel and its manifest into --out, as a
 * pair (docs/design/filesystem.md). Under an flock on the --out directory
 * itself (no lock file is left there), so two builds publishing into one
 * --out take turns. Both are first written under temporary names made
 * new (O_EXCL|O_NOFOLLOW) with a random token; the old manifest is moved
 * aside (a wheel without a manifest is not published), the old wheel kept
 * as a hard link; then the new wheel is renamed into place and the
 * manifest, which names its sha256, last. A failure rolls back to the old
 * pair. The names are written first to <work>/publish.journal, so a run
 * that was killed is finished or rolled back by the next one from that
 * record: cleanup in --out removes only what the journal proves this work
 * directory made there, regular files of this user, never through a link.
 */

#define JOURNAL "publish.journal"

/* Wait for the --out directory's lock; -1 after reporting. */
static int
out_lock(int outfd, const char *out)
{
	if (flock(outfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return error("cannot lock the output directory '%s':", out);
	step_note(STEP_PUBLISH, "waiting for another bwbuild publishing into '%s'", out);
	while (flock(outfd, LOCK_EX) < 0)
		if (errno != EINTR)
			return error("cannot lock the output directory '%s':", out);
	return 0;
}

/* A regular file of this user at `name` in `dirfd`, not a link. */
static int
ours(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid();
}

/*
 * The journal of a publish that did not finish: its temporaries removed;
 * unless the manifest it published is in place, the old pair restored
 * from the backups. Only names the journal lists, in the --out it names.
 */
static void
journal_recover(const char *work, const char *out, int outfd)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	char *line, *save = NULL, *jout = NULL;
	const char *mfinal = NULL;
	int fd = outfd, removed = 0, restored = 0;

	buf_addf(&path, "%s/%s", work, JOURNAL);
	if (!path_exists(path.s) || read_file(&text, path.s) < 0)
		goto out;
	for (line = strtok_r(text.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[3] = { NULL, NULL, NULL }, *s2 = NULL;
		int n = 0;

		for (char *t = strtok_r(line, "\t", &s2); t && n < 3; t = strtok_r(NULL, "\t", &s2))
			f[n++] = t;
		if (n == 2 && !strcmp(f[0], "out") && !jout) {
			jout = f[1];
			if (strcmp(jout, out)) {
				/* Another --out: recovered only when no one else is publishing there. */
				fd = open(jout, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
					close(fd);
					fd = -1;
				}
			}
			if (fd < 0)
				break;
		} else if (!jout || strchr(f[1] ? f[1] : "/", '/')) {
			break; /* not a journal this bwbuild wrote */
		} else if (n == 2 && !strcmp(f[0], "tmp")) {
			if (ours(fd, f[1]) && unlinkat(fd, f[1], 0) == 0)
				removed++;
		} else if (n == 3 && !strcmp(f[0], "bak") && !strchr(f[2], '/')) {
			/* The wheel's line comes first; the manifest's final name decides. */
			if (!mfinal && ends_with(f[1], ".whl")) {
				struct buf m = BUF_INIT;

				buf_addf(&m, "%.*s.manifest.json", (int)(strlen(f[1]) - 4), f[1]);
				if (faccessat(fd, m.s, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
					mfinal = "present";
				else
					mfinal = "absent";
				buf_release(&m);
			}
			if (!ours(fd, f[2]))
				continue;
			if (mfinal && !strcmp(mfinal, "absent") && renameat(fd, f[2], fd, f[1]) == 0)
				restored++;
			else if (unlinkat(fd, f[2], 0) == 0)
				removed++;
		}
	}
	if (removed || restored)
		step_note(STEP_PUBLISH, "finished a publish into '%s' that was killed: %d temporary "
			  "file%s removed%s", jout, removed, removed == 1 ? "" : "s",
			  restored ? ", the wheel and manifest published before restored" : "");
	if (fd >= 0 && fd != outfd)
		close(fd);
	unlink(path.s);
out:
	buf_release(&path);
	buf_release(&text);
}

static int
write_at(int dirfd, const char *name, const char *shown, const char *data, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);

	if (fd < 0)
		return error("cannot create '%s':", shown);
	if (write_all(fd, data, len) < 0 || (fsync(fd) < 0 && errno != EINVAL)) {
		error("cannot write '%s':", shown);
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return error("cannot close '%s':", shown);
	return 0;
}

static int
rename_in(int dirfd, const char *from, const char *to, const char *out, const char *point)
{
	if (fault_fail(point)) {
		errno = EIO;
		return error("cannot rename '%s/%s' to '%s/%s':", out, from, out, to);
	}
	if (renameat(dirfd, from, dirfd, to) < 0)
		return error("cannot rename '%s/%s' to '%s/%s':", out, from, out, to);
	return 0;
}

int
publish_pair(const char *work, const char *out, const char *wheel, const char *wname,
	     const char *mtext, size_t mlen)
{
	struct buf mname = BUF_INIT, tw = BUF_INIT, tm = BUF_INIT, wb = BUF_INIT, mb = BUF_INIT;
	struct buf tok = BUF_INIT, journal = BUF_INIT, jpath = BUF_INIT, shown = BUF_INIT;
	int outfd, rc = -1, have_wb = 0, have_mb = 0, wheel_in = 0;

	if (!ends_with(wname, ".whl") || strpbrk(wname, "/\t\n"))
		return error("'%s' is not a wheel's file name", wname);
	outfd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (outfd < 0)
		return error("cannot open the output directory '%s':", out);
	if (out_lock(outfd, out) < 0)
		goto out;
	journal_recover(work, out, outfd);
	random_token(&tok);
	buf_addf(&mname, "%.*s.manifest.json", (int)(strlen(wname) - 4), wname);
	buf_addf(&tw, "%s.tmp.%ld.%s", wname, (long)getpid(), tok.s);
	buf_addf(&tm, "%s.tmp.%ld.%s", mname.s, (long)getpid(), tok.s);
	buf_addf(&wb, "%s.bak.%ld.%s", wname, (long)getpid(), tok.s);
	buf_addf(&mb, "%s.bak.%ld.%s", mname.s, (long)getpid(), tok.s);
	buf_addf(&journal, "out\t%s\ntmp\t%s\ntmp\t%s\nbak\t%s\t%s\nbak\t%s\t%s\n", out, tw.s, tm.s,
		 wname, wb.s, mname.s, mb.s);
	buf_addf(&jpath, "%s/%s", work, JOURNAL);
	if (write_file_atomic(jpath.s, journal.s, journal.len) < 0)
		goto out;
	buf_addf(&shown, "%s/%s", out, tw.s);
	if (copy_file_at(wheel, outfd, tw.s, shown.s) < 0)
		goto undo;
	buf_reset(&shown);
	buf_addf(&shown, "%s/%s", out, tm.s);
	if (write_at(outfd, tm.s, shown.s, mtext, mlen) < 0)
		goto undo;
	fault_point("publish-wheel-copied");
	/* The old wheel kept (a link: it stays in place meanwhile), the old manifest moved aside. */
	have_wb = linkat(outfd, wname, outfd, wb.s, 0) == 0;
	if (renameat(outfd, mname.s, outfd, mb.s) == 0)
		have_mb = 1;
	else if (errno != ENOENT) {
		error("cannot rename '%s/%s':", out, mname.s);
		goto undo;
	}
	if (rename_in(outfd, tw.s, wname, out, "publish-rename-wheel") < 0)
		goto undo;
	wheel_in = 1;
	fault_point("publish-wheel-renamed");
	if (rename_in(outfd, tm.s, mname.s, out, "publish-rename-manifest") < 0)
		goto undo;
	fault_point("publish-manifest-renamed");
	if (have_wb)
		unlinkat(outfd, wb.s, 0);
	if (have_mb)
		unlinkat(outfd, mb.s, 0);
	fsync(outfd);
	unlink(jpath.s);
	rc = 0;
	goto out;
undo:
	/* Back to the pair that was there: nothing of this publish stays. */
	if (wheel_in && have_wb)
		renameat(outfd, wb.s, outfd, wname);
	else if (wheel_in)
		unlinkat(outfd, wname, 0);
	else if (have_wb)
		unlinkat(outfd, wb.s, 0);
	if (have_mb)
		renameat(outfd, mb.s, outfd, mname.s);
	unlinkat(outfd, tw.s, 0);
	unlinkat(outfd, tm.s, 0);
	unlink(jpath.s);
	step_note(STEP_PUBLISH, "nothing published; '%s' holds what it held before", out);
out:
	close(outfd);
	buf_release(&mname);
	buf_release(&tw);
	buf_release(&tm);
	buf_release(&wb);
	buf_release(&mb);
	buf_release(&tok);
	buf_release(&journal);
	buf_release(&jpath);
	buf_release(&shown);
	return rc;
}

/* Before any step: --out must take files, or an hour of compiling is lost at the end. */
int
publish_check(struct build *b)
{
	const char *out = b->plan.out_dir;
	int fd;

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
	b->recoveries = b->cache = NULL;
	json_set(j, "mem_budget", json_number((double)pl->jobs.budget));
	json_set(j, "python", json_string(b->python.s));
	json_set(j, "pythonpath", b->pythonpath.len ? json_string(b->pythonpath.s) : json_null());
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
	if (!rc)
		printf("wheel:    %s\nmanifest: %s\n", whl.s, mpath.s);
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
