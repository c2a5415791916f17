#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "sources/git.h"
#include "core/hash.h"
#include "pipeline/inputs.h"
#include "core/json.h"
#include "pipeline/plan.h"
#include "profile/profview.h"
#include "core/proc.h"
#include "pipeline/step.h"
#include "core/strvec.h"
#include "core/util.h"
#include "core/version.h"

/* Variables read only while compiling, or naming bwbuild's own files: they change no byte. */
static int
compile_only(const char *entry)
{
	static const char *const names[] = { "MAX_JOBS=", "FLASH_ATTENTION_MAX_JOBS=",
					     "CMAKE_BUILD_PARALLEL_LEVEL=", "TMPDIR=", "BWBUILD_",
					     "CCACHE_", "CMAKE_C_COMPILER_LAUNCHER=",
					     "CMAKE_CXX_COMPILER_LAUNCHER=",
					     "CMAKE_CUDA_COMPILER_LAUNCHER=", "PYTORCH_NVCC=", NULL };

	for (size_t i = 0; names[i]; i++)
		if (starts_with(entry, names[i]))
			return 1;
	return 0;
}

/* `value` with the source and work directories written as ${SRC} and ${WORK}. */
static void
placeholders(const char *value, const struct plan *pl, struct buf *out)
{
	const char *dirs[2] = { pl->src_dir, pl->work_dir }, *names[2] = { "${SRC}", "${WORK}" };

	while (*value) {
		size_t i;

		for (i = 0; i < 2; i++) {
			size_t n = strlen(dirs[i]);

			/* '=' and ' ': a prefix map's "-ffile-prefix-map=DIR=..." among other flags */
			if (n && !strncmp(value, dirs[i], n) && (!value[n] || strchr("/;:= ", value[n]))) {
				buf_addstr(out, names[i]);
				value += n;
				break;
			}
		}
		if (i == 2)
			buf_addch(out, *value++);
	}
}

static struct json *
env_json_of(const struct build *b)
{
	struct json *o = json_object();
	struct proc p = PROC_INIT;
	struct strvec all = STRVEC_INIT;

	step_env(&p, b);
	for (size_t i = 0; i < p.env.n; i++)
		strvec_push(&all, p.env.v[i]);
	for (size_t i = 0; i < b->plan.inherited.n; i++)
		strvec_push(&all, b->plan.inherited.v[i]);
	strvec_sort(&all);
	for (size_t i = 0; i < all.n; i++) {
		const char *eq = strchr(all.v[i], '=');
		struct buf name = BUF_INIT, val = BUF_INIT;

		if (!eq || compile_only(all.v[i]))
			continue;
		buf_add(&name, all.v[i], (size_t)(eq - all.v[i]));
		placeholders(eq + 1, &b->plan, &val);
		json_set(o, name.s, json_string(val.s));
		buf_release(&name);
		buf_release(&val);
	}
	strvec_clear(&all);
	proc_release(&p);
	return o;
}

/* The profile as it decides bytes: no description or file path, no compile-only settings. */
static struct json *
profile_inputs(const struct profile *p)
{
	struct json *j = profile_json(p), *hash = json_object(), *build, *wheel = json_object();
	struct buf hex = BUF_INIT;
	char *text;

	json_free(json_take(j, "description"));
	json_free(json_take(j, "path"));
	if ((build = json_take(j, "build"))) {
		json_free(json_take(build, "jobs"));
		json_free(json_take(build, "mem_budget"));
		json_set(build, "cxx11_abi", json_bool(p->cxx11_abi != TRI_OFF));
		json_set(j, "build", build);
	}
	json_set(wheel, "version_suffix",
		 p->version_suffix.str ? json_string(p->version_suffix.str) : json_null());
	json_set(wheel, "platform", json_string(p->platform.str ? p->platform.str : "auto"));
	json_set(j, "wheel", wheel);
	text = json_print(j, 0);
	sha256_hex(&hex, text, strlen(text));
	json_set(hash, "name", json_string(p->name.str ? p->name.str : ""));
	json_set(hash, "sha256", json_string(hex.s));
	json_set(hash, "resolved", j);
	free(text);
	buf_release(&hex);
	return hash;
}

struct json *
inputs_changes(const char *src)
{
	struct json *a = json_array();
	struct strvec paths = STRVEC_INIT;

	if (repo_changed_paths(src, &paths) < 0) {
		strvec_clear(&paths);
		return a;
	}
	strvec_sort(&paths);
	for (size_t i = 0; i < paths.n; i++) {
		struct json *c = json_object();
		struct buf file = BUF_INIT, data = BUF_INIT, hex = BUF_INIT;

		buf_addf(&file, "%s/%s", src, paths.v[i]);
		json_set(c, "path", json_string(paths.v[i]));
		if (is_regular(file.s) && read_file(&data, file.s) == 0) {
			sha256_hex(&hex, data.s, data.len);
			json_set(c, "sha256", json_string(hex.s));
		} else {
			json_set(c, "sha256", json_null());
		}
		json_push(a, c);
		buf_release(&file);
		buf_release(&data);
		buf_release(&hex);
	}
	strvec_clear(&paths);
	return a;
}

struct json *
inputs_make(const struct build *b)
{
	const struct profile *p = &b->profile;
	struct json *in = json_object(), *src = json_object(), *subs = json_array();
	struct json *patches = json_array(), *gen = json_object();

	json_set(in, "profile", profile_inputs(p));
	/* a bundle's tree is of the repository it was made from, whatever the profile calls it now */
	json_set(src, "repo", b->plan.local_source ? json_null() :
		 json_string(b->bundle_meta ? json_str(json_get(b->bundle_meta, "repo")) :
			     p->source_repo.str));
	json_set(src, "ref", b->plan.local_source ? json_null() : json_string(p->source_ref.str));
	json_set(src, "commit", b->tree.commit ? json_string(b->tree.commit) : json_null());
	for (size_t i = 0; i < b->tree.nsubs; i++) {
		struct json *s = json_object();

		json_set(s, "path", json_string(b->tree.subs[i].path));
		json_set(s, "commit", json_string(b->tree.subs[i].commit));
		json_push(subs, s);
	}
	json_set(src, "submodules", subs);
	/* a bundle's tree has no git objects: its changes are the ones the bundle recorded */
	if (b->bundle_meta)
		json_set(src, "changes", json_dup(json_get(b->bundle_meta, "changes")));
	else
		json_set(src, "changes", b->tree.commit ? inputs_changes(b->plan.src_dir) : json_array());
	json_set(in, "source", src);
	for (size_t i = 0; i < b->patches.n; i++) {
		struct json *pt = json_object();

		json_set(pt, "file", json_string(b->patches.v[i].file));
		json_set(pt, "sha256", json_string(b->patches.v[i].sha256));
		json_set(pt, "when", b->patches.v[i].when ? json_string(b->patches.v[i].when)
							  : json_null());
		json_push(patches, pt);
	}
	json_set(in, "patches", patches);
	if (b->have_torch) {
		struct json *t = json_object();

		json_set(t, "name", json_string(b->torch.name));
		json_set(t, "version", json_string(b->torch.version));
		json_set(t, "wheel_sha256", *b->torch.sha256 ? json_string(b->torch.sha256) : json_null());
		json_set(in, "torch", t);
	}
	json_set(in, "env", env_json_of(b));
	json_set(in, "toolchain", toolchain_json(&b->toolchain));
	json_set(gen, "version", json_string(BWBUILD_VERSION));
	json_set(in, "bwbuild", gen);
	return in;
}

void
inputs_hash(const struct json *inputs, struct buf *hex)
{
	char *text = json_print(inputs, 0);

	buf_reset(hex);
	sha256_hex(hex, text, strlen(text));
	free(text);
}

void
inputs_label(const struct build *b, struct buf *out)
{
	struct json *in = inputs_make(b), *env = json_take(in, "env");
	struct buf hex = BUF_INIT;

	json_free(json_take(env, "PYTORCH_BUILD_VERSION"));
	json_free(json_take(env, "PYTORCH_BUILD_NUMBER"));
	json_set(in, "env", env);
	inputs_hash(in, &hex);
	buf_addf(out, "h%.7s", hex.s);
	buf_release(&hex);
	json_free(in);
}
