/*
 * The repair step of a build (src/pipeline/step.h): between the wheel and its
 * verify, the wheel in <work>/dist made to carry the libraries it needs
 * from this machine (src/wheel/repair.c), the way auditwheel repair makes
 * a manylinux wheel; what was copied in goes into the manifest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/json.h"
#include "core/safefile.h"
#include "core/util.h"
#include "pipeline/step.h"
#include "profile/profview.h"
#include "wheel/cudalibs.h"
#include "wheel/repair.h"

int
repair_check(struct build *b)
{
	char *pe = b->profile.repair != TRI_OFF ? find_program("patchelf") : NULL;

	/* A wheel may need nothing copied in (patchelf is then never run): said, not refused. */
	if (b->profile.repair != TRI_OFF && !pe)
		warning("patchelf is not installed: a wheel whose libraries need one from this "
			"machine (libgomp for OpenMP, a BLAS) cannot be repaired and fails verify; "
			"install it (apt-get install patchelf) or set wheel.repair: off");
	free(pe);
	return 0;
}

/*
 * The Triton a CUDA wheel of this tree declares, as PyTorch's release
 * wheels do (.circleci/scripts/binary_populate_env.sh appends
 * "triton==$(cat .ci/docker/triton_version.txt)" to
 * PYTORCH_EXTRA_INSTALL_REQUIREMENTS): "triton==3.2.0; ..." into `out`;
 * nothing when the tree pins none (Debian's source package has no .ci/).
 */
int
triton_requirement(const char *src_dir, struct buf *out)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	size_t n;

	buf_addf(&path, "%s/.ci/docker/triton_version.txt", src_dir);
	if (is_regular(path.s) && read_file(&text, path.s) == 0 && text.len < 64) {
		n = strspn(text.s, "0123456789.");
		if (n && text.s[n - 1] != '.' && strchr("\r\n", text.s[n]))
			buf_addf(out, "triton==%.*s; platform_system == \"Linux\"", (int)n, text.s);
	}
	buf_release(&path);
	buf_release(&text);
	return out->len ? 1 : 0;
}

/* <work>/repair, empty and this build's: no link at its name, nothing of an earlier run in it. */
static int
scratch_dir(const struct build *b, struct buf *dir)
{
	struct stat st;

	buf_addf(dir, "%s/repair", b->plan.work_dir);
	if (lstat(dir->s, &st) == 0 && !S_ISDIR(st.st_mode))
		return error("'%s' is not a directory bwbuild made (a %s); remove it", dir->s,
			     S_ISLNK(st.st_mode) ? "symbolic link" : "file");
	if (remove_tree(dir->s) < 0 || mkdir(dir->s, 0700) < 0)
		return error("cannot make '%s' afresh:", dir->s);
	return 0;
}

int
repair_run(struct build *b)
{
	struct repair_opts o = { .ldconf = "/etc/ld.so.conf", .epoch = b->epoch };
	struct repair_result res;
	struct buf scratch = BUF_INIT, dir = BUF_INIT, out = BUF_INIT, why = BUF_INIT;
	struct buf libs = BUF_INIT, triton = BUF_INIT;
	struct strvec requires = STRVEC_INIT;
	char *pe = NULL;
	int rc = -1;

	if (b->profile.repair == TRI_OFF) {
		step_note(STEP_REPAIR, "skipped: wheel.repair is off (%s:%d)",
			  b->profile.repair_loc.file, b->profile.repair_loc.line);
		return 0;
	}
	if (source_date_epoch(&o.epoch) < 0)
		return -1;
	if (b->have_torch) {
		o.provided = &b->torch.sonames;
		buf_addf(&libs, "%s.libs", b->torch.package);
		o.provided_libs = libs.s;
	}
	o.ld_library_path = getenv("LD_LIBRARY_PATH");
	o.cuda_libs = b->profile.cuda_libs.str ? cuda_libs_form_parse(b->profile.cuda_libs.str)
					       : CUDA_LIBS_PIP;
	if (profile_feature_on(&b->profile, FEAT_CUDA) && o.cuda_libs == CUDA_LIBS_PIP &&
	    triton_requirement(b->plan.src_dir, &triton))
		strvec_push(&requires, triton.s);
	o.requires = &requires;
	pe = find_program("patchelf");
	o.patchelf = pe;
	if (scratch_dir(b, &scratch) < 0)
		goto out;
	o.scratch = scratch.s;
	buf_addstr(&dir, b->wheel.s);
	buf_setlen(&dir, (size_t)(strrchr(dir.s, '/') - dir.s));
	if (wheel_repair(b->wheel.s, dir.s, &o, &res, &out, &why) < 0) {
		error("cannot repair '%s': %s", b->wheel.s, why.s);
		repair_result_release(&res);
		goto out;
	}
	for (size_t i = 0; i < res.ncuda; i++)
		step_note(STEP_REPAIR, "%s: Requires-Dist %s, RUNPATH into %s (%s)", res.cuda[i].soname,
			  res.cuda[i].requirement, res.cuda[i].dir, res.cuda[i].source);
	for (size_t i = res.ncuda; i < res.requires.n; i++)
		step_note(STEP_REPAIR, "Requires-Dist %s", res.requires.v[i]);
	if (!res.n)
		step_note(STEP_REPAIR, "nothing to copy in: every library the wheel needs is in it "
			  "or on the manylinux/CUDA allow-lists%s", res.ncuda ?
			  "; CUDA's come from NVIDIA's pip packages (wheel.cuda_libs: pip)" : "");
	for (size_t i = 0; i < res.n; i++)
		step_note(STEP_REPAIR, "%s %s %s as %s (needed by %s%s)", res.libs[i].soname,
			  res.libs[i].provided ? "is the file" : "from", res.libs[i].from,
			  res.libs[i].provided ? "its torch carries" : res.libs[i].member,
			  res.libs[i].needed_by.v[0], res.libs[i].needed_by.n > 1 ? " and others" : "");
	if (res.n) {
		size_t copied = 0;

		for (size_t i = 0; i < res.n; i++)
			copied += !res.libs[i].provided;
		step_note(STEP_REPAIR, "%zu librar%s copied in, %zu taken from its torch, %zu member%s "
			  "rewritten", copied, copied == 1 ? "y" : "ies", res.n - copied, res.patched.n,
			  res.patched.n == 1 ? "" : "s");
	}
	json_free(b->vendored);
	b->vendored = repair_result_json(&res);
	json_free(b->cuda_libs);
	b->cuda_libs = res.cuda_major || res.ncuda ? repair_cuda_json(&res, o.cuda_libs) : NULL;
	buf_reset(&b->wheel);
	buf_addstr(&b->wheel, out.s);
	repair_result_release(&res);
	rc = 0;
out:
	if (scratch.len)
		remove_tree(scratch.s);
	buf_release(&scratch);
	buf_release(&dir);
	buf_release(&out);
	buf_release(&why);
	free(pe);
	buf_release(&libs);
	buf_release(&triton);
	strvec_clear(&requires);
	return rc;
}
