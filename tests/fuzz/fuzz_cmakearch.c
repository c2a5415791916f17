#include <stdint.h>
#include <stdlib.h>

#include "../../src/host/cmakearch.h"
#include "../../src/core/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* select_compute_arch's answers as data/helpers/selarch.cmake prints them, run or kept. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	struct cmakearch r = CMAKEARCH_INIT;

	cmakearch_parse(&r, text);
	(void)cmakearch_find(&r, "Blackwell");
	cmakearch_release(&r);
	free(text);
	return 0;
}
