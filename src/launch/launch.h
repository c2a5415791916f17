#ifndef BWBUILD_LAUNCH_H
#define BWBUILD_LAUNCH_H

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
/* "configure" during the configure step: nothing is learned and a real compile is refused. */
#define LAUNCH_ENV_PHASE "BWBUILD_LAUNCH_PHASE"
/* The learned table shared by every build of one tree version (launch_table_path). */
#define LAUNCH_ENV_TABLE "BWBUILD_LAUNCH_TABLE"
/* Seed tables (format in launch/peaks.h, launch_seed_lookup), ':'-separated. */
#define LAUNCH_ENV_SEED "BWBUILD_LAUNCH_SEED"
/* build.remote as remote_hosts_format writes it: where host C++ compiles may go (remote.c). */
#define LAUNCH_ENV_REMOTE "BWBUILD_LAUNCH_REMOTE"
/* Seconds a host that failed stays marked down (default LAUNCH_REMOTE_BACKOFF). */
#define LAUNCH_ENV_REMOTE_BACKOFF "BWBUILD_LAUNCH_REMOTE_BACKOFF"
#define LAUNCH_REMOTE_BACKOFF 60
/* "on": the long pole may also get nvcc --split-compile (build.split_compile; bytes then vary). */
#define LAUNCH_ENV_SPLIT "BWBUILD_LAUNCH_SPLIT"
/* Milliseconds a unit given idle cores waits for those arriving with it (default LAUNCH_SETTLE_MS). */
#define LAUNCH_ENV_SETTLE "BWBUILD_LAUNCH_SETTLE_MS"
#define LAUNCH_SETTLE_MS 1000
/* In the launch directory: the compiles refused during configure, one "SOURCE" a line. */
#define LAUNCH_CONFIGURE_COMPILES "configure-compiles"

/*
 * The learned table of a PyTorch tree: <cache>/peaks/pytorch-<version>.peaks;
 * -1 (nothing written) when the tree has no version, whose compiles then
 * learn in their work directory only.
 */
int launch_table_path(const char *cache_dir, const char *src_dir, struct buf *out);

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

/*
 * The command that compiles `argv` on `host` (a DISTCC_HOSTS entry) into
 * `out`, and the settings it runs with into `env` (NAME=VALUE): distcc
 * before the compiler, or as ccache's CCACHE_PREFIX when ccache is first;
 * one host, no fallback, no local retry, and
 * DISTCC_DIR under the launch directory `dir` (distcc needs it to exist).
 * What the launcher runs for a remote compile, and doctor's probe of a
 * host too (pipeline/remotecheck.c), so the probe is the real command.
 */
void launch_remote_command(char *const *argv, const char *host, const char *dir, struct strvec *out,
			   struct strvec *env);

#endif
