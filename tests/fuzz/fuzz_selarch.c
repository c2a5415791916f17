#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/formats/selarch.h"
#include "../../src/core/strvec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A select_compute_arch.cmake of any bytes: parsed, then asked what the checks ask. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const entries[] = { "12.0", "10.0a", "10.0f", "Blackwell", "9.0(8.6)", "" };
	static const unsigned cudas[] = { 1108, 1206, 1208, 1300 };
	struct selarch sa;
	struct buf why = BUF_INIT;

	selarch_parse(&sa, (const char *)data, size);
	for (size_t i = 0; i < sizeof(entries) / sizeof(*entries); i++) {
		selarch_accepts(&sa, entries[i], &why);
		selarch_keeps(&sa, entries[i]);
		selarch_name_of(&sa, entries[i]);
		buf_reset(&why);
	}
	for (size_t c = 0; c < sizeof(cudas) / sizeof(*cudas); c++)
		for (int l = 0; l < SELARCH__LISTS; l++) {
			struct strvec out = STRVEC_INIT;
			size_t unc = 0;

			selarch_lists(&sa, cudas[c], (enum selarch_list)l, &out, &unc);
			selarch_added_by(&sa, cudas[c], (enum selarch_list)l, "10.0");
			strvec_clear(&out);
		}
	selarch_release(&sa);
	buf_release(&why);
	return 0;
}
