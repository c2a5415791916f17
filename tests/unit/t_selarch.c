#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/formats/selarch.h"
#include "t.h"

/*
 * The example tree's select_compute_arch.cmake (tests/fixtures/minitorch),
 * read as bwbuild reads a PyTorch tree's: the numeric form and its
 * suffixes, the names, the lists per CUDA version.
 */

static const char *
list_of(const struct selarch *sa, unsigned cuda, enum selarch_list which, size_t *uncertain)
{
	static struct buf b = BUF_INIT;
	struct strvec v = STRVEC_INIT;

	buf_reset(&b);
	selarch_lists(sa, cuda, which, &v, uncertain);
	strvec_join(&v, " ", &b);
	strvec_clear(&v);
	return b.s;
}

void
t_selarch(void)
{
	struct selarch sa;
	struct buf text = BUF_INIT, path = BUF_INIT, why = BUF_INIT;
	const struct selarch_name *n;
	const struct selarch_op *op;
	size_t unc = 0, i, found = 0;

	/* Where trees keep it: PyTorch's path first, then the example's. */
	for (i = 0; selarch_paths[i]; i++)
		found += !strcmp(selarch_paths[i], "cmake/select_compute_arch.cmake");
	CHECK(found == 1);
	CHECK(ends_with(selarch_paths[0], "FindCUDA/select_compute_arch.cmake"));

	buf_addstr(&path, "tests/fixtures/minitorch/cmake/select_compute_arch.cmake");
	CHECK(read_file(&text, path.s) == 0);
	memset(&sa, 0, sizeof(sa));
	CHECK(selarch_parse(&sa, text.s, text.len) == 0);
	CHECK(sa.numeric_line == 59);
	CHECK(sa.bin_line == 94);

	CHECK(selarch_accepts(&sa, "12.0", NULL) == 1);
	CHECK(selarch_accepts(&sa, "10.0f", NULL) == 1);
	CHECK(selarch_accepts(&sa, "12.0a", NULL) == 1);
	CHECK(selarch_accepts(&sa, "9.0(8.6)", NULL) == 1);
	CHECK(selarch_accepts(&sa, "12.0b", &why) == 0);
	CHECK(strstr(why.s, "line 59") != NULL);
	CHECK(selarch_accepts(&sa, "120", NULL) == 0);
	CHECK(selarch_accepts(&sa, "sm_120", NULL) == 0);
	CHECK(selarch_keeps(&sa, "100f") == 1 && selarch_keeps(&sa, "120a") == 1);

	CHECK(sa.nnames == 5);
	n = selarch_name_of(&sa, "8.6");
	CHECK(n && !strcmp(n->name, "Ampere") && n->bin.n == 2 && n->line == 65);
	n = selarch_name_of(&sa, "12.0");
	CHECK(n && !strcmp(n->name, "Blackwell"));
	CHECK(selarch_name_of(&sa, "11.0") == NULL);

	/* The lists before and after CUDA 12.6. */
	CHECK_STR(list_of(&sa, 1206, SELARCH_KNOWN, &unc), "Turing Ampere Ada Hopper Blackwell");
	CHECK_STR(list_of(&sa, 1206, SELARCH_COMMON, &unc), "7.5 8.0 8.6 8.9 9.0");
	CHECK_STR(list_of(&sa, 1208, SELARCH_COMMON, &unc), "7.5 8.0 8.6 8.9 9.0 10.0 12.0");
	CHECK_STR(list_of(&sa, 1300, SELARCH_ALL, &unc), "7.5 8.0 8.6 8.9 9.0 10.0 10.0a 12.0 12.0a");
	CHECK(unc == 0);
	op = selarch_added_by(&sa, 1208, SELARCH_ALL, "12.0a");
	CHECK(op && op->line == 15 && !op->remove && !op->unknown);
	CHECK(selarch_added_by(&sa, 1206, SELARCH_ALL, "12.0a") == NULL);
	op = selarch_added_by(&sa, 1206, SELARCH_ALL, "7.5");
	CHECK(op && op->line == 12 && op->clear);
	selarch_release(&sa);

	/* Bytes it does not understand are left out, never a failure. */
	memset(&sa, 0, sizeof(sa));
	CHECK(selarch_parse(&sa, "if(\n\"\\\0list(APPEND", 18) == -1);
	CHECK(selarch_accepts(&sa, "12.0", NULL) == -1);
	CHECK(selarch_keeps(&sa, "120") == -1);
	selarch_release(&sa);
	buf_release(&text);
	buf_release(&path);
	buf_release(&why);
}
