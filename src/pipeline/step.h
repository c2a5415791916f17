#ifndef BWBUILD_STEP_H
#define BWBUILD_STEP_H

#include "wheel/against.h"
#include "core/buf.h"
#include "pipeline/build.h"
#include "pipeline/era.h"
#include "sources/git.h"
#include "sources/patch.h"
#include "pipeline/plan.h"
#include "profile/profile.h"
#include "host/toolchain.h"
#include "wheel/verify.h"

struct build_opts;
struct json;
struct proc;

/*
 * What the steps of one build share. Each field says which step fills
 * it; a later step reads what an earlier one left.
 */
struct build {
	const struct build_opts *opts;
	struct profile profile;
	struct plan plan;
	struct buf python;            /* compile's check: the interpreter that builds */
	struct buf pythonpath;        /* compile's check, fetch: the prefix the tree's build needs first on PYTHONPATH */
	struct buf wheel_prefix;      /* compile's check: the prefix build.python needs to build wheels at all */
	int cmake_policy;             /* fetch: CMake 4 and a CMakeLists.txt below 3.5 (CMAKE_POLICY_VERSION_MINIMUM) */
	const struct era_ops *era;    /* fetch: how this tree builds */
	struct repo_tree_info tree;    /* fetch: commit and submodules */
	struct patch_set patches;     /* fetch */
	struct buf commit;            /* fetch: "none" outside git */
	struct buf version;           /* fetch: PYTORCH_BUILD_VERSION, empty for the tree's own */
	long long epoch;              /* fetch: SOURCE_DATE_EPOCH (the commit's time), -1 unknown */
	struct json *source;          /* fetch: what the manifest's "source" gains */
	struct json *bundle_meta;     /* fetch from --bundle: the bundle's metadata (sources/bundle.h) */
	struct torch_ref torch;       /* fetch's check, kind: extension: the torch it builds on */
	int have_torch;
	struct buf torch_site;        /* fetch, kind: extension: that torch, importable privately */
	struct json *effective;       /* configure: features_effective */
	struct toolchain toolchain;   /* fetch or configure: the compilers and tools, with versions */
	struct json *recoveries;      /* compile: OOM recoveries */
	struct json *cache;           /* compile: this build's ccache counts, or NULL */
	int staging_stale;            /* a compile or wheel step before this run did not finish */
	int outputs_open;             /* configure on: this run writes into a --source tree (outputs.c) */
	struct buf wheel;             /* wheel: the wheel in <work>/dist */
	struct json *vendored;        /* repair: the libraries copied in (repair_result_json), or NULL */
	struct json *cuda_libs;       /* repair: CUDA's libraries, how the wheel gets them (repair_cuda_json), or NULL */
	struct wheel_report report;   /* verify */
	int have_report;
	struct json *runtime;         /* smoke: the result on this machine's GPU, or NULL */
	int smoke_failed;             /* smoke: a check failed (the wheel is not published) */
	double seconds[STEP__COUNT];
	double start;
	int borrowed;                 /* profile and plan are another build's: build_release leaves them */
};

/*
 * A step: `check` runs for every step before the first one starts (what
 * it will need, so a missing tool stops the build before an hour of
 * compiling), `run` does the work. Both return 0 or -1 after reporting.
 */
struct build_step {
	int (*check)(struct build *b);
	int (*run)(struct build *b);
	/* The exit status when the check fails: EXIT_USAGE where it judges the input (diag.h). */
	int check_fails;
};

/* The context of one build of `o`, and everything it holds released (src/pipeline/context.c). */
void build_init(struct build *b, const struct build_opts *o);
void build_release(struct build *b);
/*
 * A context of its own over `b`'s profile and plan (borrowed, not copied:
 * build_release of `t` leaves them to `b`), for a check that fills what a
 * build would without touching `b` (uptodate.c).
 */
void build_init_from(struct build *t, const struct build *b);

int fetch_run(struct build *b);                 /* src/pipeline/fetch.c */
int bundle_fetch(struct build *b);              /* src/pipeline/bundle.c: --bundle */
/* The up-to-date check's view of a --bundle tree (src/pipeline/bundle.c); -1 with why. */
int bundle_recall(struct build *t, struct buf *why);
int extension_check(struct build *b);           /* src/pipeline/extension.c: kind: extension */
int extension_tree(struct build *b);
/* Requested vs effective archs of an extension's libraries, into the report's errors. */
void extension_verify(struct build *b, int repacked);
/*
 * The version the wheel gets (b->version, src/pipeline/version.c): the release of a release tag
 * (release_version) or version.txt, with wheel.version_suffix or else the
 * variant label; empty for a tree that does not read PYTORCH_BUILD_VERSION.
 */
int wheel_version(struct build *b);
/* The first line of the tree's version.txt into `out`; -1 (quietly) when it has none. */
int version_txt_read(const char *src, struct buf *out);
/* "2.6.0" into `out` for the ref v2.6.0 over a version.txt of "2.6.0a0": 1; else 0. */
int release_version(const char *ref, const char *version_txt, struct buf *out);
/*
 * "+git<commit7>.<accel>.<profile>.<hash>" (accel: cu130, cpu; no git part
 * without a commit; hash: inputs_label's, none when NULL).
 */
void wheel_variant_label(const char *commit, const char *accel, const char *profile,
			 const char *hash, struct buf *out);
/*
 * What bwbuild's own build wrote into the tree, told from its local
 * changes (src/pipeline/outputs.c, <work>/outputs.*): loaded before the
 * tree is read (fetch, the up-to-date check), begun where the build
 * starts writing into it (configure), ended with the run, reset by a new
 * checkout. outputs_begin: -1 after reporting.
 */
void outputs_load(const struct build *b);
int outputs_begin(struct build *b);
void outputs_end(const struct build *b);
void outputs_reset(const struct build *b);
int configure_run(struct build *b);             /* src/pipeline/configure.c */
/*
 * After a configure: read back what CMake decided, then remember its
 * settings in configure.stamp (src/pipeline/settle.c).
 */
int configure_settle(struct build *b);
/* configure.stamp's path, and the text it holds for `b`: what can change what configure decides. */
void configure_stamp_path(const struct build *b, struct buf *out);
void configure_stamp_text(const struct build *b, struct buf *out);
int compile_check(struct build *b);             /* src/pipeline/compile.c */
/*
 * The build environment the tree at `src` asks for (NULL: bwbuild's table
 * for a real PyTorch release, before its tree is here; pyenv.h), checked
 * against b->python: b->pythonpath set to the prefix it needs, if any.
 * -1 after naming what is missing, the version asked and how to get it
 * (src/pipeline/pyenv_check.c: the fetch and the compile check use it).
 */
int python_env_check(struct build *b, const char *src);
int compile_run(struct build *b);
int package_run(struct build *b);               /* src/pipeline/package.c */
int repair_check(struct build *b);              /* src/pipeline/repair_step.c */
int repair_run(struct build *b);
/* "triton==3.2.0; platform_system == \"Linux\"" for a tree that pins its Triton: 1; else 0. */
int triton_requirement(const char *src_dir, struct buf *out);
int verify_run(struct build *b);                /* src/pipeline/verify_step.c */
int smoke_step_run(struct build *b);            /* src/pipeline/smoke_step.c */
int publish_check(struct build *b);             /* src/pipeline/publish.c */
int publish_run(struct build *b);

/*
 * Run one step's command with its log (<work>/logs/<step>.log, appended
 * when p->append_log), progress from ninja's "[n/m]" lines, and on
 * failure the command, how it ended and the tail of its output (unless
 * p->defer_failure). 0 or -1.
 */
int step_command(enum step step, const struct plan *pl, struct proc *p);
/* The same, its ETA from the weighted work ahead (src/pipeline/eta.h); NULL: the step's rate. */
struct eta_plan;
int step_command_eta(enum step step, const struct plan *pl, struct proc *p, struct eta_plan *eta);
/* The report step_command defers: command, status, last lines, log path. */
void step_failed(enum step step, const struct plan *pl, const struct proc *p);
/*
 * The line that says why a step went wrong (a full disk, an arch nvcc
 * lacks...), from its log and, for configure, CMake's own logs; printed as
 * "error: cause: LINE" with what to do. 1 when one was found.
 */
int step_cause(enum step step, const struct plan *pl);
/* The plan's environment, with the wheel's version when the profile sets one (step_env_of). */
void step_env(struct proc *p, const struct build *b);
/*
 * b->toolchain probed in the steps' environment, once: at the fetch of a
 * torch tree (its wheel's label names them, inputs_label), else at configure.
 */
void step_toolchain(struct build *b);

#endif
