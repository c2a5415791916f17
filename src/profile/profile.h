#ifndef BWBUILD_PROFILE_H
#define BWBUILD_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "profile/arch.h"
#include "core/diag.h"

/*
 * A build profile (profiles/<name>.yaml), loaded with libyaml, merged along
 * its `extends:` chain and validated. Every value keeps the file, line and
 * column it came from, so later steps can point at it. All strings are
 * owned by the profile and live until profile_release().
 */

/*
 * The features, one line each: the enum, the key under features: and the
 * CMake option / environment switch. The enum, feature_table and the
 * features rows of profile_keys are all made from this one list.
 */
#define PROFILE_FEATURES(X)                                                          \
	X(FEAT_CUDA, "cuda", "USE_CUDA")                                             \
	X(FEAT_CUDNN, "cudnn", "USE_CUDNN")                                          \
	X(FEAT_NCCL, "nccl", "USE_NCCL")                                             \
	X(FEAT_DISTRIBUTED, "distributed", "USE_DISTRIBUTED")                        \
	X(FEAT_FBGEMM, "fbgemm", "USE_FBGEMM")                                       \
	X(FEAT_FLASH_ATTENTION, "flash_attention", "USE_FLASH_ATTENTION")            \
	X(FEAT_MEM_EFF_ATTENTION, "mem_eff_attention", "USE_MEM_EFF_ATTENTION")      \
	/* The same kernels under two names: USE_FBGEMM_GENAI in 2.9-2.10, USE_MSLK from 2.11. */ \
	X(FEAT_MSLK, "mslk", "USE_MSLK")                                             \
	X(FEAT_FBGEMM_GENAI, "fbgemm_genai", "USE_FBGEMM_GENAI")                     \
	X(FEAT_KINETO, "kineto", "USE_KINETO")                                       \
	X(FEAT_MKLDNN, "mkldnn", "USE_MKLDNN")                                       \
	X(FEAT_NUMPY, "numpy", "USE_NUMPY")                                          \
	X(FEAT_BUILD_TEST, "build_test", "BUILD_TEST")

enum feature {
#define FEATURE_ENUM(e, key, option) e,
	PROFILE_FEATURES(FEATURE_ENUM)
#undef FEATURE_ENUM
	FEAT__COUNT
};

struct feature_info {
	const char *key;      /* profile key under features: */
	const char *option;   /* the CMake option / environment switch */
};
extern const struct feature_info feature_table[FEAT__COUNT];

enum tri { TRI_UNSET = 0, TRI_OFF, TRI_ON };

struct pvalue {
	const char *str; /* NULL when unset */
	struct loc loc;
};

struct pkv {
	const char *key;
	const char *val;
	struct loc loc;
};

struct parch {
	struct arch arch;
	const char *text;
	struct loc loc;
};

/* verify.exceptions: a library allowed to lack some targets, and why. */
struct pexception {
	const char *library;   /* a member path (torch/lib/x.so) or a file name (x.so) */
	const char **missing;  /* target names: sm_75, compute_120 */
	size_t nmissing;
	const char *reason;
	struct loc loc;
};

struct pnode;

struct profile {
	const char *path;       /* the file named on the command line */
	struct pvalue name;
	struct pvalue description;
	struct pvalue kind;         /* "torch" (unset) or "extension" */
	struct pvalue torch;        /* kind: extension: a torch profile, a torch wheel or site-packages/torch */
	struct pvalue source_repo;  /* resolved: relative paths made absolute */
	struct pvalue source_ref;
	struct pvalue source_patches; /* project of a patch series (patches/<project>/), or unset/"" */
	struct pvalue source_mirrors; /* a directory of bare mirrors; resolved like source_repo */
	const char **submodules_exclude; /* source.submodules.exclude: paths from the top */
	size_t nsubmodules_exclude;
	struct parch *archs;        /* normalized: sorted, deduplicated */
	size_t narchs;
	int archs_given;            /* cuda.archs was set (maybe with bad entries) */
	struct pvalue cuda_home;
	struct pvalue cuda_version; /* the toolkit the profile is meant for, "13.0" */
	struct pvalue cuda_ptx;     /* "newest" (unset: the newest arch should have +PTX) or "none" */
	enum tri features[FEAT__COUNT];
	struct loc feature_loc[FEAT__COUNT];
	struct pkv *cmake;
	size_t ncmake;
	long jobs;                  /* 0 = auto */
	struct loc jobs_loc;
	uint64_t mem_budget;        /* 0 = auto */
	struct loc mem_budget_loc;
	struct pvalue python;
	struct pvalue host_arch;    /* build.host_arch: the machine it builds on, "x86_64" or "aarch64"; unset: any */
	struct pvalue python_path;  /* build.python_path: a directory first on the build's PYTHONPATH; resolved */
	enum tri launcher;          /* build.launcher; unset = on */
	struct loc launcher_loc;
	enum tri split_compile;     /* build.split_compile: the long pole may get nvcc --split-compile */
	struct loc split_compile_loc;
	struct pvalue cache;        /* build.cache: "ccache" or "none" */
	struct pvalue cache_remote; /* build.cache_remote: redis://HOST:PORT */
	struct pvalue remote;       /* build.remote: distccd hosts (profile/hostlist.h) or a file of them */
	struct pkv *build_env;      /* build.env: allowed variables only (build_env_refusal) */
	size_t nbuild_env;
	struct pvalue version_suffix;
	struct pvalue platform;     /* wheel.platform: auto, linux, manylinux_2_X */
	enum tri repair;            /* wheel.repair: copy in what the libraries need; unset = on */
	struct loc repair_loc;
	struct pvalue cuda_libs;    /* wheel.cuda_libs: pip (unset), vendor or system */
	enum tri cxx11_abi;         /* build.cxx11_abi; unset = on (PyTorch since 2.6) */
	struct loc cxx11_abi_loc;
	struct pexception *exceptions;
	size_t nexceptions;
	struct pkv *runtime_env;
	size_t nruntime_env;

	/* internal */
	struct pnode *root;
	char **files;               /* strings the profile owns: file paths, arch entries */
	size_t nfiles, files_cap;
	char *repo_abs;
};

/*
 * Every key a profile may set, one row each, in the order the "known keys"
 * lists name them. Validation walks the merged YAML tree (--set values
 * included: they are merged into it first) through this table, and
 * tests/unit/t_profile.c checks that docs/profile-format.md names every row.
 */
enum profile_key_kind {
	KEY_STRING,  /* a struct pvalue at off */
	KEY_ARCHS,   /* cuda.archs: a list or one ';'-separated string, into archs */
	KEY_FEATURE, /* on/off into features[off] and feature_loc[off] */
	KEY_SWITCH,  /* on/off: an enum tri at off, its struct loc at aux */
	KEY_JOBS,    /* 'auto' or 1-4096: a long at off (0 = auto), its struct loc at aux */
	KEY_SIZE,    /* 'auto' or a size: a uint64_t at off (0 = auto), its struct loc at aux */
	KEY_MAP,     /* NAME: value pairs: a struct pkv * at off, their count (size_t) at aux */
	KEY_ENV,     /* build.env: a KEY_MAP whose names build_env_refusal allows */
	KEY_EXCEPTIONS, /* verify.exceptions: a list of {library, missing, reason} */
	KEY_SUBMODULES, /* source.submodules: {exclude: [paths]} */
	KEY_EXTENDS, /* the parent profile, taken out by the loader before validation */
};

struct profile_key {
	const char *section;  /* NULL at the top level */
	const char *key;
	enum profile_key_kind kind;
	size_t off;           /* offsetof into struct profile, or a feature index */
	size_t aux;
	/* A further check of a KEY_STRING, or NULL: 0 refuses, with why in `why` when it can say. */
	int (*valid)(const char *value, struct buf *why);
	const char *expect;   /* "'KEY' EXPECT, not 'VALUE'" when the value is refused */
	const char *doc;
};
extern const struct profile_key profile_keys[];

/*
 * Why `name` cannot be set under build.env (a key bwbuild sets itself, or
 * one it does not know to change the build), or NULL when it may.
 */
const char *build_env_refusal(const char *name);
extern const size_t profile_nkeys;

/*
 * Find a profile by name ("demo": profiles/ in the working directory, then
 * bwbuild's own profiles/, then each directory of $BWBUILD_PROFILE_PATH) or
 * by path (anything with a '/' or ending in .yaml). -1 after reporting.
 */
int profile_find(char **path_out, const char *spec);
/* The directories profile_find searches, in order. */
struct strvec;
void profile_search_path(struct strvec *dirs);

/*
 * Load, merge and validate. Reports every problem it finds (not just the
 * first) with file:line:col and returns -1 if there was any.
 */
int profile_load(struct profile *out, const char *spec);
/* The same, with --set KEY=VALUE overrides (dotted keys) applied last. */
struct strvec;
int profile_load_set(struct profile *out, const char *spec, const struct strvec *sets);
void profile_release(struct profile *p);

/*
 * `s` as a message shows a value from a profile: whole up to
 * PROFILE_ECHO_MAX bytes, else its first ones and "...(N bytes)" (a 10 MB
 * name is not printed whole). Returns b->s.
 */
#define PROFILE_ECHO_MAX 80
const char *profile_echo(struct buf *b, const char *s);

/* "TORCH_CUDA_ARCH_LIST" value of the profile, e.g. "8.0;12.0+PTX". */
void profile_arch_list(const struct profile *p, struct buf *out);

/* 1 if PyTorch's build front-end forwards NAME from the environment to CMake. */
int cmake_name_forwarded(const char *name);

/* glibc minor a wheel.platform value demands: manylinux_2_28 -> 28; 0 for auto/linux; -1 invalid. */
int profile_platform_glibc(const char *s);

/* kind: extension (a package built on a torch). */
int profile_is_extension(const struct profile *p);
/* Whether `torch:` names a profile (a name, a .yaml) rather than a wheel or a directory. */
int profile_torch_is_profile(const struct profile *p);
/*
 * `torch:` as a person types it: the profile's name ('sm120') when
 * --profile with that name finds that very file from here, else the path
 * or wheel as loaded (NULL when unset). The caller frees it.
 */
char *profile_torch_shown(const struct profile *p);
/* `src`'s cuda.archs into `dst` (an extension's default: its torch profile's), each keeping its file:line:col. */
void profile_inherit_archs(struct profile *dst, const struct profile *src);

#endif
