#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/build.h"
#include "launch/ccache.h"
#include "core/diag.h"
#include "pipeline/doctor.h"
#include "pipeline/eta.h"
#include "sources/git.h"
#include "core/json.h"
#include "launch/launch.h"
#include "core/proc.h"
#include "pipeline/pyenv.h"
#include "pipeline/step.h"
#include "core/safefile.h"
#include "core/util.h"

/*
 * The compile step: the tree's own build under the plan's MAX_JOBS, each
 * compile admitted by `bwbuild launch` (src/launch/launch.c) when the launcher
 * is on, resumed with less parallelism when compilers are killed for
 * memory, and this build's ccache counts recorded.
 */

/* How many times a compile killed for memory is retried with less parallelism. */
#define MAX_OOM_RECOVERIES 3

int
compile_check(struct build *b)
{
	const struct profile *p = &b->profile;
	struct buf why = BUF_INIT;
	int rc = 0, found;

	if (b->plan.ccache && !strchr(b->plan.ccache, '/'))
		rc = error_at(&p->cache.loc, "build.cache is ccache, but there is no ccache on PATH "
			      "(apt-get install ccache)");
	found = pyenv_find_python(&b->python, p->python.str, &why, &b->wheel_prefix) == 0;
	if (b->wheel_prefix.len)
		note("python: %s builds wheels with PYTHONPATH=%s (scripts/python-prefix.sh's)",
		     b->python.s, b->wheel_prefix.s);
	if (!found) {
		struct buf hint = BUF_INIT;

		pyenv_wheel_hint(p->python.str ? p->python.str : "python3", &hint);
		if (p->python.str)
			rc = error_at(&p->python.loc, "'%s' cannot build wheels:\n%s%s", p->python.str,
				      why.s, hint.s);
		else
			rc = error("no python3 that can build wheels (setuptools and wheel):\n%s"
				   "install them (apt-get install python3-setuptools python3-wheel) or "
				   "set 'build.python' in the profile", why.s);
		buf_release(&hint);
	} else {
		/* Never silently: say which interpreters were passed over, and why. */
		if (why.len)
			note("python: %s; skipped:\n%.*s", b->python.s, (int)why.len - 1, why.s);
		/* A --source tree is read now; a fetched one after the fetch, the table's release until then. */
		if (!profile_is_extension(p) &&
		    python_env_check(b, b->plan.local_source ? b->plan.src_dir : NULL) < 0)
			rc = -1;
	}
	buf_release(&why);
	if (found && !b->pythonpath.len && b->wheel_prefix.len)
		buf_addstr(&b->pythonpath, b->wheel_prefix.s);
	/* features.numpy on without NumPy: refused before the fetch (the tree's default: at the fetch). */
	if (!profile_is_extension(p) && b->python.len && numpy_check(p, NULL, b->python.s) < 0)
		rc = -1;
	/* Found here, before the fetch, not as a traceback after configure. */
	if (nvcc_archs_check(b->plan.cuda_home, p) < 0)
		rc = -1;
	/* CMake against the tree's cmake_minimum_required (when it is here) and the era's need. */
	if (!profile_is_extension(p) && cmake_version_check(p, b->plan.src_dir) < 0)
		rc = -1;
	return rc;
}

/* Log lines that mean a compiler was killed (docs/design/scheduling.md §5). */
static int
tail_says_killed(const struct proc *p)
{
	static const char *const marks[] = { "Killed signal terminated program",
					     "died due to signal 9", "internal compiler error: Killed",
					     "[code=137]", "killed by signal 9", NULL };
	struct buf t = BUF_INIT;
	int hit = 0;

	buf_add(&t, p->tail ? p->tail : "", p->tail_len);
	for (size_t i = 0; marks[i] && !hit; i++)
		hit = strstr(t.s, marks[i]) != NULL;
	buf_release(&t);
	return hit;
}

/*
 * The launcher's knowledge for this tree: the learned table shared by
 * every build of its version (<cache>/peaks/pytorch-<version>.peaks:
 * knowledge about the files, not about one work directory) and the shipped seed
 * tables (data/peaks/ *.seed, installed to share/bwbuild/data/peaks).
 */
static void
launch_knowledge_env(struct strvec *env, const struct plan *pl, int extension)
{
	struct strvec dirs = STRVEC_INIT, seeds = STRVEC_INIT;
	struct buf s = BUF_INIT;

	repo_cache_dir(&s);
	/* An extension's files are no PyTorch tree's: they learn in the work directory. */
	if (s.len && !extension) {
		struct buf table = BUF_INIT;

		if (launch_table_path(s.s, pl->src_dir, &table) == 0)
			strvec_env_set(env, LAUNCH_ENV_TABLE, table.s);
		buf_release(&table);
	}
	if (!extension)
		data_search_path("data/peaks", "BWBUILD_PEAKS_PATH", &dirs);
	for (size_t i = 0; i < dirs.n; i++) {
		char *dir = realpath(dirs.v[i], NULL);
		struct dirent *de;
		DIR *d = dir ? opendir(dir) : NULL;

		while (d && (de = readdir(d)))
			if (ends_with(de->d_name, ".seed")) {
				buf_reset(&s);
				buf_addf(&s, "%s/%s", dir, de->d_name);
				strset_add(&seeds, s.s);
			}
		if (d)
			closedir(d);
		free(dir);
	}
	buf_reset(&s);
	strvec_join(&seeds, ":", &s);
	if (s.len)
		strvec_env_set(env, LAUNCH_ENV_SEED, s.s);
	strvec_clear(&dirs);
	strvec_clear(&seeds);
	buf_release(&s);
}

/* The names of --targets T1,T2 (commas between), each an argument. */
static void
push_targets(struct strvec *args, const char *t)
{
	while (*t) {
		size_t n = strcspn(t, ",");

		if (n)
			strvec_push_nodup(args, xstrndup(t, n));
		t += n + (t[n] == ',');
	}
}

/*
 * The compile command: --targets builds those in the configured build
 * directory; otherwise the era's row says (src/pipeline/era.c), with the
 * step's environment and the launcher's knowledge around it.
 */
static void
compile_command(struct proc *pr, const struct build *b)
{
	const struct plan *pl = &b->plan;
	const struct era_cmd c = { b->python.s, pl->src_dir, pl->work_dir, pl->jobs.jobs };
	struct buf s = BUF_INIT;

	step_env(pr, b);
	if (pl->jobs.launcher)
		launch_knowledge_env(&pr->env, pl, !b->era->torch_tree);
	pr->dir = pl->src_dir;
	if (b->opts && b->opts->targets) {
		/* --targets: the configured build directory's own targets, every era alike. */
		const char *t = b->opts->targets;

		buf_addf(&s, "%s/build", pl->src_dir);
		strvec_pushl(&pr->args, "cmake", "--build", s.s, "--parallel", NULL);
		strvec_pushf(&pr->args, "%u", pl->jobs.jobs);
		strvec_push(&pr->args, "--target");
		push_targets(&pr->args, t);
		buf_release(&s);
		return;
	}
	b->era->compile_argv(&c, &pr->args, &pr->env);
}

/* Halve parallelism after an OOM kill and record the recovery for the manifest. */
static void
recover_from_oom(struct build *b, struct strvec *killed, int attempt)
{
	struct plan *pl = &b->plan;
	unsigned jobs = pl->jobs.jobs, slots = pl->jobs.slots;
	struct json *r = json_object();
	struct buf names = BUF_INIT;

	pl->jobs.jobs = jobs > 1 ? jobs / 2 : 1;
	pl->jobs.slots = slots > 1 ? slots / 2 : 1;
	strvec_env_setf(&pl->env, "MAX_JOBS", "%u", pl->jobs.jobs);
	if (pl->jobs.launcher)
		strvec_env_setf(&pl->env, LAUNCH_ENV_SLOTS, "%u", pl->jobs.slots);
	if (pl->jobs.heavy_jobs > pl->jobs.slots) {
		pl->jobs.heavy_jobs = pl->jobs.slots;
		strvec_env_setf(&pl->env, "FLASH_ATTENTION_MAX_JOBS", "%u", pl->jobs.heavy_jobs);
	}
	for (size_t i = 0; i < killed->n; i++) {
		char *hash = strrchr(killed->v[i], '#');

		if (hash)
			*hash = '\0'; /* the flags hash means nothing to a reader */
	}
	strvec_join(killed, ", ", &names);
	warning("compile: %s killed for memory; resuming with MAX_JOBS %u -> %u, %u -> %u compiles "
		"at once (recovery %d of %d)", killed->n ? names.s : "a compiler was", jobs,
		pl->jobs.jobs, slots, pl->jobs.slots, attempt + 1, MAX_OOM_RECOVERIES);
	json_set(r, "attempt", json_number(attempt + 1));
	json_set(r, "killed", json_string_array(killed->v, killed->n));
	json_set(r, "max_jobs_before", json_number(jobs));
	json_set(r, "max_jobs_after", json_number(pl->jobs.jobs));
	json_push(b->recoveries, r);
	buf_release(&names);
}

/*
 * The compile, resumed after an OOM kill: the launcher has already raised
 * the killed file's estimate to 1.5x what it was admitted with; here
 * parallelism is halved and the incremental build runs again (ninja
 * rebuilds only what is missing), up to MAX_OOM_RECOVERIES times, never
 * below one compile at a time.
 */
static int
compile_with_recovery(struct build *b, struct eta_plan *eta)
{
	struct buf oom = BUF_INIT, launch_dir = BUF_INIT;
	int attempt, rc = -1;

	buf_addf(&launch_dir, "%s/launch", b->plan.work_dir);
	buf_addf(&oom, "%s/oom", launch_dir.s);
	if (b->plan.jobs.launcher && launch_reset(launch_dir.s) < 0)
		goto out;
	for (attempt = 0;; attempt++) {
		struct proc pr = PROC_INIT;
		struct strvec killed = STRVEC_INIT;
		const struct jobs_calc *jc = &b->plan.jobs;
		int oom_seen, last;

		unlink(oom.s);
		compile_command(&pr, b);
		pr.defer_failure = 1;
		pr.append_log = attempt > 0;
		rc = step_command_eta(STEP_COMPILE, &b->plan, &pr, eta);
		oom_seen = rc && pr.status && !proc_interrupted &&
			   (launch_oom_read(launch_dir.s, &killed) > 0 || tail_says_killed(&pr));
		last = !oom_seen || attempt == MAX_OOM_RECOVERIES || (jc->jobs == 1 && jc->slots <= 1);
		if (last && pr.status)
			step_failed(STEP_COMPILE, &b->plan, &pr);
		if (last && oom_seen)
			error("compile was killed for memory again at MAX_JOBS=%u after %d recover%s; "
			      "lower build.mem_budget or turn a heavy feature off", jc->jobs, attempt,
			      attempt == 1 ? "y" : "ies");
		if (!last)
			recover_from_oom(b, &killed, attempt);
		proc_release(&pr);
		strvec_clear(&killed);
		if (last)
			break;
	}
out:
	buf_release(&oom);
	buf_release(&launch_dir);
	return rc;
}

/* The units' learned times weigh their edges (the launcher's <table>.times). */
static void
eta_learned_times(const struct build *b, struct eta_plan *e)
{
	struct strvec env = STRVEC_INIT;
	struct buf path = BUF_INIT, text = BUF_INIT;
	const char *table;

	launch_knowledge_env(&env, &b->plan, 0);
	table = strvec_env_get(&env, LAUNCH_ENV_TABLE);
	if (table)
		buf_addf(&path, "%s.times", table);
	else
		buf_addf(&path, "%s/launch/peaks.times", b->plan.work_dir);
	if (path_exists(path.s) && read_file(&text, path.s) == 0)
		eta_plan_learned(e, text.s);
	strvec_clear(&env);
	buf_release(&path);
	buf_release(&text);
}

/*
 * What is left to build, by ninja in the configured build directory (the
 * targets of --targets, else everything): the ETA's weights. Left empty
 * (the steps' rate) where there is no build.ninja yet, as in a
 * scikit-build-core tree whose configure runs inside the compile.
 */
static void
eta_plan_make(const struct build *b, struct eta_plan *e)
{
	struct buf dir = BUF_INIT, ninja = BUF_INIT;
	struct strvec targets = STRVEC_INIT;

	memset(e, 0, sizeof(*e));
	buf_addf(&dir, "%s/build", b->plan.src_dir);
	buf_addf(&ninja, "%s/build.ninja", dir.s);
	if (b->opts && b->opts->targets)
		push_targets(&targets, b->opts->targets);
	if (b->era->torch_tree && path_exists(ninja.s))
		eta_plan_ninja(e, dir.s, &targets);
	if (e->n)
		eta_learned_times(b, e);
	strvec_clear(&targets);
	buf_release(&dir);
	buf_release(&ninja);
}

int
compile_run(struct build *b)
{
	struct ccache_stats before, after;
	const char *ccache = b->plan.ccache;
	int have_stats = ccache && ccache_stats_read(ccache, &b->plan.env, &before) == 0;
	int rc;

	int partial = b->opts && b->opts->targets;
	struct eta_plan eta = { 0 };

	if (!b->era->wheel_argv && !partial) {
		/* The wheel is made here: no old one may be found afterwards. */
		struct buf dist = BUF_INIT;

		buf_addf(&dist, "%s/dist", b->plan.work_dir);
		rc = remove_tree(dist.s);
		buf_release(&dist);
		if (rc < 0)
			return -1;
	}
	eta_plan_make(b, &eta);
	rc = compile_with_recovery(b, eta.n ? &eta : NULL);
	eta_plan_release(&eta);
	if (!rc && partial)
		step_note(STEP_COMPILE, "targets %s built (--targets stops after them)",
			b->opts->targets);
	if (!rc && b->era->compile_configures && !partial)
		rc = configure_settle(b);
	if (have_stats && ccache_stats_read(ccache, &b->plan.env, &after) == 0) {
		json_free(b->cache);
		b->cache = ccache_stats_json(&before, &after, b->profile.cache_remote.str);
		step_note(STEP_COMPILE, "ccache %.0f hits (%.0f from remote storage), %.0f misses",
			  json_number_value(json_get(b->cache, "hits")),
			  json_number_value(json_get(b->cache, "remote_hits")),
			  json_number_value(json_get(b->cache, "misses")));
	}
	return rc;
}
