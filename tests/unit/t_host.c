#include <stdint.h>
#include <string.h>

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
	/* Where each machine keeps its libraries (issue 44: Grace and DGX Spark are aarch64). */
	CHECK_STR(host_triplet_of("x86_64"), "x86_64-linux-gnu");
	CHECK_STR(host_triplet_of("aarch64"), "aarch64-linux-gnu");
	CHECK_STR(host_cuda_target_of("aarch64"), "sbsa-linux");
	CHECK_STR(host_cuda_target_of("x86_64"), "x86_64-linux");
	CHECK(host_triplet_of("pdp11") == NULL && host_triplet_of(NULL) == NULL);
	CHECK(host_machine()[0] != '\0' && strcmp(host_machine(), "unknown"));
}
