#ifndef BWBUILD_REPAIR_PRIV_H
#define BWBUILD_REPAIR_PRIV_H

/*
 * The insides of a repair (wheel/repair.c) that the CUDA forms
 * (wheel/repair_cuda.c) share: the members read, the context, the
 * loader-like lookup. Only the repair family includes it.
 */
#include <stdint.h>

#include "core/strhash.h"
#include "core/strvec.h"
#include "formats/zip.h"
#include "wheel/cudalibs.h"
#include "wheel/repair.h"

struct buf;

/* A library vendored at most this deep (libA needs libB needs ...): real chains are 2-3. */
#define REPAIR_DEPTH 16
/* At most this many libraries copied in: a wheel that would need more is refused. */
#define REPAIR_MAX 256
/* At most this many distinct directories searched for a member's libraries (RUNPATH and the loader's). */
#define REPAIR_DIRS 256

/* An ELF member of the wheel and what it needs. */
struct elf_member {
	const struct zip_entry *e;
	struct strvec needed;
	char *runpath;   /* RUNPATH, else RPATH; NULL */
	uint16_t machine;
	int vendored_any;
};

struct repair_ctx {
	const struct repair_opts *o;
	struct zip z;
	struct elf_member *m;
	size_t nm;
	struct strvec basenames;  /* every member's file name: "in the wheel" */
	struct strhash in_wheel;  /* the same, looked up in O(1): 22,000 members were 13 s sorted */
	struct strvec dirs;       /* where libraries are looked for after a member's own */
	struct repair_result *res;
	struct buf *why;
	int form;                 /* enum cuda_libs_form, UNSET taken as PIP */
	int keep_names;           /* vendoring what is dlopened by name ("libnvrtc-builtins.alt.so.13.0"): no hashed name */
	struct cuda_dist_index ix;
	struct strvec cuda_dirs;  /* the pip form: every package's directory, each once */
};

/* Whether `soname` comes from outside the wheel and the allow-lists (what repair copies in). */
int is_external(const struct repair_ctx *c, const char *soname);
/*
 * `dir/soname` if it is an ELF of `machine`: 1, with its path, DT_NEEDED and
 * (if asked) DT_SONAME; one for another machine named into `other` (if asked).
 */
int try_candidate(const char *dir, const char *soname, uint16_t machine, struct buf *real,
		  struct strvec *needed, struct buf *own_soname, struct buf *other);
/* A member's RUNPATH directories, then the loader's, each once; -1 past REPAIR_DIRS. */
int search_dirs(const struct repair_ctx *c, const char *member, const char *runpath,
		struct strvec *out);
/* Whether `soname` can be looked for at all; -1 with why. */
int soname_ok(struct repair_ctx *c, const char *soname, const char *by);
/* `soname` (needed by `by`) found in `dirs` and added to the result, with what it needs. */
int vendor(struct repair_ctx *c, const char *soname, const char *by, const struct strvec *dirs,
	   uint16_t machine, int depth);

/* repair_cuda.c: the vendor form's dlopen siblings; the pip form's packages; RUNPATHs of the build machine. */
int vendor_siblings(struct repair_ctx *c, uint16_t machine);
int needs_cuda(const struct repair_ctx *c, const struct elf_member *m);
int declare_all(struct repair_ctx *c);
int has_absolute(const char *runpath);
int any_absolute(const struct repair_ctx *c);

#endif
