#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/answers.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/proc.h"
#include "core/util.h"

extern char **environ;

volatile sig_atomic_t proc_interrupted;
static volatile pid_t current_pgid;

static void
forward_signal(int sig)
{
	proc_interrupted = sig;
	if (current_pgid > 0)
		kill(-current_pgid, sig);
}

/*
 * Between bwbuild and each command stands a keeper process: the kernel
 * sends it SIGTERM when bwbuild dies, even by SIGKILL, and it then stops
 * the command's process group as an interrupt would (ninja kills its own
 * compiles on SIGTERM), and SIGKILLs whatever is left after a grace
 * period. So no compile outlives a killed bwbuild to run beside the next
 * one in the same build directory. The keeper exits as the command did.
 */
#define KEEPER_GRACE_SECONDS 10

static volatile sig_atomic_t keeper_signal, keeper_alarm;

static void
keeper_on_signal(int sig)
{
	if (sig == SIGALRM)
		keeper_alarm = 1;
	else
		keeper_signal = sig;
}

static void
keeper_exit_as(int status)
{
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	signal(WTERMSIG(status), SIG_DFL);
	raise(WTERMSIG(status));
	_exit(128 + WTERMSIG(status));
}

/* Returns only in the process that is to run the command. */
static void
keep_command(pid_t bwbuild)
{
	struct sigaction sa;
	pid_t cmd;
	int status, stopping = 0;

	cmd = fork();
	if (cmd < 0)
		_exit(127);
	if (cmd == 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = keeper_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != bwbuild)
		keeper_signal = SIGTERM;
	for (;;) {
		pid_t w;

		if (keeper_signal && !stopping) {
			stopping = 1;
			signal(keeper_signal, SIG_IGN);
			kill(0, keeper_signal);
			alarm(KEEPER_GRACE_SECONDS);
		}
		if (keeper_alarm) {
			signal(SIGKILL, SIG_DFL);
			kill(0, SIGKILL);
		}
		w = waitpid(cmd, &status, 0);
		if (w == cmd)
			keeper_exit_as(status);
		if (w < 0 && errno != EINTR)
			_exit(127);
	}
}

static void
build_env(struct strvec *out, const struct strvec *delta)
{
	char **e;
	size_t i;

	for (e = environ; *e; e++)
		strvec_push(out, *e);
	for (i = 0; i < delta->n; i++) {
		const char *eq = strchr(delta->v[i], '=');
		char *name;

		if (!eq) {
			long at = strvec_env_find(out, delta->v[i], strlen(delta->v[i]));

			if (at >= 0) {
				free(out->v[at]);
				memmove(&out->v[at], &out->v[at + 1], (out->n - (size_t)at) * sizeof(char *));
				out->n--;
			}
			continue;
		}
		name = xstrndup(delta->v[i], (size_t)(eq - delta->v[i]));
		strvec_env_set(out, name, eq + 1);
		free(name);
	}
}

static void
keep_tail(struct proc *p, const char *data, size_t n)
{
	if (!p->tail_max)
		return;
	if (!p->tail)
		p->tail = xmalloc(p->tail_max);
	if (n >= p->tail_max) {
		memcpy(p->tail, data + n - p->tail_max, p->tail_max);
		p->tail_len = p->tail_max;
		return;
	}
	if (p->tail_len + n > p->tail_max) {
		size_t drop = p->tail_len + n - p->tail_max;

		memmove(p->tail, p->tail + drop, p->tail_len - drop);
		p->tail_len -= drop;
	}
	memcpy(p->tail + p->tail_len, data, n);
	p->tail_len += n;
}

/*
 * In the child: its own process group, default signals, stdin from
 * /dev/null, output to `out_fd` when >= 0; then exec. A failure's errno
 * goes to `notify_fd` for the parent to report.
 */
static _Noreturn void
exec_child(const struct proc *p, char *const *envv, int out_fd, int notify_fd)
{
	int fd, child_errno;

	/* Not bwbuild's forwarding handler: a signal now stops the child, as it would the command. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (proc_interrupted)
		_exit(128 + proc_interrupted);
	setpgid(0, 0);
	keep_command(getppid());
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	if (out_fd >= 0) {
		dup2(out_fd, 1);
		dup2(out_fd, 2);
	}
	if (!p->dir || chdir(p->dir) == 0)
		execvpe(p->args.v[0], p->args.v, envv);
	child_errno = errno;
	write_all(notify_fd, &child_errno, sizeof(child_errno));
	_exit(127);
}

/* The child's output, until it closes: to the log, the tail and on_line. */
static void
drain_output(struct proc *p, int fd)
{
	struct buf line = BUF_INIT;
	char chunk[8192];
	ssize_t n;

	for (;;) {
		if (p->silence_timeout > 0 && !p->timed_out) {
			struct pollfd pfd = { fd, POLLIN, 0 };
			int r = poll(&pfd, 1, (int)(p->silence_timeout * 1000));

			if (r < 0 && errno == EINTR)
				continue;
			if (r == 0) {
				/* Silent too long: the whole group goes; the pipe closes with it. */
				p->timed_out = 1;
				if (current_pgid > 0)
					kill(-current_pgid, SIGKILL);
				continue;
			}
		}
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (p->log_fd >= 0)
			write_all(p->log_fd, chunk, (size_t)n);
		keep_tail(p, chunk, (size_t)n);
		if (p->on_line) {
			ssize_t i, start = 0;

			for (i = 0; i < n; i++) {
				if (chunk[i] != '\n' && chunk[i] != '\r')
					continue;
				buf_add(&line, chunk + start, (size_t)(i - start));
				p->on_line(p->ctx, line.s, line.len);
				buf_reset(&line);
				start = i + 1;
			}
			buf_add(&line, chunk + start, (size_t)(n - start));
		}
	}
	if (p->on_line && line.len)
		p->on_line(p->ctx, line.s, line.len);
	buf_release(&line);
}

int
proc_run(struct proc *p)
{
	struct strvec env = STRVEC_INIT;
	struct sigaction sa, old_int, old_term;
	int outp[2] = { -1, -1 }, notify[2];
	int capture = p->log_fd >= 0 || p->on_line || p->tail_max || p->quiet;
	pid_t pid;
	int status, child_errno = 0;
	ssize_t n;

	if (!p->args.n)
		BUG("proc_run without arguments");
	/* After a Ctrl-C nothing new starts: it ends as if the signal had stopped it. */
	if (proc_interrupted)
		return 128 + proc_interrupted;
	build_env(&env, &p->env);
	if (pipe2(notify, O_CLOEXEC) < 0 || (capture && pipe2(outp, O_CLOEXEC) < 0))
		die("cannot create a pipe:");
	fflush(stdout);
	fflush(stderr);
	/* Before the fork: a signal that comes while it starts is not lost (forwarded below). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	pid = fork();
	if (pid < 0 && errno == EAGAIN)
		die("cannot start '%s': the limit on processes is reached (fork: %s); raise "
		    "'ulimit -u' or lower build.jobs", p->args.v[0], strerror(errno));
	if (pid < 0)
		die("cannot fork:");
	if (pid == 0)
		exec_child(p, env.v, outp[1], notify[1]);
	setpgid(pid, pid);
	current_pgid = pid;
	if (proc_interrupted)
		kill(-pid, proc_interrupted);

	close(notify[1]);
	if (capture) {
		close(outp[1]);
		drain_output(p, outp[0]);
		close(outp[0]);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			die("cannot wait for '%s':", p->args.v[0]);
	}
	current_pgid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	n = read(notify[0], &child_errno, sizeof(child_errno));
	close(notify[0]);
	strvec_clear(&env);
	if (n == (ssize_t)sizeof(child_errno)) {
		errno = child_errno;
		if (p->dir && errno == ENOENT && access(p->dir, X_OK) < 0)
			return error("cannot enter '%s':", p->dir);
		return error("cannot run '%s':", p->args.v[0]);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return error("'%s' ended in an unexpected state", p->args.v[0]);
}

void
proc_release(struct proc *p)
{
	strvec_clear(&p->args);
	strvec_clear(&p->env);
	free(p->tail);
	p->tail = NULL;
	p->tail_len = 0;
}

void
proc_format_args(const struct strvec *args, struct buf *out)
{
	size_t i;

	for (i = 0; i < args->n; i++) {
		const char *a = args->v[i];

		if (i)
			buf_addch(out, ' ');
		if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789-_./=+:,@%") == strlen(a)) {
			buf_addstr(out, a);
			continue;
		}
		buf_addch(out, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				buf_addstr(out, "'\\''");
			else
				buf_addch(out, *a);
		}
		buf_addch(out, '\'');
	}
}

static void
capture_line(void *ctx, const char *line, size_t len)
{
	struct buf *b = ctx;

	buf_add(b, line, len);
	buf_addch(b, '\n');
}

int
proc_run_capture(struct proc *p, struct buf *out)
{
	p->quiet = 1;
	p->on_line = capture_line;
	p->ctx = out;
	return proc_run(p);
}

/*
 * What a program says of itself (`nvcc --version`, `gcc -dumpfullversion`)
 * does not change while bwbuild runs: a run asks cmake's version from the
 * doctor's checks, the toolchain, the plan and the configure stamp. Kept
 * per argv and per identity of the program file, so a program replaced
 * meanwhile is asked again; "ninja" found on PATH and /usr/bin/ninja
 * are one. The environment set for it is part of the question.
 */
struct query_memo {
	char *key, *out;
	int status;
};
static struct query_memo *queries;
static size_t queries_n, queries_alloc;

/*
 * proc_query, and with `keep` for a binary asked with no environment of
 * its own, the answer also kept across runs (answers.h) under the same
 * key: asked here first after the run's memo, kept once it succeeded.
 */
static int
query(const char *const *argv, const struct strvec *env, int keep, struct buf *out)
{
	struct proc p = PROC_INIT;
	struct buf key = BUF_INIT, got = BUF_INIT;
	char *prog = strchr(argv[0], '/') ? xstrdup(argv[0]) : find_program(argv[0]);
	char *id = file_identity(prog);
	struct query_memo *m;
	int kept;

	keep = keep && !env && prog && answers_program_fixed(prog);
	buf_addf(&key, "%s\n%s", prog ? prog : argv[0], id);
	free(prog);
	free(id);
	for (const char *const *a = argv + 1; *a; a++)
		buf_addf(&key, "\n%s", *a);
	for (size_t i = 0; env && i < env->n; i++)
		buf_addf(&key, "\n\1%s", env->v[i]);
	for (size_t i = 0; i < queries_n; i++)
		if (!strcmp(queries[i].key, key.s)) {
			buf_release(&key);
			buf_addstr(out, queries[i].out);
			return queries[i].status;
		}
	ALLOC_GROW(queries, queries_n + 1, queries_alloc);
	m = &queries[queries_n++];
	kept = keep && answers_get(key.s, &got) == 0;
	if (kept) {
		m->status = 0;
	} else {
		for (const char *const *a = argv; *a; a++)
			strvec_push(&p.args, *a);
		for (size_t i = 0; env && i < env->n; i++)
			strvec_push(&p.env, env->v[i]);
		p.quiet = 1;
		m->status = proc_run_capture(&p, &got);
		proc_release(&p);
		if (keep && m->status == 0)
			answers_put(key.s, got.s, got.len);
	}
	m->key = buf_detach(&key);
	m->out = buf_detach(&got);
	buf_addstr(out, m->out);
	return m->status;
}

int
proc_query(const char *const *argv, const struct strvec *env, struct buf *out)
{
	return query(argv, env, 0, out);
}

int
proc_query_kept(const char *const *argv, struct buf *out)
{
	return query(argv, NULL, 1, out);
}
