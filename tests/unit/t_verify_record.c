#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/wheel/verify.h"
#include "t.h"

static int
has_error(const struct wheel_report *r, const char *what)
{
	for (size_t i = 0; i < r->errors.n; i++)
		if (strstr(r->errors.v[i], what))
			return 1;
	return 0;
}

/* The hostile wheel of tests/fixtures/wheels/make_wheels.py's case `name`, verified: rejected by `rule`. */
static int
rejected(const char *name, const char *rule, const struct wheel_expect *ex)
{
	struct buf d = BUF_INIT, whl = BUF_INIT;
	struct wheel_report r;
	DIR *dd;
	struct dirent *de;
	int ok = 0, rc;

	buf_addf(&d, "tests/tmp/wheels/bad/%s", name);
	dd = opendir(d.s);
	while (dd && (de = readdir(dd)))
		if (ends_with(de->d_name, ".whl")) {
			buf_reset(&whl);
			buf_addf(&whl, "%s/%s", d.s, de->d_name);
		}
	if (dd)
		closedir(dd);
	if (whl.len) {
		t_stderr_begin();
		rc = wheel_verify(&r, whl.s, ex);
		t_stderr_end();
		if (rc == 0) {
			ok = has_error(&r, rule);
			if (!ok)
				fprintf(stderr, "%s: no error with '%s'\n", name, rule);
			wheel_report_release(&r);
		} else {
			/* not readable as a zip at all: refused outright, a rejection too */
			ok = !strcmp(rule, "(zip hygiene)");
		}
	}
	buf_release(&d);
	buf_release(&whl);
	return ok;
}

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
		CHECK(rejected(record[i], "(RECORD)", NULL));
	for (size_t i = 0; i < sizeof(hashes) / sizeof(*hashes); i++)
		CHECK(rejected(hashes[i], "(hashes)", NULL));
	CHECK(wheel_verify(&r, "tests/tmp/wheels/good/zip64-1.0-py3-none-any.whl", NULL) == 0);
	CHECK(r.errors.n == 0 && r.members == 3);
	wheel_report_release(&r);
}
