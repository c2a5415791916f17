/*
 * The smoke engine behind `bwbuild smoke` and the build's smoke step
 * (smoke.h, docs/smoke.md): the probe's child Python and its "@bwbuild "
 * lines (smoke_run: a check silent past --timeout killed, the probe run
 * again without it), the result and its JSON. What a run needs around it
 * (the private install, NVIDIA's libraries, the probe found, smoke_target)
 * is smoke_setup.c's; smoke_multi.c runs that setup once per GPU.
 * May include: core/, formats/, profile/, wheel/.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/proc.h"
#include "wheel/smoke.h"
#include "core/util.h"

#define MARKER "@bwbuild "
/* A probe that keeps dying is not run for ever. */
#define MAX_RESTARTS 32

void
smoke_result_init(struct smoke_result *r)
{
	memset(r, 0, sizeof(*r));
	r->info = json_object();
}

void
smoke_result_release(struct smoke_result *r)
{
	for (size_t i = 0; i < r->nchecks; i++) {
		free(r->checks[i].name);
		free(r->checks[i].reason);
	}
	for (size_t i = 0; i < r->nbenches; i++) {
		free(r->benches[i].name);
		free(r->benches[i].unit);
		free(r->benches[i].dtype);
		free(r->benches[i].shape);
		free(r->benches[i].link);
	}
	free(r->checks);
	free(r->benches);
	free(r->current);
	json_free(r->info);
	memset(r, 0, sizeof(*r));
}

const char *
smoke_status_name(enum smoke_status s)
{
	static const char *const names[] = { "ok", "warn", "skip", "fail" };

	return names[s];
}

const char *
smoke_status_mark(enum smoke_status s)
{
	static const char *const marks[] = { "✅", "⚠️", "➖", "❌" };

	return marks[s];
}

static int
status_parse(const char *s, enum smoke_status *out)
{
	for (int i = SMOKE_OK; i <= SMOKE_FAIL; i++) {
		if (s && !strcmp(s, smoke_status_name((enum smoke_status)i))) {
			*out = (enum smoke_status)i;
			return 0;
		}
	}
	return -1;
}

void
smoke_add_check(struct smoke_result *r, const char *name, enum smoke_status st, const char *reason,
	  double seconds)
{
	struct smoke_check *c;

	ALLOC_GROW(r->checks, r->nchecks + 1, r->checks_cap);
	c = &r->checks[r->nchecks++];
	c->name = xstrdup(name);
	c->status = st;
	c->reason = xstrdup(reason ? reason : "");
	c->seconds = seconds;
	if (r->current && !strcmp(r->current, name)) {
		free(r->current);
		r->current = NULL;
	}
}

const struct smoke_check *
smoke_find(const struct smoke_result *r, const char *name)
{
	for (size_t i = 0; i < r->nchecks; i++)
		if (!strcmp(r->checks[i].name, name))
			return &r->checks[i];
	return NULL;
}

static char *
str_field(const struct json *o, const char *key)
{
	const char *s = json_str(json_get(o, key));

	return xstrdup(s ? s : "");
}

void
smoke_line(struct smoke_result *r, const char *line, size_t len)
{
	struct buf why = BUF_INIT;
	const struct json *v;
	struct json *o;
	size_t skip = strlen(MARKER);

	if (len <= skip || strncmp(line, MARKER, skip))
		return;
	o = json_parse(line + skip, len - skip, &why);
	buf_release(&why);
	if (!o || !json_is_object(o)) {
		json_free(o);
		return;
	}
	if ((v = json_get(o, "start")) && json_str(v)) {
		free(r->current);
		r->current = xstrdup(json_str(v));
	} else if ((v = json_get(o, "check")) && json_str(v)) {
		enum smoke_status st;

		if (status_parse(json_str(json_get(o, "status")), &st) == 0)
			smoke_add_check(r, json_str(v), st, json_str(json_get(o, "reason")),
				  json_number_value(json_get(o, "seconds")));
	} else if ((v = json_get(o, "bench")) && json_str(v)) {
		struct smoke_bench *b;
		struct buf key = BUF_INIT;

		ALLOC_GROW(r->benches, r->nbenches + 1, r->benches_cap);
		b = &r->benches[r->nbenches++];
		memset(b, 0, sizeof(*b));
		b->name = xstrdup(json_str(v));
		b->value = json_number_value(json_get(o, "value"));
		b->unit = str_field(o, "unit");
		b->dtype = str_field(o, "dtype");
		b->shape = str_field(o, "shape");
		if (json_str(json_get(o, "link")))
			b->link = str_field(o, "link");
		b->algbw = json_number_value(json_get(o, "algbw"));
		b->reps = (unsigned)json_number_value(json_get(o, "reps"));
		b->spread = json_get(o, "spread_percent") ?
			json_number_value(json_get(o, "spread_percent")) : -1;
		buf_addf(&key, "bench:%s", b->name);
		if (r->current && !strcmp(r->current, key.s)) {
			free(r->current);
			r->current = NULL;
		}
		buf_release(&key);
	} else if ((v = json_get(o, "info")) && json_is_object(v)) {
		struct json *add = json_take(o, "info");
		struct strvec keys = STRVEC_INIT;

		/* One level deep: a later {"cross": {...}} adds to the earlier ones. */
		for (size_t i = 0; i < json_len(add); i++)
			if (json_is_object(json_at(add, i)) &&
			    json_is_object(json_get(r->info, json_key_at(add, i))))
				strvec_push(&keys, json_key_at(add, i));
		for (size_t i = 0; i < keys.n; i++) {
			struct json *old = json_take(r->info, keys.v[i]);

			json_merge_into(old, json_take(add, keys.v[i]));
			json_set(add, keys.v[i], old);
		}
		strvec_clear(&keys);
		json_merge_into(r->info, add);
	}
	json_free(o);
}

static void
on_line(void *ctx, const char *line, size_t len)
{
	smoke_line(ctx, line, len);
}

/* Everything already answered, and the check that hung: the next run starts after them. */
static void
skip_list(const struct smoke_result *r, struct buf *out)
{
	for (size_t i = 0; i < r->nchecks; i++)
		buf_addf(out, "%s%s", out->len ? "," : "", r->checks[i].name);
	for (size_t i = 0; i < r->nbenches; i++)
		buf_addf(out, "%sbench:%s", out->len ? "," : "", r->benches[i].name);
}

int
smoke_run(struct smoke_result *r, const struct smoke_opts *o)
{
	for (;;) {
		struct proc p = PROC_INIT;
		struct buf skip = BUF_INIT, why = BUF_INIT;
		int st;

		strvec_push(&p.args, o->python ? o->python : "python3");
		strvec_push(&p.args, o->probe);
		skip_list(r, &skip);
		if (skip.len)
			strvec_pushf(&p.args, "--skip=%s", skip.s);
		if (o->quick)
			strvec_push(&p.args, "--quick");
		if (o->cpu)
			strvec_push(&p.args, "--cpu");
		if (o->features)
			strvec_pushf(&p.args, "--features=%s", o->features);
		if (o->archs)
			strvec_pushf(&p.args, "--archs=%s", o->archs);
		for (size_t i = 0; o->args && i < o->args->n; i++)
			strvec_push(&p.args, o->args->v[i]);
		for (size_t i = 0; o->env && i < o->env->n; i++)
			strvec_push(&p.env, o->env->v[i]);
		if (o->pythonpath)
			strvec_env_prepend_path(&p.env, "PYTHONPATH", o->pythonpath);
		strvec_env_set(&p.env, "PYTHONDONTWRITEBYTECODE", "1");
		strvec_env_set(&p.env, "PYTHONUNBUFFERED", "1");
		if (o->visible)
			strvec_env_set(&p.env, "CUDA_VISIBLE_DEVICES", o->visible);
		p.on_line = on_line;
		p.ctx = r;
		p.tail_max = 4096;
		p.silence_timeout = o->timeout;
		st = proc_run(&p);
		if (st < 0) {
			proc_release(&p);
			buf_release(&skip);
			return -1;
		}
		if (r->current) {
			/* It hung or died inside a check: record why, then go on past it. */
			char *name = xstrdup(r->current);

			if (p.timed_out)
				buf_addf(&why, "timed out: no word from the probe for %.0f s; killed", o->timeout);
			else
				buf_addf(&why, "the probe %s %d during this check%s%.*s",
					 st > 128 ? "was killed by signal" : "exited with",
					 st > 128 ? st - 128 : st, p.tail_len ? ": " : "",
					 (int)(p.tail_len > 300 ? 300 : p.tail_len),
					 p.tail ? p.tail + (p.tail_len > 300 ? p.tail_len - 300 : 0) : "");
			smoke_add_check(r, name, SMOKE_FAIL, why.s, o->timeout);
			free(name);
		} else if (st != 0 && !r->nchecks) {
			buf_addf(&why, "the probe exited with %d before any check%s%.*s", st,
				 p.tail_len ? ": " : "", (int)(p.tail_len > 400 ? 400 : p.tail_len),
				 p.tail ? p.tail + (p.tail_len > 400 ? p.tail_len - 400 : 0) : "");
			smoke_add_check(r, "probe", SMOKE_FAIL, why.s, 0);
			st = 0;
		}
		proc_release(&p);
		buf_release(&skip);
		buf_release(&why);
		if (st == 0 && !r->current)
			break;
		if (++r->restarts > MAX_RESTARTS)
			break;
	}
	return 0;
}

struct json *
smoke_json(const struct smoke_result *r)
{
	struct json *o = json_object(), *checks = json_array(), *benches = json_array();

	json_merge_into(o, json_dup(r->info));
	for (size_t i = 0; i < r->nchecks; i++) {
		const struct smoke_check *c = &r->checks[i];
		struct json *j = json_object();

		json_set(j, "name", json_string(c->name));
		json_set(j, "status", json_string(smoke_status_name(c->status)));
		json_set(j, "reason", json_string(c->reason));
		json_set(j, "seconds", json_number(c->seconds));
		json_push(checks, j);
	}
	for (size_t i = 0; i < r->nbenches; i++) {
		const struct smoke_bench *b = &r->benches[i];
		struct json *j = json_object();

		json_set(j, "name", json_string(b->name));
		json_set(j, "value", json_number(b->value));
		json_set(j, "unit", json_string(b->unit));
		json_set(j, "dtype", json_string(b->dtype));
		json_set(j, "shape", json_string(b->shape));
		if (b->algbw > 0)
			json_set(j, "algbw", json_number(b->algbw));
		if (b->link)
			json_set(j, "link", json_string(b->link));
		json_set(j, "peak", b->peak > 0 ? json_number(b->peak) : json_null());
		json_set(j, "percent_of_peak", b->peak > 0 ?
			 json_number((double)(long)(b->value / b->peak * 1000) / 10) : json_null());
		if (b->reps) {
			json_set(j, "reps", json_number(b->reps));
			json_set(j, "spread_percent", b->spread >= 0 ? json_number(b->spread) : json_null());
		}
		json_push(benches, j);
	}
	json_set(o, "checks", checks);
	json_set(o, "benchmarks", benches);
	json_set(o, "restarts", json_number(r->restarts));
	return o;
}
