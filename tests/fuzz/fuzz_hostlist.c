#include <stdint.h>

#include "../../src/core/buf.h"
#include "../../src/profile/hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* build.remote's host list, from a profile or a hosts file. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf t = BUF_INIT, err = BUF_INIT, out = BUF_INIT;
	struct remote_hosts h;

	buf_add(&t, data, size);
	if (remote_hosts_parse(&h, t.s, &err) == 0) {
		remote_hosts_format(&h, &out);
		remote_hosts_slots(&h);
		remote_hosts_release(&h);
	}
	buf_release(&t);
	buf_release(&err);
	buf_release(&out);
	return 0;
}
