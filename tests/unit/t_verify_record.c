#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * RECORD against the members (verify_record.c): each row's fields, hash
 * and size, duplicates, rows for members that are not there and members
 * it does not list, signature files; the good wheels' rows all match.
 */
void
t_verify_record(void)
{
	static const char *const record[] = { "record-dup", "record-fields", "record-missing",
					      "record-none", "record-self", "record-sig",
					      "record-unlisted" };
	static const char *const hashes[] = { "hashes", "hashes-digest", "hashes-empty", "hashes-md5",
					      "hashes-sha1", "hashes-size" };
	struct wheel_report r;

	t_wheels();
	for (size_t i = 0; i < sizeof(record) / sizeof(*record); i++)
		CHECK(t_rejected(record[i], "(RECORD)", NULL));
	for (size_t i = 0; i < sizeof(hashes) / sizeof(*hashes); i++)
		CHECK(t_rejected(hashes[i], "(hashes)", NULL));
	CHECK(wheel_verify(&r, t_wheel("good/zip64-1.0-py3-none-any.whl"), NULL) == 0);
	CHECK(r.errors.n == 0 && r.members == 3);
	wheel_report_release(&r);
}
