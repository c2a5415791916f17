#include <stdint.h>
#include <stdio.h>

#include "../../src/core/diag.h"
#include "../../src/profile/profile.h"
#include "../../src/profile/ydoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Diagnostics off, not stderr: libFuzzer reports its progress and findings there. */
	diag_quiet = 1;
	ydoc_parse_buffer("fuzz.yaml", (const char *)data, size);
	return 0;
}
