#ifndef BWBUILD_SMOKE_H
#define BWBUILD_SMOKE_H

#include <stddef.h>

#include "core/buf.h"
#include "core/strvec.h"
#include "wheel/verify.h"

/*
 * `bwbuild smoke`: the wheel imported and run on a real GPU. A probe
 * script shipped with bwbuild (probes/smoke-<package>.py) runs the checks in a
 * child Python; this module owns that process: the environment, a
 * timeout per check (a check silent longer than it is killed, recorded as
 * failed, and the probe run again without it), and the result. docs/smoke.md.
 */

enum smoke_status { SMOKE_OK, SMOKE_WARN, SMOKE_SKIP, SMOKE_FAIL };

struct smoke_check {
	char *name;
	enum smoke_status status;
	char *reason;
	double seconds;
};

struct smoke_bench {
	char *name;
	double value;
	char *unit;      /* TFLOPS, GB/s */
	char *dtype;     /* fp16, tf32, bytes */
	char *shape;
	double peak;     /* the GPU's datasheet peak in `unit`; 0 when unknown */
	/* Across GPUs: the link the busbw is compared with (nvlink, pcie) and its algbw. */
	char *link;
	double algbw;
	unsigned reps;   /* repetitions `value` is the median of; 0 when the probe did not say */
	double spread;   /* (max - min) / value of them, in percent: its own noise; < 0 unknown */
};

struct json;

struct smoke_result {
	struct json *info;          /* the probe's info objects, merged */
	struct smoke_check *checks;
	size_t nchecks, checks_cap;
	struct smoke_bench *benches;
	size_t nbenches, benches_cap;
	char *current;              /* the check started and not yet reported */
	unsigned restarts;          /* probe runs after a check timed out */
};

struct smoke_opts {
	const char *python;         /* the interpreter; NULL: python3 */
	const char *probe;          /* the probe script */
	const char *pythonpath;     /* where the package is importable from */
	double timeout;             /* seconds per check */
	int quick;                  /* no benchmarks */
	const char *visible;        /* CUDA_VISIBLE_DEVICES, or NULL */
	const struct strvec *args;  /* more arguments for the probe, or NULL */
	const char *features;       /* comma-separated compiled-in features, or NULL */
	const char *archs;          /* comma-separated targets get_arch_list() must equal, or NULL */
	const struct strvec *env;   /* NAME=VALUE: the profile's runtime.env */
	int cpu;                    /* a wheel without CUDA: --cpu, the probe's CPU checks */
};

void smoke_result_init(struct smoke_result *r);
void smoke_result_release(struct smoke_result *r);

/* One line of probe output ("@bwbuild {...}"); others are ignored. Exposed for tests. */
void smoke_line(struct smoke_result *r, const char *line, size_t len);

/* Run the probe to the end, restarting it past checks that time out. -1 if it cannot start. */
int smoke_run(struct smoke_result *r, const struct smoke_opts *o);

void smoke_add_check(struct smoke_result *r, const char *name, enum smoke_status st,
		     const char *reason, double seconds);
const struct smoke_check *smoke_find(const struct smoke_result *r, const char *name);
const char *smoke_status_name(enum smoke_status s);
/* ✅ ⚠️ ➖ ❌ */
const char *smoke_status_mark(enum smoke_status s);

/* {checks: [...], benchmarks: [...], gpu, versions...} for the manifest's "runtime". */
struct json *smoke_json(const struct smoke_result *r);

/* smoke_target's answer when no GPU can be used (also bwbuild smoke's exit status). */
#define SMOKE_NO_GPU 3

struct profile;
struct smoke_request {
	const char *target;             /* a wheel (installed privately) or a package directory */
	const struct profile *profile;  /* its targets and runtime.env; NULL: read from the wheel */
	const char *python;             /* NULL: python3 */
	const char *against;            /* an extension's torch (wheel or site-packages/torch); NULL: the interpreter's */
	double timeout;                 /* seconds per check */
	int quick;
	int gpu;                        /* -1: any */
	/* smoke_target_multi: --gpu all, or the CUDA_VISIBLE_DEVICES entries to check. */
	int all_gpus;
	const struct strvec *gpus;
	int ptx_none;                   /* the wheel's profile said cuda.ptx: none (its manifest) */
	int cuda_off;                   /* the wheel's manifest says features.cuda is off */
};

/*
 * A wheel built without CUDA is smoke-tested on the CPU, on any host: its
 * probe gets --cpu and runs the CPU checks, none of CUDA's (a CPU torch's
 * torch.cuda.is_available() is False even beside a GPU). 1 when something
 * says the wheel has no CUDA (the profile's features.cuda, the manifest's
 * (`cuda_off`), its build settings' USE_CUDA, its version.py's cuda =
 * None) and nothing in it says otherwise (a fatbin, a CUDA library
 * needed); `why` then says so. 0 when unsure: the CUDA checks, as ever.
 */
int smoke_cpu_only(const struct wheel_report *w, const struct profile *p, int cuda_off,
		   struct buf *why);

/*
 * The whole of `bwbuild smoke` but the report: install, find the probe,
 * run it, compare with verify's static answer, look up peaks. Returns 0
 * (every check passed), 1 (one failed), SMOKE_NO_GPU, or -1 after
 * reporting; *result is the JSON result (caller frees) unless -1.
 */
int smoke_target(const struct smoke_request *rq, struct smoke_result *r, struct json **result);

/* probes/smoke-<package>.py on the probe path (BWBUILD_PROBE_PATH, data/), absolute; NULL: none. */
char *smoke_find_probe(const char *package);
/*
 * Where smoke_target and smoke_target_multi meet (smoke_setup.c): what every probe
 * run of one target shares (the verified wheel, its private install, the
 * probe, the features and archs it is told), and one run judged.
 */
struct smoke_setup {
	struct wheel_report w;
	char *probe, *tmp, *tmp_torch;
	int cpu;                    /* smoke_cpu_only, its reason in cpu_why */
	struct buf dir, torchdir, path, features, archs, cpu_why;
	struct strvec env;
};
int smoke_setup_init(struct smoke_setup *s, const struct smoke_request *rq);
void smoke_setup_release(struct smoke_setup *s);
/* Run `probe` (NULL: the setup's) on `visible` (NULL: any GPU); returns as smoke_target. */
int smoke_setup_run(struct smoke_setup *s, const struct smoke_request *rq, const char *probe,
		    const char *visible, const struct strvec *args, struct smoke_result *sr,
		    struct json **result);
/* probes/multi-<package>.py, the cross-GPU probe, as smoke_find_probe finds its own. */
char *smoke_find_cross_probe(const char *package);

/*
 * `bwbuild smoke --gpu all` (or a list): the probe on each GPU, one after
 * the other, each judged against the wheel's archs for its own capability,
 * then probes/multi-<package>.py across them (an NCCL group, P2P, the link
 * and its all-reduce bandwidth), skipped with its reason when fewer than
 * two GPUs answered. *result: {gpus: [...], cross_gpu: {...}, status}.
 * A wheel without CUDA runs once on the CPU instead, into *sr, and
 * *result is smoke_target's. Returns as smoke_target.
 */
int smoke_target_multi(const struct smoke_request *rq, struct smoke_result *sr,
		       struct json **result);
/* An entry of CUDA_VISIBLE_DEVICES as a user writes one: 0, GPU-<uuid>, MIG-<uuid>. */
int smoke_gpu_entry_ok(const char *s);
/*
 * --gpu values as given (each may be a list, "0,1", or "all") into `rq`
 * and `list`: all, several entries in `list`, or one index alone as
 * rq->gpu (the single-GPU run). -1 after naming a bad entry.
 */
int smoke_gpus_parse(const struct strvec *set, struct smoke_request *rq, struct strvec *list);
/* How many checks failed in a --gpu all result, each GPU's and across. */
size_t smoke_multi_failed(const struct json *r);
/*
 * probes/generic-extension.py: the runtime check of a package with no probe
 * of its own (import with its torch, load its libraries, list and call its
 * torch.ops); the same for `bwbuild smoke` and the build's smoke step.
 */
char *smoke_generic_probe(void);

/* Put `runtime` (taken) into the manifest at `path` under "runtime", atomically. */
int smoke_manifest_merge(const char *path, struct json *runtime);

#endif
