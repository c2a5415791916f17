#ifndef BWBUILD_ADMIT_H
#define BWBUILD_ADMIT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "profile/hostlist.h"

/*
 * The ledger of a launch directory and admission over it (admit.c): who
 * waits, who runs here and who on a build.remote host, and which goes next.
 */

/*
 * One ledger line: a compile waiting ('W'), running here ('R') or on a
 * remote host ('X'). `bytes` is its estimate, held by whichever machine
 * compiles it; `pre` what it holds here when it runs remotely (distcc's
 * local preprocessing), 0 for a compile that only runs here; `host` the
 * index of its host in build.remote while 'X'; `cores` the CPU slots it
 * holds here.
 */
struct launch_entry {
	unsigned long ticket;
	long pid;
	char state;
	uint64_t bytes;
	uint64_t pre;
	int host;
	unsigned cores; /* cores it holds here: 1, more for a long pole (0 reads as 1) */
	uint64_t ms;    /* its expected wall time (learned, else seeded), 0 when unknown */
};

/*
 * Admission, with backfilling. The waiting compiles are in line longest
 * first (by `ms`; equal or unknown times by ticket, oldest first): the
 * tail of a build is its few longest units, and the one that starts last
 * ends last (ninja's own order is the manifest's). The first in line (the
 * head) starts when a slot is free and its reservation fits in the budget
 * (or nothing runs). While the head waits for memory, another compile may
 * start if it fits now, if it and the head fit in the budget together (so
 * once the compiles running before the head finish, the head fits beside
 * it: its start is not delayed for memory), and if a slot stays for the
 * head (compiles started after the head's ticket < slots - 1); among such,
 * the first in line goes. The head is never passed for a slot it could
 * take, so it cannot starve.
 */
int launch_may_start(const struct launch_entry *v, size_t n, unsigned long me, uint64_t budget,
		     unsigned slots);

/*
 * Where a waiting remote-capable compile `me` goes now: the index of the
 * host with the most free slots among those up (down_until <= now) with a
 * free slot and room in their memory budget for its `bytes` (an idle host
 * takes any), while its `pre` fits the local budget beside what runs here
 * (or nothing does); -1 when none, or when an older remote-capable compile
 * could take a host (first come, first served).
 */
int launch_remote_pick(const struct launch_entry *v, size_t n, unsigned long me, uint64_t budget,
		       const struct remote_host *hosts, size_t nhosts, long now);

/*
 * The long-pole rule: the cores a CUDA compile `me`, just admitted, may
 * use (1 to `want`) when nothing waits and cores idle, the tail of a build
 * or an extension's one big unit, and it is expected to take longer than
 * every other unit running here (by `ms`; unknown, only when it runs
 * alone): 1 + the idle slots, fewer while its reservation, `est` for each
 * core, would not fit the budget.
 */
unsigned launch_pole_cores(const struct launch_entry *v, size_t n, unsigned long me, uint64_t budget,
			   unsigned slots, unsigned want, uint64_t est);

/* One compile's view of its launch directory (inside bwbuild launch). */
struct launcher {
	struct buf dir, lockpath, ledger, peaks, oom, down, times;
	uint64_t budget;
	unsigned slots;
	int lock_fd;
	int peaks_fd; /* the lock of peaks: lock_fd, or <table>.lock */
	int dir_fd;   /* the launch directory, held: its files are named through it */
	struct remote_hosts hosts; /* build.remote; none: every compile runs here */
	unsigned want_cores;       /* a CUDA compile's use for idle cores (launch_pole_cores) */
	unsigned cores;            /* what it was given, once admitted here */
	const char *times_known;   /* the times table as read when the launch began */
	uint64_t ms;               /* its expected time, for its place in line (launch_entry) */
	int queued;                /* its line is in the ledger: launch_leave has one to remove */
	unsigned settle_ms;        /* how long a long pole waits for units arriving with it */
	int pole_pending;          /* admitted while cores idle: launch_pole_settle decides */
};

/* The signal that stopped a wait (SIGINT, SIGTERM), 0 while none. */
extern volatile sig_atomic_t launch_stop_signal;
void launch_on_stop(int sig);

/*
 * Take a ticket (pre: what the compile holds here if it runs remotely, 0:
 * it only runs here), then wait for a turn: the index of the host it goes
 * to, -1 to run here, -2 when stopped by a signal.
 */
int launch_admit(struct launcher *s, const char *key, uint64_t est, uint64_t pre,
		 unsigned long *ticket);
/* Back in line to run here, with its place kept (a remote host failed it); as launch_admit. */
int launch_requeue(struct launcher *s, const char *key, uint64_t est, unsigned long *ticket);
void launch_leave(struct launcher *s, unsigned long ticket);
/*
 * A unit admitted here while cores idled waits `settle_ms` for the units
 * that arrived with it, then takes the cores the long-pole rule gives it
 * (s->cores, its line updated); nothing when none was pending.
 */
void launch_pole_settle(struct launcher *s, unsigned long ticket, uint64_t est);
/* Host `host` failed a compile: none is sent there for `seconds`. */
void launch_mark_down(struct launcher *s, int host, unsigned seconds);

#endif
