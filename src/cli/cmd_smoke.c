#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/json.h"
#include "profile/profile.h"
#include "pipeline/resolve.h"
#include "wheel/smoke.h"
#include "core/util.h"

static const char about[] =
	"Prove a wheel on the GPU: install it privately (nothing in your environment\n"
	"changes), import it in a child Python and run one kernel family per compiled-in\n"
	"feature, forward compatibility under CUDA_FORCE_PTX_JIT=1, then micro-benchmarks\n"
	"as % of the GPU's datasheet peak. The probe, probes/smoke-<package>.py, ships\n"
	"with bwbuild. --gpu all runs it on every GPU, then an NCCL group across them\n"
	"(probes/multi-<package>.py). Exit 0 when every check passed (warnings allowed),\n"
	"1 when one failed, 3 when there is no usable GPU, 2 on bad usage. Docs:\n"
	"docs/smoke.md.\n";

static void
report_text(const struct smoke_result *r, FILE *out)
{
	const struct json *gpu = json_get(r->info, "gpu");

	if (gpu)
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
static void
report_multi(const struct json *r, FILE *out)
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

/* How many checks failed in a --gpu all result, each GPU's and across. */
static size_t
multi_failed(const struct json *r)
{
	const struct json *gpus = json_get(r, "gpus");
	size_t failed = 0;

	for (size_t g = 0; g <= json_len(gpus); g++) {
		const struct json *part = g < json_len(gpus) ? json_at(gpus, g) : json_get(r, "cross_gpu");
		const struct json *checks = json_get(part, "checks");

		for (size_t i = 0; i < json_len(checks); i++)
			failed += !strcmp(str_or(json_get(json_at(checks, i), "status"), ""), "fail");
	}
	return failed;
}

/* --gpu all, --gpu 0,1, --gpu 0 --gpu 1: several; one index alone: the single-GPU run. */
static int
parse_gpus(const struct strvec *set, struct smoke_request *rq, struct strvec *list)
{
	unsigned gpu;
	char end;

	for (size_t i = 0; i < set->n; i++) {
		struct buf one = BUF_INIT;

		for (const char *p = set->v[i]; *p;) {
			size_t len = strcspn(p, ",");

			buf_reset(&one);
			buf_add(&one, p, len);
			if (!strcmp(one.s, "all")) {
				rq->all_gpus = 1;
			} else if (!smoke_gpu_entry_ok(one.s)) {
				error("--gpu '%s' is not a GPU such as 0, GPU-<uuid>, a list (0,1) "
				      "or all", one.s);
				buf_release(&one);
				return -1;
			} else {
				strvec_push(list, one.s);
			}
			p += len + (p[len] == ',');
		}
		buf_release(&one);
	}
	if (rq->all_gpus || list->n != 1)
		return 0;
	if (sscanf(list->v[0], "%u%c", &gpu, &end) != 1)
		return 0;   /* GPU-<uuid>: as a one-entry list */
	rq->gpu = (int)gpu;
	strvec_clear(list);
	return 0;
}

/* The manifest's profile.cuda.ptx is "none": the profile that made the wheel asked for no PTX. */
static int
manifest_ptx_none(const char *path)
{
	struct buf text = BUF_INIT, why = BUF_INIT;
	struct json *m = NULL;
	const char *ptx;
	int none = 0;

	if (is_regular(path) && read_file(&text, path) == 0 &&
	    (m = json_parse(text.s, text.len, &why))) {
		ptx = json_str(json_get(json_get(json_get(m, "profile"), "cuda"), "ptx"));
		none = ptx && !strcmp(ptx, "none");
	}
	json_free(m);
	buf_release(&text);
	buf_release(&why);
	return none;
}

int
cmd_smoke(int argc, char **argv, const struct command *cmd)
{
	struct resolve_opts ro = { 0 };
	struct smoke_request rq = { .gpu = -1 };
	const char *out = NULL, *manifest = NULL;
	unsigned timeout = 300;
	int json = 0, ret = EXIT_USAGE, rc;
	struct strvec gpu_set = STRVEC_INIT, gpu_list = STRVEC_INIT;
	const struct option options[] = {
		OPT_ARG("target", &rq.target, "WHEEL|PKGDIR",
			"a wheel (installed privately), or an installed package such as "
			"site-packages/torch"),
		OPT_PROFILE(&ro.profile),
		OPT_FLAG(0, "json", &json, "print the result as JSON (the manifest's runtime section)"),
		OPT_STRING('o', "output", &out, "FILE", "write the JSON result to FILE (atomically)"),
		OPT_STRING(0, "manifest", &manifest, "FILE",
			   "put the result into this manifest's \"runtime\" section"),
		OPT_FLAG(0, "quick", &rq.quick, "checks only, no benchmarks"),
		OPT_LIST(0, "gpu", &gpu_set, "N|LIST|all",
			 "the GPU to use (CUDA_VISIBLE_DEVICES=N); several (0,1) or all: each "
			 "checked, then NCCL, P2P and the link across them"),
		OPT_UNSIGNED(0, "timeout", &timeout, "SECONDS", 1, 86400,
			     "a check silent this long is killed and failed (default 300)"),
		OPT_STRING(0, "against", &rq.against, "TORCH",
			   "an extension: run it with this torch (its wheel, installed privately, "
			   "or site-packages/torch) instead of the interpreter's"),
		OPT_STRING(0, "python", &rq.python, "PATH",
			   "the interpreter (default python3; its environment supplies the "
			   "nvidia-* libraries)"),
		OPT_END(),
	};
	struct smoke_result sr;
	struct json *result = NULL;
	struct profile p;

	memset(&p, 0, sizeof(p));
	smoke_result_init(&sr);
	if (cmd_parse(cmd, about, options, argc, argv, &ret) ||
	    (ro.profile && resolve_profile(&p, &ro) < 0))
		goto out;
	if (parse_gpus(&gpu_set, &rq, &gpu_list) < 0)
		goto out;
	rq.gpus = &gpu_list;
	rq.timeout = timeout;
	rq.profile = ro.profile ? &p : NULL;
	if (manifest && !rq.profile)
		rq.ptx_none = manifest_ptx_none(manifest);
	if (rq.all_gpus || gpu_list.n)
		rc = smoke_target_multi(&rq, &result);
	else
		rc = smoke_target(&rq, &sr, &result);
	if (rc < 0) {
		ret = is_regular(rq.target) || is_dir(rq.target) ? EXIT_FAIL : EXIT_USAGE;
		goto out;
	}
	ret = rc == SMOKE_NO_GPU ? EXIT_NO_GPU : rc ? EXIT_FAIL : EXIT_OK;
	if (!json && json_get(result, "gpus"))
		report_multi(result, stdout);
	else if (!json)
		report_text(&sr, stdout);
	if (rc == SMOKE_NO_GPU && json_get(result, "gpus"))
		error("no usable GPU on any of the %zu runs (exit %d: nothing beyond the import was "
		      "run)", json_len(json_get(result, "gpus")), SMOKE_NO_GPU);
	else if (rc == SMOKE_NO_GPU)
		error("no usable GPU: %s (exit %d: nothing beyond the import was run)",
		      smoke_find(&sr, "cuda")->reason, EXIT_NO_GPU);
	else if (rc) {
		size_t failed = 0;

		for (size_t i = 0; i < sr.nchecks; i++)
			failed += sr.checks[i].status == SMOKE_FAIL;
		if (json_get(result, "gpus"))
			failed = multi_failed(result);
		error("%zu check%s failed", failed, failed == 1 ? "" : "s");
	}
	if (json)
		json_print_stdout(result);
	if (out) {
		char *text = json_print(result, 1);

		/* Not the wheel's failure: an output that cannot be written (diag.h). */
		if (write_file_atomic(out, text, strlen(text)) < 0)
			ret = EXIT_USAGE;
		free(text);
	}
	/* Nothing ran on a GPU: a manifest's runtime (maybe a GPU machine's) stays as it was. */
	if (manifest && rc == SMOKE_NO_GPU) {
		note("'%s' was not changed: without a GPU there are no runtime results to record",
		     manifest);
	} else if (manifest) {
		if (smoke_manifest_merge(manifest, result) < 0)
			ret = EXIT_USAGE;
		result = NULL;
	}
out:
	json_free(result);
	smoke_result_release(&sr);
	profile_release(&p);
	strvec_clear(&gpu_set);
	strvec_clear(&gpu_list);
	return ret;
}
