/*
 * The version the wheel gets (wheel_version, step.h) and what the plan
 * says of it before the fetch (wheel_version_plan, build.h): the fetch
 * step sets it, the up-to-date check computes it again, so it is neither
 * step's.
 * May include: core/, profile/, pipeline/.
 */
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/diag.h"
#include "core/util.h"
#include "pipeline/build.h"
#include "pipeline/inputs.h"
#include "pipeline/resolve.h"
#include "pipeline/step.h"
#include "profile/profile.h"

/* The first line of the tree's version.txt into `out`; -1 (quietly) when it has none. */
int
version_txt_read(const char *src, struct buf *out)
{
	struct buf path = BUF_INIT;
	int ret = -1;

	buf_addf(&path, "%s/version.txt", src);
	if (path_exists(path.s) && read_file(out, path.s) == 0) {
		out->len = strcspn(out->s, "\r\n");
		out->s[out->len] = '\0';
		ret = 0;
	}
	buf_release(&path);
	return ret;
}

/* 1 if the tree's setup.py (or tools/generate_torch_version.py, as PyTorch's) reads PYTORCH_BUILD_VERSION. */
static int
honours_build_version(const char *src)
{
	static const char *const files[] = { "setup.py", "tools/generate_torch_version.py" };
	struct buf path = BUF_INIT, text = BUF_INIT;
	int yes = 0;

	for (size_t i = 0; i < ARRAY_SIZE(files) && !yes; i++) {
		buf_reset(&path);
		buf_reset(&text);
		buf_addf(&path, "%s/%s", src, files[i]);
		yes = is_regular(path.s) && read_file(&text, path.s) == 0 &&
		      strstr(text.s, "PYTORCH_BUILD_VERSION") != NULL;
	}
	buf_release(&path);
	buf_release(&text);
	return yes;
}

/*
 * What the wheel runs on, for its local label: "cu130" from the toolkit
 * (resolve_cuda_version: cuda.version, version.json, cuda.h, nvcc),
 * "cpu" for a build with features.cuda off; "" when the toolkit says nothing.
 */
static void
accel_label(const struct profile *p, struct buf *out)
{
	unsigned v;

	if (p->features[FEAT_CUDA] == TRI_OFF) {
		buf_addstr(out, "cpu");
		return;
	}
	v = resolve_cuda_version(p);
	if (v)
		buf_addf(out, "cu%u%u", v / 100, v % 100);
}

/*
 * The release a build of a release tag is: "2.6.0" when the ref is the tag
 * v2.6.0 (digits and dots only: no -rc) and version.txt names that release
 * ("2.6.0a0", as it does on PyTorch's release branches), so the wheel is
 * versioned as PyTorch's own release builds are (PYTORCH_BUILD_VERSION
 * 2.6.0+cu126) and satisfies torch==2.6.0; 0 and `out` untouched otherwise.
 */
int
release_version(const char *ref, const char *version_txt, struct buf *out)
{
	const char *r = ref && *ref == 'v' ? ref + 1 : ref;
	size_t n, dots = 0;

	if (!r || !*r || !version_txt || strspn(r, "0123456789.") != strlen(r))
		return 0;
	n = strlen(r);
	for (size_t i = 0; i < n; i++)
		dots += r[i] == '.';
	if (dots != 2 || r[0] == '.' || r[n - 1] == '.' || strstr(r, ".."))
		return 0;
	/* version.txt's release part is the tag's, ended by its pre-release ("a0") or nothing. */
	if (strncmp(version_txt, r, n) || (version_txt[n] >= '0' && version_txt[n] <= '9') ||
	    version_txt[n] == '.' || version_txt[n] == '+')
		return 0;
	buf_add(out, r, n);
	return 1;
}

/*
 * The local label a profile gives its wheel when it sets no
 * wheel.version_suffix: what the tree itself would append ("git" and the
 * commit, as PyTorch's tools/generate_torch_version.py does without
 * PYTORCH_BUILD_VERSION; none for a release tag), what it runs on (cu130,
 * cpu), the profile's name, so two profiles never publish the same file
 * name, and the inputs' hash (inputs_label), so two builds of one profile
 * name that differ in anything never do either: "+git1a2b3c4.cu130.sm120.
 * h5d6e7f8", "+cpu.cpu.h0a1b2c3". PEP 440 local segments are [a-z0-9] runs
 * joined by dots; the hash starts with a letter, so no tool reads it as a
 * number (and drops a leading zero).
 */
void
wheel_variant_label(const char *commit, const char *accel, const char *profile, const char *hash,
		    struct buf *out)
{
	size_t start = out->len;

	buf_addch(out, '+');
	/* A tree that is no git checkout has no commit ("none"): no git part. */
	if (commit && strlen(commit) >= 7 && strspn(commit, "0123456789abcdef") == strlen(commit))
		buf_addf(out, "git%.7s.", commit);
	if (accel && *accel)
		buf_addf(out, "%s.", accel);
	for (const char *c = profile ? profile : ""; *c; c++) {
		int ch = (unsigned char)*c;

		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			buf_addch(out, (char)ch);
		else if (ch >= 'A' && ch <= 'Z')
			buf_addch(out, (char)(ch - 'A' + 'a'));
		else if (out->s[out->len - 1] != '.' && out->s[out->len - 1] != '+')
			buf_addch(out, '.');
	}
	while (out->len > start + 1 && out->s[out->len - 1] == '.')
		buf_setlen(out, out->len - 1);
	if (hash && *hash)
		buf_addf(out, "%s%s", out->len > start + 1 ? "." : "", hash);
	if (out->len == start + 1)
		buf_setlen(out, start);
}

int
wheel_version(struct build *b)
{
	const struct profile *p = &b->profile;
	struct buf text = BUF_INIT, accel = BUF_INIT, hash = BUF_INIT;
	int ret = 0, release = 0;

	if (version_txt_read(b->plan.src_dir, &text) == 0 && !b->plan.local_source) {
		release = release_version(p->source_ref.str, text.s, &b->version);
		if (!release)
			buf_reset(&b->version);
	}
	if (!p->version_suffix.str) {
		/* The variant in the local label, where the tree takes PYTORCH_BUILD_VERSION (torch's setup.py). */
		if (profile_is_extension(p) || !honours_build_version(b->plan.src_dir) ||
		    !text.len || strchr(text.s, '+')) {
			buf_reset(&b->version);
			goto out;
		}
		if (!release)
			buf_addstr(&b->version, text.s);
		accel_label(p, &accel);
		inputs_label(b, &hash);
		wheel_variant_label(release ? NULL : b->commit.s, accel.s, p->name.str, hash.s,
				    &b->version);
		goto out;
	}
	if (!text.len)
		ret = error("'%s/version.txt' is missing; 'wheel.version_suffix' needs it",
			    b->plan.src_dir);
	else if (strchr(text.s, '+'))
		ret = error_at(&p->version_suffix.loc, "version.txt already has a local label "
			       "('%s'); drop 'wheel.version_suffix'", text.s);
	else
		buf_addf(&b->version, "%s%s", release ? "" : text.s, p->version_suffix.str);
	if (ret)
		buf_reset(&b->version);
out:
	buf_release(&text);
	buf_release(&accel);
	buf_release(&hash);
	return ret;
}

void
wheel_version_plan(const struct profile *p, const struct plan *pl, struct buf *out)
{
	const char *ref = p->source_ref.str;
	struct buf rel = BUF_INIT, accel = BUF_INIT;

	if (profile_is_extension(p) || pl->local_source || !ref) {
		buf_addstr(out, "the tree's own (read at fetch)");
		goto out;
	}
	/* Before the fetch a release tag's version.txt is taken to name that release (fetch checks it). */
	if (release_version(ref, *ref == 'v' ? ref + 1 : ref, &rel)) {
		buf_addstr(out, rel.s);
		if (p->version_suffix.str) {
			buf_addstr(out, p->version_suffix.str);
		} else {
			accel_label(p, &accel);
			wheel_variant_label(NULL, accel.s, p->name.str, "h<inputs>", out);
		}
		buf_addf(out, " (the release of tag %s%s)", ref, p->version_suffix.str ? "" :
			 "; h<inputs>: a hash of the build's inputs, known at fetch");
	} else if (p->version_suffix.str) {
		buf_addf(out, "version.txt%s (read at fetch)", p->version_suffix.str);
	} else {
		accel_label(p, &accel);
		wheel_variant_label(NULL, accel.s, p->name.str, "h<inputs>", &rel);
		buf_addf(out, "version.txt+git<commit>%s%s (read at fetch; h<inputs>: a hash of the "
			 "build's inputs)", rel.len ? "." : "", rel.len ? rel.s + 1 : "");
	}
out:
	buf_release(&rel);
	buf_release(&accel);
}
