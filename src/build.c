#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "build.h"
#include "ccache.h"
#include "cmakeopts.h"
#include "configure.h"
#include "era.h"
#include "patch.h"
#include "launch.h"
#include "diag.h"
#include "git.h"
#include "host.h"
#include "json.h"
#include "knowledge.h"
#include "manifest.h"
#include "plan.h"
#include "proc.h"
#include "profile.h"
#include "python.h"
#include "util.h"
#include "verify.h"

#define TAIL_BYTES 4096

struct step_ctx {
	const char *step;
	double start, last_print;
	int tty;
	int last_total;
};

/* The toolkit version in CUDA's version.json ({"cuda": {"version": "13.0.88"}}); 0 if none. */
static unsigned
cuda_version_json(const char *path, struct buf *text)
{
	struct buf why = BUF_INIT;
	struct json *j;
	unsigned v = 0;

	if (!path_exists(path) || read_file(text, path) < 0)
		return 0;
	j = json_parse(text->s, text->len, &why);
	if (j)
		v = kb_parse_version(json_str(json_get(json_get(j, "cuda"), "version")));
	json_free(j);
	buf_release(&why);
	return v;
}

int
build_prepare(struct profile *p, struct plan *pl, struct host *h, const struct build_opts *o)
{
	struct plan_opts po;
	struct buf b = BUF_INIT;
	char *work, *out, *self, *ccache = NULL, *srcdir = NULL;
	const char *cuda_home;
	int ret;

	if (profile_load_set(p, o->profile, o->sets) < 0)
		return -1;
	host_probe(h);
	if (o->work_dir) {
		work = path_absolute(o->work_dir);
	} else {
		buf_addf(&b, "work/%s", p->name.str);
		work = path_absolute(b.s);
		buf_reset(&b);
	}
	if (o->out_dir) {
		out = path_absolute(o->out_dir);
	} else {
		buf_addf(&b, "out/%s", p->name.str);
		out = path_absolute(b.s);
	}
	buf_release(&b);
	cuda_home = p->cuda_home.str ? p->cuda_home.str : getenv("CUDA_HOME");
	if (!cuda_home || !*cuda_home)
		cuda_home = "/usr/local/cuda";
	{
		struct kb_context kc = { 0, NULL, 0, NULL };
		struct buf vj = BUF_INIT, from = BUF_INIT;
		int rc;

		if (p->cuda_version.str) {
			kc.cuda = kb_parse_version(p->cuda_version.str);
			kc.cuda_from = "cuda.version";
		} else {
			buf_addf(&from, "%s/version.json", cuda_home);
			kc.cuda = cuda_version_json(from.s, &vj);
			kc.cuda_from = from.s;
		}
		kc.torch = kb_parse_version(p->source_ref.str);
		kc.torch_from = "source.ref";
		rc = kb_check(p, &kc, o->strict);
		buf_release(&vj);
		buf_release(&from);
		if (rc < 0) {
			free(work);
			free(out);
			return -1;
		}
	}
	po.work_dir = work;
	po.src_dir = NULL;
	if (o->source_dir) {
		if (!is_dir(o->source_dir)) {
			error("--source '%s' is not a directory", o->source_dir);
			free(work);
			free(out);
			return -1;
		}
		srcdir = path_absolute(o->source_dir);
		po.src_dir = srcdir;
	}
	po.out_dir = out;
	po.cuda_home = cuda_home;
	po.mem_budget = o->mem_budget;
	self = realpath("/proc/self/exe", NULL);
	po.self_exe = self;
	po.ccache = NULL;
	if (p->cache.str && !strcmp(p->cache.str, "ccache")) {
		ccache = find_program("ccache");
		if (!ccache) {
			error_at(&p->cache.loc, "build.cache is ccache, but there is no ccache on PATH "
				 "(apt-get install ccache)");
			free(self);
			free(work);
			free(out);
			free(srcdir);
			return -1;
		}
		po.ccache = ccache;
	}
	ret = plan_make(pl, p, h, &po);
	free(srcdir);
	free(self);
	free(ccache);
	free(work);
	free(out);
	return ret;
}

/* Ninja prints "[n/m] ..." per finished edge: turn it into progress. */
static void
on_line(void *vctx, const char *line, size_t len)
{
	struct step_ctx *c = vctx;
	int done, total;
	double now, rate, eta;

	if (len < 5 || line[0] != '[' || sscanf(line, "[%d/%d]", &done, &total) != 2 || total <= 0 ||
	    done <= 0)
		return;
	now = now_seconds();
	c->last_total = total;
	if (!c->tty && done != total && now - c->last_print < 5)
		return;
	c->last_print = now;
	rate = done / (now - c->start > 0.001 ? now - c->start : 0.001);
	eta = rate > 0 ? (total - done) / rate : 0;
	if (c->tty)
		fprintf(stderr, "\r%-9s [%d/%d] %3d%%  %.1f/s  ETA %d:%02d ", c->step, done, total,
			done * 100 / total, rate, (int)eta / 60, (int)eta % 60);
	else
		fprintf(stderr, "%s: [%d/%d] %d%%, %.1f/s, ETA %d:%02d\n", c->step, done, total,
			done * 100 / total, rate, (int)eta / 60, (int)eta % 60);
}

static int
print_tail(const struct proc *p)
{
	const char *t = p->tail;
	size_t n = p->tail_len, lines = 0, i;

	if (!n)
		return 0;
	for (i = n; i > 0; i--) {
		if (t[i - 1] == '\n' && ++lines > 25)
			break;
	}
	fprintf(stderr, "---- last lines of output ----\n");
	fwrite(t + i, 1, n - i, stderr);
	if (t[n - 1] != '\n')
		fputc('\n', stderr);
	fprintf(stderr, "----\n");
	return 0;
}

/* Report a failed step: its command, how it ended, the tail of its output, the log. */
static void
step_failed(const char *step, const struct plan *pl, const struct proc *p)
{
	struct buf cmd = BUF_INIT;
	int st = p->status;

	proc_format_args(&p->args, &cmd);
	error("step '%s' failed: '%s' %s %d", step, cmd.s, st > 128 ? "was killed by signal" :
		"exited with", st > 128 ? st - 128 : st);
	print_tail(p);
	note("full log: %s/logs/%s.log", pl->work_dir, step);
	buf_release(&cmd);
}

/* Run one step's command with its log; 0 on success, -1 after reporting. */
static int
run_step(const char *step, const struct plan *pl, struct proc *p, double *seconds)
{
	struct buf logpath = BUF_INIT, cmd = BUF_INIT;
	struct step_ctx ctx;
	int fd, st;

	buf_addf(&logpath, "%s/logs/%s.log", pl->work_dir, step);
	/* A retried step appends, so the log keeps what the failed attempt printed. */
	fd = open(logpath.s, O_WRONLY | O_CREAT | O_CLOEXEC | (p->append_log ? O_APPEND : O_TRUNC),
		  0666);
	if (fd < 0) {
		error("cannot create log '%s':", logpath.s);
		buf_release(&logpath);
		return -1;
	}
	proc_format_args(&p->args, &cmd);
	dprintf(fd, "# bwbuild step '%s'\n# cd %s\n# %s\n", step, p->dir ? p->dir : ".", cmd.s);
	for (size_t i = 0; i < p->env.n; i++)
		dprintf(fd, "# env %s\n", p->env.v[i]);
	memset(&ctx, 0, sizeof(ctx));
	ctx.step = step;
	ctx.start = now_seconds();
	ctx.tty = isatty(2);
	p->log_fd = fd;
	p->on_line = on_line;
	p->ctx = &ctx;
	p->tail_max = TAIL_BYTES;
	fprintf(stderr, "%s: %s\n", step, cmd.s);
	st = proc_run(p);
	close(fd);
	*seconds = now_seconds() - ctx.start;
	if (ctx.tty && ctx.last_total)
		fputc('\n', stderr);
	if (proc_interrupted) {
		error("interrupted during '%s'; run the same command again to resume", step);
		st = -1;
	} else if (st > 0) {
		p->status = st;
		if (!p->defer_failure)
			step_failed(step, pl, p);
		st = -1;
	} else if (st == 0) {
		fprintf(stderr, "%s: done in %.1f s (log: %s)\n", step, *seconds, logpath.s);
	}
	buf_release(&logpath);
	buf_release(&cmd);
	return st;
}

static void
step_env(struct proc *p, const struct plan *pl, const char *version)
{
	size_t i;

	for (i = 0; i < pl->env.n; i++)
		strvec_push(&p->env, pl->env.v[i]);
	if (version) {
		strvec_env_set(&p->env, "PYTORCH_BUILD_VERSION", version);
		strvec_env_set(&p->env, "PYTORCH_BUILD_NUMBER", "1");
	}
}

/* The version the wheel gets: version.txt + the profile's suffix, or NULL. */
static int
build_version(struct buf *out, const struct plan *pl)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	int ret = 0;

	if (!pl->profile->version_suffix.str)
		return 0;
	buf_addf(&path, "%s/version.txt", pl->src_dir);
	if (read_file(&text, path.s) < 0) {
		ret = -1;
		goto out;
	}
	buf_rtrim(&text);
	if (strchr(text.s, '+')) {
		ret = error_at(&pl->profile->version_suffix.loc, "version.txt already has a local "
			       "label ('%s'); drop 'wheel.version_suffix'", text.s);
		goto out;
	}
	buf_addf(out, "%s%s", text.s, pl->profile->version_suffix.str);
out:
	buf_release(&path);
	buf_release(&text);
	return ret;
}

/*
 * setuptools stages the package in build/lib.<platform>/ and
 * build/bdist.<platform>/ and never removes files from there.
 */
static int
remove_setuptools_staging(const char *src_dir)
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
	}
	if (d)
		closedir(d);
	buf_release(&dir);
	buf_release(&path);
	return ret;
}

/*
 * PyTorch's setup.py skips configure when build/CMakeCache.txt exists, so
 * a changed environment would be silently ignored: remember what the last
 * configure saw and start fresh when it differs.
 */
/*
 * Whether an environment entry can change what configure decides. Job
 * counts, the launcher's budget and slots (they change with free memory
 * and on OOM recovery), the compiler cache's settings and TMPDIR are read
 * while compiling only, so they must not force a fresh configure.
 */
static int
reaches_cmake(const char *entry)
{
	static const char *const compile_only[] = { "MAX_JOBS=", "CMAKE_BUILD_PARALLEL_LEVEL=",
						    "TMPDIR=", "BWBUILD_LAUNCH_", "CCACHE_", NULL };
	size_t i;

	for (i = 0; compile_only[i]; i++)
		if (starts_with(entry, compile_only[i]))
			return 0;
	return 1;
}

static int
ensure_fresh_configure(const struct plan *pl, const struct proc *p, const char *commit)
{
	struct buf stamp = BUF_INIT, want = BUF_INIT, have = BUF_INIT, cache = BUF_INIT;
	size_t i;
	int ret = 0;

	buf_addf(&stamp, "%s/configure.stamp", pl->work_dir);
	buf_addf(&want, "commit %s\n", commit);
	for (i = 0; i < p->env.n; i++)
		if (reaches_cmake(p->env.v[i]))
			buf_addf(&want, "%s\n", p->env.v[i]);
	buf_addf(&cache, "%s/build/CMakeCache.txt", pl->src_dir);
	if (path_exists(stamp.s) && read_file(&have, stamp.s) == 0 && !strcmp(have.s, want.s)) {
		ret = 0;
	} else {
		static const char *const keep[] = { "build", NULL };

		if (path_exists(cache.s)) {
			fprintf(stderr, "configure: settings changed since the last configure; "
				"removing %s and earlier build outputs\n", cache.s);
			if (unlink(cache.s) < 0)
				ret = error("cannot remove '%s':", cache.s);
			/*
			 * A library from the old settings must not reach the new
			 * wheel; a --source tree is the user's, so only warn there.
			 */
			if (!ret && !pl->local_source)
				ret = git_clean_ignored(pl->src_dir, keep);
			else if (!ret)
				warning("'%s' is your tree (--source): files an earlier configuration "
					"installed into it are left; 'git clean -X' removes them",
					pl->src_dir);
			if (!ret)
				ret = remove_setuptools_staging(pl->src_dir);
		}
		if (!ret)
			ret = write_file_atomic(stamp.s, want.s, want.len);
	}
	buf_release(&stamp);
	buf_release(&want);
	buf_release(&have);
	buf_release(&cache);
	return ret;
}

/* The one .whl in dir, or NULL after reporting. */
static char *
find_wheel(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;
	int n = 0;

	if (!d) {
		error("cannot open '%s':", dir);
		return NULL;
	}
	while ((de = readdir(d))) {
		if (!ends_with(de->d_name, ".whl"))
			continue;
		n++;
		free(found);
		found = xstrdup(de->d_name);
	}
	closedir(d);
	if (n != 1) {
		error("expected one wheel in '%s', found %d", dir, n);
		free(found);
		return NULL;
	}
	return found;
}

static int
copy_file_atomic(const char *from, const char *to)
{
	struct buf data = BUF_INIT;
	int ret;

	if (read_file(&data, from) < 0)
		return -1;
	ret = write_file_atomic(to, data.s, data.len);
	buf_release(&data);
	return ret;
}

static void
print_report(const struct wheel_report *r)
{
	size_t i;

	for (i = 0; i < r->nlibs; i++) {
		const struct wheel_lib *l = &r->libs[i];
		struct buf line = BUF_INIT;
		size_t j;

		if (!l->has_fatbin)
			continue;
		buf_addf(&line, "  %s: SASS", l->path);
		for (j = 0; j < l->sass.n; j++)
			buf_addf(&line, " %s", l->sass.v[j]);
		buf_addstr(&line, "; PTX");
		for (j = 0; j < l->ptx.n; j++)
			buf_addf(&line, " %s", l->ptx.v[j]);
		if (!l->ptx.n)
			buf_addstr(&line, " none");
		fprintf(stderr, "%s\n", line.s);
		buf_release(&line);
	}
	for (i = 0; i < r->notes.n; i++)
		note("%s", r->notes.v[i]);
	for (i = 0; i < r->errors.n; i++)
		error("%s", r->errors.v[i]);
}

/*
 * One bwbuild per work directory: an flock on <work>/lock, held until exit
 * (the kernel drops it when the process dies, so a crash leaves no stale
 * lock). The holder's pid is written into the file for the message.
 */
static int
lock_work_dir(const char *work_dir)
{
	struct buf path = BUF_INIT, holder = BUF_INIT;
	int fd;

	buf_addf(&path, "%s/lock", work_dir);
	fd = open(path.s, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		error("cannot create '%s':", path.s);
		buf_release(&path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		read_file(&holder, path.s);
		error("work directory '%s' is in use by another bwbuild (pid %.*s); wait for it to "
		      "finish or use another --work", work_dir, (int)strcspn(holder.s ? holder.s : "?",
									      "\n"),
		      holder.s ? holder.s : "?");
		close(fd);
		buf_release(&path);
		buf_release(&holder);
		return -1;
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%ld\n", (long)getpid());
	buf_release(&path);
	return fd;
}

/* How many times a compile killed for memory is retried with less parallelism. */
#define MAX_OOM_RECOVERIES 3

/* Log lines that mean a compiler was killed (build-scheduling.md §5). */
static int
tail_says_killed(const struct proc *p)
{
	static const char *const marks[] = { "Killed signal terminated program",
					     "died due to signal 9", "internal compiler error: Killed",
					     "[code=137]", "killed by signal 9", NULL };
	struct buf t = BUF_INIT;
	size_t i;
	int hit = 0;

	buf_add(&t, p->tail ? p->tail : "", p->tail_len);
	for (i = 0; marks[i] && !hit; i++)
		hit = strstr(t.s, marks[i]) != NULL;
	buf_release(&t);
	return hit;
}

static void
set_env_uint(struct strvec *env, const char *name, unsigned v)
{
	char n[16];

	snprintf(n, sizeof(n), "%u", v);
	strvec_env_set(env, name, n);
}

/*
 * The compile command of each era. setup.py trees compile with
 * `setup.py build` (MAX_JOBS); a scikit-build-core tree has no separate
 * compile: `python3 -m build --wheel` configures, compiles and packs into
 * <work>/dist, with CMAKE_BUILD_PARALLEL_LEVEL and its build directory kept
 * at <src>/build so the cache can be read back and reused.
 */
static void
compile_command(struct proc *pr, const struct plan *pl, const char *py, enum build_era era)
{
	struct buf b = BUF_INIT;

	strvec_push(&pr->args, py);
	if (era != ERA_SKBUILD) {
		strvec_push(&pr->args, "setup.py");
		strvec_push(&pr->args, "build");
		return;
	}
	buf_addf(&b, "%u", pl->jobs.jobs);
	strvec_env_set(&pr->env, "CMAKE_BUILD_PARALLEL_LEVEL", b.s);
	buf_reset(&b);
	buf_addf(&b, "%s/build", pl->src_dir);
	strvec_env_set(&pr->env, "SKBUILD_BUILD_DIR", b.s);
	buf_reset(&b);
	buf_addf(&b, "%s/dist", pl->work_dir);
	strvec_push(&pr->args, "-m");
	strvec_push(&pr->args, "build");
	strvec_push(&pr->args, "--wheel");
	strvec_push(&pr->args, "--no-isolation");
	strvec_push(&pr->args, "--outdir");
	strvec_push(&pr->args, b.s);
	buf_release(&b);
}

/*
 * The compile step, resumed after an OOM kill: the launcher has already
 * raised the killed file's estimate to 1.5x what it was admitted with;
 * here parallelism is halved and the incremental build runs again (ninja
 * rebuilds only what is missing), up to MAX_OOM_RECOVERIES times, never
 * below one compile at a time.
 */
static int
compile_with_recovery(struct plan *pl, const char *py, const char *version, enum build_era era,
		      double *seconds, struct json *recoveries)
{
	struct buf oom = BUF_INIT, launch_dir = BUF_INIT;
	int attempt, rc = 0;

	*seconds = 0;
	buf_addf(&launch_dir, "%s/launch", pl->work_dir);
	buf_addf(&oom, "%s/oom", launch_dir.s);
	for (attempt = 0;; attempt++) {
		struct proc pr = PROC_INIT;
		struct strvec killed = STRVEC_INIT;
		unsigned jobs = pl->jobs.jobs, slots = pl->jobs.slots;
		double secs = 0;
		size_t i;
		int oom_seen;

		unlink(oom.s);
		step_env(&pr, pl, version);
		compile_command(&pr, pl, py, era);
		pr.dir = pl->src_dir;
		pr.defer_failure = 1;
		pr.append_log = attempt > 0;
		rc = run_step("compile", pl, &pr, &secs);
		*seconds += secs;
		oom_seen = rc && pr.status && !proc_interrupted &&
			   (launch_oom_read(launch_dir.s, &killed) > 0 || tail_says_killed(&pr));
		if (!oom_seen || attempt == MAX_OOM_RECOVERIES || (jobs == 1 && slots <= 1)) {
			if (pr.status)
				step_failed("compile", pl, &pr);
			if (oom_seen)
				error("compile was killed for memory again at MAX_JOBS=%u after %d "
				      "recover%s; lower build.mem_budget or turn a heavy feature off",
				      jobs, attempt, attempt == 1 ? "y" : "ies");
			proc_release(&pr);
			strvec_clear(&killed);
			break;
		}
		proc_release(&pr);
		pl->jobs.jobs = jobs > 1 ? jobs / 2 : 1;
		pl->jobs.slots = slots > 1 ? slots / 2 : 1;
		set_env_uint(&pl->env, "MAX_JOBS", pl->jobs.jobs);
		if (pl->jobs.launcher)
			set_env_uint(&pl->env, LAUNCH_ENV_SLOTS, pl->jobs.slots);
		if (pl->jobs.heavy_jobs > pl->jobs.slots) {
			pl->jobs.heavy_jobs = pl->jobs.slots;
			set_env_uint(&pl->env, "FLASH_ATTENTION_MAX_JOBS", pl->jobs.heavy_jobs);
		}
		{
			struct json *r = json_object();
			struct buf names = BUF_INIT;

			for (i = 0; i < killed.n; i++) {
				char *hash = strrchr(killed.v[i], '#');

				if (hash)
					*hash = '\0'; /* the flags hash means nothing to a reader */
			}
			strvec_join(&killed, ", ", &names);
			warning("compile: %s killed for memory; resuming with MAX_JOBS %u -> %u, %u -> %u "
				"compiles at once (recovery %d of %d)", killed.n ? names.s : "a compiler was",
				jobs, pl->jobs.jobs, slots, pl->jobs.slots, attempt + 1, MAX_OOM_RECOVERIES);
			json_set(r, "attempt", json_number(attempt + 1));
			json_set(r, "killed", json_string_array(killed.v, killed.n));
			json_set(r, "max_jobs_before", json_number(jobs));
			json_set(r, "max_jobs_after", json_number(pl->jobs.jobs));
			json_push(recoveries, r);
			buf_release(&names);
		}
		strvec_clear(&killed);
	}
	buf_release(&oom);
	buf_release(&launch_dir);
	return rc;
}

/* The first line of the tree's version.txt into `out`; -1 (quietly) when it has none. */
static int
version_txt(const char *src, struct buf *out)
{
	struct buf path = BUF_INIT;
	int ret = -1;

	buf_addf(&path, "%s/version.txt", src);
	if (path_exists(path.s) && read_file(out, path.s) == 0) {
		out->len = strcspn(out->s, "\r\n");
		out->s[out->len] = '\0';
		ret = 0;
	}
	buf_release(&path);
	return ret;
}

/* The torch release of a checkout: its ref if that is a release tag, else version.txt. */
static unsigned
tree_version(const struct profile *p, const char *src)
{
	struct buf text = BUF_INIT;
	unsigned v = kb_parse_version(p->source_ref.str);

	if (!v && version_txt(src, &text) == 0)
		v = kb_parse_version(text.s);
	buf_release(&text);
	return v;
}

/*
 * Option discovery: the switches this tree declares, checked against the
 * profile's features and USE_* cmake entries before anything is built.
 */
static int
check_tree_options(const struct profile *p, const struct plan *pl, const char *commit, int strict)
{
	struct cmake_options opts;
	struct buf label = BUF_INIT, ver = BUF_INIT;
	int rc;

	if (cmakeopts_scan_tree(&opts, pl->src_dir) < 0)
		return -1;
	version_txt(pl->src_dir, &ver);
	buf_addf(&label, "torch %s (%s at %.12s)", ver.len ? ver.s : "of unknown version",
		 pl->local_source ? pl->src_dir : p->source_ref.str, commit);
	fprintf(stderr, "fetch: %zu options declared in %zu build files\n", opts.n, opts.files);
	rc = opts.n ? kb_check_tree(p, &opts, label.s, strict) : 0;
	if (!opts.n)
		warning("no option() in '%s'; the profile's features cannot be checked against it",
			pl->src_dir);
	cmakeopts_release(&opts);
	buf_release(&label);
	buf_release(&ver);
	return rc;
}

/* source.submodules for the manifest: [{path, url, commit}] */
static struct json *
submodules_json(const struct git_tree_info *ti)
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
use_local_source(const struct profile *p, const struct plan *pl, struct git_tree_info *ti,
		 struct json *src)
{
	struct strvec changes = STRVEC_INIT;

	if (git_describe(pl->src_dir, ti, &changes) < 0) {
		warning("'%s' is not a git checkout; the manifest will name no commit", pl->src_dir);
	} else if (changes.n) {
		warning("building '%s' as it is, with %zu local change%s (recorded in the manifest)",
			pl->src_dir, changes.n, changes.n == 1 ? "" : "s");
		note_lines(changes.v, changes.n, 10);
	}
	if (p->source_patches.str && *p->source_patches.str)
		warning_at(&p->source_patches.loc, "source.patches '%s' is not applied to a --source "
			   "tree; it is built as it is", p->source_patches.str);
	json_set(src, "local", json_string(pl->src_dir));
	json_set(src, "changes", json_string_array(changes.v, changes.n));
	strvec_clear(&changes);
	return 0;
}

/*
 * The fetch step: the checkout at the ref (from the cached mirrors), then
 * the profile's patch series for that release. A tree already at the
 * commit with exactly those patches applied is left alone (nothing
 * rewritten, nothing rebuilt, no network); otherwise the recorded patches
 * are undone first so the checkout finds a clean tree.
 */
static int
fetch_source(const struct profile *p, const struct plan *pl, const struct build_opts *bo,
	     struct patch_set *ps, struct git_tree_info *ti, struct json *src)
{
	struct buf record = BUF_INIT, target = BUF_INIT, cache = BUF_INIT;
	struct git_checkout_opts co;
	struct json *patches = json_array();
	int rc = -1, skip = 0;

	json_set(src, "patches", patches);
	if (pl->local_source) {
		rc = use_local_source(p, pl, ti, src);
		goto out;
	}
	git_cache_dir(&cache);
	buf_addf(&record, "%s/patches.applied", pl->work_dir);
	if (p->source_patches.str && *p->source_patches.str) {
		if (patch_set_load(ps, p->source_patches.str) < 0)
			goto out;
		if (path_exists(pl->src_dir)) {
			if (!bo->refresh)
				git_resolve_cached(cache.s, p->source_repo.str, p->source_ref.str, &target);
			skip = patches_before_checkout(ps, tree_version(p, pl->src_dir), pl->src_dir,
						       record.s, target.len ? target.s : NULL);
			if (skip < 0)
				goto out;
		}
	} else if (path_exists(record.s)) {
		error("'%s' has patches applied by an earlier build (%s) and this profile names none; "
		      "remove the work directory or set source.patches again", pl->src_dir, record.s);
		goto out;
	}
	if (skip) {
		unsigned version = tree_version(p, pl->src_dir);

		if (git_describe(pl->src_dir, ti, NULL) < 0) {
			error("cannot read the checkout in '%s'", pl->src_dir);
			goto out;
		}
		fprintf(stderr, "fetch: already at %.12s with its patches applied; nothing to do\n",
			target.s);
		for (size_t i = 0; i < ps->n; i++) {
			struct json *o;

			if (!patch_selected(&ps->v[i], version))
				continue;
			o = json_object();

			json_set(o, "file", json_string(ps->v[i].file));
			json_set(o, "sha256", json_string(ps->v[i].sha256));
			json_set(o, "status", json_string("already applied"));
			json_push(patches, o);
		}
		rc = 0;
		goto out;
	}
	memset(&co, 0, sizeof(co));
	co.url = p->source_repo.str;
	co.ref = p->source_ref.str;
	co.dir = pl->src_dir;
	co.cache_dir = cache.s;
	co.force = bo->force;
	co.refresh = bo->refresh;
	if (git_checkout(&co, ti) < 0)
		goto out;
	if (ps->project && patches_apply(ps, tree_version(p, pl->src_dir), pl->src_dir, record.s,
					 patches) < 0)
		goto out;
	rc = 0;
out:
	if (rc == 0)
		json_set(src, "submodules", submodules_json(ti));
	buf_release(&record);
	buf_release(&target);
	buf_release(&cache);
	return rc;
}

int
build_run(const struct build_opts *o)
{
	struct profile p;
	struct plan pl;
	struct host h;
	struct buf py = BUF_INIT, why = BUF_INIT, commit = BUF_INIT, version = BUF_INIT;
	struct buf path = BUF_INIT, dist = BUF_INIT;
	double t[STEP__COUNT] = { 0 };
	double t0 = now_seconds();
	struct wheel_report rep;
	struct json *effective = NULL, *recoveries = json_array(), *cache = NULL;
	struct json *source_json = json_object();
	struct git_tree_info ti;
	struct patch_set ps;
	int have_rep = 0, lock_fd = -1;
	enum build_era era = ERA_UNKNOWN;
	char *whl = NULL;
	int ret = EXIT_FAIL;
	int step;

	memset(&rep, 0, sizeof(rep));
	memset(&ti, 0, sizeof(ti));
	memset(&ps, 0, sizeof(ps));
	memset(&p, 0, sizeof(p));
	memset(&pl, 0, sizeof(pl));
	if (build_prepare(&p, &pl, &h, o) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (python_find(&py, p.python.str, &why) < 0) {
		if (p.python.str)
			error_at(&p.python.loc, "'%s' cannot build wheels:\n%s", p.python.str, why.s);
		else
			error("no python3 that can build wheels (setuptools and wheel):\n%s"
			      "install them (apt-get install python3-setuptools python3-wheel) or set "
			      "'build.python' in the profile", why.s);
		goto out;
	}
	fprintf(stderr, "bwbuild: profile '%s', archs %s, MAX_JOBS=%u, python %s\n", p.name.str,
		pl.arch_list, pl.jobs.jobs, py.s);

	buf_addf(&path, "%s/logs", pl.work_dir);
	if (mkdir_p(path.s) < 0)
		goto out;
	lock_fd = lock_work_dir(pl.work_dir);
	if (lock_fd < 0)
		goto out;
	buf_reset(&path);
	buf_addf(&path, "%s/tmp", pl.work_dir);
	if (mkdir_p(path.s) < 0 || mkdir_p(pl.out_dir) < 0)
		goto out;

	for (step = 0; step <= o->until && step < STEP__COUNT; step++) {
		struct proc pr = PROC_INIT;
		double start = now_seconds();
		int rc = 0;

		switch (step) {
		case STEP_FETCH:
			fprintf(stderr, "fetch: %s @ %s\n", p.source_repo.str, p.source_ref.str);
			if (fetch_source(&p, &pl, o, &ps, &ti, source_json) < 0)
				goto out;
			buf_addstr(&commit, ti.commit ? ti.commit : "none");
			fprintf(stderr, "fetch: %s at %s", pl.src_dir, commit.s);
			if (ti.nsubs)
				fprintf(stderr, " (%zu submodule%s)", ti.nsubs, ti.nsubs == 1 ? "" : "s");
			fputc('\n', stderr);
			era = era_detect(pl.src_dir, &why);
			if (era == ERA_UNKNOWN) {
				error("%s", why.s);
				goto out;
			}
			fprintf(stderr, "fetch: build era: %s\n", era_name(era));
			if (check_tree_options(&p, &pl, commit.s, o->strict) < 0)
				goto out;
			if (era == ERA_SKBUILD && !python_imports(py.s, "build")) {
				error("this tree builds with 'python3 -m build', which %s cannot import; "
				      "apt-get install python3-build", py.s);
				goto out;
			}
			if (build_version(&version, &pl) < 0)
				goto out;
			break;
		case STEP_CONFIGURE:
			step_env(&pr, &pl, version.len ? version.s : NULL);
			if (ensure_fresh_configure(&pl, &pr, commit.s) < 0) {
				rc = -1;
				break;
			}
			if (era == ERA_SKBUILD) {
				fprintf(stderr, "configure: scikit-build-core configures inside the wheel "
					"build (next step)\n");
				break;
			}
			strvec_env_set(&pr.env, "CMAKE_ONLY", "1");
			strvec_push(&pr.args, py.s);
			strvec_push(&pr.args, "setup.py");
			strvec_push(&pr.args, "build");
			pr.dir = pl.src_dir;
			rc = run_step("configure", &pl, &pr, &t[step]);
			if (!rc && configure_readback(&p, &pl, &effective) < 0) {
				error("configure gave a build that differs from the profile; fix the "
				      "cause above or change the profile");
				rc = -1;
			}
			break;
		case STEP_COMPILE: {
			struct ccache_stats before, after;
			int have_stats = pl.ccache && ccache_stats_read(pl.ccache, &pl.env, &before) == 0;

			if (era == ERA_SKBUILD) {
				/* The wheel is made here: no old one may be found afterwards. */
				buf_reset(&dist);
				buf_addf(&dist, "%s/dist", pl.work_dir);
				if (remove_tree(dist.s) < 0) {
					rc = -1;
					break;
				}
			}
			rc = compile_with_recovery(&pl, py.s, version.len ? version.s : NULL, era,
						   &t[step], recoveries);
			if (!rc && era == ERA_SKBUILD && configure_readback(&p, &pl, &effective) < 0) {
				error("configure gave a build that differs from the profile; fix the "
				      "cause above or change the profile");
				rc = -1;
			}
			if (have_stats && ccache_stats_read(pl.ccache, &pl.env, &after) == 0) {
				json_free(cache);
				cache = ccache_stats_json(&before, &after, p.cache_remote.str);
				fprintf(stderr, "compile: ccache %.0f hits (%.0f from remote storage), "
					"%.0f misses\n", json_number_value(json_get(cache, "hits")),
					json_number_value(json_get(cache, "remote_hits")),
					json_number_value(json_get(cache, "misses")));
			}
			break;
		}
		case STEP_WHEEL:
			buf_reset(&dist);
			buf_addf(&dist, "%s/dist", pl.work_dir);
			if (era != ERA_SKBUILD) {
				if (remove_tree(dist.s) < 0) {
					rc = -1;
					break;
				}
				step_env(&pr, &pl, version.len ? version.s : NULL);
				strvec_push(&pr.args, py.s);
				strvec_push(&pr.args, "setup.py");
				strvec_push(&pr.args, "bdist_wheel");
				strvec_push(&pr.args, "-d");
				strvec_push(&pr.args, dist.s);
				pr.dir = pl.src_dir;
				rc = run_step("wheel", &pl, &pr, &t[step]);
				if (rc)
					break;
			}
			whl = find_wheel(dist.s);
			if (!whl) {
				rc = -1;
				break;
			}
			{
				struct buf from = BUF_INIT, to = BUF_INIT;

				buf_addf(&from, "%s/%s", dist.s, whl);
				buf_addf(&to, "%s/%s", pl.out_dir, whl);
				rc = copy_file_atomic(from.s, to.s);
				buf_release(&from);
				buf_release(&to);
			}
			break;
		case STEP_VERIFY: {
			struct wheel_expect ex = { &pl.sass, &pl.ptx, 0, 0 };
			struct buf wp = BUF_INIT;

			buf_addf(&wp, "%s/%s", pl.out_dir, whl);
			rc = wheel_verify(&rep, wp.s, &ex);
			buf_release(&wp);
			if (rc < 0)
				break;
			have_rep = 1;
			fprintf(stderr, "verify: %zu members, %zu ELF libraries\n", rep.members, rep.nlibs);
			print_report(&rep);
			t[step] = now_seconds() - start;
			break;
		}
		}
		if (step == STEP_FETCH)
			t[step] = now_seconds() - start;
		proc_release(&pr);
		if (rc < 0 || rc > 0)
			goto out;
	}

	if (o->until < STEP_VERIFY) {
		fprintf(stderr, "bwbuild: stopped after '%s' as asked\n", step_names[o->until]);
		if (whl)
			printf("wheel:    %s/%s\n", pl.out_dir, whl);
		ret = EXIT_OK;
		goto out;
	}

	{
		struct manifest_input mi;
		struct json *b = json_object(), *timings = json_object(), *m;
		struct buf mpath = BUF_INIT;
		char *text;
		int i;

		for (i = 0; i < STEP__COUNT; i++)
			json_set(timings, step_names[i], json_number((double)(long)(t[i] * 1000) / 1000));
		json_set(timings, "total", json_number((double)(long)((now_seconds() - t0) * 1000) / 1000));
		json_set(b, "timings", timings);
		json_set(b, "max_jobs", json_number(pl.jobs.jobs));
		json_set(b, "launcher", json_bool(pl.jobs.launcher));
		json_set(b, "oom_recoveries", recoveries);
		recoveries = NULL;
		json_set(b, "cache", cache ? cache : json_null());
		cache = NULL;
		json_set(b, "mem_budget", json_number((double)pl.jobs.budget));
		json_set(b, "python", json_string(py.s));
		json_set(b, "era", json_string(era_name(era)));
		json_set(b, "torch_cuda_arch_list", json_string(pl.arch_list));
		json_set(b, "work_dir", json_string(pl.work_dir));
		memset(&mi, 0, sizeof(mi));
		mi.wheel = &rep;
		mi.profile = &p;
		mi.source_repo = p.source_repo.str;
		mi.source_ref = p.source_ref.str;
		mi.source_commit = ti.commit;
		mi.build = b;
		m = manifest_make(&mi);
		json_set(m, "features_effective", effective ? effective : json_null());
		json_merge_into((struct json *)json_get(m, "source"), source_json);
		source_json = NULL;
		effective = NULL;
		text = json_print(m, 1);
		buf_addf(&mpath, "%s/%.*s.manifest.json", pl.out_dir, (int)(strlen(whl) - 4), whl);
		if (write_file_atomic(mpath.s, text, strlen(text)) == 0) {
			printf("wheel:    %s/%s\n", pl.out_dir, whl);
			printf("manifest: %s\n", mpath.s);
			ret = rep.errors.n ? EXIT_FAIL : EXIT_OK;
		}
		if (rep.errors.n)
			error("the wheel failed %zu check%s", rep.errors.n, rep.errors.n == 1 ? "" : "s");
		fprintf(stderr, "bwbuild: %s in %.1f s\n", ret == EXIT_OK ? "done" : "failed",
			now_seconds() - t0);
		free(text);
		json_free(m);
		buf_release(&mpath);
	}
out:
	if (lock_fd >= 0)
		close(lock_fd);
	json_free(effective);
	json_free(recoveries);
	json_free(cache);
	json_free(source_json);
	git_tree_info_release(&ti);
	patch_set_release(&ps);
	if (have_rep)
		wheel_report_release(&rep);
	plan_release(&pl);
	profile_release(&p);
	free(whl);
	buf_release(&py);
	buf_release(&why);
	buf_release(&commit);
	buf_release(&version);
	buf_release(&path);
	buf_release(&dist);
	return ret;
}
