#include <stdint.h>
#include <stdlib.h>

#include "../../src/core/json.h"
#include "../../src/wheel/manifest.h"
#include "../../src/core/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	struct json *s = macros_h_parse(text), *f = features_from_settings(s);

	json_free(f);
	json_free(s);
	free(text);
	return 0;
}
