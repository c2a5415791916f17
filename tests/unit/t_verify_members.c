#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/strvec.h"
#include "../../src/core/util.h"
#include "../../src/wheel/verify.h"
#include "t.h"

/*
 * The per-member pass (verify_members.c): names and zip hygiene refused,
 * every member read once whatever the threads, a zip64 member, an
 * installed package's files mapped, fatbin entries decompressed (--deep).
 */
void
t_verify_members(void)
{
	static const char *const names[] = { "names", "names-abs", "names-backslash", "names-ctrl",
					     "names-dot", "names-drive", "names-dup", "names-empty",
					     "names-utf8" };
	static const char *const zip[] = { "zip-crc", "zip-encrypted", "zip-localname", "zip-method",
					   "zip-symlink", "zip-trailing" };
	struct wheel_expect one = { 0 }, many = { 0 };
	struct wheel_report a, b;

	t_wheels();
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		CHECK(t_rejected(names[i], "(names)", NULL));
	for (size_t i = 0; i < sizeof(zip) / sizeof(*zip); i++)
		CHECK(t_rejected(zip[i], "(zip hygiene)", NULL));

	/* One thread or eight: the same members, bytes, libraries and targets. */
	one.threads = 1;
	many.threads = 8;
	one.deep = many.deep = 1;
	CHECK(wheel_verify(&a, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"), &one) == 0);
	CHECK(wheel_verify(&b, t_wheel("good/plat-1.0-cp311-cp311-linux_x86_64.whl"), &many) == 0);
	CHECK(a.errors.n == 0 && b.errors.n == 0);
	CHECK(a.members == b.members && a.bytes == b.bytes && a.nlibs == 1 && b.nlibs == 1);
	CHECK(!strcmp(a.sha256, b.sha256));
	CHECK(a.nlibs == 1 && a.libs[0].deep_checked == b.libs[0].deep_checked && a.libs[0].deep_checked > 0);
	wheel_report_release(&a);
	wheel_report_release(&b);
	/* --deep finds the cubin whose header lies. */
	CHECK(t_rejected("deep", "(deep)", &one));
}
