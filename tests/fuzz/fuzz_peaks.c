#include <stdint.h>

#include "../../src/core/buf.h"
#include "../../src/launch/launch.h"
#include "../../src/launch/peaks.h"
#include "../../src/launch/memmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The launcher's tables: a seed table (data/peaks/NAME.seed) and a learned one (<cache>/peaks/VERSION.peaks). */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf t = BUF_INIT;

	buf_add(&t, data, size);
	launch_seed_lookup(t.s, "aten/src/ATen/native/Sort.cpp", "-", "2.6.0");
	launch_seed_lookup(t.s, "a.cu", "9.0;12.0+PTX", "2.6.0");
	launch_seed_ms(t.s, "a.cu", "9.0;12.0+PTX", "2.6.0");
	peaks_get(t.s, "a.cu#0000000000000001");
	peaks_samples(t.s, "kind:cxx");
	launch_estimate_from(t.s, "a.cu#0000000000000001", "kind:cxx", 0, EST_LAUNCH_CXX);
	buf_release(&t);
	return 0;
}
