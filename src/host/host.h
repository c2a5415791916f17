#ifndef BWBUILD_HOST_H
#define BWBUILD_HOST_H

#include <stdint.h>

/*
 * Facts about the build machine that the plan depends on, probed once so
 * that planning itself stays a pure function of (profile, host).
 */
struct host {
	unsigned cpus;             /* CPUs this process may run on */
	uint64_t mem_total;        /* MemTotal */
	uint64_t mem_available;    /* MemAvailable (host-wide unless virtualised) */
	uint64_t cgroup_limit;     /* tightest memory limit on our cgroup path; 0 = none */
	uint64_t cgroup_room;      /* limit - (usage - inactive_file) there; 0 = none */
	char cgroup_where[256];    /* the cgroup directory that set it */
};

/* Probe /proc and /sys; missing sources are left at 0. Never fails. */
void host_probe(struct host *h);

/*
 * Parse /proc/meminfo text for `key` ("MemAvailable") in bytes; -1 if absent.
 * Exposed for tests.
 */
int meminfo_get(const char *text, const char *key, uint64_t *out);

/* CPUs this process may run on (its affinity mask), at least 1. */
unsigned host_cpus(void);

/*
 * The machine the build runs on, as uname(2) says it: "x86_64",
 * "aarch64" (Grace, DGX Spark). Static.
 */
const char *host_machine(void);

/*
 * Where that machine's libraries live, as pure functions of its name:
 * the multiarch triplet of Debian and Ubuntu ("x86_64-linux-gnu",
 * "aarch64-linux-gnu": /usr/lib/<triplet>, /usr/include/<triplet>) and
 * the CUDA toolkit's targets/ directory ("x86_64-linux", "sbsa-linux":
 * NVIDIA's name for arm64 servers); NULL for a machine without one.
 */
const char *host_triplet_of(const char *machine);
const char *host_cuda_target_of(const char *machine);

#endif
