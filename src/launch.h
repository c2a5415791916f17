#ifndef BWBUILD_LAUNCH_H
#define BWBUILD_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct strvec;

/*
 * The admission-control compiler launcher (`bwbuild launch -- CC ARGS`),
 * set as CMAKE_{C,CXX,CUDA}_COMPILER_LAUNCHER. Every compile of a build
 * shares one ledger in BWBUILD_LAUNCH_DIR under an flock: a compile starts
 * only when it is first in line, a CPU slot is free and the reservations
 * of the running ones plus its estimate fit the memory budget (or nothing
 * else runs). Its process tree's peak RSS is measured and learned per
 * source file; a compile killed by SIGKILL is recorded for OOM recovery.
 * Without BWBUILD_LAUNCH_DIR in the environment it just runs the compiler.
 */

#define LAUNCH_ENV_DIR "BWBUILD_LAUNCH_DIR"
#define LAUNCH_ENV_BUDGET "BWBUILD_LAUNCH_BUDGET"
#define LAUNCH_ENV_SLOTS "BWBUILD_LAUNCH_SLOTS"
#define LAUNCH_ENV_ROOT "BWBUILD_SRC_ROOT"
#define LAUNCH_ENV_INSIDE "BWBUILD_LAUNCH_INSIDE" /* the ledger directory, for the compiler a launch runs */

/*
 * The key of a compile: its source relative to `root` plus a hash of the
 * flags that change its memory (archs, --threads, -G, -O, -lineinfo).
 * The source is the argument after -c (else the last .c/.cc/.cpp/.cu).
 */
void launch_key(char *const *argv, const char *root, struct buf *key, struct buf *source);

/* The cold estimate (memmodel.h): C/C++, CUDA scaled by gencodes and --threads, heavy kernels. */
uint64_t launch_estimate(char *const *argv, const char *source);

/*
 * The kind of a compile, for estimates of files never compiled before:
 * "kind:cxx", "kind:cxx-heavy", "kind:cuda-g3-t1", "kind:cuda-heavy-g3-t1"
 * (language, heavy kernels, gencode count, nvcc --threads). The largest
 * peak seen for a kind in this work directory bounds the cold estimate of
 * the next compile of that kind (a PyTorch tree has thousands of alike
 * C++ files; after the first few the default 2 GiB guess is replaced).
 */
void launch_kind(char *const *argv, const char *source, struct buf *kind);

/* Learned peaks: "key bytes" lines. */
uint64_t peaks_get(const char *text, const char *key);
/* Rise at once, decay slowly: new = old > peak ? (9*old + peak) / 10 : peak. */
uint64_t peaks_learn(uint64_t old, uint64_t peak);

/* One ledger line: a compile waiting ('W') or running ('R') with its reservation. */
struct launch_entry {
	unsigned long ticket;
	long pid;
	char state;
	uint64_t bytes;
};

/*
 * Admission, with backfilling: the oldest waiting compile (the head)
 * starts when a slot is free and its reservation fits in the budget (or
 * nothing runs). While the head waits for memory, a younger compile may
 * start if it fits now, if it and the head fit in the budget together (so
 * once the compiles older than the head finish, the head fits beside it:
 * its start is not delayed for memory), and if a slot stays for the head
 * (younger compiles running < slots - 1); among such, the oldest goes. The
 * head is never passed for a slot it could take, so it cannot starve.
 */
int launch_may_start(const struct launch_entry *v, size_t n, unsigned long me, uint64_t budget,
		     unsigned slots);

/* Run `argv` under admission control; returns the exit status to exit with. */
int launch_run(char *const *argv);

/*
 * Forget every reservation: at the start of a compile step, under the
 * work directory's lock, no compile of this build can be running, and a
 * line left by a killed one (whose pid may since belong to another
 * process) must not hold the budget. -1 after reporting.
 */
int launch_reset(const char *dir);

/* Lines of <dir>/oom ("key bytes"): compiles killed by SIGKILL since it was last cleared. */
int launch_oom_read(const char *dir, struct strvec *keys);

#endif
