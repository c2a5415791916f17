#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/buf.h"
#include "../../src/core/proc.h"
#include "../../src/core/strvec.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/* Child processes from argv: status, output, environment, directory, tail, log, silence. */

struct lines {
	struct strvec v;
};

static void
on_line(void *ctx, const char *line, size_t len)
{
	struct lines *l = ctx;

	strvec_push_nodup(&l->v, xstrndup(line, len));
}

static int
run_sh(const char *script, struct buf *out)
{
	struct proc p = PROC_INIT;
	int rc;

	strvec_pushl(&p.args, "sh", "-c", script, NULL);
	rc = proc_run_capture(&p, out);
	proc_release(&p);
	return rc;
}

static void
t_status(void)
{
	struct buf out = BUF_INIT;
	struct proc p = PROC_INIT;
	const char *e;

	CHECK(run_sh("exit 0", &out) == 0);
	CHECK(run_sh("exit 3", &out) == 3);
	CHECK(run_sh("kill -TERM $$", &out) == 128 + 15);
	CHECK(run_sh("printf 'a\\nb\\r\\nlast'", &out) == 0);
	CHECK_STR(out.s, "a\nb\n\nlast\n");   /* \r ends a line too (progress bars) */
	buf_reset(&out);
	CHECK(run_sh("echo out; echo err >&2", &out) == 0);
	CHECK_STR(out.s, "out\nerr\n");
	buf_reset(&out);
	CHECK(run_sh("read x; echo \"[$x]\"", &out) == 0);   /* stdin is /dev/null */
	CHECK_STR(out.s, "[]\n");

	/* A program that is not there: reported, -1. */
	strvec_push(&p.args, t_path("no-such-program"));
	t_stderr_begin();
	CHECK(proc_run(&p) == -1);
	e = t_stderr_end();
	CHECK(t_has(e, "error: cannot run '%s': No such file", t_path("no-such-program")));
	p.dir = t_path("no-such-dir");
	t_stderr_begin();
	CHECK(proc_run(&p) == -1);
	e = t_stderr_end();
	CHECK(t_has(e, "error: cannot enter '%s'", t_path("no-such-dir")));
	proc_release(&p);
	buf_release(&out);
}

static void
t_env_dir(void)
{
	const char *dir = t_tmpdir("proc");
	struct proc p = PROC_INIT;
	struct buf out = BUF_INIT, log = BUF_INIT;
	struct lines l = { STRVEC_INIT };
	char path[600];
	int fd;

	setenv("T_PROC_GONE", "here", 1);
	strvec_pushl(&p.args, "sh", "-c", "echo \"$T_PROC_SET|${T_PROC_GONE-unset}\"; pwd", NULL);
	strvec_push(&p.env, "T_PROC_SET=a b");
	strvec_push(&p.env, "T_PROC_GONE");   /* a bare name removes it */
	p.dir = dir;
	p.on_line = on_line;
	p.ctx = &l;
	p.quiet = 1;
	snprintf(path, sizeof(path), "%s/step.log", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	p.log_fd = fd;
	p.tail_max = 8;
	CHECK(proc_run(&p) == 0);
	close(fd);
	unsetenv("T_PROC_GONE");
	CHECK(l.v.n == 2);
	if (l.v.n == 2) {
		CHECK_STR(l.v.v[0], "a b|unset");
		CHECK(ends_with(l.v.v[1], "/unit/proc"));
	}
	/* The log has everything; the tail its last tail_max bytes. */
	CHECK(read_file(&log, path) == 0);
	CHECK(starts_with(log.s, "a b|unset\n/"));
	CHECK(p.tail_len == 8);
	CHECK(p.tail && !memcmp(p.tail, "it/proc\n", 8));
	proc_release(&p);
	CHECK(p.tail == NULL && p.args.n == 0);
	strvec_clear(&l.v);

	/* A long output keeps only its last bytes in the tail. */
	strvec_pushl(&p.args, "sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo line$i; i=$((i+1)); done",
		     NULL);
	p.quiet = 1;
	p.tail_max = 10;
	CHECK(proc_run(&p) == 0);
	CHECK(p.tail_len == 10 && !memcmp(p.tail, "\nline2999\n", 10));
	proc_release(&p);

	/* Silent longer than allowed: the whole group is killed. */
	strvec_pushl(&p.args, "sh", "-c", "echo started; sleep 30; echo never", NULL);
	p.silence_timeout = 0.3;
	buf_reset(&out);
	CHECK(proc_run_capture(&p, &out) == 128 + 9);
	CHECK(p.timed_out == 1);
	CHECK_STR(out.s, "started\n");
	proc_release(&p);

	/* The 3,000 lines above went through on_line too. */
	strvec_clear(&l.v);
	buf_release(&out);
	buf_release(&log);
	remove_tree(dir);
}

static void
t_format(void)
{
	struct strvec a = STRVEC_INIT;
	struct buf b = BUF_INIT;

	strvec_pushl(&a, "cmake", "--build", ".", "-DX=a,b", "two words", "it's", "", NULL);
	proc_format_args(&a, &b);
	CHECK_STR(b.s, "cmake --build . -DX=a,b 'two words' 'it'\\''s' ''");
	strvec_clear(&a);
	buf_release(&b);
}

/*
 * proc_query: one start per program and argv in a process (the fake
 * counts its starts), the output and status given again; a program
 * replaced on disk is asked again.
 */
static void
t_query(void)
{
	char *dir = path_absolute(t_tmpdir("proc-query"));
	struct buf prog = BUF_INIT, starts = BUF_INIT, text = BUF_INIT, out = BUF_INIT;
	const char *argv[] = { NULL, "--version", NULL }, *other[] = { NULL, "-V", NULL };

	buf_addf(&prog, "%s/tool", dir);
	buf_addf(&starts, "%s/starts", dir);
	buf_addf(&text, "#!/bin/sh\necho x >> %s\necho \"tool 1.0 $1\"\nexit 3\n", starts.s);
	t_put(dir, "tool", text.s, 1);
	argv[0] = other[0] = prog.s;
	CHECK(proc_query(argv, NULL, &out) == 3);
	CHECK_STR(out.s, "tool 1.0 --version\n");
	buf_reset(&out);
	CHECK(proc_query(argv, NULL, &out) == 3);
	CHECK_STR(out.s, "tool 1.0 --version\n");
	CHECK(proc_query(other, NULL, &out) == 3);
	buf_reset(&text);
	CHECK(read_file(&text, starts.s) == 0);
	CHECK_STR(text.s, "x\nx\n");

	/* Replaced (t_put writes a new file): asked again. */
	buf_reset(&text);
	buf_addf(&text, "#!/bin/sh\necho x >> %s\necho \"tool 2.0\"\n", starts.s);
	t_put(dir, "tool", text.s, 1);
	buf_reset(&out);
	CHECK(proc_query(argv, NULL, &out) == 0);
	CHECK_STR(out.s, "tool 2.0\n");
	buf_reset(&text);
	CHECK(read_file(&text, starts.s) == 0);
	CHECK_STR(text.s, "x\nx\nx\n");

	remove_tree(dir);
	free(dir);
	buf_release(&prog);
	buf_release(&starts);
	buf_release(&text);
	buf_release(&out);
}

void
t_proc(void)
{
	t_status();
	t_env_dir();
	t_format();
	t_query();
}
