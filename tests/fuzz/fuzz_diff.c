#include <stdint.h>
#include <stdlib.h>

#include "../../src/core/buf.h"
#include "../../src/wheel/diff.h"
#include "../../src/core/json.h"
#include "../../src/wheel/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Manifests read by `bwbuild diff` and `manifest --format md` are outside bytes: walk any JSON as one. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf why = BUF_INIT, text = BUF_INIT;
	struct json *a = json_parse((const char *)data, size, &why), *b = json_object(), *r;
	struct diff_opts o = { 10, DIFF_IGNORE_VERSION }, g = { 10, DIFF_IGNORE_GAINS };

	if (a) {
		manifest_diff(a, b, &o, &r, &text);
		diff_markdown(a, b, r, &text);
		json_free(r);
		manifest_diff(b, a, &g, &r, &text);
		diff_markdown(b, a, r, &text);
		json_free(r);
		manifest_diff(a, a, &o, &r, &text);
		json_free(r);
		manifest_markdown(a, &text);
		json_free(a);
	}
	json_free(b);
	buf_release(&why);
	buf_release(&text);
	return 0;
}
