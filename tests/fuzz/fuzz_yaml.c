#include <stdint.h>
#include <stdio.h>

#include "../../src/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Diagnostics go to stderr; silence them for the replay. */
	static int quiet;

	if (!quiet) {
		quiet = 1;
		if (!freopen("/dev/null", "w", stderr))
			return 0;
	}
	profile_parse_buffer("fuzz.yaml", (const char *)data, size);
	return 0;
}
