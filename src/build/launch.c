/*
 * Files in the launch directory (BWBUILD_LAUNCH_DIR, <work>/launch):
 *
 *	lock     flock(2) target guarding the two files below
 *	ledger   one line per waiting or running compile:
 *	         "TICKET PID STATE BYTES KEY" (STATE: W waiting, R running)
 *	peaks    "KEY BYTES": the learned peak RSS of each compile's tree, and
 *	         "kind:NAME BYTES SAMPLES" per kind; used when BWBUILD_LAUNCH_TABLE
 *	         names no table shared by the builds of one tree version
 *	         (<cache>/peaks/<version>.peaks, same format, its own lock
 *	         <table>.lock)
 *	oom      "KEY BYTES": compiles that died of SIGKILL (appended)
 *	configure-compiles  "SOURCE": real compiles refused during configure
 *
 * Lines of dead pids are dropped whenever the ledger is read, so a
 * launcher that crashed gives its reservation back.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "build/launch.h"
#include "build/memmodel.h"
#include "build/repro.h"
#include "core/strvec.h"
#include "core/util.h"

#define POLL_NS (50 * 1000 * 1000L)

static uint64_t
fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h ^ 0xff; /* separator between arguments */
}

static int
is_source(const char *a)
{
	return ends_with(a, ".c") || ends_with(a, ".cc") || ends_with(a, ".cpp") ||
	       ends_with(a, ".cxx") || ends_with(a, ".cu");
}

/* Flags that change a compile's memory, and whether they take the next argument. */
static int
memory_flag(const char *a, int *takes_next)
{
	static const char *const with_arg[] = { "-gencode", "--generate-code", "-arch", "--threads",
						"-t", "-arch=", NULL };
	static const char *const prefixes[] = { "-gencode=", "--generate-code=", "-arch=",
						"--gpu-architecture", "--threads=", "-O", "-G",
						"-lineinfo", "-g", NULL };
	size_t i;

	*takes_next = 0;
	for (i = 0; with_arg[i]; i++) {
		if (!strcmp(a, with_arg[i])) {
			*takes_next = 1;
			return 1;
		}
	}
	for (i = 0; prefixes[i]; i++)
		if (starts_with(a, prefixes[i]))
			return 1;
	return 0;
}

void
launch_key(char *const *argv, const char *root, struct buf *key, struct buf *source)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *src = NULL, *rel;
	size_t i, rl = root ? strlen(root) : 0;

	for (i = 1; argv[i]; i++) {
		int next;

		if (!strcmp(argv[i], "-c") && argv[i + 1])
			src = argv[i + 1];
		if (memory_flag(argv[i], &next)) {
			h = fnv1a(h, argv[i]);
			if (next && argv[i + 1])
				h = fnv1a(h, argv[++i]);
		}
	}
	for (i = 1; !src && argv[i]; i++)
		if (is_source(argv[i]))
			src = argv[i];
	if (!src)
		src = argv[0];
	rel = src;
	if (rl && !strncmp(src, root, rl) && src[rl] == '/')
		rel = src + rl + 1;
	buf_reset(key);
	buf_addf(key, "%s#%016llx", rel, (unsigned long long)h);
	if (source) {
		buf_reset(source);
		buf_addstr(source, rel);
	}
}

/* Heavy kernels by path: flash/memory-efficient attention, CUTLASS, MSLK. */
static int
is_heavy(const char *source)
{
	static const char *const marks[] = { "flash", "mem_eff", "cutlass", "fmha", "mslk",
					     "fbgemm_gpu", "genai", NULL };
	size_t i;

	for (i = 0; marks[i]; i++)
		if (strstr(source, marks[i]))
			return 1;
	return 0;
}

/* What the flags say: the language, gencode count and nvcc --threads (0 = every CPU). */
static void
compile_shape(char *const *argv, const char *source, int *cuda, unsigned *gencodes,
	      unsigned *threads)
{
	const char *cc = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	*cuda = ends_with(source, ".cu") || !strcmp(cc, "nvcc");
	*gencodes = 0;
	*threads = 1;
	for (size_t i = 1; argv[i]; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-gencode") || !strcmp(a, "--generate-code"))
			(*gencodes)++;
		else if (starts_with(a, "-gencode=") || starts_with(a, "--generate-code="))
			(*gencodes)++;
		else if ((!strcmp(a, "--threads") || !strcmp(a, "-t")) && argv[i + 1])
			*threads = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (starts_with(a, "--threads="))
			*threads = (unsigned)strtoul(a + 10, NULL, 10);
		else if (!strcmp(a, "-x") && argv[i + 1] && !strcmp(argv[i + 1], "cu"))
			*cuda = 1;
	}
	if (!*gencodes)
		*gencodes = 1;
	if (*threads == 0)
		*threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	if (*threads > *gencodes)
		*threads = *gencodes;
	if (*threads < 1)
		*threads = 1;
}

uint64_t
launch_estimate(char *const *argv, const char *source)
{
	unsigned gencodes, threads;
	uint64_t base;
	int cuda;

	compile_shape(argv, source, &cuda, &gencodes, &threads);
	if (!cuda)
		return EST_LAUNCH_CXX;
	base = is_heavy(source) ? EST_LAUNCH_HEAVY : EST_LAUNCH_CUDA;
	/* est = base x (1 + 0.1 x (n - 1)) x min(T, n)  (build-scheduling.md §3) */
	return base * (10 + (gencodes - 1)) / 10 * threads;
}

void
launch_kind(char *const *argv, const char *source, struct buf *kind)
{
	unsigned gencodes, threads;
	int cuda;

	compile_shape(argv, source, &cuda, &gencodes, &threads);
	buf_addf(kind, "kind:%s%s", cuda ? "cuda" : "cxx", is_heavy(source) ? "-heavy" : "");
	if (cuda)
		buf_addf(kind, "-g%u-t%u", gencodes, threads);
}

uint64_t
peaks_get(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;
	uint64_t v = 0;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			v = strtoull(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return v;
}

uint64_t
peaks_learn(uint64_t old, uint64_t peak)
{
	return old > peak ? (9 * old + peak) / 10 : peak;
}

unsigned
peaks_samples(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;
	unsigned v = 0;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			char *end;

			strtoull(p + kl + 1, &end, 10);
			v = *end == ' ' ? (unsigned)strtoul(end + 1, NULL, 10) : 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return v;
}

uint64_t
launch_estimate_from(const char *learned, const char *key, const char *kind, uint64_t seed,
		     uint64_t est)
{
	uint64_t v;

	if (learned && (v = peaks_get(learned, key)))
		return v + v / 10;
	if (seed)
		return seed + seed / 10;
	/* Never compiled: its kind's largest +25 %, once enough real units of the kind have run. */
	if (learned && (v = peaks_get(learned, kind)) &&
	    peaks_samples(learned, kind) >= LAUNCH_KIND_MIN_SAMPLES && v + v / 4 < est)
		return v + v / 4;
	return est;
}

int
launch_is_probe(char *const *argv, const char *cwd)
{
	static const char *const marks[] = { "/CMakeFiles/CMakeScratch/", "/CMakeFiles/CMakeTmp",
					     "/TryCompile-", "/CompilerIdC", "/CompilerIdCUDA",
					     "/CompilerIdCXX", "CompilerABI.c", NULL };

	for (size_t m = 0; marks[m]; m++) {
		if (cwd && strstr(cwd, marks[m]))
			return 1;
		for (size_t i = 0; argv[i]; i++)
			if (strstr(argv[i], marks[m]))
				return 1;
	}
	return 0;
}

void
launch_tree_version(const char *src_dir, struct buf *out)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	size_t n = 0;

	buf_addf(&path, "%s/version.txt", src_dir ? src_dir : ".");
	if (src_dir && path_exists(path.s) && read_file(&text, path.s) == 0) {
		const char *t = text.s + strspn(text.s, " \t\r\n");

		n = strspn(t, "0123456789.");
		while (n && t[n - 1] == '.')
			n--;
		buf_add(out, t, n);
	}
	if (!n)
		buf_addstr(out, "unknown");
	buf_release(&path);
	buf_release(&text);
}

int
launch_table_path(const char *cache_dir, const char *src_dir, struct buf *out)
{
	struct buf v = BUF_INIT;
	int rc = 0;

	launch_tree_version(src_dir, &v);
	if (!strcmp(v.s, "unknown"))
		rc = -1;
	else
		buf_addf(out, "%s/peaks/pytorch-%s.peaks", cache_dir, v.s);
	buf_release(&v);
	return rc;
}

/* One gencode's "arch=compute_XY,code=..." into the sm and compute sets (numbers XY with suffix). */
static void
gencode_archs(const char *g, struct strvec *sm, struct strvec *ptx)
{
	const char *code = strstr(g, "code=");
	const char *p;

	if (!code)
		return;
	for (p = code + 5; *p;) {
		size_t n;

		p += strspn(p, "[],\"' ");
		n = strcspn(p, "[],\"' ");
		if (!n)
			break;
		char *v = NULL;

		if (n > 3 && !strncmp(p, "sm_", 3))
			strset_add(sm, v = xstrndup(p + 3, n - 3));
		else if (n > 8 && !strncmp(p, "compute_", 8))
			strset_add(ptx, v = xstrndup(p + 8, n - 8));
		free(v);
		p += n;
	}
}

void
launch_archs(char *const *argv, struct buf *out)
{
	struct strvec sm = STRVEC_INIT, ptx = STRVEC_INIT;
	struct buf g = BUF_INIT;

	for (size_t i = 1; argv[i]; i++) {
		const char *a = argv[i];

		buf_reset(&g);
		if ((!strcmp(a, "-gencode") || !strcmp(a, "--generate-code")) && argv[i + 1])
			buf_addstr(&g, argv[++i]);
		else if (starts_with(a, "-gencode="))
			buf_addstr(&g, a + 9);
		else if (starts_with(a, "--generate-code="))
			buf_addstr(&g, a + 16);
		else if (starts_with(a, "-arch=sm_"))
			buf_addf(&g, "code=sm_%s", a + 9);
		else if (!strcmp(a, "-arch") && argv[i + 1] && starts_with(argv[i + 1], "sm_"))
			buf_addf(&g, "code=%s", argv[++i]);
		if (g.len)
			gencode_archs(g.s, &sm, &ptx);
	}
	/* A PTX-only target is listed as such. */
	for (size_t i = 0; i < ptx.n; i++)
		strset_add(&sm, ptx.v[i]);
	for (size_t i = 0; i < sm.n; i++) {
		const char *v = sm.v[i];
		size_t digits = strspn(v, "0123456789");

		if (i)
			buf_addch(out, ';');
		if (digits >= 2)
			buf_addf(out, "%.*s.%.*s%s", (int)digits - 1, v, 1, v + digits - 1, v + digits);
		else
			buf_addstr(out, v);
		if (strset_has(&ptx, v))
			buf_addstr(out, "+PTX");
	}
	if (!sm.n)
		buf_addstr(out, "-");
	strvec_clear(&sm);
	strvec_clear(&ptx);
	buf_release(&g);
}

uint64_t
launch_seed_lookup(const char *text, const char *path, const char *archs, const char *version)
{
	uint64_t best = 0;

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		char f[6][512];
		char line[2048];
		int got;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			got = sscanf(line, "%511s %511s %511s %511s %511s %511s", f[0], f[1], f[2], f[3],
				     f[4], f[5]);
			if (got == 6 && f[0][0] != '#' && !strcmp(f[0], path) && !strcmp(f[2], archs) &&
			    !strcmp(f[5], version)) {
				char *end;
				double mb = strtod(f[3], &end);

				if (*end == '\0' && mb > 0 && mb < 1e9 && (uint64_t)(mb * MiB) > best)
					best = (uint64_t)(mb * MiB);
			}
		}
		p += n + (p[n] == '\n');
	}
	return best;
}

/* ---- the ledger ---- */


struct ledger {
	struct launch_entry *v;
	size_t n, cap;
	struct strvec keys;
};

static int
pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static void
ledger_read(struct ledger *l, const char *path)
{
	struct buf text = BUF_INIT;
	const char *p;

	memset(l, 0, sizeof(*l));
	strvec_init(&l->keys);
	if (!path_exists(path) || read_file(&text, path) < 0)
		return;
	for (p = text.s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		struct launch_entry e;
		char state;
		int used = 0;

		if (sscanf(p, "%lu %ld %c %llu %n", &e.ticket, &e.pid, &state,
			   (unsigned long long *)&e.bytes, &used) < 4 || !pid_alive(e.pid))
			continue;
		e.state = state;
		ALLOC_GROW(l->v, l->n + 1, l->cap);
		l->v[l->n++] = e;
		strvec_push_nodup(&l->keys, xstrndup(p + used, strcspn(p + used, "\n")));
	}
	buf_release(&text);
}

static int
ledger_write(const struct ledger *l, const char *path)
{
	struct buf b = BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; i < l->n; i++)
		buf_addf(&b, "%lu %ld %c %llu %s\n", l->v[i].ticket, l->v[i].pid, l->v[i].state,
			 (unsigned long long)l->v[i].bytes, l->keys.v[i]);
	rc = write_file_atomic(path, b.s, b.len);
	buf_release(&b);
	return rc;
}

static void
ledger_release(struct ledger *l)
{
	free(l->v);
	strvec_clear(&l->keys);
}

struct launcher {
	struct buf dir, lockpath, ledger, peaks, oom;
	uint64_t budget;
	unsigned slots;
	int lock_fd;
	int peaks_fd; /* the lock of peaks: lock_fd, or <table>.lock */
};

static int
lock_ledger(struct launcher *s)
{
	while (flock(s->lock_fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static void
unlock_ledger(struct launcher *s)
{
	flock(s->lock_fd, LOCK_UN);
}

/* Whether waiting entry `w` fits now: a free slot and room in the budget (alone, always). */
static int
fits(const struct launch_entry *w, unsigned running, uint64_t reserved, uint64_t budget,
     unsigned slots)
{
	return !running || (running < slots && reserved + w->bytes <= budget);
}

/* Whether `w` may pass the blocked head: see launch.h. */
static int
may_backfill(const struct launch_entry *w, const struct launch_entry *head, unsigned running,
	     unsigned younger, uint64_t reserved, uint64_t budget, unsigned slots)
{
	return running && fits(w, running, reserved, budget, slots) &&
	       w->bytes + head->bytes <= budget && younger + 1 < slots;
}

int
launch_may_start(const struct launch_entry *v, size_t n, unsigned long me, uint64_t budget,
		 unsigned slots)
{
	const struct launch_entry *head = NULL, *self = NULL;
	unsigned running = 0, younger = 0;
	uint64_t reserved = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].state == 'R') {
			running++;
			reserved += v[i].bytes;
		} else if (!head || v[i].ticket < head->ticket) {
			head = &v[i];
		}
		if (v[i].ticket == me)
			self = &v[i];
	}
	if (!self || self->state != 'W')
		return 0;
	if (self == head)
		return fits(head, running, reserved, budget, slots);
	if (fits(head, running, reserved, budget, slots))
		return 0; /* the head goes first */
	for (i = 0; i < n; i++)
		if (v[i].state == 'R' && v[i].ticket > head->ticket)
			younger++;
	if (!may_backfill(self, head, running, younger, reserved, budget, slots))
		return 0;
	/* Among those that could pass the head, the oldest goes. */
	for (i = 0; i < n; i++)
		if (v[i].state == 'W' && &v[i] != head && v[i].ticket < me &&
		    may_backfill(&v[i], head, running, younger, reserved, budget, slots))
			return 0;
	return 1;
}

static volatile sig_atomic_t stop_signal;

static void
on_stop(int sig)
{
	stop_signal = sig;
}

/* Take a ticket, then wait until first in line and there is room. 0 admitted, -1 stopped. */
static int
admit(struct launcher *s, const char *key, uint64_t est, unsigned long *ticket)
{
	struct ledger l;
	unsigned long max = 0;
	size_t i;

	if (lock_ledger(s) < 0)
		return -1;
	ledger_read(&l, s->ledger.s);
	for (i = 0; i < l.n; i++)
		if (l.v[i].ticket > max)
			max = l.v[i].ticket;
	*ticket = max + 1;
	ALLOC_GROW(l.v, l.n + 1, l.cap);
	l.v[l.n].ticket = *ticket;
	l.v[l.n].pid = (long)getpid();
	l.v[l.n].state = 'W';
	l.v[l.n].bytes = est;
	l.n++;
	strvec_push(&l.keys, key);
	ledger_write(&l, s->ledger.s);
	ledger_release(&l);
	unlock_ledger(s);

	for (;;) {
		size_t me = (size_t)-1;
		/* Short: a slot freed is taken within 20 ms, not a tenth of a second later. */
		struct timespec ts = { 0, 20 * 1000 * 1000L };

		if (stop_signal)
			return -1;
		if (lock_ledger(s) < 0)
			return -1;
		ledger_read(&l, s->ledger.s);
		for (i = 0; i < l.n; i++)
			if (l.v[i].ticket == *ticket && l.v[i].pid == (long)getpid())
				me = i;
		if (me == (size_t)-1) {
			/* Our line was lost (the ledger was removed): take a new one. */
			ledger_release(&l);
			unlock_ledger(s);
			return admit(s, key, est, ticket);
		}
		if (launch_may_start(l.v, l.n, *ticket, s->budget, s->slots)) {
			l.v[me].state = 'R';
			ledger_write(&l, s->ledger.s);
			ledger_release(&l);
			unlock_ledger(s);
			return 0;
		}
		ledger_release(&l);
		unlock_ledger(s);
		nanosleep(&ts, NULL);
	}
}

static void
leave(struct launcher *s, unsigned long ticket)
{
	struct ledger l;
	size_t i, j = 0;

	if (lock_ledger(s) < 0)
		return;
	ledger_read(&l, s->ledger.s);
	for (i = 0; i < l.n; i++) {
		if (l.v[i].ticket == ticket && l.v[i].pid == (long)getpid()) {
			free(l.keys.v[i]);
			continue;
		}
		l.v[j] = l.v[i];
		l.keys.v[j] = l.keys.v[i];
		j++;
	}
	l.n = j;
	l.keys.n = j;
	l.keys.v[j] = NULL;
	ledger_write(&l, s->ledger.s);
	ledger_release(&l);
	unlock_ledger(s);
}

/* ---- the process tree's resident memory, from /proc/<pid>/stat ---- */

struct proc_row {
	long pid, ppid;
	uint64_t rss;
};

static uint64_t
tree_rss(long root)
{
	static long page;
	struct proc_row *rows = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d = opendir("/proc");
	uint64_t sum = 0;
	int grew = 1;
	char *in;

	if (!page)
		page = sysconf(_SC_PAGESIZE);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[300], buf[512], *rp;
		struct proc_row r;
		ssize_t got;
		int fd, field;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		got = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (got <= 0)
			continue;
		buf[got] = '\0';
		/* "pid (comm) state ppid ... rss(24th)": comm may hold spaces and ')' */
		rp = strrchr(buf, ')');
		if (!rp)
			continue;
		r.pid = strtol(buf, NULL, 10);
		r.ppid = 0;
		r.rss = 0;
		for (field = 3, rp += 2; *rp && field <= 24; field++) {
			if (field == 4)
				r.ppid = strtol(rp, NULL, 10);
			if (field == 24)
				r.rss = strtoull(rp, NULL, 10) * (uint64_t)page;
			rp = strchr(rp, ' ');
			if (!rp)
				break;
			rp++;
		}
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

static void
append_line(const char *path, const char *key, uint64_t bytes)
{
	struct buf line = BUF_INIT;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0666);

	if (fd < 0)
		return;
	buf_addf(&line, "%s %llu\n", key, (unsigned long long)bytes);
	write_all(fd, line.s, line.len);
	close(fd);
	buf_release(&line);
}

static void
learn(struct launcher *s, const char *key, uint64_t value, int force)
{
	struct buf text = BUF_INIT, out = BUF_INIT;
	const char *p;
	size_t kl = strlen(key);
	uint64_t old;
	int kind = starts_with(key, "kind:");

	while (flock(s->peaks_fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return;
	if (path_exists(s->peaks.s))
		read_file(&text, s->peaks.s);
	old = peaks_get(text.s, key);
	for (p = text.s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, key, kl) || p[kl] != ' ')
			buf_add(&out, p, strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'));
	/* A kind keeps the largest peak seen (it must cover every file of that kind) and its count. */
	buf_addf(&out, "%s %llu", key,
		 (unsigned long long)(force || !old ? value : kind ? (old > value ? old : value) :
				      peaks_learn(old, value)));
	if (kind)
		buf_addf(&out, " %u", peaks_samples(text.s, key) + 1);
	buf_addch(&out, '\n');
	if (mkdir_p_parent(s->peaks.s) == 0)
		write_file_atomic(s->peaks.s, out.s, out.len);
	flock(s->peaks_fd, LOCK_UN);
	buf_release(&text);
	buf_release(&out);
}

static int
exec_direct(char *const *argv)
{
	execvp(argv[0], argv);
	error("cannot run '%s':", argv[0]);
	return 127;
}

/* The launch directory's files and the budget from the environment; -1 if unusable. */
static int
launcher_open(struct launcher *s, const char *dir, const char *budget, const char *slots,
	      const char *table)
{
	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	s->peaks_fd = -1;
	s->budget = strtoull(budget, NULL, 10);
	s->slots = (unsigned)strtoul(slots, NULL, 10);
	if (!s->slots)
		s->slots = 1;
	buf_addstr(&s->dir, dir);
	buf_addf(&s->lockpath, "%s/lock", dir);
	buf_addf(&s->ledger, "%s/ledger", dir);
	buf_addf(&s->oom, "%s/oom", dir);
	if (mkdir_p(dir) < 0)
		return -1;
	s->lock_fd = open(s->lockpath.s, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (s->lock_fd < 0)
		return -1;
	s->peaks_fd = s->lock_fd;
	if (table && *table) {
		struct buf lock = BUF_INIT;

		buf_addstr(&s->peaks, table);
		buf_addf(&lock, "%s.lock", table);
		if (mkdir_p_parent(lock.s) == 0)
			s->peaks_fd = open(lock.s, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
		buf_release(&lock);
		if (s->peaks_fd < 0)
			return -1;
	} else {
		buf_addf(&s->peaks, "%s/peaks", dir);
	}
	return 0;
}

static void
launcher_close(struct launcher *s)
{
	if (s->peaks_fd >= 0 && s->peaks_fd != s->lock_fd)
		close(s->peaks_fd);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	buf_release(&s->dir);
	buf_release(&s->lockpath);
	buf_release(&s->ledger);
	buf_release(&s->peaks);
	buf_release(&s->oom);
}

/*
 * Run the compiler and sample its process tree's RSS until it exits: its
 * wait status into *status, the peak into *peak. -1 if it could not fork.
 */
static int
run_measured(char *const *argv, int *status, uint64_t *peak)
{
	struct rusage ru;
	pid_t child;

	memset(&ru, 0, sizeof(ru));
	*status = 0;
	*peak = 0;
	child = fork();
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "bwbuild launch: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (child < 0)
		return error("cannot fork:");
	for (;;) {
		struct timespec ts = { 0, POLL_NS };
		pid_t w = wait4(child, status, WNOHANG, &ru);
		uint64_t now;

		if (w == child)
			break;
		if (w < 0 && errno != EINTR)
			break;
		now = tree_rss(child);
		if (now > *peak)
			*peak = now;
		nanosleep(&ts, NULL);
	}
	if ((uint64_t)ru.ru_maxrss * 1024 > *peak)
		*peak = (uint64_t)ru.ru_maxrss * 1024;
	return 0;
}

/* A compile killed (likely by the OOM killer) reserves more next time; a good one is learned. */
static void
record_outcome(struct launcher *s, const char *key, const char *kind, const char *source,
	       uint64_t est, int status, uint64_t peak)
{
	/* 137: nvcc's sh -c reports a child killed by signal 9 so. */
	if ((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ||
	    (WIFEXITED(status) && WEXITSTATUS(status) == 137)) {
		fprintf(stderr, "bwbuild launch: %s was killed by signal 9 (likely out of memory; "
			"peak %llu MiB, reserved %llu MiB)\n", source,
			(unsigned long long)(peak >> 20), (unsigned long long)(est >> 20));
		append_line(s->oom.s, key, est);
		learn(s, key, est + est / 2, 1);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && peak >= LEARN_MIN) {
		learn(s, key, peak, 0);
		learn(s, kind, peak, 0);
	}
}

/* The seed peak of (source, archs) for this tree's version, from every table in $BWBUILD_LAUNCH_SEED. */
static uint64_t
seed_peak(char *const *argv, const char *source)
{
	const char *list = getenv(LAUNCH_ENV_SEED);
	struct buf version = BUF_INIT, archs = BUF_INIT, text = BUF_INIT;
	uint64_t best = 0;

	if (!list || !*list)
		return 0;
	launch_tree_version(getenv(LAUNCH_ENV_ROOT), &version);
	launch_archs(argv, &archs);
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ":");
		char *path = xstrndup(p, n);
		uint64_t v;

		buf_reset(&text);
		if (n && path_exists(path) && read_file(&text, path) == 0 &&
		    (v = launch_seed_lookup(text.s, source, archs.s, version.s)) > best)
			best = v;
		free(path);
		p += n + (p[n] == ':');
	}
	buf_release(&version);
	buf_release(&archs);
	buf_release(&text);
	return best;
}

/* A real compile during the configure step: recorded for configure to report, and not run. */
static int
refuse_in_configure(const char *dir, const char *source)
{
	struct buf path = BUF_INIT, line = BUF_INIT;
	int fd;

	buf_addf(&path, "%s/" LAUNCH_CONFIGURE_COMPILES, dir);
	buf_addf(&line, "%s\n", source);
	if (mkdir_p(dir) == 0 && (fd = open(path.s, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666)) >= 0) {
		write_all(fd, line.s, line.len);
		close(fd);
	}
	fprintf(stderr, "bwbuild launch: %s: a real compile during the configure step; refused (the "
		"tree builds where it should only configure)\n", source);
	buf_release(&path);
	buf_release(&line);
	return 1;
}

int
launch_run(char *const *argv)
{
	const char *dir = getenv(LAUNCH_ENV_DIR), *b = getenv(LAUNCH_ENV_BUDGET);
	const char *slots = getenv(LAUNCH_ENV_SLOTS), *inside, *phase = getenv(LAUNCH_ENV_PHASE);
	struct launcher s;
	struct buf key = BUF_INIT, source = BUF_INIT, text = BUF_INIT, kind = BUF_INIT;
	struct strvec args = STRVEC_INIT;
	const char *object;
	struct sigaction sa;
	unsigned long ticket;
	uint64_t est, peak;
	int status, ret;
	char *cwd;

	/*
	 * A compiler already admitted (CMake's launcher in front of an
	 * extension's CXX, which is the launcher's c++ wrapper) runs as it is:
	 * a second admission would wait for the slot its own parent holds.
	 */
	inside = getenv(LAUNCH_ENV_INSIDE);
	if (!dir || !*dir || !b || !slots || (inside && !strcmp(inside, dir)))
		return exec_direct(argv);
	/*
	 * CMake's probes (try-compiles, compiler identification) are tiny and
	 * say nothing about the tree's units: run at once, never learned. A
	 * compile during configure that is no probe means the tree builds.
	 */
	cwd = getcwd(NULL, 0);
	ret = launch_is_probe(argv, cwd);
	free(cwd);
	if (ret)
		return exec_direct(argv);
	if (phase && !strcmp(phase, "configure")) {
		launch_key(argv, getenv(LAUNCH_ENV_ROOT), &key, &source);
		ret = refuse_in_configure(dir, source.s);
		buf_release(&key);
		buf_release(&source);
		return ret;
	}
	if (launcher_open(&s, dir, b, slots, getenv(LAUNCH_ENV_TABLE)) < 0) {
		launcher_close(&s);
		return exec_direct(argv);
	}
	/* The ledger's directory: one left in an environment from another build means nothing. */
	setenv(LAUNCH_ENV_INSIDE, dir, 1);
	/* Build paths mapped away, so two work directories give the same bytes (src/build/repro.c). */
	buf_addstr(&text, dir);
	if (strrchr(text.s, '/'))
		buf_setlen(&text, (size_t)(strrchr(text.s, '/') - text.s));
	repro_compile_args(argv, text.s, getenv(LAUNCH_ENV_ROOT), &args);
	buf_reset(&text);
	argv = args.v;
	launch_key(argv, getenv(LAUNCH_ENV_ROOT), &key, &source);
	launch_kind(argv, source.s, &kind);
	if (path_exists(s.peaks.s))
		read_file(&text, s.peaks.s);
	est = launch_estimate_from(text.s, key.s, kind.s, peaks_get(text.s, key.s) ? 0 :
				   seed_peak(argv, source.s), launch_estimate(argv, source.s));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (admit(&s, key.s, est, &ticket) < 0) {
		leave(&s, ticket);
		ret = 128 + (stop_signal ? stop_signal : SIGTERM);
	} else if (run_measured(argv, &status, &peak) < 0) {
		leave(&s, ticket);
		ret = 1;
	} else {
		leave(&s, ticket);
		record_outcome(&s, key.s, kind.s, source.s, est, status, peak);
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (!ret && (object = repro_nvcc_output(argv)) && repro_fix_object(object) < 0)
			ret = 1;
	}
	launcher_close(&s);
	buf_release(&key);
	buf_release(&source);
	buf_release(&text);
	buf_release(&kind);
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
