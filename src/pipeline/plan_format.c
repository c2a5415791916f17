/*
 * The plan as `bwbuild plan` shows it (plan.h): the text people read,
 * each profile value with its file:line, and the JSON of `plan --json`
 * (cli/report_plan.c adds what the build finds beyond the plan). The
 * plan itself (jobs_compute, the environment, plan_make) is plan.c's;
 * nothing here decides, it renders what plan_make decided.
 * May include: core/, host/, profile/, launch/memmodel.h, pipeline/.
 */
#include <stdlib.h>
#include <string.h>

#include "pipeline/build.h"
#include "core/buf.h"
#include "core/diag.h"
#include "host/host.h"
#include "core/json.h"
#include "launch/memmodel.h"
#include "pipeline/plan.h"
#include "profile/profile.h"
#include "profile/profview.h"
#include "core/util.h"

/*
 * A profile's value on a line of the plan, escaped to that line
 * (diag_name): a description or a reason with a newline in it forges no
 * line of the plan's own.
 */
static void
add_value(struct buf *out, const char *s)
{
	struct buf esc = BUF_INIT;

	buf_addstr(out, diag_name(&esc, s));
	buf_release(&esc);
}

static void
add_loc(struct buf *out, const struct loc *l)
{
	if (l->file && l->line)
		buf_addf(out, "  (%s:%d)", l->file, l->line);
}

/* The archs and the code every CUDA library is expected to carry. */
static void
format_archs(const struct plan *pl, struct buf *out)
{
	const struct profile *p = pl->profile;
	size_t i;

	buf_addf(out, "\narchs        %s\n", pl->arch_list);
	for (i = 0; i < p->narchs; i++) {
		struct buf a = BUF_INIT;

		arch_format(&p->archs[i].arch, &a);
		buf_addf(out, "  %-18s", a.s);
		add_loc(out, &p->archs[i].loc);
		buf_addstr(out, "\n");
		buf_release(&a);
	}
	if (pl->arch_source)
		buf_addf(out, "  archs checked against %s\n", pl->arch_source);
	buf_addstr(out, "expected     SASS");
	for (i = 0; i < pl->sass.n; i++)
		buf_addf(out, " %s", pl->sass.v[i]);
	buf_addstr(out, "; PTX");
	for (i = 0; i < pl->ptx.n; i++)
		buf_addf(out, " %s", pl->ptx.v[i]);
	if (!pl->ptx.n)
		buf_addstr(out, " none");
	buf_addstr(out, " (in every CUDA library)");
	if (p->cuda_ptx.str) {
		buf_addstr(out, "\nptx          ");
		add_value(out, p->cuda_ptx.str);
		add_loc(out, &p->cuda_ptx.loc);
	}
	buf_addstr(out, "\n");
}

/* build.host_arch, and whether this machine is one. */
static void
format_host(const struct profile *p, struct buf *out)
{
	struct buf said = BUF_INIT;

	if (!p->host_arch.str)
		return;
	buf_addstr(out, "host         ");
	add_value(out, p->host_arch.str);
	add_loc(out, &p->host_arch.loc);
	if (plan_host_fits(p, host_machine(), &said))
		buf_addf(out, ": this machine is %s\n", host_machine());
	else
		buf_addf(out, "\n  note: %s\n", said.s);
	buf_release(&said);
}

static void
format_source(const struct plan *pl, struct buf *out)
{
	const struct profile *p = pl->profile;
	size_t i;

	buf_addf(out, "profile      %s  (%s)\n", p->name.str, p->path);
	if (p->description.str) {
		buf_addstr(out, "description  ");
		add_value(out, p->description.str);
		add_loc(out, &p->description.loc);
		buf_addstr(out, "\n");
	}
	format_host(p, out);
	buf_addstr(out, "source       ");
	add_value(out, p->source_repo.str);
	add_loc(out, &p->source_repo.loc);
	buf_addstr(out, "\nref          ");
	add_value(out, p->source_ref.str);
	add_loc(out, &p->source_ref.loc);
	if (pl->local_source)
		buf_addf(out, "\nsource tree  %s  (--source: built as it is, at whatever commit it "
			 "is; the ref above is not checked out)", pl->src_dir);
	if (p->cuda_version.str) {
		buf_addstr(out, "\ncuda         ");
		add_value(out, p->cuda_version.str);
		add_loc(out, &p->cuda_version.loc);
	}
	buf_addf(out, "\ncuda home    %s", pl->cuda_home);
	if (p->cuda_home.str)
		add_loc(out, &p->cuda_home.loc);
	if (profile_feature_on(p, FEAT_CUDA)) {
		format_archs(pl, out);
	} else {
		buf_addstr(out, "\narchs        none: features.cuda is off");
		add_loc(out, &p->feature_loc[FEAT_CUDA]);
		buf_addstr(out, "\nexpected     no CUDA code: no CUDA library, no SASS, no PTX\n");
	}
	for (i = 0; i < p->nexceptions; i++) {
		const struct pexception *e = &p->exceptions[i];

		buf_addstr(out, "  except ");
		add_value(out, e->library);
		buf_addstr(out, ": may lack");
		for (size_t j = 0; j < e->nmissing; j++) {
			buf_addch(out, ' ');
			add_value(out, e->missing[j]);
		}
		add_loc(out, &e->loc);
		buf_addstr(out, "\n    ");
		add_value(out, e->reason);
		buf_addch(out, '\n');
	}
}

static void
format_pkvs(struct buf *out, const char *title, const struct pkv *kv, size_t n)
{
	if (!n)
		return;
	buf_addf(out, "\n%s\n", title);
	for (size_t i = 0; i < n; i++) {
		buf_addstr(out, "  ");
		add_value(out, kv[i].key);
		buf_addch(out, '=');
		add_value(out, kv[i].val);
		add_loc(out, &kv[i].loc);
		buf_addstr(out, "\n");
	}
}

static void
format_settings(const struct plan *pl, struct buf *out)
{
	const struct profile *p = pl->profile;
	size_t i;

	/* An extension has its torch's features; only the switches its own build reads are shown. */
	buf_addstr(out, profile_is_extension(p) ? "\nfeatures (set by the extension profile; the "
		   "others are its torch's)\n" : "\nfeatures\n");
	for (i = 0; i < FEAT__COUNT; i++) {
		const char *opt = feature_table[i].option;
		long at;

		if (profile_is_extension(p) && p->features[i] == TRI_UNSET)
			continue;
		at = p->features[i] == TRI_UNSET ?
			  strvec_env_find(&pl->inherited, opt, strlen(opt)) : -1;

		buf_addf(out, "  %-18s ", feature_table[i].key);
		/* Unset in the profile but set in this shell: the shell's value decides, not the tree. */
		if (at >= 0)
			buf_addf(out, "%s (inherited from the environment)", pl->inherited.v[at]);
		else
			buf_addstr(out, p->features[i] == TRI_ON ? "on" : p->features[i] == TRI_OFF ?
				   "off" : "tree default");
		add_loc(out, &p->feature_loc[i]);
		buf_addstr(out, "\n");
	}
	format_pkvs(out, "runtime env (for whoever runs the wheel)", p->runtime_env,
		    p->nruntime_env);
	format_pkvs(out, "extra cmake entries", p->cmake, p->ncmake);
	format_pkvs(out, "build env", p->build_env, p->nbuild_env);

	buf_addstr(out, "\nenvironment (set on top of the inherited one)\n");
	for (i = 0; i < pl->env.n; i++) {
		buf_addstr(out, "  ");
		add_value(out, pl->env.v[i]);
		buf_addch(out, '\n');
	}
	if (pl->inherited.n) {
		/* They reach the build as they are: said, so a shell's leftovers are not a surprise. */
		buf_addstr(out, "\ninherited from this shell (they change the build; set them "
			   "in the profile or unset them)\n");
		for (i = 0; i < pl->inherited.n; i++) {
			buf_addstr(out, "  ");
			add_value(out, pl->inherited.v[i]);
			buf_addch(out, '\n');
		}
	}
	buf_addstr(out, "\ncmake cache entries (forwarded from the environment as -D)\n");
	for (i = 0; i < pl->cmake.n; i++) {
		buf_addstr(out, "  -D");
		add_value(out, pl->cmake.v[i]);
		buf_addch(out, '\n');
	}
}

/* build.remote: the hosts, their slots and what each remote compile costs here. */
static void
format_remote(const struct plan *pl, struct buf *out)
{
	const struct jobs_calc *jc = &pl->jobs;
	uint64_t pre = jc->slots ? (uint64_t)EST_LAUNCH_PRE : 0;
	unsigned by_mem = pre ? (unsigned)(jc->budget / pre) : 0;

	buf_addf(out, "  remote          %zu distccd hosts, %u slots: %s\n", jc->remote_hosts,
		 jc->remote_slots, pl->remote);
	buf_addf(out, "                  host C++ compiles only (never .cu, device link, fatbinary "
		 "or a link);\n                  each holds a host slot and its estimate of the "
		 "host's mem, and here only\n                  the preprocessing: ");
	format_size(out, pre);
	buf_addf(out, " until learned, so budget/");
	format_size(out, pre);
	buf_addf(out, " = %u remote compiles fit here\n", by_mem);
}

/* MAX_JOBS with the launcher: what it admits, the waiting room, the remote slots. */
static void
format_launcher_jobs(const struct jobs_calc *jc, struct buf *out)
{
	buf_addf(out, "  MAX_JOBS        cpus %u + waiting room %u", jc->slots, jc->room);
	if (jc->remote_slots)
		buf_addf(out, " + %u remote slots", jc->remote_slots);
	buf_addf(out, " = %u ninja slots; the launcher admits at most\n                  %u compiles "
		 "at once here, while their reservations fit the budget (without\n                  it: "
		 "%u); the room is %s, the longest waiting starts first\n", jc->jobs, jc->slots,
		 jc->by_memory < jc->cpus ? jc->by_memory : jc->cpus,
		 jc->room > (jc->cpus / 8 ? jc->cpus / 8 : 1) ?
		 "cpus - budget/per job (compiles memory keeps waiting)" : "cpus/8, at least 1");
}

/* The MAX_JOBS arithmetic, step by step. */
static void
format_jobs(const struct plan *pl, struct buf *out)
{
	const struct jobs_calc *jc = &pl->jobs;

	buf_addf(out, "\njobs\n  cpus            %u\n", jc->cpus);
	buf_addstr(out, "  MemAvailable    ");
	format_size(out, jc->mem_available);
	buf_addstr(out, "\n  cgroup room     ");
	if (jc->cgroup_room)
		format_size(out, jc->cgroup_room);
	else
		buf_addstr(out, "no limit");
	buf_addstr(out, "\n  budget          ");
	if (jc->budget_given) {
		format_size(out, jc->budget);
		buf_addstr(out, " (given)");
	} else {
		format_size(out, jc->usable);
		buf_addstr(out, " - headroom ");
		format_size(out, jc->headroom);
		buf_addstr(out, " = ");
		format_size(out, jc->budget);
	}
	buf_addf(out, "\n  per job         ");
	format_size(out, jc->per_job);
	buf_addf(out, " (%s, %zu targets)\n", jc->per_job_kind, pl->sass.n + pl->ptx.n);
	if (jc->jobs_given)
		buf_addf(out, "  MAX_JOBS        %u (build.jobs)\n", jc->jobs);
	else if (jc->launcher)
		format_launcher_jobs(jc, out);
	else
		buf_addf(out, "  MAX_JOBS        min(cpus %u, budget/per job %u) = %u\n", jc->cpus,
			 jc->by_memory, jc->jobs);
	if (jc->launcher)
		buf_addf(out, "  launcher        bwbuild launch: reserves %llu GiB per C++ and "
			 "%llu GiB per CUDA compile (%llu GiB flash/CUTLASS),\n                  "
			 "scaled by gencodes and --threads, then the learned peak of each file\n",
			 (unsigned long long)(EST_LAUNCH_CXX / GiB),
			 (unsigned long long)(EST_LAUNCH_CUDA / GiB),
			 (unsigned long long)(EST_LAUNCH_HEAVY / GiB));
	if (jc->launcher)
		buf_addf(out, "  long pole       a CUDA compile admitted while nothing waits gets the idle "
			 "slots: nvcc --threads\n                  up to its gencodes%s, its "
			 "reservation times the cores\n", pl->profile && pl->profile->split_compile == TRI_ON ?
			 ", then --split-compile (build.split_compile)" : "");
	if (jc->remote_slots)
		format_remote(pl, out);
	if (jc->heavy_jobs) {
		buf_addstr(out, "  heavy pool      FLASH_ATTENTION_MAX_JOBS = min(slots, budget/");
		format_size(out, jc->heavy_per_job);
		buf_addf(out, ") = %u\n", jc->heavy_jobs);
	}
}

void
plan_format(const struct plan *pl, struct buf *out)
{
	format_source(pl, out);
	format_settings(pl, out);
	format_jobs(pl, out);
	buf_addstr(out, "\nsteps\n");
	for (size_t i = 0; i < STEP__COUNT; i++)
		buf_addf(out, "  %zu. %s\n", i + 1, step_names[i]);
	buf_addf(out, "  work dir  %s\n  out dir   %s\n", pl->work_dir, pl->out_dir);
}

struct json *
env_json(const struct strvec *env)
{
	struct json *o = json_object();

	for (size_t i = 0; i < env->n; i++) {
		const char *eq = strchr(env->v[i], '=');
		char *k = xstrndup(env->v[i], (size_t)(eq - env->v[i]));

		json_set(o, k, json_string(eq + 1));
		free(k);
	}
	return o;
}

struct json *
plan_json(const struct plan *pl)
{
	struct json *o = json_object();
	struct json *jobs = json_object(), *steps = json_array(), *exp = json_object();
	const struct jobs_calc *jc = &pl->jobs;
	size_t i;

	json_set(o, "profile", profile_json(pl->profile));
	json_set(o, "torch_cuda_arch_list", json_string(pl->arch_list));
	json_set(o, "arch_source", pl->arch_source ? json_string(pl->arch_source) : json_null());
	json_set(exp, "cuda", json_bool(profile_feature_on(pl->profile, FEAT_CUDA)));
	json_set(exp, "sass", json_string_array(pl->sass.v, pl->sass.n));
	json_set(exp, "ptx", json_string_array(pl->ptx.v, pl->ptx.n));
	json_set(o, "expected", exp);
	json_set(o, "env", env_json(&pl->env));
	json_set(o, "inherited_env", env_json(&pl->inherited));
	json_set(o, "cmake", env_json(&pl->cmake));
	json_set(jobs, "cpus", json_number(jc->cpus));
	json_set(jobs, "mem_available", json_number((double)jc->mem_available));
	json_set(jobs, "cgroup_room", jc->cgroup_room ? json_number((double)jc->cgroup_room)
						     : json_null());
	json_set(jobs, "headroom", json_number((double)jc->headroom));
	json_set(jobs, "budget", json_number((double)jc->budget));
	json_set(jobs, "budget_given", json_bool(jc->budget_given));
	json_set(jobs, "per_job", json_number((double)jc->per_job));
	json_set(jobs, "per_job_kind", json_string(jc->per_job_kind));
	json_set(jobs, "by_memory", json_number(jc->by_memory));
	json_set(jobs, "max_jobs", json_number(jc->jobs));
	json_set(jobs, "jobs_given", json_bool(jc->jobs_given));
	if (jc->launcher) {
		json_set(jobs, "launcher_slots", json_number(jc->slots));
		json_set(jobs, "waiting_room", json_number(jc->room));
	}
	if (jc->heavy_jobs)
		json_set(jobs, "flash_attention_max_jobs", json_number(jc->heavy_jobs));
	if (pl->remote) {
		json_set(jobs, "remote", json_string(pl->remote));
		json_set(jobs, "remote_slots", json_number(jc->remote_slots));
	}
	json_set(o, "jobs", jobs);
	for (i = 0; i < STEP__COUNT; i++)
		json_push(steps, json_string(step_names[i]));
	json_set(o, "steps", steps);
	json_set(o, "work_dir", json_string(pl->work_dir));
	json_set(o, "out_dir", json_string(pl->out_dir));
	{
		struct json *h = json_object();
		struct buf said = BUF_INIT;
		int fits = plan_host_fits(pl->profile, host_machine(), &said);

		json_set(h, "arch", pl->profile->host_arch.str ? json_string(pl->profile->host_arch.str)
							      : json_null());
		json_set(h, "machine", json_string(host_machine()));
		json_set(h, "builds_here", json_bool(fits));
		json_set(h, "note", fits ? json_null() : json_string(said.s));
		json_set(o, "host", h);
		buf_release(&said);
	}
	return o;
}
