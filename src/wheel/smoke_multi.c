#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/json.h"
#include "core/proc.h"
#include "core/strvec.h"
#include "core/util.h"
#include "wheel/smoke.h"

/*
 * `bwbuild smoke --gpu all` (or --gpu 0,1): the per-GPU probe on each GPU
 * in turn (CUDA_VISIBLE_DEVICES=<that one>), each judged by smoke_setup_run
 * for its own capability (static_vs_runtime: different models in one node
 * each against the wheel's archs), then probes/multi-<package>.py once
 * with all the GPUs that answered visible. That probe owns its NCCL group
 * (one process per GPU) and the group's timeouts; bwbuild owns the probe
 * as it owns the per-GPU one (--timeout of silence, restarts past a hung
 * check). docs/smoke.md, "Several GPUs".
 */

int
smoke_gpu_entry_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != ':' && *s != '/')
			return 0;
	return 1;
}

/* A GPU named twice is checked once (and is one rank of the group, not two). */
static int
listed_already(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

static void
split_entries(const char *list, struct strvec *out)
{
	char *copy = xstrdup(list), *save = NULL;

	for (char *tok = strtok_r(copy, ", \t\n", &save); tok; tok = strtok_r(NULL, ", \t\n", &save))
		if (!listed_already(out, tok))
			strvec_push(out, tok);
	free(copy);
}

/*
 * What --gpu all means: CUDA_VISIBLE_DEVICES's entries when it is set (the
 * user narrowed the node already), else every index nvidia-smi lists.
 * Empty with the reason in `why` when there is none.
 */
static void
all_gpus(struct strvec *out, struct buf *why)
{
	const char *env = getenv("CUDA_VISIBLE_DEVICES");
	char *nvsmi;
	struct proc p = PROC_INIT;
	struct buf text = BUF_INIT;
	int st;

	if (env) {
		split_entries(env, out);
		if (!out->n)
			buf_addstr(why, "CUDA_VISIBLE_DEVICES is set and empty");
		return;
	}
	nvsmi = find_program("nvidia-smi");
	if (!nvsmi) {
		buf_addstr(why, "nvidia-smi is not on PATH: no NVIDIA driver here");
		return;
	}
	strvec_pushl(&p.args, nvsmi, "--query-gpu=index", "--format=csv,noheader", NULL);
	st = proc_run_capture(&p, &text);
	if (st != 0)
		buf_addf(why, "nvidia-smi --query-gpu=index failed (exit %d)", st);
	else
		split_entries(text.s, out);
	if (st == 0 && !out->n)
		buf_addstr(why, "nvidia-smi lists no GPU");
	proc_release(&p);
	buf_release(&text);
	free(nvsmi);
}

/* The cross-GPU part's object when it was not run. */
static struct json *
cross_skipped(const char *reason)
{
	struct json *o = json_object();

	json_set(o, "status", json_string("skipped"));
	json_set(o, "reason", json_string(reason));
	json_set(o, "checks", json_array());
	json_set(o, "benchmarks", json_array());
	return o;
}

/* Across the GPUs that answered: the multi probe, or the reason it is not run. */
static int
cross_gpu(struct smoke_setup *s, const struct smoke_request *rq, const struct strvec *usable,
	  size_t listed, const char *none, struct json **out)
{
	struct strvec args = STRVEC_INIT;
	struct buf why = BUF_INIT, visible = BUF_INIT;
	struct smoke_result cr;
	const struct smoke_check *count;
	char *probe = NULL;
	int rc = 0;

	*out = NULL;
	if (usable->n < 2) {
		if (!listed)
			buf_addf(&why, "no GPU listed (%s)", none);
		else if (listed == 1)
			buf_addstr(&why, "one GPU: nothing to check across GPUs (take a machine with "
				   "two or more for NCCL, P2P and the link)");
		else
			buf_addf(&why, "%zu of the %zu GPUs could be used: nothing to check across "
				 "GPUs", usable->n, listed);
		*out = cross_skipped(why.s);
		buf_release(&why);
		return 0;
	}
	probe = smoke_find_cross_probe(s->w.name);
	if (!probe) {
		buf_addf(&why, "no cross-GPU probe for '%s' (probes/multi-%s.py)", s->w.name,
			 s->w.name);
		*out = cross_skipped(why.s);
		buf_release(&why);
		return 0;
	}
	strvec_join(usable, ",", &visible);
	/* The probe kills its group short of this, so bwbuild's watchdog is the last resort. */
	strvec_pushf(&args, "--timeout=%.0f", rq->timeout);
	smoke_result_init(&cr);
	rc = smoke_setup_run(s, rq, probe, visible.s, &args, &cr, out);
	if (rc >= 0) {
		struct json *cross = json_take(*out, "cross");

		if (json_is_object(cross))
			json_merge_into(*out, cross);
		else
			json_free(cross);
		json_free(json_take(*out, "target"));
		json_set(*out, "visible", json_string(visible.s));
		count = smoke_find(&cr, "gpus");
		if (count && count->status == SMOKE_SKIP) {
			json_set(*out, "status", json_string("skipped"));
			json_set(*out, "reason", json_string(count->reason));
			rc = 0;
		}
	}
	smoke_result_release(&cr);
	strvec_clear(&args);
	buf_release(&visible);
	buf_release(&why);
	free(probe);
	return rc;
}

int
smoke_target_multi(const struct smoke_request *rq, struct smoke_result *sr, struct json **result)
{
	struct strvec gpus = STRVEC_INIT, usable = STRVEC_INIT;
	struct buf why = BUF_INIT;
	struct smoke_setup s;
	struct json *per = json_array(), *cross = NULL;
	size_t failed = 0, no_gpu = 0;
	int ret = -1, rc;

	*result = NULL;
	if (rq->all_gpus)
		all_gpus(&gpus, &why);
	for (size_t i = 0; rq->gpus && i < rq->gpus->n; i++) {
		if (!smoke_gpu_entry_ok(rq->gpus->v[i])) {
			error("--gpu '%s' is not a GPU such as 0, GPU-<uuid> or all", rq->gpus->v[i]);
			goto out;
		}
		if (!listed_already(&gpus, rq->gpus->v[i]))
			strvec_push(&gpus, rq->gpus->v[i]);
	}
	if (smoke_setup_init(&s, rq) < 0) {
		smoke_setup_release(&s);
		goto out;
	}
	/* Nothing of it runs on a GPU: one run on the CPU, whatever GPUs there are. */
	if (s.cpu) {
		progress_note("smoke", "--gpu: %s; one run on the CPU", s.cpu_why.s);
		ret = smoke_setup_run(&s, rq, NULL, NULL, NULL, sr, result);
		smoke_setup_release(&s);
		goto out;
	}
	if (!gpus.n)
		progress_note("smoke", "--gpu all: %s; running on whatever CUDA finds", why.s);
	/* No GPU listed: one run without CUDA_VISIBLE_DEVICES says what CUDA finds. */
	for (size_t i = 0; i < (gpus.n ? gpus.n : 1); i++) {
		const char *g = gpus.n ? gpus.v[i] : NULL;
		struct smoke_result each;
		struct json *one;

		smoke_result_init(&each);
		rc = smoke_setup_run(&s, rq, NULL, g, NULL, &each, &one);
		smoke_result_release(&each);
		if (rc < 0) {
			smoke_setup_release(&s);
			goto out;
		}
		json_free(json_take(one, "target"));
		json_free(json_take(one, "probe"));
		json_set(one, "visible", g ? json_string(g) : json_null());
		json_push(per, one);
		if (rc == SMOKE_NO_GPU)
			no_gpu++;
		else if (g)
			strvec_push(&usable, g);
		failed += rc == 1;
	}
	rc = cross_gpu(&s, rq, &usable, gpus.n, why.s, &cross);
	if (rc < 0) {
		smoke_setup_release(&s);
		goto out;
	}
	/* Every GPU without CUDA: exit 3; some of them: a failure of the node. */
	ret = no_gpu == json_len(per) ? SMOKE_NO_GPU : failed || no_gpu || rc ? 1 : 0;
	*result = json_object();
	json_set(*result, "target", json_string(rq->target));
	json_set(*result, "probe", json_string(s.probe));
	json_set(*result, "status", json_string(ret == SMOKE_NO_GPU ? "no_gpu" :
						ret ? "failed" : "ok"));
	json_set(*result, "gpus", per);
	json_set(*result, "cross_gpu", cross);
	per = NULL;
	smoke_setup_release(&s);
out:
	json_free(per);
	strvec_clear(&gpus);
	strvec_clear(&usable);
	buf_release(&why);
	return ret;
}

/* How many checks failed in a --gpu all result, each GPU's and across. */
size_t
smoke_multi_failed(const struct json *r)
{
	const struct json *gpus = json_get(r, "gpus");
	size_t failed = 0;

	for (size_t g = 0; g <= json_len(gpus); g++) {
		const struct json *part = g < json_len(gpus) ? json_at(gpus, g) : json_get(r, "cross_gpu");
		const struct json *checks = json_get(part, "checks");

		for (size_t i = 0; i < json_len(checks); i++) {
			const char *st = json_str(json_get(json_at(checks, i), "status"));

			failed += st && !strcmp(st, "fail");
		}
	}
	return failed;
}

/* --gpu all, --gpu 0,1, --gpu 0 --gpu 1: several; one index alone: the single-GPU run. */
int
smoke_gpus_parse(const struct strvec *set, struct smoke_request *rq, struct strvec *list)
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
