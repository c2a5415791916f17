#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/sources/patch.h"
#include "../../src/core/strvec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Patch files and `when` ranges are outside bytes: check, read, reverse, reverse again, relocate. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf rev = BUF_INIT, back = BUF_INIT, moved = BUF_INIT, why = BUF_INIT;
	struct strvec paths = STRVEC_INIT;
	struct patch_target *targets = NULL;
	size_t ntargets = 0;
	const struct relver torch = { 2, 11, 0, 1 };
	char *s = malloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	patch_check((const char *)data, size, &targets, &ntargets, &why);
	patch_targets_free(targets, ntargets);
	buf_reset(&why);
	patch_paths((const char *)data, size, &paths);
	patch_reverse((const char *)data, size, &rev);
	patch_reverse(rev.s, rev.len, &back);
	patch_relocate((const char *)data, size, "tests/fuzz/corpus/patch", &moved);
	patch_when_matches(s, &torch, &why);
	free(s);
	buf_release(&rev);
	buf_release(&back);
	buf_release(&moved);
	buf_release(&why);
	strvec_clear(&paths);
	return 0;
}
