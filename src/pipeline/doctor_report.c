/*
 * The doctor's checklist as its user sees it (doctor.h): one line per
 * check with its mark, or JSON for --json, and whether any check failed.
 * May include: core/, pipeline/doctor.h.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "pipeline/doctor.h"

void
doctor_release(struct doctor *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->checks[i].name);
		free(d->checks[i].detail);
	}
	free(d->checks);
	memset(d, 0, sizeof(*d));
}

int
doctor_failed(const struct doctor *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->checks[i].status == CHECK_FAIL)
			return 1;
	return 0;
}

static const char *const marks[] = { "✅", "⚠️ ", "❌" };
static const char *const words[] = { "ok", "warn", "fail" };

void
doctor_format(const struct doctor *d, struct buf *out)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		buf_addf(out, "%s %-14s %s\n", marks[d->checks[i].status], d->checks[i].name,
			 d->checks[i].detail);
}

struct json *
doctor_json(const struct doctor *d)
{
	struct json *o = json_object(), *a = json_array();
	size_t i;

	for (i = 0; i < d->n; i++) {
		struct json *c = json_object();

		json_set(c, "name", json_string(d->checks[i].name));
		json_set(c, "status", json_string(words[d->checks[i].status]));
		json_set(c, "detail", json_string(d->checks[i].detail));
		json_push(a, c);
	}
	json_set(o, "ok", json_bool(!doctor_failed(d)));
	json_set(o, "checks", a);
	return o;
}
