/*
 * The verify step of a build (src/pipeline/step.h): the wheel in <work>/dist
 * verified against the profile's archs, exceptions and C++ ABI (and, for
 * an extension, against its torch), then repacked as it ships
 * (src/wheel/repack.c) and verified again, as a user's verify would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "wheel/manifest.h"
#include "pipeline/plan.h"
#include "profile/profile.h"
#include "wheel/repack.h"
#include "pipeline/step.h"
#include "core/util.h"
#include "wheel/cudalibs.h"
#include "wheel/verify.h"

/*
 * The wheel rewritten as it will ship (src/wheel/repack.c): the platform tag its
 * libraries earn or the profile demands, members in order with one
 * timestamp and fixed modes. The old file goes; -1 after reporting.
 */
static int
repack_wheel(struct build *b)
{
	const struct pvalue *want = &b->profile.platform;
	struct repack_opts ro = { .platform = NULL, .epoch = b->epoch };
	struct buf pin = BUF_INIT;
	struct buf tag = BUF_INIT, why = BUF_INIT, dir = BUF_INIT, out = BUF_INIT;
	int require = want->str ? profile_platform_glibc(want->str) : 0, rc = -1;

	if (source_date_epoch(&ro.epoch) < 0)
		return -1;
	if (want->str && !strcmp(want->str, "linux")) {
		ro.platform = NULL;
	} else if (wheel_platform_earned(&b->report, (unsigned)require, &tag, &why) < 0) {
		if (require > 0) {
			error_at(&want->loc, "the wheel cannot be tagged %s: %s", want->str, why.s);
			goto out;
		}
		note("platform: %s stays: %s", strrchr(b->report.tags.v[0], '-') + 1, why.s);
	} else {
		ro.platform = tag.s;
		step_note(STEP_VERIFY, "platform %s (%s)", tag.s, why.len ? why.s : "no libraries");
	}
	/* An extension requires exactly the torch it was built on (docs/extensions.md). */
	if (b->have_torch) {
		buf_addf(&pin, "%s==%s", b->torch.name, b->torch.version);
		ro.requires_name = b->torch.name;
		ro.requires = pin.s;
	}
	buf_reset(&why);
	buf_addstr(&dir, b->wheel.s);
	buf_setlen(&dir, (size_t)(strrchr(dir.s, '/') - dir.s));
	if (wheel_repack(b->wheel.s, dir.s, &ro, &out, &why) < 0) {
		error("cannot repack '%s': %s", b->wheel.s, why.s);
		goto out;
	}
	if (strcmp(out.s, b->wheel.s) && unlink(b->wheel.s) < 0)
		warning("cannot remove '%s':", b->wheel.s);
	buf_reset(&b->wheel);
	buf_addstr(&b->wheel, out.s);
	rc = 0;
out:
	buf_release(&tag);
	buf_release(&why);
	buf_release(&dir);
	buf_release(&out);
	buf_release(&pin);
	return rc;
}

/*
 * torch.__config__.show()'s build settings (CAFFE2_BUILD_STRINGS) are
 * compiled into libtorch_cpu from caffe2/core/macros.h; wheels before 2.8
 * or so do not install that header, so the manifest's features were empty.
 * The build tree still has it, the same text the library was compiled
 * with: read it there when the wheel has none.
 */
static void
settings_from_tree(struct build *b)
{
	static const char rel[] = "build/caffe2/core/macros.h";
	struct buf path = BUF_INIT, text = BUF_INIT;

	buf_addf(&path, "%s/%s", b->plan.src_dir, rel);
	if (path_exists(path.s) && read_file(&text, path.s) == 0 && strstr(text.s, "CAFFE2_BUILD_STRINGS")) {
		b->report.macros_h = buf_detach(&text);
		b->report.macros_h_path = xstrdup(rel);
	}
	buf_release(&path);
	buf_release(&text);
}

static int
verify_once(struct build *b, int repacked)
{
	struct wheel_expect ex = { .sass = &b->plan.sass, .ptx = &b->plan.ptx };
	struct wheel_exception *exc = plan_exceptions(&b->profile, &ex.nexceptions);
	int rc;

	ex.exceptions = exc;
	ex.cxx11_abi = b->profile.cxx11_abi == TRI_OFF ? 2 : 1;
	ex.cuda_libs = cuda_libs_form_of(&b->profile);
	if (b->have_torch) {
		/* An extension: torch's libraries come from torch, its C++ ABI is torch's. */
		ex.provided = &b->torch.sonames;
		if (b->torch.cxx11_abi)
			ex.cxx11_abi = b->torch.cxx11_abi;
	}
	if (b->have_report)
		wheel_report_release(&b->report);
	b->have_report = 0;
	rc = wheel_verify(&b->report, b->wheel.s, &ex);
	free(exc);
	if (rc < 0)
		return -1;
	if (!b->report.macros_h && !b->have_torch)
		settings_from_tree(b);
	/* Requested vs effective is only true if the wheel agrees with what configure said. */
	if (b->effective)
		features_crosscheck(&b->report, b->effective, &b->report.errors);
	if (b->have_torch)
		extension_verify(b, repacked);
	b->have_report = 1;
	return 0;
}

int
verify_run(struct build *b)
{
	const struct wheel_report *r = &b->report;

	if (verify_once(b, 0) < 0)
		return -1;
	/* A sound wheel is repacked as it ships and verified again, as a user's verify would. */
	if (!r->errors.n && (repack_wheel(b) < 0 || verify_once(b, 1) < 0))
		return -1;
	step_note(STEP_VERIFY, "%zu members, %zu ELF libraries", r->members, r->nlibs);
	for (size_t i = 0; i < r->nlibs; i++) {
		struct buf line = BUF_INIT;

		if (!r->libs[i].has_fatbin)
			continue;
		wheel_lib_targets(&r->libs[i], &line);
		fprintf(stderr, "  %s: %s\n", r->libs[i].path, line.s);
		buf_release(&line);
	}
	for (size_t i = 0; i < r->notes.n; i++)
		note("%s", r->notes.v[i]);
	for (size_t i = 0; i < r->errors.n; i++)
		error("%s", r->errors.v[i]);
	return 0;
}
