/*
 * What `bwbuild smoke` prints for people: one GPU's checks and its
 * benchmarks against the datasheet peak (a wheel without CUDA: its CPU
 * checks, and why), or with --gpu all each GPU's checks, their
 * benchmarks side by side, then the checks and all-reduce
 * bandwidth across them. The results themselves come from wheel/smoke.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli/report.h"
#include "core/diag.h"
#include "core/json.h"
#include "wheel/smoke.h"

void
report_smoke(const struct smoke_result *r, FILE *out)
{
	const struct json *gpu = json_get(r->info, "gpu");
	const char *device = json_str(json_get(r->info, "device"));

	if (device && !strcmp(device, "cpu"))
		diag_printf(out, "cpu: %s: CPU checks only\n",
			    json_str(json_get(r->info, "device_reason")) ?
			    json_str(json_get(r->info, "device_reason")) : "the wheel has no CUDA");
	else if (gpu)
		diag_printf(out, "gpu: %s (%s), driver %s\n", json_str(json_get(gpu, "name")),
			    json_str(json_get(gpu, "capability")),
			    json_str(json_get(gpu, "driver")) ? json_str(json_get(gpu, "driver")) : "?");
	for (size_t i = 0; i < r->nchecks; i++) {
		const struct smoke_check *c = &r->checks[i];

		diag_printf(out, "%s %-20s %s\n", smoke_status_mark(c->status), c->name, c->reason);
	}
	if (r->nbenches)
		diag_printf(out, "\n| benchmark | shape | value | %% of peak |\n|---|---|---|---|\n");
	for (size_t i = 0; i < r->nbenches; i++) {
		const struct smoke_bench *b = &r->benches[i];

		if (b->peak > 0)
			diag_printf(out, "| %s | %s | %.1f %s | %.0f %% of %.0f |\n", b->name, b->shape,
				    b->value, b->unit, b->value / b->peak * 100, b->peak);
		else
			diag_printf(out, "| %s | %s | %.1f %s | – |\n", b->name, b->shape, b->value,
				    b->unit);
	}
}

static const char *
mark_of(const struct json *check)
{
	static const char *const names[] = { "ok", "warn", "skip", "fail" };
	const char *st = json_str(json_get(check, "status"));

	for (int i = SMOKE_OK; st && i <= SMOKE_FAIL; i++)
		if (!strcmp(st, names[i]))
			return smoke_status_mark((enum smoke_status)i);
	return "?";
}

static void
checks_text(const struct json *checks, FILE *out)
{
	for (size_t i = 0; i < json_len(checks); i++) {
		const struct json *c = json_at(checks, i);

		diag_printf(out, "%s %-20s %s\n", mark_of(c), json_str(json_get(c, "name")),
			    json_str(json_get(c, "reason")) ? json_str(json_get(c, "reason")) : "");
	}
}

static const char *
str_or(const struct json *j, const char *dflt)
{
	return json_str(j) ? json_str(j) : dflt;
}

/* --gpu all: each GPU's checks, their benchmarks side by side, then across GPUs. */
void
report_smoke_multi(const struct json *r, FILE *out)
{
	const struct json *gpus = json_get(r, "gpus"), *cross = json_get(r, "cross_gpu");
	const struct json *first = json_at(gpus, 0), *benches = json_get(cross, "benchmarks");
	size_t n = json_len(gpus);

	for (size_t g = 0; g < n; g++) {
		const struct json *one = json_at(gpus, g), *gpu = json_get(one, "gpu");

		diag_printf(out, "%sgpu %s: %s (%s), driver %s\n", g ? "\n" : "",
			    str_or(json_get(one, "visible"), "?"), str_or(json_get(gpu, "name"), "?"),
			    str_or(json_get(gpu, "capability"), "?"), str_or(json_get(gpu, "driver"), "?"));
		checks_text(json_get(one, "checks"), out);
	}
	if (json_len(json_get(first, "benchmarks"))) {
		diag_printf(out, "\n| benchmark | shape |");
		for (size_t g = 0; g < n; g++)
			diag_printf(out, " gpu %s |", str_or(json_get(json_at(gpus, g), "visible"), "?"));
		diag_printf(out, "\n|---|---|");
		for (size_t g = 0; g < n; g++)
			diag_printf(out, "---|");
		fputc('\n', out);
	}
	for (size_t i = 0; i < json_len(json_get(first, "benchmarks")); i++) {
		const struct json *b0 = json_at(json_get(first, "benchmarks"), i);
		const char *name = json_str(json_get(b0, "name"));

		diag_printf(out, "| %s | %s |", name ? name : "?", str_or(json_get(b0, "shape"), ""));
		for (size_t g = 0; g < n; g++) {
			const struct json *bs = json_get(json_at(gpus, g), "benchmarks"), *b = NULL;

			for (size_t k = 0; name && k < json_len(bs) && !b; k++)
				if (!strcmp(str_or(json_get(json_at(bs, k), "name"), ""), name))
					b = json_at(bs, k);
			if (!b)
				diag_printf(out, " – |");
			else if (json_number_value(json_get(b, "percent_of_peak")) > 0)
				diag_printf(out, " %.1f %s (%.0f %%) |", json_number_value(json_get(b, "value")),
					    str_or(json_get(b, "unit"), ""),
					    json_number_value(json_get(b, "percent_of_peak")));
			else
				diag_printf(out, " %.1f %s |", json_number_value(json_get(b, "value")),
					    str_or(json_get(b, "unit"), ""));
		}
		fputc('\n', out);
	}
	if (!strcmp(str_or(json_get(cross, "status"), ""), "skipped")) {
		diag_printf(out, "\nacross GPUs: skipped: %s\n", str_or(json_get(cross, "reason"), "?"));
		return;
	}
	diag_printf(out, "\nacross GPUs %s: link %s, NCCL %s\n", str_or(json_get(cross, "visible"), "?"),
		    str_or(json_get(cross, "link"), "unknown"), str_or(json_get(cross, "nccl"), "?"));
	checks_text(json_get(cross, "checks"), out);
	if (json_len(benches))
		diag_printf(out, "\n| all-reduce | algbw | busbw | %% of datasheet |\n|---|---|---|---|\n");
	for (size_t i = 0; i < json_len(benches); i++) {
		const struct json *b = json_at(benches, i);
		double peak = json_number_value(json_get(b, "peak"));

		diag_printf(out, "| %s | %.1f GB/s | %.1f GB/s |", str_or(json_get(b, "shape"), "?"),
			    json_number_value(json_get(b, "algbw")), json_number_value(json_get(b, "value")));
		if (peak > 0)
			diag_printf(out, " %.0f %% of %.0f (%s) |\n",
				    json_number_value(json_get(b, "value")) / peak * 100, peak,
				    str_or(json_get(b, "link"), "?"));
		else
			diag_printf(out, " – |\n");
	}
}

void
report_smoke_verdict(int rc, const struct smoke_result *sr, const struct json *result)
{
	if (rc == SMOKE_NO_GPU && json_get(result, "gpus"))
		error("no usable GPU on any of the %zu runs (exit %d: nothing beyond the import was "
		      "run)", json_len(json_get(result, "gpus")), SMOKE_NO_GPU);
	else if (rc == SMOKE_NO_GPU)
		error("no usable GPU: %s (exit %d: nothing beyond the import was run)",
		      smoke_find(sr, "cuda")->reason, EXIT_NO_GPU);
	else if (rc) {
		size_t failed = 0;

		for (size_t i = 0; i < sr->nchecks; i++)
			failed += sr->checks[i].status == SMOKE_FAIL;
		if (json_get(result, "gpus"))
			failed = smoke_multi_failed(result);
		error("%zu check%s failed", failed, failed == 1 ? "" : "s");
	}
}
