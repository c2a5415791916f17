/*
 * The configure step (configure.h): running the tree's configure with the
 * plan's environment, what a changed configure.stamp removes, a cache
 * left behind adopted when it matches and the watch on a build that is
 * already running. How a tree is told to configure only is contract.c's;
 * the read-back of what CMake decided and configure.stamp's text,
 * settle.c's (the compile step settles a configure too); what the
 * read-back concludes (features_effective, the BLAS, what CMake dropped),
 * readback.c's.
 * May include: core/, formats/, host/, profile/, sources/, launch/launch.h, pipeline/.
 */
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "formats/cmakecache.h"
#include "formats/cmakeopts.h"
#include "pipeline/configure.h"
#include "core/diag.h"
#include "launch/launch.h"
#include "pipeline/plan.h"
#include "core/proc.h"
#include "profile/profile.h"
#include "pipeline/step.h"
#include "core/strvec.h"
#include "core/safefile.h"
#include "core/util.h"

/*
 * The hook CMake includes after the top-level project() (through
 * CMAKE_PROJECT_INCLUDE, which PyTorch's setup.py forwards like every
 * CMAKE_* variable): at the end of the top-level directory it writes
 * every USE_* and BUILD_* variable (BUILD_TEST) as configure ended with it, and the BLAS
 * Dependencies.cmake settled on (BLAS_INFO, CAFFE2_USE_EIGEN_FOR_BLAS: plain variables, in no
 * cache), so the read-back sees what options and later logic decided, not what the cache remembers.
 */
static const char hook_text[] =
	"# Written by bwbuild (src/pipeline/configure.c): the USE_*, BUILD_* and BLAS values configure ended with.\n"
	"if(NOT _BWBUILD_EFFECTIVE_HOOK AND CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)\n"
	"  set(_BWBUILD_EFFECTIVE_HOOK 1)\n"
	"  # XNNPACK FORCE-sets the C/C++ launchers to any ccache it finds (v2.6.0:\n"
	"  # 6,792 of 7,452 compiles left bwbuild's launcher): found here as OFF,\n"
	"  # it leaves them alone; ccache, where wanted, is in bwbuild's chain.\n"
	"  if(DEFINED ENV{BWBUILD_LAUNCH_DIR})\n"
	"    set(CCACHE_BINARY OFF CACHE STRING \"bwbuild: ccache runs in its launcher chain\" FORCE)\n"
	"    foreach(_l C CXX CUDA)\n"
	"      if(DEFINED ENV{CMAKE_${_l}_COMPILER_LAUNCHER})\n"
	"        set(CMAKE_${_l}_COMPILER_LAUNCHER \"$ENV{CMAKE_${_l}_COMPILER_LAUNCHER}\" CACHE STRING \"\" FORCE)\n"
	"      endif()\n"
	"    endforeach()\n"
	"  endif()\n"
	"  function(_bwbuild_effective_dump)\n"
	"    get_cmake_property(_vars VARIABLES)\n"
	"    set(_out \"\")\n"
	"    foreach(_v IN LISTS _vars)\n"
	"      if(_v MATCHES \"^((USE|BUILD)_[A-Za-z0-9_]+|BLAS|BLAS_INFO|CAFFE2_USE_EIGEN_FOR_BLAS|CAFFE2_USE_MKL)$\")\n"
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
		rc = mkdir_p_parent(path->s) < 0 ? -1 :
		     write_file_atomic_beneath(work_dir, "cmake/bwbuild-effective.cmake", hook_text,
					       strlen(hook_text));
	buf_release(&have);
	return rc;
}

/*
 * The configure step. PyTorch's setup.py skips configure when
 * build/CMakeCache.txt exists, so a changed environment would be silently
 * ignored: configure.stamp remembers what the last configure that
 * succeeded and was read back saw, and the cache of any other is removed.
 * A cache without a stamp (a run killed after configure, a configure by
 * hand) is compared with the plan and adopted when it matches.
 */

/* A stamp line's key ("commit", "tool nvcc", "inherited CFLAGS", "USE_CUDA") and value. */
static void
stamp_line_split(const char *line, size_t len, struct buf *key, struct buf *val)
{
	const char *eq = memchr(line, '=', len), *sp = memchr(line, ' ', len);
	size_t k;

	buf_reset(key);
	buf_reset(val);
	if (starts_with(line, "tool ") && sp && (sp = memchr(sp + 1, ' ', len - (size_t)(sp + 1 - line))))
		k = (size_t)(sp - line);
	else if (eq && (!sp || starts_with(line, "inherited ") || eq < sp))
		k = (size_t)(eq - line);
	else
		k = sp ? (size_t)(sp - line) : len;
	buf_add(key, line, k);
	if (k < len)
		buf_add(val, line + k + 1, len - k - 1);
}

/* The value of `key` among the stamp's lines, or NULL. */
static int
stamp_find(const char *text, const char *key, struct buf *val)
{
	struct buf k = BUF_INIT;
	int found = 0;

	for (const char *p = text; p && *p && !found;) {
		size_t n = strcspn(p, "\n");

		stamp_line_split(p, n, &k, val);
		found = !strcmp(k.s, key);
		p += n + (p[n] == '\n');
	}
	buf_release(&k);
	return found;
}

static void
diff_line(struct buf *diff, const char *key, const char *old, const char *new_)
{
	buf_addf(diff, "  %s: %s -> %s\n", key, old ? old : "(unset)", new_ ? new_ : "(unset)");
}

void
configure_stamp_diff(const char *old, const char *new_, struct buf *diff)
{
	struct buf k = BUF_INIT, v = BUF_INIT, o = BUF_INIT;

	for (int pass = 0; pass < 2; pass++) {
		const char *a = pass ? old : new_, *b = pass ? new_ : old;

		for (const char *p = a; p && *p;) {
			size_t n = strcspn(p, "\n");

			stamp_line_split(p, n, &k, &v);
			if (!stamp_find(b, k.s, &o))
				diff_line(diff, k.s, pass ? v.s : NULL, pass ? NULL : v.s);
			else if (!pass && strcmp(o.s, v.s))
				diff_line(diff, k.s, o.s, v.s);
			p += n + (p[n] == '\n');
		}
	}
	buf_release(&k);
	buf_release(&v);
	buf_release(&o);
}

/* CMake's booleans, for comparing USE_CUDA=1 with USE_CUDA:BOOL=ON. */
static int
cmake_boolish(const char *v)
{
	static const char *const words[] = { "ON", "OFF", "1", "0", "TRUE", "FALSE", "YES", "NO",
					     "Y", "N", NULL };

	for (size_t i = 0; words[i]; i++)
		if (!strcasecmp(v, words[i]))
			return 1;
	return 0;
}

int
configure_cache_matches(const struct cmake_cache *c, const char *src_dir,
			const struct strvec *cmake, struct buf *diff)
{
	const char *home = cmakecache_get(c, "CMAKE_HOME_DIRECTORY");
	char *real = realpath(src_dir, NULL), *real_home = home ? realpath(home, NULL) : NULL;
	size_t before = diff->len;

	if (!home || !real || !real_home || strcmp(real, real_home))
		diff_line(diff, "CMAKE_HOME_DIRECTORY", home, real ? real : src_dir);
	for (size_t i = 0; i < cmake->n; i++) {
		const char *eq = strchr(cmake->v[i], '=');
		struct buf name = BUF_INIT;
		const char *have;

		if (!eq)
			continue;
		buf_add(&name, cmake->v[i], (size_t)(eq - cmake->v[i]));
		have = cmakecache_get(c, name.s);
		if (!have)
			buf_addf(diff, "  %s: (not in CMakeCache.txt) -> %s\n", name.s, eq + 1);
		else if (strcmp(have, eq + 1) &&
			 !(cmake_boolish(have) && cmake_boolish(eq + 1) &&
			   cmake_truthy(have) == cmake_truthy(eq + 1)))
			diff_line(diff, name.s, have, eq + 1);
		buf_release(&name);
	}
	free(real);
	free(real_home);
	return diff->len == before;
}

/*
 * The cache and outputs of a configure made with other settings (named in
 * `diff`), or of one that cannot be used (`diff` NULL): gone.
 */
static int
remove_stale_configure(const struct build *b, const char *diff)
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
		if (diff) {
			step_note(STEP_CONFIGURE, "settings changed since the last configure; removing "
				  "%s and earlier build outputs", cache.s);
			fputs(diff, stderr);
		} else {
			step_note(STEP_CONFIGURE, "removing %s and earlier build outputs", cache.s);
		}
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
				"into it and setup.py's staging (build/lib.*, build/bdist.*) are left; "
				"'git clean -X' removes them", pl->src_dir);
		if (!ret && !pl->local_source)
			ret = setuptools_staging_remove(pl->src_dir, -1);
	}
	buf_release(&cache);
	return ret;
}

/*
 * The state of build/: no cache; a cache cut short (a full disk, a kill:
 * setup.py would skip configure and CMake's build fail with "could not
 * find CMAKE_GENERATOR in Cache" on every later run); a cache whose
 * generator never wrote its build file (configure killed in generation);
 * a configured directory.
 */
enum build_dir_state { DIR_EMPTY, DIR_BROKEN, DIR_CACHE_ONLY, DIR_CONFIGURED };

static enum build_dir_state
build_dir_state(const struct build *b, struct cmake_cache *c, int *have_cache)
{
	struct buf path = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	enum build_dir_state st = DIR_EMPTY;
	const char *gen;

	*have_cache = 0;
	buf_addf(&path, "%s/build/CMakeCache.txt", b->plan.src_dir);
	if (!path_exists(path.s))
		goto out;
	st = DIR_BROKEN;
	if (read_file(&text, path.s) < 0 || cmakecache_parse(c, text.s, text.len, &why) < 0)
		goto out;
	*have_cache = 1;
	gen = cmakecache_get(c, "CMAKE_GENERATOR");
	if (!gen || !cmakecache_get(c, "CMAKE_HOME_DIRECTORY"))
		goto out;
	buf_reset(&path);
	buf_addf(&path, "%s/build/%s", b->plan.src_dir, strstr(gen, "Ninja") ? "build.ninja" : "Makefile");
	st = path_exists(path.s) ? DIR_CONFIGURED : DIR_CACHE_ONLY;
out:
	if (st == DIR_BROKEN)
		step_note(STEP_CONFIGURE, "%s/build/CMakeCache.txt is incomplete; configuring again",
			b->plan.src_dir);
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	return st;
}

/*
 * Watching the configure step for a build: PyTorch's setup.py builds
 * everything when it misses the configure-only switch (v2.6.0 with
 * CMAKE_ONLY=1 in the environment ran all 7,452 steps). A ninja that
 * builds in build/ (not `--version`, not a `-t` tool CMake runs after
 * generating; try-compiles run in CMakeFiles/CMakeScratch/) is stopped.
 */
struct build_watch {
	pthread_t thread;
	char *build_dir;
	volatile sig_atomic_t done;
	volatile sig_atomic_t seen;
	char what[256];
};

/* The first len - 1 bytes of /proc/<pid>/<file>, NUL-terminated; their count, <= 0 when none. */
static ssize_t
proc_file(const char *pid, const char *file, char *out, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, out, len - 1);
	close(fd);
	out[n > 0 ? n : 0] = '\0';
	return n;
}

/* Whether /proc/<pid> is a ninja building in `dir`; its command line into `what`. */
static int
ninja_building(const char *pid, const char *dir, char *what, size_t wlen)
{
	char path[64], cwd[PATH_MAX], args[1024];
	ssize_t n;
	int tool = 0;
	size_t i;

	if (proc_file(pid, "comm", args, sizeof(args)) <= 0 || strncmp(args, "ninja\n", 6))
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/cwd", pid);
	n = readlink(path, cwd, sizeof(cwd) - 1);
	if (n <= 0)
		return 0;
	cwd[n] = '\0';
	if (strcmp(cwd, dir))
		return 0;
	n = proc_file(pid, "cmdline", args, sizeof(args));
	if (n <= 0)
		return 0;
	for (i = 0; i < (size_t)n; i += strlen(args + i) + 1)
		tool |= !strcmp(args + i, "--version") || !strcmp(args + i, "-t") ||
			starts_with(args + i, "-t") || !strcmp(args + i, "-n");
	for (i = 0; i + 1 < (size_t)n; i++)
		if (!args[i])
			args[i] = ' ';
	n = (ssize_t)strlen(args) < (ssize_t)wlen - 1 ? (ssize_t)strlen(args) : (ssize_t)wlen - 1;
	memcpy(what, args, (size_t)n);
	what[n] = '\0';
	return !tool;
}

static void *
watch_build(void *v)
{
	struct build_watch *w = v;

	while (!w->done && !w->seen) {
		struct timespec ts = { 0, 100 * 1000 * 1000L };
		DIR *d = opendir("/proc");
		struct dirent *de;

		while (d && (de = readdir(d))) {
			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			if (ninja_building(de->d_name, w->build_dir, w->what, sizeof(w->what))) {
				kill((pid_t)strtol(de->d_name, NULL, 10), SIGTERM);
				w->seen = 1;
				break;
			}
		}
		if (d)
			closedir(d);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* The compiles the launcher refused during configure (<launch>/configure-compiles), or "". */
static void
refused_compiles(const struct plan *pl, struct buf *out, int clear)
{
	struct buf path = BUF_INIT;
	int dirfd;

	buf_addf(&path, "%s/launch", pl->work_dir);
	if (!path_exists(path.s)) {
		buf_release(&path);
		return;
	}
	/* Not through <work>/launch replaced by a link meanwhile: the next step refuses that. */
	dirfd = open_dir_beneath(pl->work_dir, "launch", 6);
	buf_reset(&path);
	if (dirfd < 0) {
		buf_release(&path);
		return;
	}
	buf_addf(&path, "/proc/self/fd/%d/" LAUNCH_CONFIGURE_COMPILES, dirfd);
	if (clear)
		unlinkat(dirfd, LAUNCH_CONFIGURE_COMPILES, 0);
	else if (path_exists(path.s))
		read_file(out, path.s);
	close(dirfd);
	buf_release(&path);
}

/* Run the configure command; it must configure only. */
static int
configure_command_run(struct build *b, const struct configure_contract *contract)
{
	struct proc pr = PROC_INIT;
	struct build_watch w;
	struct buf dir = BUF_INIT, refused = BUF_INIT;
	sigset_t all, old_mask;
	int rc, watching;

	step_env(&pr, b);
	configure_command(contract, b->python.s, b->plan.src_dir, &b->plan.cmake, &pr.args, &pr.env);
	pr.dir = b->plan.src_dir;
	buf_addf(&dir, "%s/build", b->plan.src_dir);
	mkdir_p(dir.s);
	memset(&w, 0, sizeof(w));
	w.build_dir = realpath(dir.s, NULL);
	refused_compiles(&b->plan, NULL, 1);
	/* Signals stay the main thread's (it forwards them to the step's group): none reach the watch. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old_mask);
	watching = w.build_dir && !pthread_create(&w.thread, NULL, watch_build, &w);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	pr.defer_failure = 1;
	rc = step_command(STEP_CONFIGURE, &b->plan, &pr);
	if (watching) {
		w.done = 1;
		pthread_join(w.thread, NULL);
	}
	refused_compiles(&b->plan, &refused, 0);
	if (w.seen || refused.len) {
		if (w.seen)
			error("the configure step started building: '%s' ran in %s; stopped it", w.what,
			      dir.s);
		if (refused.len)
			error("the configure step started compiling; the launcher refused:\n%.*s",
			      (int)refused.len - (refused.s[refused.len - 1] == '\n'), refused.s);
		fprintf(stderr, "hint: the tree's setup.py did not take the configure-only switch "
			"bwbuild gave it (%s); see 'logs/configure.log'\n",
			contract->only == CONFIGURE_ONLY_ARG ? "the argument --cmake-only" :
			contract->only == CONFIGURE_ONLY_ENV ? "CMAKE_ONLY=1 in the environment" :
			"cmake -S . -B build");
		rc = -1;
	} else if (rc < 0 && pr.status) {
		step_failed(STEP_CONFIGURE, &b->plan, &pr);
	}
	if (!rc)
		rc = configure_settle(b);
	free(w.build_dir);
	buf_release(&dir);
	buf_release(&refused);
	proc_release(&pr);
	return rc;
}

/*
 * A cache whose configure never generated the build file, with the plan's
 * settings: removed, never configured over (with CMP0127's old behaviour,
 * in trees requiring CMake < 3.22 like v2.6.0, a second configure over a
 * cache can turn a cmake_dependent_option off). The build outputs stay:
 * they come from these settings.
 */
static int
fresh_cache(const struct build *b)
{
	struct buf path = BUF_INIT;
	int rc = 0;

	step_note(STEP_CONFIGURE, "%s/build/CMakeCache.txt holds the plan's settings, but its "
		"configure did not finish; configuring again from a fresh cache (build outputs "
		"kept)", b->plan.src_dir);
	buf_addf(&path, "%s/build/CMakeCache.txt", b->plan.src_dir);
	if (unlink(path.s) < 0)
		rc = error("cannot remove '%s':", path.s);
	buf_release(&path);
	return rc;
}

int
configure_run(struct build *b)
{
	struct buf stamp = BUF_INIT, want = BUF_INIT, have = BUF_INIT, why = BUF_INIT, diff = BUF_INIT;
	struct configure_contract contract;
	struct cmake_cache cache;
	enum build_dir_state st;
	int rc = 0, have_cache, have_stamp, run = 1;

	step_toolchain(b);
	/* From here on the steps write into the tree, configured or not (outputs.c). */
	if (outputs_begin(b) < 0) {
		rc = -1;
		goto out;
	}
	if (b->era->configure == ERA_CONFIGURE_NONE) {
		step_note(STEP_CONFIGURE, "%s", b->era->no_configure);
		goto out;
	}
	if (configure_contract_read(b->plan.src_dir, b->era, &contract, &why) < 0) {
		rc = error("%s", why.s);
		goto out;
	}
	if (contract.only == CONFIGURE_ONLY_ENV && contract.forwards_cmake && !contract.pops_env)
		note("configure: %s/setup.py reads CMAKE_ONLY from the environment and its "
		     "tools/setup_helpers/cmake.py passes every CMAKE_* variable on: CMake also gets "
		     "-DCMAKE_ONLY=1 (unused there)", b->plan.src_dir);
	configure_stamp_path(b, &stamp);
	configure_stamp_text(b, &want);
	have_stamp = path_exists(stamp.s);
	if (have_stamp && read_file(&have, stamp.s) < 0) {
		/* Taken as absent, a FIFO there printed an error and the build went on to exit 0. */
		hint("it is bwbuild's record of the last configure; remove it and build again");
		rc = -1;
		goto out;
	}
	st = build_dir_state(b, &cache, &have_cache);
	if (st == DIR_BROKEN) {
		unlink(stamp.s);
		rc = remove_stale_configure(b, NULL);
	} else if (have_stamp && strcmp(have.s, want.s)) {
		configure_stamp_diff(have.s, want.s, &diff);
		unlink(stamp.s);
		rc = remove_stale_configure(b, diff.s);
	} else if (!have_stamp && st != DIR_EMPTY) {
		/* Configured, but not by a run that got to its stamp: the cache is the evidence. */
		if (!configure_cache_matches(&cache, b->plan.src_dir, &b->plan.cmake, &diff)) {
			rc = remove_stale_configure(b, diff.s);
		} else if (st == DIR_CONFIGURED) {
			step_note(STEP_CONFIGURE, "adopting %s/build: no configure.stamp, but its "
				"CMakeCache.txt holds the plan's settings", b->plan.src_dir);
			run = 0;
		} else {
			rc = fresh_cache(b);
		}
	} else if (have_stamp && st == DIR_CONFIGURED) {
		step_note(STEP_CONFIGURE, "up to date (configure.stamp matches; %s/build kept)",
			b->plan.src_dir);
		run = 0;
	} else if (st == DIR_CACHE_ONLY) {
		rc = fresh_cache(b);
	}
	if (have_cache)
		cmakecache_release(&cache);
	buf_reset(&have);
	if (!rc)
		rc = configure_hook(b->plan.work_dir, &have);
	if (rc)
		goto out;
	if (!run)
		rc = configure_settle(b);
	else
		rc = configure_command_run(b, &contract);
out:
	buf_release(&stamp);
	buf_release(&want);
	buf_release(&have);
	buf_release(&why);
	buf_release(&diff);
	return rc;
}
