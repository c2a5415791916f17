#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/formats/cmakecache.h"
#include "t.h"

void
t_cmakecache(void)
{
	static const char text[] = "# This is the CMakeCache file.\n"
				   "//Build flash attention\n"
				   "USE_FLASH_ATTENTION:BOOL=OFF\r\n"
				   "\n"
				   "\"KEY:WITH:COLONS\":STRING=a=b\n"
				   "TORCH_CUDA_ARCH_LIST:UNINITIALIZED=8.0;12.0+PTX\n"
				   "PLAIN=1\n"
				   "USE_FLASH_ATTENTION:BOOL=ON\n";
	struct cmake_cache c;
	struct buf why = BUF_INIT;

	CHECK(cmakecache_parse(&c, text, strlen(text), &why) == 0);
	CHECK(c.n == 5);
	CHECK(!strcmp(cmakecache_get(&c, "KEY:WITH:COLONS"), "a=b"));
	CHECK(!strcmp(cmakecache_get(&c, "TORCH_CUDA_ARCH_LIST"), "8.0;12.0+PTX"));
	CHECK(!strcmp(cmakecache_get(&c, "PLAIN"), "1") && !strcmp(c.v[3].type, "UNINITIALIZED"));
	CHECK(!strcmp(cmakecache_get(&c, "USE_FLASH_ATTENTION"), "ON")); /* the last one wins */
	CHECK(!strcmp(c.v[0].value, "OFF"));
	CHECK(cmakecache_get(&c, "MISSING") == NULL);
	cmakecache_release(&c);

	CHECK(cmakecache_parse(&c, "USE_X:BOOL=ON\nnot an entry\n", 27, &why) < 0);
	CHECK(!strcmp(why.s, "line 2: not KEY:TYPE=VALUE"));
	buf_reset(&why);
	CHECK(cmakecache_parse(&c, "\"open:BOOL=1\n", 13, &why) < 0);
	CHECK(!strcmp(why.s, "line 1: unterminated quoted key"));

	CHECK(cmake_truthy("ON") && cmake_truthy("yes") && cmake_truthy("1") && cmake_truthy("2"));
	CHECK(!cmake_truthy("OFF") && !cmake_truthy("0") && !cmake_truthy("") && !cmake_truthy(NULL));
	CHECK(!cmake_truthy("NOTFOUND") && !cmake_truthy("IGNORE"));
	buf_release(&why);
}
