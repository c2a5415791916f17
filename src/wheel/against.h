#ifndef BWBUILD_AGAINST_H
#define BWBUILD_AGAINST_H

#include "core/strvec.h"

struct json;
struct wheel_expect;
struct wheel_report;

/*
 * The torch an extension is built against (verify --against): read from
 * its wheel or its installed directory (site-packages/torch), never from
 * a list in bwbuild. Its sonames and exported dynamic symbols come from
 * its torch/lib libraries, its version from the wheel's name (or
 * .dist-info), its CUDA and commit from torch/version.py, its
 * _GLIBCXX_USE_CXX11_ABI from its libraries' std::string symbols.
 */
/* One library of a torch: what it exports and what it loads (DT_NEEDED). */
struct torch_lib {
	char *soname;
	struct strvec needed;
	struct strvec symbols;    /* sorted set */
};

struct torch_ref {
	char *path;
	char *name;               /* "torch" (a torch-shaped package of another name is taken too) */
	char *package;            /* its import directory, where its libraries are: "torch" */
	char *version;            /* "2.11.0+cu130" */
	char sha256[65];          /* of the wheel; "" for a directory */
	char *cuda;               /* version.py's cuda: "13.0"; NULL for a CPU build */
	char *commit;             /* version.py's git_version */
	int cxx11_abi;            /* 1 new, 2 old, 0 unknown */
	struct strvec sonames;    /* sorted set: libc10.so, libtorch.so, ... */
	struct strvec symbols;    /* sorted set of every symbol its libraries export */
	struct torch_lib *libs;   /* each library's own, for an extension's DT_NEEDED closure */
	size_t nlibs;
	struct strvec sass, ptx;  /* unions over its libraries: what it runs on */
	char *targets;            /* the same as one line: "SASS sm_90 sm_120; PTX compute_120" */
	char *dist_info;          /* a directory's .dist-info beside it (absolute); NULL for a wheel */
};

/* -1 after reporting (not a torch wheel or directory). */
int torch_ref_load(struct torch_ref *t, const char *path);
void torch_ref_release(struct torch_ref *t);

/*
 * The rules an extension wheel (already verified into `r`, with torch's
 * sonames accepted as provided) must keep against `t`, errors into
 * r->errors: torch's sonames only with "Requires-Dist: torch==<version>"
 * in METADATA (unless !check_pin: a build pins it when it repacks); no torch library bundled; every undefined c10/at/torch/
 * caffe2 symbol exported by that torch; every other undefined symbol
 * defined by a library of the extension library's DT_NEEDED closure
 * (torch's, the wheel's own, CUDA's and the system's, found as the loader
 * would) or the interpreter's C API (Py*, _Py*); the CUDA major of torch (the C++
 * ABI is verify's own check, given torch's as the one expected). -1 when
 * the wheel cannot be read again (reported).
 */
int against_check(struct wheel_report *r, const char *wheel, const struct torch_ref *t,
		  int check_pin);

/*
 * verify/manifest --against: `wheel` verified with `ex` plus torch's sonames
 * provided and (when `ex` expects none) torch's C++ ABI, then against_check.
 * -1 when the wheel cannot be read (reported).
 */
int against_verify(struct wheel_report *r, const char *wheel, struct wheel_expect *ex,
		   const struct torch_ref *t);

/* {version, wheel_sha256 or directory, cuda, commit} for the manifest's "torch". */
struct json *torch_ref_json(const struct torch_ref *t);

#endif
