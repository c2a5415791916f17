#include <stdint.h>

#include "../../src/core/strvec.h"
#include "../../src/formats/ldconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strvec dirs = STRVEC_INIT, inc = STRVEC_INIT;

	ldconf_parse((const char *)data, size, "/etc", 256, &dirs, &inc);
	strvec_clear(&dirs);
	strvec_clear(&inc);
	return 0;
}
