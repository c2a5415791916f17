#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/pipeline/build.h"
#include "../../src/core/buf.h"
#include "../../src/pipeline/step.h"
#include "../../src/core/safefile.h"
#include "../../src/core/util.h"
#include "t.h"

/* The pure rules of docs/design/filesystem.md and the helpers that create files. */

static int
parses(const char *name, long want_pid, size_t want_base)
{
	long pid = 0;
	size_t base = 0;

	return tmp_name_parse(name, &pid, &base) && pid == want_pid && base == want_base;
}

static int
refused(const char *name)
{
	long pid;
	size_t base;

	return !tmp_name_parse(name, &pid, &base);
}

static void
t_tmp_names(void)
{
	CHECK(parses("last-build.json.tmp.123", 123, 15));
	CHECK(parses("configure.stamp.tmp.77.0123456789abcdef", 77, 15));
	CHECK(parses("a.tmp.b.tmp.9", 9, 7));
	CHECK(refused(".tmp.12"));                         /* no base */
	CHECK(refused("x.tmp."));
	CHECK(refused("x.tmp.12a"));
	CHECK(refused("x.tmp.0"));
	CHECK(refused("x.tmp.-5"));
	CHECK(refused("x.tmp.12.0123456789ABCDEF"));       /* not random_token's digits */
	CHECK(refused("x.tmp.12.0123"));
	CHECK(refused("x.tmp.12.0123456789abcdef.more"));
	CHECK(refused("notes.txt"));
}

static void
t_dirs(void)
{
	CHECK(path_within("/a/b", "/a"));
	CHECK(path_within("/a", "/a"));
	CHECK(!path_within("/ab", "/a"));
	CHECK(path_within("/x", "/"));
	CHECK_STR(dir_unsafe_reason("/", "/home/u"), "is the root directory");
	CHECK_STR(dir_unsafe_reason("/home/u", "/home/u/"), "is your home directory");
	CHECK_STR(dir_unsafe_reason("/home", "/home/u"), "holds your home directory");
	CHECK(dir_unsafe_reason("/home/u/work", "/home/u") == NULL);
	CHECK(dir_unsafe_reason("/srv/out", NULL) == NULL);
	/* HOME=/ makes nothing "above home" but the root itself. */
	CHECK(dir_unsafe_reason("/srv", "/") == NULL);
}

static void
t_no_follow(void)
{
	const char *victim = t_write("fs-victim", "precious\n");
	const char *link = t_path("fs-link");
	struct buf b = BUF_INIT, tok = BUF_INIT;

	unlink(link);
	CHECK(symlink("fs-victim", link) == 0);
	/* A new file at a planted link: refused, the victim untouched. */
	CHECK(create_new(link, 0666) < 0);
	CHECK(copy_file(victim, link) < 0);
	CHECK(open_nofollow(link, O_WRONLY | O_TRUNC, 0) < 0 && errno == ELOOP);
	CHECK(read_file(&b, victim) == 0 && !strcmp(b.s, "precious\n"));
	/* Through write_file_atomic the link itself is replaced, the victim not written. */
	CHECK(write_file_atomic(link, "new\n", 4) == 0);
	buf_reset(&b);
	CHECK(read_file(&b, victim) == 0 && !strcmp(b.s, "precious\n"));
	random_token(&tok);
	CHECK(tok.len == 16 && strspn(tok.s, "0123456789abcdef") == 16);
	unlink(link);
	buf_release(&b);
	buf_release(&tok);
}

/*
 * A fixed-name file in a directory others write into (issue 31): a FIFO
 * there is refused at once, not waited on for a reader; a directory and
 * a link are refused; a regular file is truncated only after the check.
 */
static void
t_open_regular(void)
{
	const char *fifo = t_path("fs-fifo"), *dir = t_path("fs-dir"), *link = t_path("fs-link2");
	const char *file = t_write("fs-regular", "old text\n");
	struct stat st;
	int fd;

	unlink(fifo);
	unlink(link);
	rmdir(dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(open_regular(fifo, O_WRONLY | O_CREAT | O_TRUNC, 0666) < 0 && errno == EFTYPE_NOT_REGULAR);
	CHECK(open_regular(fifo, O_WRONLY | O_APPEND, 0666) < 0 && errno == EFTYPE_NOT_REGULAR);
	CHECK(open_regular(fifo, O_RDONLY, 0) < 0 && errno == EFTYPE_NOT_REGULAR);
	CHECK(open_regular(fifo, O_RDWR | O_CREAT, 0666) < 0 && errno == EFTYPE_NOT_REGULAR);
	CHECK(mkdir(dir, 0700) == 0);
	CHECK(open_regular(dir, O_RDONLY, 0) < 0 && errno == EFTYPE_NOT_REGULAR);
	CHECK(symlink("fs-regular", link) == 0);
	CHECK(open_regular(link, O_WRONLY | O_TRUNC, 0) < 0 && errno == ELOOP);
	CHECK(stat(file, &st) == 0 && st.st_size == 9);
	fd = open_regular(file, O_WRONLY | O_TRUNC, 0);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0);
	CHECK(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
	if (fd >= 0)
		close(fd);
	unlink(fifo);
	unlink(link);
	rmdir(dir);
}

/*
 * Below the work dir, a directory replaced by a link is refused at every
 * open through it, never written through (issue 31): logs/ -> a victim's.
 */
static void
t_beneath(void)
{
	char *root = path_absolute(t_tmpdir("beneath"));
	struct buf p = BUF_INIT, v = BUF_INIT;
	const char *e;
	int fd;

	buf_addf(&p, "%s/cmake", root);
	CHECK(mkdir(p.s, 0700) == 0);
	buf_addf(&v, "%s/victim", root);
	CHECK(mkdir(v.s, 0700) == 0);
	buf_reset(&p);
	buf_addf(&p, "%s/logs", root);
	CHECK(symlink(v.s, p.s) == 0);
	t_stderr_begin();
	fd = open_regular_beneath(root, "logs/compile.log", O_WRONLY | O_CREAT | O_TRUNC, 0666);
	CHECK(fd < 0);
	CHECK(write_file_atomic_beneath(root, "logs/x", "x", 1) < 0);
	CHECK(open_dir_beneath(root, "logs", 4) < 0);
	e = t_stderr_end();
	buf_reset(&p);
	buf_addf(&p, "'%s/logs' is a symbolic link; bwbuild writes only into directories it made", root);
	CHECK(strstr(e, p.s) != NULL);
	buf_reset(&p);
	buf_addf(&p, "%s/compile.log", v.s);
	CHECK(!path_exists(p.s));
	buf_reset(&p);
	buf_addf(&p, "%s/x", v.s);
	CHECK(!path_exists(p.s));
	/* Through real directories: written, the temporary renamed in place. */
	CHECK(write_file_atomic_beneath(root, "cmake/hook.cmake", "hook\n", 5) == 0);
	fd = open_regular_beneath(root, "cmake/hook.cmake", O_RDONLY, 0);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	fd = open_regular_beneath(root, "top.json", O_WRONLY | O_CREAT, 0666);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	buf_release(&p);
	buf_release(&v);
	free(root);
}

static void
t_stale(void)
{
	const char *dir = t_path("fs-stale");
	struct buf p = BUF_INIT;
	long dead = 4194000;

	while (kill((pid_t)dead, 0) == 0 || errno != ESRCH)
		dead--;
	remove_tree(dir);
	mkdir_p(dir);
	buf_addf(&p, "%s/last-build.json.tmp.%ld", dir, dead);
	close(open(p.s, O_WRONLY | O_CREAT, 0666));
	buf_reset(&p);
	buf_addf(&p, "%s/live.tmp.%ld", dir, (long)getppid());
	close(open(p.s, O_WRONLY | O_CREAT, 0666));
	buf_reset(&p);
	buf_addf(&p, "%s/link.tmp.%ld", dir, dead);
	CHECK(symlink("/etc/hostname", p.s) == 0);
	buf_reset(&p);
	buf_addf(&p, "%s/dir.tmp.%ld", dir, dead);
	mkdir(p.s, 0777);
	/* Only the regular file of a process that is gone. */
	CHECK(remove_stale_temporaries(dir) == 1);
	CHECK(remove_stale_temporaries(dir) == 0);
	CHECK(path_exists(p.s));
	remove_tree(dir);
	buf_release(&p);
}

/* `ulimit -u` reached: fork's EAGAIN in the log is named as the cause (issue 27). */
static void
t_cause_eagain(void)
{
	struct plan pl;
	char *work = xstrdup(t_path("fs-cause"));

	memset(&pl, 0, sizeof(pl));
	pl.work_dir = work;
	pl.src_dir = work;
	remove_tree(work);
	mkdir_p(t_path("fs-cause/logs"));
	t_write("fs-cause/logs/compile.log",
		"[12/900] c++ ...\nninja: fatal: posix_spawn: Resource temporarily unavailable\n");
	CHECK(step_cause(STEP_COMPILE, &pl) == 1);
	remove_tree(work);
	free(work);
}

void
t_fssafe(void)
{
	t_tmp_names();
	t_dirs();
	t_no_follow();
	t_open_regular();
	t_beneath();
	t_stale();
	t_cause_eagain();
}
