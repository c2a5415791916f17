#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cmakecache.h"
#include "configure.h"
#include "diag.h"
#include "fault.h"
#include "json.h"
#include "plan.h"
#include "proc.h"
#include "profile.h"
#include "step.h"
#include "util.h"

/* Why a tree turns a feature off by itself, where PyTorch's CMake says so. */
static const char *
off_reason(const struct profile *p, enum feature f, const struct cmake_cache *c)
{
	size_t i;
	int reach80 = 0, has10 = 0;

	for (i = 0; i < p->narchs; i++) {
		reach80 |= p->archs[i].arch.major * 10 + p->archs[i].arch.minor >= 80;
		has10 |= p->archs[i].arch.major == 10;
	}
	if (f != FEAT_CUDA && !cmake_truthy(cmakecache_get(c, "USE_CUDA")))
		return "USE_CUDA is off, which turns every CUDA feature off";
	switch (f) {
	case FEAT_FLASH_ATTENTION:
	case FEAT_MEM_EFF_ATTENTION:
		return reach80 ? NULL : "no arch of 8.0 or newer in TORCH_CUDA_ARCH_LIST";
	case FEAT_CUDNN:
		return "CMake did not find cuDNN (cudnn_version.h); install it or set CUDNN_ROOT";
	case FEAT_NCCL:
		return "CMake did not find NCCL (nccl.h); install libnccl-dev, or set "
		       "NCCL_INCLUDE_DIR with USE_SYSTEM_NCCL=1";
	case FEAT_MSLK:
	case FEAT_FBGEMM_GENAI:
		return has10 ? "it needs CUDA 12.8 or newer" : "it needs a 10.x arch in TORCH_CUDA_ARCH_LIST";
	case FEAT_CUDA:
		return "CMake did not find a CUDA compiler (see CUDACXX and cuda.home)";
	default:
		return NULL;
	}
}

/*
 * A feature's value as configure ended with it. The cache alone can lie:
 * a cmake_dependent_option whose condition failed keeps the user's value
 * as an INTERNAL entry (USE_FLASH_ATTENTION:INTERNAL=1) while the
 * variable CMake used is the forced value, OFF for every USE_* option in
 * PyTorch. The hook's dump (configure_hook) has plain KEY=VALUE lines.
 */
static const char *
effective_value(const struct cmake_cache *c, const char *key)
{
	const struct cmake_entry *e = NULL;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].key, key))
			e = &c->v[i];
	if (!e)
		return NULL;
	if (e->type && !strcmp(e->type, "INTERNAL") && starts_with(key, "USE_"))
		return "OFF";
	return e->value;
}

int
features_effective(const struct profile *p, const struct cmake_cache *c, const char *cache_path,
		   struct json **effective)
{
	struct json *o = json_object();
	int before = diag_errors;
	size_t f;

	for (f = 0; f < FEAT__COUNT; f++) {
		const char *opt = feature_table[f].option;
		const char *v = effective_value(c, opt);
		struct json *e = json_object();
		int eff;

		json_set(e, "requested", p->features[f] == TRI_UNSET ? json_null() :
					 json_string(p->features[f] == TRI_ON ? "on" : "off"));
		json_set(e, "effective", v ? json_bool(cmake_truthy(v)) : json_null());
		json_set(e, "option", json_string(opt));
		json_set(o, feature_table[f].key, e);
		if (!v || p->features[f] == TRI_UNSET)
			continue;
		eff = cmake_truthy(v);
		if (p->features[f] == TRI_ON && !eff) {
			const char *why = off_reason(p, (enum feature)f, c);

			error_at(&p->feature_loc[f], "features.%s is on, but the build turned %s off%s%s "
				 "(%s)", feature_table[f].key, opt, why ? ": " : "", why ? why : "",
				 cache_path);
		} else if (p->features[f] == TRI_OFF && eff) {
			error_at(&p->feature_loc[f], "features.%s is off, but the build turned %s on (%s)",
				 feature_table[f].key, opt, cache_path);
		}
	}
	*effective = o;
	return diag_errors > before ? -1 : 0;
}

/*
 * The hook CMake includes after the top-level project() (through
 * CMAKE_PROJECT_INCLUDE, which PyTorch's setup.py forwards like every
 * CMAKE_* variable): at the end of the top-level directory it writes
 * every USE_* variable as configure ended with it, so the read-back sees
 * what options and later logic decided, not what the cache remembers.
 */
static const char hook_text[] =
	"# Written by bwbuild (src/configure.c): the USE_* values configure ended with.\n"
	"if(NOT _BWBUILD_EFFECTIVE_HOOK AND CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)\n"
	"  set(_BWBUILD_EFFECTIVE_HOOK 1)\n"
	"  function(_bwbuild_effective_dump)\n"
	"    get_cmake_property(_vars VARIABLES)\n"
	"    set(_out \"\")\n"
	"    foreach(_v IN LISTS _vars)\n"
	"      if(_v MATCHES \"^USE_[A-Za-z0-9_]+$\")\n"
	"        string(APPEND _out \"${_v}=${${_v}}\\n\")\n"
	"      endif()\n"
	"    endforeach()\n"
	"    file(WRITE \"${CMAKE_BINARY_DIR}/" CONFIGURE_EFFECTIVE_FILE "\" \"${_out}\")\n"
	"  endfunction()\n"
	"  cmake_language(DEFER DIRECTORY \"${CMAKE_SOURCE_DIR}\" CALL _bwbuild_effective_dump)\n"
	"endif()\n";

int
configure_hook(const char *work_dir, struct buf *path)
{
	struct buf have = BUF_INIT;
	int rc = 0;

	buf_addf(path, "%s/cmake/bwbuild-effective.cmake", work_dir);
	/* Rewritten only when it differs: a newer hook makes ninja re-run CMake. */
	if (!path_exists(path->s) || read_file(&have, path->s) < 0 || strcmp(have.s, hook_text))
		rc = mkdir_p_parent(path->s) < 0 ? -1 : write_file_atomic(path->s, hook_text,
									    strlen(hook_text));
	buf_release(&have);
	return rc;
}

int
configure_readback(const struct profile *p, const struct plan *pl, struct json **effective)
{
	struct buf path = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	struct cmake_cache c;
	int rc = -1;

	*effective = NULL;
	buf_addf(&path, "%s/build/" CONFIGURE_EFFECTIVE_FILE, pl->src_dir);
	if (!path_exists(path.s)) {
		buf_reset(&path);
		buf_addf(&path, "%s/build/CMakeCache.txt", pl->src_dir);
	}
	if (read_file(&text, path.s) < 0)
		goto out;
	if (cmakecache_parse(&c, text.s, text.len, &why) < 0) {
		error("%s: %s", path.s, why.s);
		goto out;
	}
	rc = features_effective(p, &c, path.s, effective);
	cmakecache_release(&c);
out:
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	return rc;
}

/*
 * The configure step. PyTorch's setup.py skips configure when
 * build/CMakeCache.txt exists, so a changed environment would be silently
 * ignored: configure.stamp remembers what the last configure that
 * succeeded and was read back saw, and the cache of any other is removed.
 */

/*
 * Whether an environment entry can change what configure decides. Job
 * counts, the launcher's budget and slots (they change with free memory
 * and on OOM recovery), the compiler cache's settings and TMPDIR are read
 * while compiling only, so they must not force a fresh configure.
 */
static int
reaches_cmake(const char *entry)
{
	static const char *const compile_only[] = { "MAX_JOBS=", "FLASH_ATTENTION_MAX_JOBS=",
						    "CMAKE_BUILD_PARALLEL_LEVEL=", "TMPDIR=",
						    "BWBUILD_LAUNCH_", "CCACHE_", NULL };

	for (size_t i = 0; compile_only[i]; i++)
		if (starts_with(entry, compile_only[i]))
			return 0;
	return 1;
}

static void
stamp_text(const struct build *b, struct buf *out)
{
	struct proc p = PROC_INIT;

	step_env(&p, b);
	buf_addf(out, "commit %s\n", b->commit.s);
	for (size_t i = 0; i < p.env.n; i++)
		if (reaches_cmake(p.env.v[i]))
			buf_addf(out, "%s\n", p.env.v[i]);
	for (size_t i = 0; i < b->plan.inherited.n; i++)
		if (reaches_cmake(b->plan.inherited.v[i]))
			buf_addf(out, "inherited %s\n", b->plan.inherited.v[i]);
	/* Another compiler, CMake or generator means another configure. */
	toolchain_text(&b->toolchain, out);
	proc_release(&p);
}

static void
stamp_path(const struct build *b, struct buf *out)
{
	buf_addf(out, "%s/configure.stamp", b->plan.work_dir);
}

/*
 * setuptools stages the package in build/lib.<platform>/ and
 * build/bdist.<platform>/ and never removes files from there.
 */
static int
remove_setuptools_staging(const char *src_dir)
{
	struct buf dir = BUF_INIT, path = BUF_INIT;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	buf_addf(&dir, "%s/build", src_dir);
	d = opendir(dir.s);
	while (d && (de = readdir(d))) {
		if (!starts_with(de->d_name, "lib.") && !starts_with(de->d_name, "bdist."))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir.s, de->d_name);
		if (remove_tree(path.s) < 0)
			ret = -1;
	}
	if (d)
		closedir(d);
	buf_release(&dir);
	buf_release(&path);
	return ret;
}

/* The cache and outputs of a configure made with other settings: gone. */
static int
remove_stale_configure(const struct build *b)
{
	static const char *const keep[] = { "build", NULL };
	const struct plan *pl = &b->plan;
	struct buf cache = BUF_INIT;
	int ret = 0;

	buf_addf(&cache, "%s/build/" CONFIGURE_EFFECTIVE_FILE, pl->src_dir);
	unlink(cache.s);
	buf_reset(&cache);
	buf_addf(&cache, "%s/build/CMakeCache.txt", pl->src_dir);
	if (path_exists(cache.s)) {
		fprintf(stderr, "configure: settings changed since the last configure; removing %s "
			"and earlier build outputs\n", cache.s);
		if (unlink(cache.s) < 0)
			ret = error("cannot remove '%s':", cache.s);
		/*
		 * A library from the old settings must not reach the new wheel;
		 * a --source tree is the user's, so only warn there.
		 */
		if (!ret && !pl->local_source)
			ret = repo_clean_ignored(pl->src_dir, keep);
		else if (!ret)
			warning("'%s' is your tree (--source): files an earlier configuration installed "
				"into it are left; 'git clean -X' removes them", pl->src_dir);
		if (!ret)
			ret = remove_setuptools_staging(pl->src_dir);
	}
	buf_release(&cache);
	return ret;
}

int
configure_settle(struct build *b)
{
	struct buf stamp = BUF_INIT, text = BUF_INIT;
	int rc;

	json_free(b->effective);
	rc = configure_readback(&b->profile, &b->plan, &b->effective);
	if (rc < 0) {
		/* A feature CMake dropped because a check could not run (a full disk) says so. */
		step_cause("configure", &b->plan);
		error("configure gave a build that differs from the profile; fix the cause above or "
		      "change the profile");
	} else {
		fault_point("configure-read-back");
		stamp_path(b, &stamp);
		stamp_text(b, &text);
		rc = write_file_atomic(stamp.s, text.s, text.len);
	}
	buf_release(&stamp);
	buf_release(&text);
	return rc;
}

/*
 * Whether the cache a configure left can be built from: a cache cut short
 * (a full disk, a kill) makes setup.py skip configure and CMake's build
 * fail ("could not find CMAKE_GENERATOR in Cache") on every later run.
 * No cache at all is usable: configure makes one.
 */
static int
cache_usable(const struct build *b)
{
	struct buf path = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	struct cmake_cache c;
	int ok = 1;

	buf_addf(&path, "%s/build/CMakeCache.txt", b->plan.src_dir);
	if (path_exists(path.s)) {
		ok = read_file(&text, path.s) == 0 && cmakecache_parse(&c, text.s, text.len, &why) == 0;
		if (ok) {
			ok = cmakecache_get(&c, "CMAKE_GENERATOR") && cmakecache_get(&c, "CMAKE_HOME_DIRECTORY");
			cmakecache_release(&c);
		}
		if (!ok)
			fprintf(stderr, "configure: %s is incomplete; configuring again\n", path.s);
	}
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	return ok;
}

int
configure_run(struct build *b)
{
	struct buf stamp = BUF_INIT, want = BUF_INIT, have = BUF_INIT;
	struct proc pr = PROC_INIT;
	int rc = 0;

	if (!b->toolchain.n) {
		step_env(&pr, b);
		toolchain_probe(&b->toolchain, &pr.env, b->plan.cuda_home, b->python.s);
		proc_release(&pr);
		pr = (struct proc)PROC_INIT;
	}
	if (b->era == ERA_EXTENSION) {
		fprintf(stderr, "configure: nothing to configure: the extension's setup.py builds "
			"in the compile step\n");
		goto out;
	}
	stamp_path(b, &stamp);
	stamp_text(b, &want);
	if (!path_exists(stamp.s) || read_file(&have, stamp.s) < 0 || strcmp(have.s, want.s) ||
	    !cache_usable(b)) {
		unlink(stamp.s);
		rc = remove_stale_configure(b);
	}
	buf_reset(&have);
	if (!rc)
		rc = configure_hook(b->plan.work_dir, &have);
	if (!rc && b->era == ERA_SKBUILD) {
		fprintf(stderr, "configure: scikit-build-core configures inside the wheel build "
			"(next step)\n");
	} else if (!rc) {
		step_env(&pr, b);
		strvec_env_set(&pr.env, "CMAKE_ONLY", "1");
		strvec_push(&pr.args, b->python.s);
		strvec_push(&pr.args, "setup.py");
		strvec_push(&pr.args, "build");
		pr.dir = b->plan.src_dir;
		rc = step_command("configure", &b->plan, &pr);
		if (!rc)
			rc = configure_settle(b);
	}
out:
	proc_release(&pr);
	buf_release(&stamp);
	buf_release(&want);
	buf_release(&have);
	return rc;
}
