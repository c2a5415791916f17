#include <stdlib.h>
#include <string.h>

#include "../../src/pipeline/doctor.h"
#include "../../src/core/buf.h"
#include "../../src/core/json.h"
#include "../../src/core/util.h"
#include "t.h"

/* The doctor's checklist as its user sees it: a line per check, JSON, and whether one failed. */

static void
add(struct doctor *d, enum check_status st, const char *name, const char *detail)
{
	ALLOC_GROW(d->checks, d->n + 1, d->cap);
	d->checks[d->n].status = st;
	d->checks[d->n].name = xstrdup(name);
	d->checks[d->n].detail = xstrdup(detail);
	d->n++;
}

void
t_doctor_report(void)
{
	struct doctor d;
	struct buf out = BUF_INIT;
	struct json *j;
	const struct json *c;

	memset(&d, 0, sizeof(d));
	CHECK(!doctor_failed(&d));
	add(&d, CHECK_OK, "nvcc", "13.0 at /usr/local/cuda");
	add(&d, CHECK_WARN, "ccache", "not found; builds are not cached");
	CHECK(!doctor_failed(&d));
	doctor_format(&d, &out);
	CHECK_STR(out.s, "✅ nvcc           13.0 at /usr/local/cuda\n"
			 "⚠️  ccache         not found; builds are not cached\n");
	add(&d, CHECK_FAIL, "disk", "3 GiB free in work/; a build needs 40 GiB");
	CHECK(doctor_failed(&d));
	buf_reset(&out);
	doctor_format(&d, &out);
	CHECK(strstr(out.s, "❌ disk           3 GiB free in work/; a build needs 40 GiB\n") != NULL);

	j = doctor_json(&d);
	CHECK(!json_is_true(json_get(j, "ok")));
	CHECK(json_len(json_get(j, "checks")) == 3);
	c = json_at(json_get(j, "checks"), 1);
	CHECK_STR(json_str(json_get(c, "name")), "ccache");
	CHECK_STR(json_str(json_get(c, "status")), "warn");
	CHECK_STR(json_str(json_get(c, "detail")), "not found; builds are not cached");
	CHECK_STR(json_str(json_get(json_at(json_get(j, "checks"), 2), "status")), "fail");
	json_free(j);

	doctor_release(&d);
	CHECK(d.n == 0 && d.checks == NULL);
	j = doctor_json(&d);
	CHECK(json_is_true(json_get(j, "ok")) && json_len(json_get(j, "checks")) == 0);
	json_free(j);
	buf_release(&out);
}
