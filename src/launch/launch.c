/*
 * bwbuild launch itself: one compile from its arguments to its exit
 * status (where it runs, measuring its process tree, learning its peak
 * and time), the launch directory's files and OOM records. The estimate
 * is peaks.c's, the ledger and the wait for a turn admit.c's, the choice
 * of a remote host and distcc's command remote.c's, the long pole's nvcc
 * flags pole.c's.
 *
 * Files in the launch directory (BWBUILD_LAUNCH_DIR, <work>/launch):
 *
 *	lock     flock(2) target guarding the two files below
 *	ledger   one line per waiting or running compile:
 *	         "TICKET PID STATE BYTES PRE HOST CORES MS KEY" (STATE: W
 *	         waiting, R running here, X on a host; MS its expected time)
 *	peaks    "KEY BYTES": the learned peak RSS of each compile's tree, and
 *	         "kind:NAME BYTES SAMPLES" per kind; used when BWBUILD_LAUNCH_TABLE
 *	         names no table shared by the builds of one tree version
 *	         (<cache>/peaks/<version>.peaks, same format, its own lock
 *	         <table>.lock)
 *	<peaks>.times  "KEY MS": the learned wall time of each compile;
 *	         "remote:KEY" lines (in both) are the compiles sent to a host:
 *	         what they held here (distcc's preprocessing) and their time,
 *	         kept apart from the same units compiled here
 *	hosts-down  "HOST UNTIL": build.remote hosts that failed (admit.c)
 *	distcc/  DISTCC_DIR of the compiles sent to a host
 *	oom      "KEY BYTES": compiles that died of SIGKILL (appended)
 *	configure-compiles  "SOURCE": real compiles refused during configure
 *
 * Lines of dead pids are dropped whenever the ledger is read, so a
 * launcher that crashed gives its reservation back.
 *
 * Past 800 lines by design: the life of one compile (measure its process
 * tree through /proc and a pidfd, learn its peak and time, record an OOM,
 * run it here or on a host) is one sequence over one struct launcher,
 * read top to bottom when a compile misbehaves; the pure parts are
 * already apart (peaks.c, admit.c, remote.c, pole.c, eta.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/fault.h"
#include "launch/admit.h"
#include "launch/ccache.h"
#include "launch/launch.h"
#include "launch/peaks.h"
#include "launch/pole.h"
#include "launch/memmodel.h"
#include "launch/remote.h"
#include "launch/repro.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"

/*
 * The sampler's interval: the first sample after SAMPLE_FIRST_MS, each
 * next one twice as late, up to SAMPLE_MAX_MS. A compile's peak holds for
 * seconds (docs/design/scheduling.md §4: 50-100 ms sampling suffices), and
 * a long compile sampled every 50 ms cost more CPU than the budget of the
 * whole launch (issue 43: 70-90 ms while a 5 s compile ran).
 */
#define SAMPLE_FIRST_MS 50
#define SAMPLE_MAX_MS 1000
/* Without a pidfd the exit is noticed by polling: this often. */
#define EXIT_POLL_MS 10

/* ---- the process tree's resident memory, from /proc ---- */

struct proc_row {
	long pid, ppid;
	uint64_t rss;
};

static long page_size;

/* A small /proc file into buf (NUL-terminated): its length, -1 when unreadable. */
static ssize_t
proc_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = read(fd, buf, size - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = '\0';
	return got;
}

/*
 * One /proc/<pid>/stat line: the parent, the resident bytes (24th field)
 * and the threads (20th). "pid (comm) state ppid ...": comm may hold
 * spaces and ')'. -1 when it is no such line.
 */
static int
stat_parse(char *buf, struct proc_row *r, long *threads)
{
	char *rp = strrchr(buf, ')');
	int field;

	if (!rp)
		return -1;
	r->pid = strtol(buf, NULL, 10);
	r->ppid = 0;
	r->rss = 0;
	*threads = 1;
	for (field = 3, rp += 2; *rp && field <= 24; field++) {
		if (field == 4)
			r->ppid = strtol(rp, NULL, 10);
		if (field == 20)
			*threads = strtol(rp, NULL, 10);
		if (field == 24)
			r->rss = strtoull(rp, NULL, 10) * (uint64_t)page_size;
		rp = strchr(rp, ' ');
		if (!rp)
			break;
		rp++;
	}
	return 0;
}

/* The tree by a scan of every process: for a kernel without task/<tid>/children. */
static uint64_t
tree_rss_scan(long root)
{
	struct proc_row *rows = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d = opendir("/proc");
	uint64_t sum = 0;
	int grew = 1;
	char *in;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[300], buf[512];
		struct proc_row r;
		long threads;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (proc_read(path, buf, sizeof(buf)) <= 0 || stat_parse(buf, &r, &threads) < 0)
			continue;
		ALLOC_GROW(rows, n + 1, cap);
		rows[n++] = r;
	}
	closedir(d);
	/* Mark the tree: repeat until no new descendant is found. */
	in = xcalloc(n ? n : 1, 1);
	for (i = 0; i < n; i++)
		in[i] = rows[i].pid == root;
	while (grew) {
		grew = 0;
		for (i = 0; i < n; i++) {
			size_t j;

			if (in[i])
				continue;
			for (j = 0; j < n; j++) {
				if (in[j] && rows[j].pid == rows[i].ppid) {
					in[i] = grew = 1;
					break;
				}
			}
		}
	}
	for (i = 0; i < n; i++)
		if (in[i])
			sum += rows[i].rss;
	free(in);
	free(rows);
	return sum;
}

/* The children that /proc/<pid>/task/<tid>/children lists, pushed on *v; -1 when unreadable. */
static int
children_read(long pid, long tid, long **v, size_t *n, size_t *cap)
{
	char path[96], buf[4096];
	const char *p = buf;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", pid, tid);
	if (proc_read(path, buf, sizeof(buf)) < 0)
		return -1;
	while (*p) {
		char *end;
		long c = strtol(p, &end, 10);

		if (end == p)
			break;
		ALLOC_GROW(*v, *n + 1, *cap);
		(*v)[(*n)++] = c;
		p = end;
	}
	return 0;
}

/* The children of every thread of `pid` but its first, whose were read already. */
static void
thread_children(long pid, long **v, size_t *n, size_t *cap)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	if (!(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid > 0 && tid != pid)
			children_read(pid, tid, v, n, cap);
	}
	closedir(d);
}

/*
 * The resident bytes of the tree under `root`: each process's stat and
 * its children's list, a few small reads for a compiler's handful of
 * processes where a scan of /proc read every process of the machine. A
 * kernel without the children lists (CONFIG_PROC_CHILDREN) is scanned.
 */
static uint64_t
tree_rss(long root)
{
	static int scan = -1;
	long *todo = NULL;
	size_t n = 0, cap = 0, seen = 0;
	uint64_t sum = 0;

	if (!page_size)
		page_size = sysconf(_SC_PAGESIZE);
	if (scan < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)getpid());
		scan = access(path, R_OK) < 0;
	}
	if (scan)
		return tree_rss_scan(root);
	ALLOC_GROW(todo, 1, cap);
	todo[n++] = root;
	/* A tree deeper or wider than a compiler's is cut, never walked forever. */
	while (seen < n && seen < 4096) {
		long pid = todo[seen++], threads;
		char path[64], buf[512];
		struct proc_row r;

		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if (proc_read(path, buf, sizeof(buf)) <= 0 || stat_parse(buf, &r, &threads) < 0)
			continue;
		sum += r.rss;
		if (children_read(pid, pid, &todo, &n, &cap) == 0 && threads > 1)
			thread_children(pid, &todo, &n, &cap);
	}
	free(todo);
	return sum;
}

static void
append_line(const char *path, const char *key, uint64_t bytes)
{
	struct buf line = BUF_INIT;
	int fd = open_regular(path, O_WRONLY | O_CREAT | O_APPEND, 0666);

	if (fd < 0)
		return;
	buf_addf(&line, "%s %llu\n", key, (unsigned long long)bytes);
	write_all(fd, line.s, line.len);
	close(fd);
	buf_release(&line);
}

/*
 * `key` (and `kind` unless NULL) learned as `value` in the table at
 * `path`: one read and one write of it under its lock.
 */
static void
learn_in(struct launcher *s, const char *path, const char *key, const char *kind, uint64_t value,
	 int force)
{
	struct buf text = BUF_INIT, out = BUF_INIT;

	while (flock(s->peaks_fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return;
	if (path_exists(path))
		read_file(&text, path);
	peaks_rewrite(text.s, key, value, force, &out);
	if (kind) {
		struct buf first = out;

		out = text;
		text = first;
		buf_reset(&out);
		peaks_rewrite(text.s, kind, value, force, &out);
	}
	/*
	 * Not synced: a table of measurements, and a compile that waited for
	 * the disk (10-20 ms a sync) delayed the next. A crash loses at most
	 * the last values learned, which the next build learns again.
	 */
	if (mkdir_p_parent(path) == 0)
		write_file_replace(path, out.s, out.len);
	flock(s->peaks_fd, LOCK_UN);
	buf_release(&text);
	buf_release(&out);
}

static void
learn(struct launcher *s, const char *key, uint64_t value, int force)
{
	learn_in(s, s->peaks.s, key, NULL, value, force);
}

/*
 * A compile's wall time, learned unless the table (`known`, as read when
 * the launch began) holds one within a tenth of it: what orders and sizes
 * the units is not worth a rewrite of the table after every compile.
 */
static void
learn_time(struct launcher *s, const char *key, uint64_t ms)
{
	uint64_t old = peaks_get(s->times_known, key);

	if (old && ms * 10 >= old * 9 && ms * 10 <= old * 11)
		return;
	learn_in(s, s->times.s, key, NULL, ms, 1);
}

static int
exec_direct(char *const *argv)
{
	execvp(argv[0], argv);
	error("cannot run '%s':", argv[0]);
	return 127;
}

/*
 * The launch directory, made if missing and opened from its parent without
 * following a link: the held descriptor its files are named through
 * (/proc/self/fd/N/NAME), so <work>/launch replaced by a link while a
 * compile runs (minutes) is not written through when it ends
 * (filesystem.md rule 1). Into *at the prefix; the fd, or -1 after reporting.
 */
static int
launch_dir_open(const char *dir, struct buf *at)
{
	struct buf parent = BUF_INIT;
	const char *base;
	int fd = -1;

	if (mkdir_p(dir) < 0)
		return -1;
	path_normalize(&parent, dir);
	base = strrchr(parent.s, '/');
	if (!base) {
		fd = open_dir_beneath(".", parent.s, parent.len);
	} else {
		char *name = xstrdup(base + 1);

		buf_setlen(&parent, (size_t)(base - parent.s) + (base == parent.s));
		fd = open_dir_beneath(parent.s, name, strlen(name));
		free(name);
	}
	buf_release(&parent);
	if (fd >= 0)
		buf_addf(at, "/proc/self/fd/%d", fd);
	return fd;
}

/* The launch directory's files and the budget from the environment; -1 if unusable. */
static int
launcher_open(struct launcher *s, const char *dir, const char *budget, const char *slots,
	      const char *table, const char *remote)
{
	struct buf at = BUF_INIT;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	s->peaks_fd = -1;
	s->dir_fd = -1;
	s->budget = strtoull(budget, NULL, 10);
	s->slots = (unsigned)strtoul(slots, NULL, 10);
	if (!s->slots)
		s->slots = 1;
	buf_addstr(&s->dir, dir);
	s->dir_fd = launch_dir_open(dir, &at);
	if (s->dir_fd < 0)
		goto out;
	buf_addf(&s->lockpath, "%s/lock", at.s);
	buf_addf(&s->ledger, "%s/ledger", at.s);
	buf_addf(&s->oom, "%s/oom", at.s);
	buf_addf(&s->down, "%s/hosts-down", at.s);
	if (remote && *remote) {
		struct buf err = BUF_INIT;

		if (remote_hosts_parse(&s->hosts, remote, &err) < 0)
			fprintf(stderr, "bwbuild launch: " LAUNCH_ENV_REMOTE ": %s; compiling here\n",
				err.s);
		buf_release(&err);
	}
	s->lock_fd = open_regular(s->lockpath.s, O_RDWR | O_CREAT, 0666);
	if (s->lock_fd < 0)
		goto out;
	s->peaks_fd = s->lock_fd;
	if (table && *table) {
		struct buf lock = BUF_INIT;

		buf_addstr(&s->peaks, table);
		buf_addf(&lock, "%s.lock", table);
		if (mkdir_p_parent(lock.s) == 0)
			s->peaks_fd = open_regular(lock.s, O_RDWR | O_CREAT, 0666);
		buf_release(&lock);
		if (s->peaks_fd < 0)
			goto out;
	} else {
		buf_addf(&s->peaks, "%s/peaks", at.s);
	}
	buf_addf(&s->times, "%s.times", s->peaks.s);
	rc = 0;
out:
	buf_release(&at);
	return rc;
}

static void
launcher_close(struct launcher *s)
{
	if (s->peaks_fd >= 0 && s->peaks_fd != s->lock_fd)
		close(s->peaks_fd);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	buf_release(&s->dir);
	buf_release(&s->lockpath);
	buf_release(&s->ledger);
	buf_release(&s->peaks);
	buf_release(&s->oom);
	buf_release(&s->down);
	buf_release(&s->times);
	remote_hosts_release(&s->hosts);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A descriptor that polls readable when `pid` exits (Linux 5.3), or -1. */
static int
pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	return -1;
#endif
}

/*
 * Run the compiler and sample its process tree's RSS until it exits: its
 * wait status into *status, the peak into *peak. -1 if it could not fork.
 */
static int
run_measured(char *const *argv, const struct strvec *env, int *status, uint64_t *peak,
	     uint64_t *ms)
{
	struct timespec t0, t1;
	struct rusage ru;
	pid_t child;

	sigset_t stop, old;
	uint64_t next, interval = SAMPLE_FIRST_MS;
	int passed = 0, pidfd;

	memset(&ru, 0, sizeof(ru));
	*status = 0;
	*peak = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/*
	 * A stop that lands between fork and the child's SIG_DFL would run our
	 * handler in the child, which then compiled on (a unit that waits for
	 * a file ran its full minute after the build was interrupted): blocked
	 * across the fork, delivered with the default action once reset.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old);
	/* For the test of that window: a TERM arriving right here. */
	if (fault_fail("launch-fork-stop"))
		raise(SIGTERM);
	child = fork();
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		for (size_t i = 0; env && i < env->n; i++)
			putenv(env->v[i]);
		execvp(argv[0], argv);
		fprintf(stderr, "bwbuild launch: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (child < 0)
		return error("cannot fork:");
	pidfd = pidfd_of(child);
	next = now_ms() + SAMPLE_FIRST_MS;
	for (;;) {
		pid_t w = wait4(child, status, WNOHANG, &ru);
		uint64_t t;

		if (w == child)
			break;
		if (w < 0 && errno != EINTR)
			break;
		/* Stopped before the child was there to be signalled with its group: passed on. */
		if (launch_stop_signal && !passed) {
			kill(child, launch_stop_signal);
			passed = 1;
		}
		t = now_ms();
		if (t >= next) {
			uint64_t rss = tree_rss(child);

			if (rss > *peak)
				*peak = rss;
			interval = interval * 2 > SAMPLE_MAX_MS ? SAMPLE_MAX_MS : interval * 2;
			next = t + interval;
			continue;
		}
		/* Woken by the exit itself where a pidfd says so: no poll's delay added to a compile. */
		if (pidfd >= 0) {
			struct pollfd pf = { pidfd, POLLIN, 0 };

			poll(&pf, 1, (int)(next - t));
		} else {
			struct timespec ts = { 0, EXIT_POLL_MS * 1000 * 1000L };

			if (next - t < EXIT_POLL_MS)
				ts.tv_nsec = (long)(next - t) * 1000 * 1000L;
			nanosleep(&ts, NULL);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	if ((uint64_t)ru.ru_maxrss * 1024 > *peak)
		*peak = (uint64_t)ru.ru_maxrss * 1024;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ms = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000 + (uint64_t)(t1.tv_nsec / 1000000) -
	      (uint64_t)(t0.tv_nsec / 1000000);
	return 0;
}

/*
 * A compile killed (likely by the OOM killer) reserves more next time; a
 * good one is learned under `key` and `kind` (pole:KEY for the long pole).
 * A kill is recorded under the unit's own key `unit` whichever way it ran:
 * admission reads that key, and compile's warning names it to the user.
 */
static void
record_outcome(struct launcher *s, const char *unit, const char *key, const char *kind,
	       const char *source, uint64_t est, unsigned cores, int status, uint64_t peak)
{
	/* 137: nvcc's sh -c reports a child killed by signal 9 so. */
	if ((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ||
	    (WIFEXITED(status) && WEXITSTATUS(status) == 137)) {
		fprintf(stderr, "bwbuild launch: %s was killed by signal 9 (likely out of memory; "
			"peak %llu MiB, reserved %llu MiB)\n", source,
			(unsigned long long)(peak >> 20), (unsigned long long)((est * cores) >> 20));
		append_line(s->oom.s, unit, est * cores);
		learn(s, unit, est + est / 2, 1);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && peak >= LEARN_MIN) {
		learn_in(s, s->peaks.s, key, kind, peak, 0);
	}
}

/*
 * The seed peak of (source, archs) for this tree's version and its time,
 * from every table in $BWBUILD_LAUNCH_SEED (the largest of each); 0 when
 * none.
 */
static void
seed_lookup(char *const *argv, const char *source, uint64_t *peak, uint64_t *ms)
{
	const char *list = getenv(LAUNCH_ENV_SEED);
	struct buf version = BUF_INIT, archs = BUF_INIT, text = BUF_INIT;

	*peak = *ms = 0;
	if (!list || !*list)
		return;
	launch_tree_version(getenv(LAUNCH_ENV_ROOT), &version);
	launch_archs(argv, &archs);
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ":");
		char *path = xstrndup(p, n);
		uint64_t v;

		buf_reset(&text);
		if (n && path_exists(path) && read_file(&text, path) == 0) {
			if ((v = launch_seed_lookup(text.s, source, archs.s, version.s)) > *peak)
				*peak = v;
			if ((v = launch_seed_ms(text.s, source, archs.s, version.s)) > *ms)
				*ms = v;
		}
		free(path);
		p += n + (p[n] == ':');
	}
	buf_release(&version);
	buf_release(&archs);
	buf_release(&text);
}

/* A real compile during the configure step: recorded for configure to report, and not run. */
static int
refuse_in_configure(const char *dir, const char *source)
{
	struct buf path = BUF_INIT, line = BUF_INIT;
	int fd, dirfd = launch_dir_open(dir, &path);

	buf_addstr(&path, "/" LAUNCH_CONFIGURE_COMPILES);
	buf_addf(&line, "%s\n", source);
	if (dirfd >= 0 && (fd = open_regular(path.s, O_WRONLY | O_CREAT | O_APPEND, 0666)) >= 0) {
		write_all(fd, line.s, line.len);
		close(fd);
	}
	if (dirfd >= 0)
		close(dirfd);
	fprintf(stderr, "bwbuild launch: %s: a real compile during the configure step; refused (the "
		"tree builds where it should only configure)\n", source);
	buf_release(&path);
	buf_release(&line);
	return 1;
}

/*
 * A compile on build.remote's host `host` through distcc: 0 with its exit
 * status in *ret, or 1 when distcc itself failed (100-127: the host is
 * unreachable, refused the compiler, crashed or timed out), the host
 * marked down and the compile to run here instead.
 */
static int
run_remote(struct launcher *s, char *const *argv, int host, const char *rkey, int *ret)
{
	struct strvec cmd = STRVEC_INIT, env = STRVEC_INIT;
	const char *name = s->hosts.v[host].name, *secs = getenv(LAUNCH_ENV_REMOTE_BACKOFF);
	unsigned backoff = secs && *secs ? (unsigned)strtoul(secs, NULL, 10) : LAUNCH_REMOTE_BACKOFF;
	uint64_t peak, ms;
	int status, again = 0;

	launch_remote_command(argv, name, s->dir.s, &cmd, &env);
	if (run_measured(cmd.v, &env, &status, &peak, &ms) < 0) {
		*ret = 1;
	} else if (WIFEXITED(status) && launch_remote_failed(WEXITSTATUS(status))) {
		fprintf(stderr, "bwbuild launch: host %s failed (distcc exit %d); it gets no compile "
			"for %us, this one runs here\n", name, WEXITSTATUS(status), backoff);
		launch_mark_down(s, host, backoff);
		again = 1;
	} else {
		*ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		/* What it held here and how long it took there: never the unit's own peak or time. */
		if (!*ret && peak >= LEARN_MIN)
			learn(s, rkey, peak, 0);
		if (!*ret)
			learn_time(s, rkey, ms);
	}
	strvec_clear(&cmd);
	strvec_clear(&env);
	return again;
}

/*
 * A compile behind ccache gets a stats log of its own (CCACHE_STATSLOG in
 * the launch directory), unless the user keeps one: 1 when one was set up.
 */
static int
cache_log_begin(const struct launcher *s, char *const *argv, struct buf *path, struct strvec *env)
{
	struct buf b = BUF_INIT;

	if (ccache_tool(argv[0]) != CACHE_CCACHE || getenv("CCACHE_STATSLOG"))
		return 0;
	buf_addf(path, "%s/ccache-stats.%ld", s->dir.s, (long)getpid());
	unlink(path->s);
	buf_addf(&b, "CCACHE_STATSLOG=%s", path->s);
	strvec_push(env, b.s);
	buf_release(&b);
	return 1;
}

/* Whether the stats log at `path` says ccache served the compile; the log is removed. */
static int
cache_log_hit(const char *path)
{
	struct buf text = BUF_INIT;
	int hit = read_file(&text, path) == 0 && ccache_log_hit(text.s);

	unlink(path);
	buf_release(&text);
	return hit;
}

/*
 * The compiles that are never admitted, with what they return in *ret: 1
 * when that is so. A compiler already admitted (CMake's launcher in front
 * of an extension's CXX, which is the launcher's c++ wrapper) runs as it
 * is: a second admission would wait for the slot its own parent holds.
 * CMake's probes (try-compiles, compiler identification) are tiny and say
 * nothing about the tree's units: run at once, never learned. A compile
 * during configure that is no probe means the tree builds: refused.
 */
static int
launch_unadmitted(char *const *argv, const char *dir, int *ret)
{
	const char *inside = getenv(LAUNCH_ENV_INSIDE), *phase = getenv(LAUNCH_ENV_PHASE);
	struct buf key = BUF_INIT, source = BUF_INIT;
	char *cwd;
	int probe;

	if (inside && !strcmp(inside, dir)) {
		*ret = exec_direct(argv);
		return 1;
	}
	cwd = getcwd(NULL, 0);
	probe = launch_is_probe(argv, cwd);
	free(cwd);
	if (probe) {
		*ret = exec_direct(argv);
		return 1;
	}
	if (!phase || strcmp(phase, "configure"))
		return 0;
	launch_key(argv, getenv(LAUNCH_ENV_ROOT), &key, &source);
	*ret = refuse_in_configure(dir, source.s);
	buf_release(&key);
	buf_release(&source);
	return 1;
}

/* One compile unit as the launcher knows it: its key, source, kind and estimate. */
struct unit {
	struct buf key, source, kind;
	struct buf pkey; /* "pole:<key>": the same unit given the idle cores */
	uint64_t est;
};

/*
 * Run the unit here, admitted with `ticket`: with the idle cores when it is
 * the long pole (learned apart then), measured, and its peak and time
 * learned unless ccache served it. The compiler's exit status.
 */
static int
run_local(struct launcher *s, const struct unit *u, char *const *argv, unsigned gencodes,
	  unsigned long ticket)
{
	const char *lkey = u->key.s, *lkind = u->kind.s;
	struct buf pkind = BUF_INIT, statslog = BUF_INIT;
	struct strvec pole = STRVEC_INIT, cenv = STRVEC_INIT;
	uint64_t peak, ms;
	int status, ret, cached;

	if (s->cores > 1) {
		struct buf said = BUF_INIT;

		launch_pole_args(argv, s->cores, gencodes, &pole, &said);
		argv = pole.v;
		/* Learned apart: its peak and time with the extra cores are not the unit's own. */
		lkey = u->pkey.s;
		buf_addstr(&pkind, "pole:");
		buf_addstr(&pkind, u->kind.s);
		lkind = pkind.s;
		if (said.len)
			fprintf(stderr, "bwbuild launch: %s: long pole, %u cores idle:%s\n",
				u->source.s, s->cores - 1, said.s);
		buf_release(&said);
	}
	cached = cache_log_begin(s, argv, &statslog, &cenv);
	if (run_measured(argv, &cenv, &status, &peak, &ms) < 0) {
		ret = 1;
	} else {
		launch_leave(s, ticket);
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		/*
		 * A unit ccache served took its lookup's time and memory, not
		 * the compiler's: learned, a warm build would teach the next
		 * cold one that nothing is a long pole.
		 */
		if (!(cached && cache_log_hit(statslog.s))) {
			record_outcome(s, u->key.s, lkey, lkind, u->source.s, u->est, s->cores, status,
				       peak);
			if (!ret)
				learn_time(s, lkey, ms);
		}
	}
	buf_release(&pkind);
	buf_release(&statslog);
	strvec_clear(&pole);
	strvec_clear(&cenv);
	return ret;
}

/* $BWBUILD_LAUNCH_SETTLE_MS, at most a minute; LAUNCH_SETTLE_MS when unset or not a number. */
static unsigned
settle_ms(void)
{
	const char *v = getenv(LAUNCH_ENV_SETTLE);
	char *end;
	unsigned long ms;

	if (!v || !*v)
		return LAUNCH_SETTLE_MS;
	ms = strtoul(v, &end, 10);
	if (*end || ms > 60000)
		return LAUNCH_SETTLE_MS;
	return (unsigned)ms;
}

int
launch_run(char *const *argv)
{
	const char *dir = getenv(LAUNCH_ENV_DIR), *b = getenv(LAUNCH_ENV_BUDGET);
	const char *slots = getenv(LAUNCH_ENV_SLOTS);
	struct launcher s;
	struct unit u = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, 0 };
	struct buf text = BUF_INIT, rkey = BUF_INIT, times = BUF_INIT;
	struct strvec args = STRVEC_INIT;
	unsigned gencodes = 0;
	const char *object;
	struct sigaction sa;
	unsigned long ticket = 0;
	uint64_t pre = 0, seed = 0, seed_ms = 0;
	int ret, remote, host;

	if (!dir || !*dir || !b || !slots)
		return exec_direct(argv);
	if (launch_unadmitted(argv, dir, &ret))
		return ret;
	if (launcher_open(&s, dir, b, slots, getenv(LAUNCH_ENV_TABLE), getenv(LAUNCH_ENV_REMOTE)) < 0) {
		launcher_close(&s);
		return exec_direct(argv);
	}
	/* The ledger's directory: one left in an environment from another build means nothing. */
	setenv(LAUNCH_ENV_INSIDE, dir, 1);
	/* Build paths mapped away, so two work directories give the same bytes (src/launch/repro.c). */
	buf_addstr(&text, dir);
	if (strrchr(text.s, '/'))
		buf_setlen(&text, (size_t)(strrchr(text.s, '/') - text.s));
	repro_compile_args(argv, text.s, getenv(LAUNCH_ENV_ROOT), &args);
	buf_reset(&text);
	argv = args.v;
	launch_key(argv, getenv(LAUNCH_ENV_ROOT), &u.key, &u.source);
	launch_kind(argv, u.source.s, &u.kind);
	if (path_exists(s.peaks.s))
		read_file(&text, s.peaks.s);
	if (path_exists(s.times.s))
		read_file(&times, s.times.s);
	s.times_known = times.s;
	/* Its place in line: the longest first (admit.h); its own time with the idle cores is not its own. */
	s.ms = peaks_get(times.s, u.key.s);
	if (!s.ms || !peaks_get(text.s, u.key.s))
		seed_lookup(argv, u.source.s, &seed, &seed_ms);
	if (!s.ms)
		s.ms = seed_ms;
	u.est = launch_estimate_from(text.s, u.key.s, u.kind.s, peaks_get(text.s, u.key.s) ? 0 : seed,
				     launch_estimate(argv, u.source.s));

	buf_addf(&u.pkey, "pole:%s", u.key.s);
	s.want_cores = launch_pole_want(argv, times.s, u.key.s, u.pkey.s, s.slots, &gencodes);
	s.settle_ms = settle_ms();
	remote = s.hosts.n && launch_remote_capable(argv);
	if (remote) {
		buf_addf(&rkey, "remote:%s", u.key.s);
		pre = peaks_get(text.s, rkey.s);
		pre = pre ? pre + pre / 10 : EST_LAUNCH_PRE;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = launch_on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	host = launch_admit(&s, u.key.s, u.est, remote ? pre : 0, &ticket);
	while (host >= 0 && run_remote(&s, argv, host, rkey.s, &ret) > 0)
		host = launch_requeue(&s, u.key.s, u.est, &ticket);
	if (host == -2) {
		ret = 128 + (launch_stop_signal ? launch_stop_signal : SIGTERM);
	} else if (host >= 0) {
		/* ret: the remote compile's */
	} else {
		launch_pole_settle(&s, ticket, u.est);
		ret = run_local(&s, &u, argv, gencodes, ticket);
	}
	launch_leave(&s, ticket);
	if (!ret && (object = repro_nvcc_output(argv)) && repro_fix_object(object) < 0)
		ret = 1;
	launcher_close(&s);
	buf_release(&u.key);
	buf_release(&u.source);
	buf_release(&u.kind);
	buf_release(&u.pkey);
	buf_release(&text);
	buf_release(&rkey);
	buf_release(&times);
	strvec_clear(&args);
	return ret;
}

int
launch_oom_read(const char *dir, struct strvec *keys)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	const char *p;

	buf_addf(&path, "%s/oom", dir);
	if (path_exists(path.s) && read_file(&text, path.s) == 0)
		for (p = text.s; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
			if (*p != '\n')
				strvec_push_nodup(keys, xstrndup(p, strcspn(p, " \n")));
	buf_release(&path);
	buf_release(&text);
	return (int)keys->n;
}

int
launch_reset(const char *dir)
{
	struct buf path = BUF_INIT;
	int ret = 0;

	buf_addf(&path, "%s/ledger", dir);
	if (unlink(path.s) < 0 && errno != ENOENT)
		ret = error("cannot remove '%s':", path.s);
	buf_release(&path);
	return ret;
}
