#ifndef BWBUILD_HOSTLIST_H
#define BWBUILD_HOSTLIST_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct buf;

/*
 * build.remote: the distccd hosts a build may send host C++ compiles to,
 * separated by whitespace or newlines ('#' starts a comment), each
 *
 *	HOST[:PORT][/SLOTS][,mem=SIZE]     TCP to distccd (PORT 3632, SLOTS 2)
 *	USER@HOST[/SLOTS][,mem=SIZE]       distcc over ssh (no daemon port)
 *
 * SLOTS is how many compiles the host takes at once, mem its memory
 * budget for them (default SLOTS x 2 GiB; a unit larger than the budget
 * runs there alone). "localhost" is refused: to distcc it means "compile
 * here", outside every budget; a daemon on this machine is 127.0.0.1:PORT.
 */
struct remote_host {
	char *name;          /* what DISTCC_HOSTS names: HOST:PORT or USER@HOST */
	char *addr;          /* HOST, for the reachability check */
	unsigned port;       /* 0 over ssh */
	unsigned slots;
	uint64_t mem;
	time_t down_until;   /* the launcher's: marked down until then */
};

struct remote_hosts {
	struct remote_host *v;
	size_t n, cap;
};

#define REMOTE_PORT 3632
#define REMOTE_SLOTS 2

/*
 * The bounds of a list: every host is a ninja slot or more and a word in
 * the launcher's and distcc's environment, so 80,000 hosts made
 * MAX_JOBS=320004 and failed at the first compile with "Argument list too
 * long" (an environment string may have 128 KiB). A host's name is at
 * most a DNS name's 253 bytes.
 */
#define REMOTE_HOSTS_MAX 1024
#define REMOTE_SLOTS_MAX 4096
#define REMOTE_NAME_MAX 253
#define REMOTE_LIST_MAX (64 * 1024)

/*
 * Parse a host list; -1 with the reason in `err` (the offending entry
 * quoted, cut to REMOTE_NAME_MAX bytes). O(n log n): a name listed twice
 * is found by sorting.
 */
int remote_hosts_parse(struct remote_hosts *out, const char *text, struct buf *err);
/* The list as the launcher reads it back: "NAME/SLOTS,mem=BYTES" separated by spaces. */
void remote_hosts_format(const struct remote_hosts *h, struct buf *out);
/* The slots of every host together. */
unsigned remote_hosts_slots(const struct remote_hosts *h);
void remote_hosts_release(struct remote_hosts *h);

/* Whether a build.remote value names a file of hosts (an absolute or ./ ../ path). */
int remote_is_file(const char *value);

#endif
