#ifndef BWBUILD_PROC_H
#define BWBUILD_PROC_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/strvec.h"

/*
 * Child processes, always from an argv vector (never a shell), in the
 * manner of git's run-command:
 *
 *	struct proc p = PROC_INIT;
 *	strvec_push(&p.args, "cmake");
 *	p.dir = "build";
 *	status = proc_run(&p);
 *	proc_release(&p);
 *
 * The child runs in its own process group; SIGINT/SIGTERM delivered to
 * bwbuild are forwarded to that whole group, so nvcc's children stop too.
 */
struct proc {
	struct strvec args;
	struct strvec env;   /* NAME=VALUE set on top of bwbuild's environment */
	const char *dir;     /* working directory, or NULL */
	int log_fd;          /* stdout+stderr copied here; -1 for none */
	int quiet;           /* output discarded unless logged */
	/* Called for each output line (without its newline) when set. */
	void (*on_line)(void *ctx, const char *line, size_t len);
	void *ctx;
	/* The last bytes of output, for error reports; kept when tail_max > 0. */
	size_t tail_max;
	char *tail;
	size_t tail_len;
	/* For the caller: the last exit status, and whether it reports a failure itself. */
	int status;
	int defer_failure;
	int append_log;
	/*
	 * Seconds the child may go without writing a line before its whole
	 * group is killed (SIGKILL); 0: no limit. timed_out says it happened.
	 */
	double silence_timeout;
	int timed_out;
};

/* Every field not named is zero or NULL. */
#define PROC_INIT { .args = STRVEC_INIT, .env = STRVEC_INIT, .log_fd = -1 }

/*
 * Run to completion. Returns the exit status (0-255), 128+N when killed by
 * signal N (as a shell's $? would), or -1 when it could not be started
 * (reported).
 */
int proc_run(struct proc *p);
void proc_release(struct proc *p);

/* Run quietly, appending every output line (with its newline) to `out`. */
struct buf;
int proc_run_capture(struct proc *p, struct buf *out);

/*
 * Like proc_run_capture for a program that describes itself (`--version`):
 * the same argv of the same program file runs once in a process, later
 * calls get its output and status again. NULL-terminated argv; `env`
 * (NAME=VALUE set on top of bwbuild's, NULL: none) is part of the question.
 */
int proc_query(const char *const *argv, const struct strvec *env, struct buf *out);

/*
 * proc_query for a program about itself alone (`nvcc --version`): when it
 * is an ELF executable, its answer is also kept across runs (answers.h),
 * under its path, file identity and arguments.
 */
int proc_query_kept(const char *const *argv, struct buf *out);

/* Set (to the signal) once SIGINT or SIGTERM arrived while a child ran. */
extern volatile sig_atomic_t proc_interrupted;

/* Join args for messages: `cmake --build .` (quoting what needs it). */
struct buf;
void proc_format_args(const struct strvec *args, struct buf *out);

#endif
