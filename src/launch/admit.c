/*
 * The ledger of the launch directory and admission over it: who waits,
 * who runs (here or on a remote host), the decision of launch_may_start,
 * and the wait for a turn (admit) and its end (leave). Every read and
 * write is under the directory's flock.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "launch/admit.h"
#include "profile/hostlist.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"



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

		if (sscanf(p, "%lu %ld %c %llu %llu %d %u %llu %n", &e.ticket, &e.pid, &state,
			   (unsigned long long *)&e.bytes, (unsigned long long *)&e.pre, &e.host,
			   &e.cores, (unsigned long long *)&e.ms, &used) < 8 || !pid_alive(e.pid))
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
		buf_addf(&b, "%lu %ld %c %llu %llu %d %u %llu %s\n", l->v[i].ticket, l->v[i].pid,
			 l->v[i].state, (unsigned long long)l->v[i].bytes,
			 (unsigned long long)l->v[i].pre, l->v[i].host, l->v[i].cores,
			 (unsigned long long)l->v[i].ms, l->keys.v[i]);
	rc = write_file_replace(path, b.s, b.len);
	buf_release(&b);
	return rc;
}

static void
ledger_release(struct ledger *l)
{
	free(l->v);
	strvec_clear(&l->keys);
}

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

/* Whether waiting `a` is before `b` in line: the longer first, then the older. */
static int
before(const struct launch_entry *a, const struct launch_entry *b)
{
	return a->ms != b->ms ? a->ms > b->ms : a->ticket < b->ticket;
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
			running += v[i].cores > 1 ? v[i].cores : 1;
			reserved += v[i].bytes;
		} else if (v[i].state == 'X') {
			reserved += v[i].pre; /* no slot here: only its preprocessing */
		} else if (!head || before(&v[i], head)) {
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
	/*
	 * The running that may have passed the head: those that came after
	 * it, and those behind it in line (which started before it came or
	 * passed it: counted either way, so its slot is never taken).
	 */
	for (i = 0; i < n; i++)
		if (v[i].state == 'R' && (v[i].ticket > head->ticket || before(head, &v[i])))
			younger++;
	if (!may_backfill(self, head, running, younger, reserved, budget, slots))
		return 0;
	/* Among those that could pass the head, the first in line goes. */
	for (i = 0; i < n; i++)
		if (v[i].state == 'W' && &v[i] != head && &v[i] != self && before(&v[i], self) &&
		    may_backfill(&v[i], head, running, younger, reserved, budget, slots))
			return 0;
	return 1;
}

static int
host_fits(const struct launch_entry *w, const struct remote_host *h, unsigned running,
	  uint64_t held, long now)
{
	return h->down_until <= now && running < h->slots && (!running || held + w->bytes <= h->mem);
}

/* The host for `w` with the most free slots (first listed on a tie), or -1. */
static int
best_host(const struct launch_entry *w, const struct launch_entry *v, size_t n,
	  const struct remote_host *hosts, size_t nhosts, long now)
{
	int best = -1;
	unsigned best_free = 0;

	for (size_t h = 0; h < nhosts; h++) {
		unsigned running = 0;
		uint64_t held = 0;

		for (size_t i = 0; i < n; i++) {
			if (v[i].state == 'X' && v[i].host == (int)h) {
				running++;
				held += v[i].bytes;
			}
		}
		if (host_fits(w, &hosts[h], running, held, now) &&
		    (best < 0 || hosts[h].slots - running > best_free)) {
			best = (int)h;
			best_free = hosts[h].slots - running;
		}
	}
	return best;
}

int
launch_remote_pick(const struct launch_entry *v, size_t n, unsigned long me, uint64_t budget,
		   const struct remote_host *hosts, size_t nhosts, long now)
{
	const struct launch_entry *self = NULL;
	uint64_t reserved = 0;
	int host;

	for (size_t i = 0; i < n; i++) {
		if (v[i].state == 'R')
			reserved += v[i].bytes;
		else if (v[i].state == 'X')
			reserved += v[i].pre;
		if (v[i].ticket == me)
			self = &v[i];
	}
	if (!self || self->state != 'W' || !self->pre)
		return -1;
	if (reserved && reserved + self->pre > budget)
		return -1;
	host = best_host(self, v, n, hosts, nhosts, now);
	if (host < 0)
		return -1;
	/* An older remote-capable compile that a host would take goes first. */
	for (size_t i = 0; i < n; i++)
		if (v[i].state == 'W' && v[i].pre && v[i].ticket < me &&
		    (!reserved || reserved + v[i].pre <= budget) &&
		    best_host(&v[i], v, n, hosts, nhosts, now) >= 0)
			return -1;
	return host;
}

unsigned
launch_pole_cores(const struct launch_entry *v, size_t n, unsigned long me, uint64_t budget,
		  unsigned slots, unsigned want, uint64_t est)
{
	unsigned running = 0, give;
	uint64_t reserved = 0, mine = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].ticket == me)
			mine = v[i].ms;
	for (size_t i = 0; i < n; i++) {
		if (v[i].ticket == me)
			continue;
		if (v[i].state == 'W')
			return 1; /* others wait: the cores are theirs */
		if (v[i].state == 'R') {
			/*
			 * The cores go to the unit expected to end last: given
			 * to one of a burst that arrived together, they keep
			 * the longest from them (its time unknown: to none).
			 */
			if (!mine || v[i].ms >= mine)
				return 1;
			running += v[i].cores > 1 ? v[i].cores : 1;
			reserved += v[i].bytes;
		} else if (v[i].state == 'X') {
			reserved += v[i].pre;
		}
	}
	if (running + 1 >= slots || want < 2)
		return 1;
	give = slots - running;
	if (give > want)
		give = want;
	while (give > 1 && reserved + est * give > budget)
		give--;
	return give;
}

volatile sig_atomic_t launch_stop_signal;

void
launch_on_stop(int sig)
{
	launch_stop_signal = sig;
}

/* <dir>/hosts-down: "NAME UNTIL" (seconds since the epoch), read into s->hosts. */
static void
down_read(struct launcher *s)
{
	struct buf text = BUF_INIT;

	for (size_t i = 0; i < s->hosts.n; i++)
		s->hosts.v[i].down_until = 0;
	if (!s->hosts.n || !path_exists(s->down.s) || read_file(&text, s->down.s) < 0)
		return;
	for (const char *p = text.s; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
		size_t n = strcspn(p, " \n");

		for (size_t i = 0; p[n] == ' ' && i < s->hosts.n; i++)
			if (strlen(s->hosts.v[i].name) == n && !strncmp(p, s->hosts.v[i].name, n))
				s->hosts.v[i].down_until = (time_t)strtoll(p + n + 1, NULL, 10);
	}
	buf_release(&text);
}

void
launch_mark_down(struct launcher *s, int host, unsigned seconds)
{
	struct buf out = BUF_INIT;

	if (host < 0 || (size_t)host >= s->hosts.n || lock_ledger(s) < 0)
		return;
	down_read(s);
	s->hosts.v[host].down_until = time(NULL) + seconds;
	for (size_t i = 0; i < s->hosts.n; i++)
		if (s->hosts.v[i].down_until)
			buf_addf(&out, "%s %lld\n", s->hosts.v[i].name,
				 (long long)s->hosts.v[i].down_until);
	write_file_atomic(s->down.s, out.s, out.len);
	unlock_ledger(s);
	buf_release(&out);
}

/*
 * Entry `me` of `l` starts now if admission says so, here or on a host:
 * its state, host and cores set in `l` (the caller writes it). The host,
 * -1 to run here, WAIT when it must wait.
 */
#define WAIT (-3)
static int
try_start(struct launcher *s, struct ledger *l, size_t me, uint64_t est)
{
	unsigned long ticket = l->v[me].ticket;
	unsigned give;
	int host = -1;

	down_read(s);
	if (l->v[me].pre)
		host = launch_remote_pick(l->v, l->n, ticket, s->budget, s->hosts.v, s->hosts.n,
					  (long)time(NULL));
	if (host < 0 && !launch_may_start(l->v, l->n, ticket, s->budget, s->slots))
		return WAIT;
	l->v[me].state = host >= 0 ? 'X' : 'R';
	l->v[me].host = host;
	s->cores = 1;
	s->pole_pending = 0;
	if (host < 0 && s->want_cores > 1 &&
	    (give = launch_pole_cores(l->v, l->n, ticket, s->budget, s->slots, s->want_cores,
				      est)) > 1) {
		/*
		 * Not yet: units that arrive together (the start of a build,
		 * an extension's few) are not all in the ledger at once;
		 * launch_pole_settle decides once they are.
		 */
		if (s->settle_ms)
			s->pole_pending = 1;
		else
			s->cores = give;
		l->v[me].cores = s->cores;
		l->v[me].bytes = est * s->cores;
	}
	return host;
}

void
launch_pole_settle(struct launcher *s, unsigned long ticket, uint64_t est)
{
	struct timespec ts = { (time_t)(s->settle_ms / 1000), (long)(s->settle_ms % 1000) * 1000000L };
	struct ledger l;

	if (!s->pole_pending)
		return;
	s->pole_pending = 0;
	nanosleep(&ts, NULL);
	if (launch_stop_signal || lock_ledger(s) < 0)
		return;
	ledger_read(&l, s->ledger.s);
	for (size_t i = 0; i < l.n; i++) {
		if (l.v[i].ticket != ticket || l.v[i].pid != (long)getpid())
			continue;
		s->cores = launch_pole_cores(l.v, l.n, ticket, s->budget, s->slots, s->want_cores,
					     est);
		if (s->cores > 1) {
			l.v[i].cores = s->cores;
			l.v[i].bytes = est * s->cores;
			ledger_write(&l, s->ledger.s);
		}
	}
	ledger_release(&l);
	unlock_ledger(s);
}

/*
 * A new line for this process, its ticket into *ticket, started at once
 * when admission allows (one write of the ledger for a compile that need
 * not wait): as try_start, -2 if the ledger cannot be locked.
 */
static int
enter(struct launcher *s, const char *key, uint64_t est, uint64_t pre, unsigned long *ticket)
{
	struct ledger l;
	unsigned long max = 0;
	int host;

	if (lock_ledger(s) < 0)
		return -2;
	ledger_read(&l, s->ledger.s);
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].ticket > max)
			max = l.v[i].ticket;
	*ticket = max + 1;
	ALLOC_GROW(l.v, l.n + 1, l.cap);
	l.v[l.n].ticket = *ticket;
	l.v[l.n].pid = (long)getpid();
	l.v[l.n].state = 'W';
	l.v[l.n].bytes = est;
	l.v[l.n].pre = s->hosts.n ? pre : 0;
	l.v[l.n].host = -1;
	l.v[l.n].cores = 1;
	l.v[l.n].ms = s->ms;
	l.n++;
	strvec_push(&l.keys, key);
	host = launch_stop_signal ? WAIT : try_start(s, &l, l.n - 1, est);
	ledger_write(&l, s->ledger.s);
	s->queued = 1;
	ledger_release(&l);
	unlock_ledger(s);
	return host;
}

/* Wait until first in line with room, here or on a host: as launch_admit. */
static int
wait_turn(struct launcher *s, const char *key, uint64_t est, uint64_t pre, unsigned long *ticket)
{
	struct ledger l;

	for (;;) {
		size_t me = (size_t)-1;
		/* Short: a slot freed is taken within 20 ms, not a tenth of a second later. */
		struct timespec ts = { 0, 20 * 1000 * 1000L };
		int host;

		if (launch_stop_signal)
			return -2;
		if (lock_ledger(s) < 0)
			return -2;
		ledger_read(&l, s->ledger.s);
		for (size_t i = 0; i < l.n; i++)
			if (l.v[i].ticket == *ticket && l.v[i].pid == (long)getpid())
				me = i;
		if (me == (size_t)-1) {
			/* Our line was lost (the ledger was removed): take a new one. */
			ledger_release(&l);
			unlock_ledger(s);
			return launch_admit(s, key, est, pre, ticket);
		}
		host = try_start(s, &l, me, est);
		if (host != WAIT)
			ledger_write(&l, s->ledger.s);
		ledger_release(&l);
		unlock_ledger(s);
		if (host != WAIT)
			return host;
		nanosleep(&ts, NULL);
	}
}

int
launch_admit(struct launcher *s, const char *key, uint64_t est, uint64_t pre, unsigned long *ticket)
{
	int host = enter(s, key, est, pre, ticket);

	return host == WAIT ? wait_turn(s, key, est, pre, ticket) : host;
}

int
launch_requeue(struct launcher *s, const char *key, uint64_t est, unsigned long *ticket)
{
	struct ledger l;
	int found = 0;

	if (lock_ledger(s) < 0)
		return -2;
	ledger_read(&l, s->ledger.s);
	for (size_t i = 0; i < l.n; i++) {
		if (l.v[i].ticket == *ticket && l.v[i].pid == (long)getpid()) {
			l.v[i].state = 'W';
			l.v[i].bytes = est;
			l.v[i].pre = 0;
			l.v[i].host = -1;
			found = 1;
		}
	}
	if (found)
		ledger_write(&l, s->ledger.s);
	ledger_release(&l);
	unlock_ledger(s);
	if (!found)
		return launch_admit(s, key, est, 0, ticket);
	return wait_turn(s, key, est, 0, ticket);
}

void
launch_leave(struct launcher *s, unsigned long ticket)
{
	struct ledger l;
	size_t i, j = 0;

	/* Left already (as soon as the compile ended, before learning): one write, not two. */
	if (!s->queued || lock_ledger(s) < 0)
		return;
	s->queued = 0;
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
