#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/buf.h"
#include "host/host.h"
#include "core/util.h"

int
meminfo_get(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			unsigned long long kb;

			if (sscanf(p + klen + 1, " %llu", &kb) != 1)
				return -1;
			*out = (uint64_t)kb * 1024;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static int
read_small(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "re");
	char chunk[4096];
	size_t n;

	buf_reset(b);
	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(b, chunk, n);
	fclose(f);
	return 0;
}

static int
read_u64(const char *dir, const char *file, uint64_t *out)
{
	struct buf path = BUF_INIT, b = BUF_INIT;
	int ret = -1;
	char *end;

	buf_addf(&path, "%s/%s", dir, file);
	if (read_small(path.s, &b) == 0 && b.len && strncmp(b.s, "max", 3)) {
		unsigned long long v = strtoull(b.s, &end, 10);

		if (end != b.s) {
			*out = v;
			ret = 0;
		}
	}
	buf_release(&path);
	buf_release(&b);
	return ret;
}

static uint64_t
stat_field(const char *dir, const char *key)
{
	struct buf path = BUF_INIT, b = BUF_INIT;
	uint64_t v = 0;
	size_t klen = strlen(key);
	const char *p;

	buf_addf(&path, "%s/memory.stat", dir);
	if (read_small(path.s, &b) == 0) {
		for (p = b.s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
			if (!strncmp(p, key, klen) && p[klen] == ' ') {
				v = strtoull(p + klen + 1, NULL, 10);
				break;
			}
		}
	}
	buf_release(&path);
	buf_release(&b);
	return v;
}

/* Check one cgroup directory and tighten the host's room if it limits us. */
static void
check_cgroup_dir(struct host *h, const char *dir, int v2)
{
	uint64_t limit, used = 0, inactive, room;

	if (read_u64(dir, v2 ? "memory.max" : "memory.limit_in_bytes", &limit) < 0)
		return;
	/* v1 reports "unlimited" as PAGE_COUNTER_MAX, about 2^63. */
	if (limit >= (1ULL << 62))
		return;
	read_u64(dir, v2 ? "memory.current" : "memory.usage_in_bytes", &used);
	inactive = stat_field(dir, v2 ? "inactive_file" : "total_inactive_file");
	if (inactive > used)
		inactive = used;
	room = used - inactive < limit ? limit - (used - inactive) : 0;
	if (!h->cgroup_limit || room < h->cgroup_room) {
		h->cgroup_limit = limit;
		h->cgroup_room = room;
		snprintf(h->cgroup_where, sizeof(h->cgroup_where), "%s", dir);
	}
}

/* Walk `rel` and each ancestor below `mount`. */
static void
walk_cgroup(struct host *h, const char *mount, const char *rel, int v2)
{
	struct buf dir = BUF_INIT;

	buf_addf(&dir, "%s%s", mount, strcmp(rel, "/") ? rel : "");
	for (;;) {
		char *slash;

		check_cgroup_dir(h, dir.s, v2);
		if (dir.len <= strlen(mount))
			break;
		slash = strrchr(dir.s, '/');
		if (!slash || (size_t)(slash - dir.s) < strlen(mount))
			break;
		buf_setlen(&dir, (size_t)(slash - dir.s));
	}
	buf_release(&dir);
}

unsigned
host_cpus(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

void
host_probe(struct host *h)
{
	struct buf b = BUF_INIT;
	const char *p;

	memset(h, 0, sizeof(*h));
	h->cpus = host_cpus();
	if (read_small("/proc/meminfo", &b) == 0) {
		meminfo_get(b.s, "MemTotal", &h->mem_total);
		if (meminfo_get(b.s, "MemAvailable", &h->mem_available) < 0)
			meminfo_get(b.s, "MemFree", &h->mem_available);
	}
	if (read_small("/proc/self/cgroup", &b) == 0) {
		for (p = b.s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
			const char *c1 = strchr(p, ':'), *c2, *nl;
			char *rel;

			if (!c1 || !(c2 = strchr(c1 + 1, ':')))
				break;
			nl = strchr(c2, '\n');
			rel = xstrndup(c2 + 1, nl ? (size_t)(nl - c2 - 1) : strlen(c2 + 1));
			if (!strncmp(p, "0::", 3)) {
				walk_cgroup(h, "/sys/fs/cgroup", rel, 1);
			} else {
				struct buf ctrl = BUF_INIT;

				buf_add(&ctrl, c1 + 1, (size_t)(c2 - c1 - 1));
				buf_addch(&ctrl, ',');
				if (strstr(ctrl.s, "memory,") == ctrl.s || strstr(ctrl.s, ",memory,"))
					walk_cgroup(h, "/sys/fs/cgroup/memory", rel, 0);
				buf_release(&ctrl);
			}
			free(rel);
		}
	}
	buf_release(&b);
}

const char *
host_machine(void)
{
	static char machine[sizeof(((struct utsname *)0)->machine)];
	struct utsname u;

	if (!machine[0])
		snprintf(machine, sizeof(machine), "%s", uname(&u) == 0 ? u.machine : "unknown");
	return machine;
}

static const struct {
	const char *machine, *triplet, *cuda_target;
} machines[] = {
	{ "x86_64", "x86_64-linux-gnu", "x86_64-linux" },
	{ "aarch64", "aarch64-linux-gnu", "sbsa-linux" },
	{ "arm64", "aarch64-linux-gnu", "sbsa-linux" },
	{ "ppc64le", "powerpc64le-linux-gnu", "ppc64le-linux" },
	{ "s390x", "s390x-linux-gnu", NULL },
	{ "riscv64", "riscv64-linux-gnu", NULL },
};

const char *
host_triplet_of(const char *machine)
{
	for (size_t i = 0; machine && i < ARRAY_SIZE(machines); i++)
		if (!strcmp(machine, machines[i].machine))
			return machines[i].triplet;
	return NULL;
}

const char *
host_cuda_target_of(const char *machine)
{
	for (size_t i = 0; machine && i < ARRAY_SIZE(machines); i++)
		if (!strcmp(machine, machines[i].machine))
			return machines[i].cuda_target;
	return NULL;
}
