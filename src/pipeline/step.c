#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/fault.h"
#include "core/json.h"
#include "core/proc.h"
#include "profile/profile.h"
#include "pipeline/step.h"
#include "core/safefile.h"
#include "core/util.h"
#include "pipeline/eta.h"

/*
 * The step machinery every step shares: the steps' names (build.h), a
 * step's command with its log and progress, why it failed, its
 * environment and toolchain. It calls no step and no orchestrator, so
 * every step may use it (src/README.md, "Inside pipeline/").
 */

const char *const step_names[STEP__COUNT] = {
	[STEP_FETCH] = "fetch",
	[STEP_CONFIGURE] = "configure",
	[STEP_COMPILE] = "compile",
	[STEP_WHEEL] = "wheel",
	[STEP_REPAIR] = "repair",
	[STEP_VERIFY] = "verify",
	[STEP_SMOKE] = "smoke",
	[STEP_PUBLISH] = "publish",
};

int
step_from_name(const char *name)
{
	for (int i = 0; i < STEP__COUNT; i++)
		if (!strcmp(step_names[i], name))
			return i;
	return -1;
}

#define TAIL_BYTES 4096

struct progress {
	enum step step;
	struct eta_plan *eta; /* the weighted work of this step (compile.c), or NULL */
	double start, last_print;
	int tty;
	int last_total;
};

/* Ninja prints "[n/m] ..." per finished edge: turn it into progress. */
static void
on_line(void *vctx, const char *line, size_t len)
{
	struct progress *c = vctx;
	int done, total;
	double now, rate, eta;
	char etas[32];

	if (len < 5 || line[0] != '[' || sscanf(line, "[%d/%d]", &done, &total) != 2 || total <= 0 ||
	    done <= 0)
		return;
	fault_point(step_names[c->step]); /* the Nth "[n/m]" line of this step */
	now = now_seconds();
	if (c->eta) {
		const char *close = memchr(line, ']', len);

		if (close && (size_t)(close - line) + 2 <= len) {
			char *desc = xstrndup(close + 2, len - (size_t)(close - line) - 2);

			eta_plan_step(c->eta, desc, now - c->start, total);
			free(desc);
		}
	}
	c->last_total = total;
	if (!c->tty && done != total && now - c->last_print < 5)
		return;
	c->last_print = now;
	rate = done / (now - c->start > 0.001 ? now - c->start : 0.001);
	eta = eta_seconds(c->eta, now - c->start, done, total);
	if (eta >= 0)
		snprintf(etas, sizeof(etas), "%d:%02d", (int)eta / 60, (int)eta % 60);
	else
		snprintf(etas, sizeof(etas), "-:--");
	if (c->tty)
		fprintf(stderr, "\r%-9s [%d/%d] %3d%%  %.1f/s  ETA %s ", step_names[c->step], done, total,
			done * 100 / total, rate, etas);
	else
		step_note(c->step, "[%d/%d] %d%%, %.1f/s, ETA %s", done, total, done * 100 / total, rate,
			  etas);
}

static void
print_tail(const struct proc *p)
{
	const char *t = p->tail;
	size_t n = p->tail_len, lines = 0, i;

	if (!n)
		return;
	for (i = n; i > 0; i--) {
		if (t[i - 1] == '\n' && ++lines > 25)
			break;
	}
	fprintf(stderr, "---- last lines of output ----\n");
	fwrite(t + i, 1, n - i, stderr);
	if (t[n - 1] != '\n')
		fputc('\n', stderr);
	fprintf(stderr, "----\n");
}

/*
 * The line of a failed step's log that says why, when it says it in a way
 * we know: a full disk or an arch nvcc cannot build hides among thousands
 * of lines of a PyTorch build, often far above the last 25.
 */
static const struct cause {
	const char *mark;
	const char *hint;
} causes[] = {
	{ "No space left on device", "the disk is full: free space there (or set TMPDIR and the "
				     "work directory elsewhere) and run again to resume" },
	{ "Disk quota exceeded", "the disk quota is used up: free space and run again to resume" },
	{ "Unsupported gpu architecture", "this nvcc cannot build an arch of cuda.archs: see "
					  "'bwbuild doctor' and 'nvcc --list-gpu-code'" },
	{ "Killed signal terminated program", "a compiler was killed, most likely for memory: "
					      "lower build.mem_budget" },
	{ "Cannot allocate memory", "out of memory: lower build.mem_budget" },
	/* fork/posix_spawn's EAGAIN: `ulimit -u` (or the cgroup's pids.max) reached. */
	{ "Resource temporarily unavailable", "a process could not be started: the limit on "
					      "processes is reached; raise 'ulimit -u' (or the "
					      "container's pids limit) or lower build.jobs" },
};

/*
 * Each line of the log `log` (a regular file, never through a link) to
 * `fn` with its newline cut and its 1-based number, until `fn` returns
 * nonzero or the log ends. A log that cannot be read has no lines.
 */
static void
log_lines(const char *log, int (*fn)(void *ctx, char *line, size_t n, long at), void *ctx)
{
	int fd = open_regular(log, O_RDONLY, 0);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long at = 0;

	while (f && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (fn(ctx, line, (size_t)n, ++at))
			break;
	}
	if (f)
		fclose(f);
	else if (fd >= 0)
		close(fd);
	free(line);
}

struct cause_scan {
	size_t *best;
	struct buf *found;
};

static int
cause_line(void *ctx, char *line, size_t n, long at)
{
	struct cause_scan *c = ctx;

	(void)at;
	for (size_t i = 0; i < *c->best; i++) {
		if (!strstr(line, causes[i].mark))
			continue;
		*c->best = i;
		buf_reset(c->found);
		buf_add(c->found, line, n);
		break;
	}
	return 0;
}

/* The best-ranked cause line in one log; *best and `found` updated. */
static void
scan_cause(const char *log, size_t *best, struct buf *found)
{
	struct cause_scan c = { best, found };

	log_lines(log, cause_line, &c);
}

struct error_scan {
	struct buf *text;
	long *lineno;
	long from;   /* compiler_error: the first line to look at */
	size_t taken;
};

static int
cmake_error_line(void *ctx, char *line, size_t n, long at)
{
	struct error_scan *e = ctx;

	if (!*e->lineno) {
		if (!starts_with(line, "CMake Error"))
			return 0;
		*e->lineno = at;
	} else if (!n || ++e->taken > 12) {
		return 1;
	}
	buf_addf(e->text, "%s%s", e->text->len ? "\n" : "", line);
	return 0;
}

/*
 * The first "CMake Error" of a configure log and the lines of its message
 * (up to the blank line that ends it): PyTorch's configure prints hundreds
 * of lines after it, so the tail shows only "Configuring incomplete". Its
 * line number into *lineno; 0 if the log has none.
 */
static int
first_cmake_error(const char *log, struct buf *block, long *lineno)
{
	struct error_scan e = { block, lineno, 0, 0 };

	*lineno = 0;
	log_lines(log, cmake_error_line, &e);
	return *lineno > 0;
}

static int
compiler_error_line(void *ctx, char *line, size_t n, long at)
{
	struct error_scan *e = ctx;

	(void)n;
	if (at >= e->from && (strstr(line, ": error: ") || strstr(line, ": fatal error: ") ||
			      strstr(line, "nvcc fatal"))) {
		buf_addstr(e->text, line + strspn(line, " \t"));
		*e->lineno = at;
		return 1;
	}
	return at >= e->from + 80;
}

/*
 * A compiler's own error after the first CMake error, which is often only
 * CMake's header ("The C++ compiler ... is not able to compile a simple
 * test program") with the compiler's "c++: error: unrecognized
 * command-line option" a dozen lines below it; within 80 lines. Its line
 * number into *lineno; 0 if none.
 */
static int
compiler_error(const char *log, long from, struct buf *found, long *lineno)
{
	struct error_scan e = { found, lineno, from, 0 };

	*lineno = 0;
	log_lines(log, compiler_error_line, &e);
	return *lineno > 0;
}

/* The first quoted word of a compiler's error that starts with '-' ('-mfoo', ‘-mfoo’): the flag. */
static int
quoted_flag(const char *line, struct buf *flag)
{
	for (const char *q = line; (q = strpbrk(q, "'\xe2")); q++) {
		const char *w = *q == '\'' ? q + 1 : !strncmp(q, "\xe2\x80\x98", 3) ? q + 3 : NULL;
		size_t len;

		if (!w || *w != '-')
			continue;
		len = strcspn(w, "'\xe2 ;");
		if (len > 1) {
			buf_add(flag, w, len);
			return 1;
		}
	}
	return 0;
}

/* Where `flag` came from: the profile's build.env or cmake entry, or this shell's variable. */
static void
flag_origin(const struct plan *pl, const char *flag)
{
	const struct profile *p = pl->profile;

	for (size_t i = 0; p && i < p->nbuild_env; i++)
		if (strstr(p->build_env[i].val, flag)) {
			note_at(&p->build_env[i].loc, "'%s' is added by build.env.%s; fix or remove it "
				"there", flag, p->build_env[i].key);
			return;
		}
	for (size_t i = 0; p && i < p->ncmake; i++)
		if (strstr(p->cmake[i].val, flag)) {
			note_at(&p->cmake[i].loc, "'%s' is added by cmake.%s; fix or remove it there",
				flag, p->cmake[i].key);
			return;
		}
	for (size_t i = 0; i < pl->inherited.n; i++)
		if (strstr(pl->inherited.v[i], flag)) {
			note("'%s' comes from this shell's %.*s (inherited: not in the profile); unset "
			     "it, or set it in build.env", flag, (int)strcspn(pl->inherited.v[i], "="),
			     pl->inherited.v[i]);
			return;
		}
}

/*
 * The tree's .gitmodules names a submodule by a local path or file:// URL
 * (a mirror, the bundled example): git refuses those transports by default
 * since 2.38.1, so the hint's command says it allows them.
 */
static int
local_submodules(const char *src)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	int local = 0;

	buf_addf(&path, "%s/.gitmodules", src);
	if (path_exists(path.s) && read_file(&text, path.s) >= 0) {
		for (const char *p = text.s; (p = strstr(p, "url")); p += 3) {
			const char *v = p + 3;

			v += strspn(v, " \t");
			if (*v != '=')
				continue;
			v++;
			v += strspn(v, " \t");
			if (*v == '/' || starts_with(v, "file:") || starts_with(v, "./") ||
			    starts_with(v, "../"))
				local = 1;
		}
	}
	buf_release(&path);
	buf_release(&text);
	return local;
}

/* configure's cause: a compiler's error under the first CMake error, else that error's block. */
static int
configure_cause(const struct plan *pl, const char *log)
{
	struct buf block = BUF_INIT, cc = BUF_INIT, flag = BUF_INIT;
	long line, cc_line;
	int found = first_cmake_error(log, &block, &line);

	if (found && compiler_error(log, line, &cc, &cc_line)) {
		error("cause (%s:%ld): %s", log, cc_line, cc.s);
		note("under the first CMake error (%s:%ld): %.*s", log, line,
		     (int)strcspn(block.s, "\n"), block.s);
		if (quoted_flag(cc.s, &flag))
			flag_origin(pl, flag.s);
	} else if (found) {
		error("cause, the first CMake error (%s:%ld):\n%s", log, line, block.s);
		if (strstr(block.s, "submodule") && pl->local_source)
			hint("the --source tree lacks a submodule: run 'git -C %s%s submodule "
			     "update --init --recursive'", pl->src_dir,
			     local_submodules(pl->src_dir) ? " -c protocol.file.allow=always" : "");
		else if (strstr(block.s, "submodule"))
			hint("a submodule is missing from the checkout: check "
			     "source.submodules.exclude, or remove the work directory's src/");
	}
	buf_release(&block);
	buf_release(&cc);
	buf_release(&flag);
	return found;
}

int
step_cause(enum step step, const struct plan *pl)
{
	/* CMake keeps its failed checks (a CUDA compiler test on a full disk) out of the step's log. */
	static const char *const cmake_logs[] = { "build/CMakeFiles/CMakeError.log",
						  "build/CMakeFiles/CMakeConfigureLog.yaml" };
	size_t best = ARRAY_SIZE(causes);
	struct buf found = BUF_INIT, path = BUF_INIT;

	buf_addf(&path, "%s/logs/%s.log", pl->work_dir, step_names[step]);
	scan_cause(path.s, &best, &found);
	for (size_t i = 0; step == STEP_CONFIGURE && i < ARRAY_SIZE(cmake_logs); i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", pl->src_dir, cmake_logs[i]);
		scan_cause(path.s, &best, &found);
	}
	if (best < ARRAY_SIZE(causes)) {
		error("cause: %s\n  %s", found.s, causes[best].hint);
	} else if (step == STEP_CONFIGURE) {
		buf_reset(&path);
		buf_addf(&path, "%s/logs/%s.log", pl->work_dir, step_names[step]);
		if (configure_cause(pl, path.s))
			best = 0;
	}
	buf_release(&found);
	buf_release(&path);
	return best < ARRAY_SIZE(causes);
}

void
step_failed(enum step step, const struct plan *pl, const struct proc *p)
{
	struct buf cmd = BUF_INIT, log = BUF_INIT;
	int st = p->status;

	proc_format_args(&p->args, &cmd);
	buf_addf(&log, "%s/logs/%s.log", pl->work_dir, step_names[step]);
	error("step '%s' failed: '%s' %s %d", step_names[step], cmd.s, st > 128 ? "was killed by signal" :
		"exited with", st > 128 ? st - 128 : st);
	print_tail(p);
	step_cause(step, pl);
	note("full log: %s", log.s);
	buf_release(&cmd);
	buf_release(&log);
}

static int
open_log(enum step step, const struct plan *pl, const struct proc *p, struct buf *path)
{
	struct buf cmd = BUF_INIT, rel = BUF_INIT;
	int fd;

	buf_addf(path, "%s/logs/%s.log", pl->work_dir, step_names[step]);
	buf_addf(&rel, "logs/%s.log", step_names[step]);
	/* A retried step appends, so the log keeps what the failed attempt printed. */
	/*
	 * Never through a link (a planted logs/<step>.log -> victim would be
	 * truncated; logs/ itself replaced by a link during the build, the
	 * victim's <step>.log), never waiting on a FIFO planted there.
	 */
	fd = open_regular_beneath(pl->work_dir, rel.s,
				  O_WRONLY | O_CREAT | (p->append_log ? O_APPEND : O_TRUNC), 0666);
	buf_release(&rel);
	if (fd < 0)
		return -1;
	proc_format_args(&p->args, &cmd);
	dprintf(fd, "# bwbuild step '%s'\n# cd %s\n# %s\n", step_names[step], p->dir ? p->dir : ".",
		cmd.s);
	for (size_t i = 0; i < p->env.n; i++)
		dprintf(fd, "# env %s\n", p->env.v[i]);
	step_note(step, "%s", cmd.s);
	buf_release(&cmd);
	return fd;
}

int
step_command(enum step step, const struct plan *pl, struct proc *p)
{
	return step_command_eta(step, pl, p, NULL);
}

int
step_command_eta(enum step step, const struct plan *pl, struct proc *p, struct eta_plan *eta)
{
	struct buf logpath = BUF_INIT;
	struct progress ctx;
	int fd, st;

	fd = open_log(step, pl, p, &logpath);
	if (fd < 0) {
		buf_release(&logpath);
		return -1;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.step = step;
	ctx.eta = eta;
	ctx.start = now_seconds();
	ctx.tty = isatty(2);
	p->log_fd = fd;
	p->on_line = on_line;
	p->ctx = &ctx;
	p->tail_max = TAIL_BYTES;
	st = proc_run(p);
	close(fd);
	if (ctx.tty && ctx.last_total)
		fputc('\n', stderr);
	if (proc_interrupted) {
		error("interrupted during '%s'; run the same command again to resume", step_names[step]);
		st = -1;
	} else if (st > 0) {
		p->status = st;
		if (!p->defer_failure)
			step_failed(step, pl, p);
		st = -1;
	} else if (st == 0) {
		step_note(step, "done in %.1f s (log: %s)", now_seconds() - ctx.start, logpath.s);
	}
	buf_release(&logpath);
	return st;
}

void
step_env_of(const struct step_env_in *in, struct strvec *env)
{
	for (size_t i = 0; i < in->plan->env.n; i++)
		strvec_push(env, in->plan->env.v[i]);
	/* Timestamps from the commit, not the clock (reproducible-builds.org); the user's own wins. */
	if (in->epoch >= 0 && !getenv("SOURCE_DATE_EPOCH") &&
	    strvec_env_find(env, "SOURCE_DATE_EPOCH", strlen("SOURCE_DATE_EPOCH")) < 0)
		strvec_env_setf(env, "SOURCE_DATE_EPOCH", "%lld", in->epoch);
	/* The package's own switches (patches/<project>/index.yaml env:), e.g. *_FORCE_BUILD. */
	for (size_t i = 0; i < (in->patch_env ? in->patch_env->n : 0); i++) {
		const char *eq = strchr(in->patch_env->v[i], '=');
		struct buf name = BUF_INIT;

		buf_add(&name, in->patch_env->v[i], (size_t)(eq - in->patch_env->v[i]));
		strvec_env_set(env, name.s, eq + 1);
		buf_release(&name);
	}
	/*
	 * What the tree's build needs from Python and this interpreter lacks
	 * (pyenv.h); an extension's torch goes before it (below), and needs it
	 * as much: torch 2.6's import wants typing_extensions >= 4.5.
	 */
	if (in->pythonpath && *in->pythonpath)
		strvec_env_prepend_path(env, "PYTHONPATH", in->pythonpath);
	/* CMake 4 refuses policies below 3.5; set only where a CMakeLists.txt of the tree asks one. */
	if (in->cmake_policy && strvec_env_find(env, "CMAKE_POLICY_VERSION_MINIMUM",
					       strlen("CMAKE_POLICY_VERSION_MINIMUM")) < 0)
		strvec_env_set(env, "CMAKE_POLICY_VERSION_MINIMUM", "3.5");
	if (in->torch_site && *in->torch_site) {
		/* kind: extension: the torch it builds on, first on the path; nvcc through the launcher. */
		struct buf v = BUF_INIT;

		strvec_env_prepend_path(env, "PYTHONPATH", in->torch_site);
		/* CMake-built extensions: find_package(Torch) finds this torch, ninja runs MAX_JOBS. */
		buf_addf(&v, "%s/%s/share/cmake", in->torch_site, in->torch_package);
		strvec_env_prepend_path(env, "CMAKE_PREFIX_PATH", v.s);
		strvec_env_setf(env, "CMAKE_BUILD_PARALLEL_LEVEL", "%u", in->plan->jobs.jobs);
		buf_reset(&v);
		if (in->plan->jobs.launcher) {
			char *self = realpath("/proc/self/exe", NULL);

			buf_addf(&v, "%s launch -- %s/bin/nvcc", self ? self : "bwbuild", in->plan->cuda_home);
			strvec_env_set(env, "PYTORCH_NVCC", v.s);
			/* C and C++ through <work>/launch/bin (extension.c); the profile's CC/CXX inside. */
			strvec_env_set(env, "BWBUILD_LAUNCH_SELF", self ? self : "bwbuild");
			for (int i = 0; i < 2; i++) {
				const char *name = i ? "CXX" : "CC";
				long at = strvec_env_find(env, name, strlen(name));

				buf_reset(&v);
				buf_addf(&v, "LAUNCHED_%s", name);
				/* Always set: a LAUNCHED_* left in the caller's environment means nothing. */
				if (at >= 0)
					strvec_env_set(env, v.s, env->v[at] + strlen(name) + 1);
				else if (getenv(name) && *getenv(name) && !strstr(getenv(name), "/launch/bin/"))
					strvec_env_set(env, v.s, getenv(name));
				else
					strvec_env_set(env, v.s, i ? "c++" : "cc");
				buf_reset(&v);
				buf_addf(&v, "%s/launch/bin/%s", in->plan->work_dir, i ? "c++" : "cc");
				strvec_env_set(env, name, v.s);
			}
			free(self);
		}
		buf_release(&v);
	}
	if (in->version && *in->version) {
		strvec_env_set(env, "PYTORCH_BUILD_VERSION", in->version);
		strvec_env_set(env, "PYTORCH_BUILD_NUMBER", "1");
	}
}

void
step_env(struct proc *p, const struct build *b)
{
	const struct step_env_in in = {
		.plan = &b->plan,
		.epoch = b->epoch,
		.patch_env = &b->patches.env,
		.pythonpath = b->pythonpath.s,
		.torch_site = b->torch_site.s,
		.torch_package = b->torch.package,
		.version = b->version.s,
		.cmake_policy = b->cmake_policy,
	};

	step_env_of(&in, &p->env);
}

void
step_toolchain(struct build *b)
{
	struct proc pr = PROC_INIT;

	if (b->toolchain.n)
		return;
	step_env(&pr, b);
	toolchain_probe(&b->toolchain, &pr.env, b->plan.cuda_home, b->python.s);
	proc_release(&pr);
}
