#include <stdint.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/formats/pyreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The same bytes as a pyproject.toml and a requirements.txt; every
 * requirement's specifier then judged against the versions found.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pyproject_build b;
	struct pyreqs r = { 0 };
	struct strvec inc = STRVEC_INIT;
	struct buf why = BUF_INIT;

	if (pyproject_build_parse((const char *)data, size, &b, &why) == 0) {
		for (size_t i = 0; i < b.requires.n; i++) {
			pyspec_match(b.requires.v[i].spec, "78.1.1");
			pyspec_match(b.requires.v[i].spec, "2.0a1+Local-7.x");
		}
		pyproject_build_release(&b);
	}
	buf_reset(&why);
	requirements_txt_parse((const char *)data, size, &r, &inc, &why);
	for (size_t i = 0; i < r.n; i++) {
		pyspec_match(r.v[i].spec, r.n > 1 ? r.v[0].text : "1.0");
		pyver_cmp(r.v[i].text, r.v[i].spec);
		pyver_cmp(r.v[i].text, r.v[0].text);
	}
	pyreqs_release(&r);
	strvec_clear(&inc);
	buf_release(&why);
	return 0;
}
