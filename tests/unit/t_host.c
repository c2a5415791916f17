#include <stdint.h>

#include "../../src/host/host.h"
#include "t.h"

void
t_host(void)
{
	static const char meminfo[] = "MemTotal:       24683656 kB\n"
				      "MemFree:         1000000 kB\n"
				      "MemAvailable:   20000000 kB\n"
				      "Mem:                   7 kB\n";
	uint64_t v = 0;

	CHECK(meminfo_get(meminfo, "MemAvailable", &v) == 0);
	CHECK(v == 20000000ULL * 1024);
	CHECK(meminfo_get(meminfo, "MemTotal", &v) == 0 && v == 24683656ULL * 1024);
	/* A key is a whole name: "Mem" is its own line, not a prefix of the others. */
	CHECK(meminfo_get(meminfo, "Mem", &v) == 0 && v == 7 * 1024);
	CHECK(meminfo_get(meminfo, "SwapTotal", &v) < 0);
	CHECK(meminfo_get("MemAvailable: lots\n", "MemAvailable", &v) < 0);
	CHECK(host_cpus() >= 1);
}
