#include <stdint.h>

#include "../../src/core/buf.h"
#include "../../src/formats/cmakecache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf why = BUF_INIT;
	struct cmake_cache c;

	if (cmakecache_parse(&c, (const char *)data, size, &why) == 0) {
		cmakecache_get(&c, "USE_CUDA");
		cmake_truthy(cmakecache_get(&c, "USE_FLASH_ATTENTION"));
		cmakecache_release(&c);
	}
	buf_release(&why);
	return 0;
}
