#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "../../src/formats/manylinux.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Each line as a wheel's platform tag and as a member's name: the
 * policy a tag claims, whether it exists for its architecture, and the
 * architecture an extension's suffix names.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	struct buf why = BUF_INIT;

	for (char *line = text, *next; line; line = next) {
		const char *arch;
		int musl;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		manylinux_tag_glibc(line, &arch);
		manylinux_arch_machine(arch);
		platform_is_musl(line);
		buf_reset(&why);
		manylinux_tag_exists(line, &why);
		manylinux_suffix_arch(line, &musl);
	}
	free(text);
	buf_release(&why);
	return 0;
}
