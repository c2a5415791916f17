#ifndef BWBUILD_REPAIR_H
#define BWBUILD_REPAIR_H

#include <stddef.h>

#include "core/strvec.h"

struct buf;
struct cuda_dist;
struct json;

/*
 * The repair of a wheel, as auditwheel repair does it: every shared
 * library a member needs (DT_NEEDED) that is neither in the wheel, nor on
 * the manylinux or CUDA allow-lists, nor provided by the package the wheel
 * builds on (an extension's torch) is copied in from this machine, with
 * what it needs in turn, under a soname made unique by its content
 * ("libgomp.so.1" -> "libgomp-1a2b3c4d.so.1", the first 8 hex digits of the
 * file's sha256) into "<package>.libs/" at the wheel's top; each member
 * that needs one gets DT_NEEDED rewritten to the new soname and a
 * $ORIGIN-relative RUNPATH entry to that directory. A library is looked up
 * as the dynamic loader would: the member's absolute RUNPATH/RPATH
 * entries, LD_LIBRARY_PATH, ld.so.conf, the default directories; the
 * file found must be an ELF of the member's class and machine. A library
 * the base package (an extension's torch) already carries under the same
 * hashed name, the same file, is not copied again: the member is pointed
 * at that copy (DT_NEEDED renamed, RUNPATH into the package's libs
 * directory), so one process loads one libgomp, not two.
 * CUDA's own libraries (cudart, cuBLAS, cuDNN, NCCL, ...) take one of
 * three forms (`cuda_libs`): the pip form, as PyTorch's own wheels, adds
 * Requires-Dist on the NVIDIA package that installs each (found from this
 * machine's copy, wheel/cudalibs.h) and a RUNPATH entry into its
 * site-packages/nvidia/<dir>/lib to every member that needs it; the
 * vendor form copies them in under their own sonames (cuDNN and NVRTC
 * dlopen their siblings by name, so no hashed name), with the siblings;
 * the system form leaves them to the installing machine. In every form,
 * a RUNPATH entry naming a directory of the build machine goes.
 * The ELF editing is patchelf's (argv, never a shell).
 */
struct repair_lib {
	char *soname;   /* as the members need it: "libgomp.so.1" */
	char *from;     /* the file copied in (links resolved) */
	char *name;     /* "libgomp-1a2b3c4d.so.1" */
	char *member;   /* "torch.libs/libgomp-1a2b3c4d.so.1" */
	char *sha256;   /* hex, of the file copied in */
	int provided;   /* the base package carries this very file under `name` already: not copied */
	struct strvec needed_by; /* the members (or vendored sonames) that need it */
	struct strvec needs;     /* the sonames it needs in turn (its DT_NEEDED, each once) */
};

struct repair_result {
	struct repair_lib *libs;
	size_t n;
	struct strvec patched; /* members whose DT_NEEDED/RUNPATH were rewritten */
	struct cuda_dist *cuda; /* the pip form: the packages declared for CUDA's libraries */
	size_t ncuda;
	unsigned cuda_major;    /* the CUDA the wheel's libraries were built with; 0: none needed */
	struct strvec requires; /* Requires-Dist values added to METADATA */
	int rewritten;          /* the wheel was written anew into the directory (else left as it is) */
};

struct repair_opts {
	const struct strvec *provided; /* sonames the wheel's base package provides, or NULL */
	const char *provided_libs;     /* where that package's repaired libraries lie ("torch.libs"), or NULL */
	const char *scratch;           /* a directory of bwbuild's own for the edited copies */
	const char *patchelf;          /* the program; NULL: "patchelf" on PATH */
	const char *ld_library_path;   /* as $LD_LIBRARY_PATH; NULL: none */
	const char *ldconf;            /* "/etc/ld.so.conf"; NULL: the defaults only */
	long long epoch;               /* the rewritten wheel's member time */
	int cuda_libs;                 /* enum cuda_libs_form (wheel/cudalibs.h); UNSET is PIP */
	unsigned cuda_major;           /* the toolkit's major; 0: from the sonames the wheel needs */
	const struct strvec *requires; /* more Requires-Dist values ("triton==3.2.0; ..."), or NULL */
};

/*
 * Repair the wheel at `in` into the directory `dir` (through a temporary
 * name: the file name stays); the new path into `out`. A wheel that needs
 * nothing is left as it is (`out` = `in`, res->n == 0). -1 with the reason
 * in `why`: a library that cannot be found names the member that needs it
 * and where it was looked for.
 */
int wheel_repair(const char *in, const char *dir, const struct repair_opts *o,
		 struct repair_result *res, struct buf *out, struct buf *why);
void repair_result_release(struct repair_result *res);
/* [{soname, member, from, sha256, needed_by}] for the manifest. */
struct json *repair_result_json(const struct repair_result *res);

/* {form, cuda, packages: [{soname, dist, version, dir, requirement, source}], requires} for the manifest. */
struct json *repair_cuda_json(const struct repair_result *res, int form);

/* "libgomp-1a2b3c4d.so.1" for "libgomp.so.1" and a sha256 hex: the name auditwheel gives. */
void repair_hashed_name(const char *soname, const char *sha256, struct buf *out);

#endif
