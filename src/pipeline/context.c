/*
 * struct build, the steps' shared context (step.h): made, borrowed for a
 * check of its own (uptodate.c) and released. Apart from step.c so that
 * the step machinery needs nothing of the plan's: plan.c names the steps,
 * and a release here calls plan_release.
 * May include: core/, pipeline/step.h.
 */
#include "core/buf.h"
#include "core/json.h"
#include "core/strvec.h"
#include "core/util.h"
#include "pipeline/step.h"

void
build_init(struct build *b, const struct build_opts *o)
{
	/* Every buf and strvec in its BUF_INIT state: never NULL, as their headers promise. */
	*b = (struct build){
		.opts = o,
		.python = BUF_INIT,
		.pythonpath = BUF_INIT,
		.wheel_prefix = BUF_INIT,
		.patches = { .env = STRVEC_INIT },
		.commit = BUF_INIT,
		.version = BUF_INIT,
		.epoch = -1,
		.source = json_object(),
		.torch_site = BUF_INIT,
		.recoveries = json_array(),
		.wheel = BUF_INIT,
		.start = now_seconds(),
	};
}

void
build_init_from(struct build *t, const struct build *b)
{
	build_init(t, b->opts);
	t->profile = b->profile;
	t->plan = b->plan;
	t->borrowed = 1;
}

void
build_release(struct build *b)
{
	if (b->have_torch)
		torch_ref_release(&b->torch);
	buf_release(&b->torch_site);
	json_free(b->source);
	json_free(b->bundle_meta);
	json_free(b->effective);
	json_free(b->runtime);
	toolchain_release(&b->toolchain);
	json_free(b->recoveries);
	json_free(b->vendored);
	json_free(b->cuda_libs);
	json_free(b->cache);
	repo_tree_info_release(&b->tree);
	patch_set_release(&b->patches);
	if (b->have_report)
		wheel_report_release(&b->report);
	if (!b->borrowed) {
		plan_release(&b->plan);
		profile_release(&b->profile);
	}
	buf_release(&b->python);
	buf_release(&b->pythonpath);
	buf_release(&b->wheel_prefix);
	buf_release(&b->commit);
	buf_release(&b->version);
	buf_release(&b->wheel);
}
