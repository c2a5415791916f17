#ifndef BWBUILD_SELARCH_H
#define BWBUILD_SELARCH_H

#include <stddef.h>

#include "core/strvec.h"

struct buf;

/*
 * What a PyTorch tree's select_compute_arch.cmake (the CMake that turns
 * TORCH_CUDA_ARCH_LIST into -gencode flags) accepts, read from its text
 * without running CMake:
 *   - the numeric form: the regex of `if(arch_name MATCHES "^...$")` in
 *     CUDA_SELECT_NVCC_ARCH_FLAGS (v2.6.0: "^([0-9]+\.[0-9]a?(...)?)$");
 *   - the regex that keeps each entry's digits and suffix afterwards
 *     (`string(REGEX MATCHALL "[0-9()]+a?" cuda_arch_bin ...)`);
 *   - the names (`${arch_name} STREQUAL "Blackwell"` -> set(arch_bin 10.0));
 *   - the top-level lists CUDA_KNOWN/COMMON/ALL_GPU_ARCHITECTURES with the
 *     CUDA-version conditions (`if(CUDA_VERSION VERSION_GREATER "12.6")`,
 *     `NOT ... VERSION_LESS`, AND of those, else/elseif) they are built under.
 * Conditions bwbuild cannot evaluate (OR, other variables) make the list
 * changes under them "uncertain": counted, never applied.
 */
enum selarch_list { SELARCH_KNOWN, SELARCH_COMMON, SELARCH_ALL, SELARCH__LISTS };

struct selarch_lit {
	int cmp;       /* -1 LESS, 0 EQUAL, 1 GREATER, -2 LESS_EQUAL, 2 GREATER_EQUAL */
	unsigned ver;  /* major*100+minor */
	int negate;
};

#define SELARCH_MAX_LITS 16

struct selarch_op {
	enum selarch_list list;
	int remove;                 /* list(REMOVE_ITEM); set() is a clear then add */
	int clear;                  /* set(): the list starts over */
	struct strvec items;
	unsigned line;
	struct selarch_lit lits[SELARCH_MAX_LITS];
	size_t nlits;
	int unknown;                /* under a condition bwbuild does not evaluate */
	char *cond;                 /* the condition as written, for messages ("" at top level) */
};

struct selarch_name {
	char *name;
	struct strvec bin;
	unsigned line;
};

struct selarch {
	char *numeric_re;       /* unescaped CMake regex; NULL when not found */
	unsigned numeric_line;
	char *bin_re;           /* the MATCHALL over cuda_arch_bin; NULL when not found */
	unsigned bin_line;
	struct selarch_name *names;
	size_t nnames, names_alloc;
	struct selarch_op *ops;
	size_t nops, ops_alloc;
};

/*
 * Read `text`. Never fails on bad bytes: what is not understood is left
 * out. Returns 0 when the numeric form was found (the file can answer
 * whether an entry is accepted), -1 otherwise.
 */
int selarch_parse(struct selarch *sa, const char *text, size_t len);
void selarch_release(struct selarch *sa);

/*
 * Whether the tree takes `entry` ("12.0", "10.0f"; no "+PTX"): 1 it does,
 * 0 it does not (`why` says what its numeric form is), -1 the regex uses
 * syntax bwbuild does not evaluate (then the knowledge table decides).
 */
int selarch_accepts(const struct selarch *sa, const char *entry, struct buf *why);

/*
 * Whether the suffix of an accepted entry survives into -gencode ("100f"
 * whole under MATCHALL "[0-9()]+[af]?"; cut to "100" under "[0-9()]+a?"):
 * 1 kept, 0 dropped, -1 not known (no such regex, or not evaluable).
 */
int selarch_keeps(const struct selarch *sa, const char *digits);

/*
 * The lists as CMake builds them for CUDA `cuda` (major*100+minor); list
 * changes under conditions bwbuild cannot evaluate are counted in
 * *uncertain (may be NULL) and not applied.
 */
void selarch_lists(const struct selarch *sa, unsigned cuda, enum selarch_list which,
		   struct strvec *out, size_t *uncertain);

/* The name whose arch_bin holds `arch` ("12.0" -> "Blackwell"), or NULL. */
const struct selarch_name *selarch_name_of(const struct selarch *sa, const char *arch);

/* The first list change that adds `item` to `which` for `cuda`, or NULL. */
const struct selarch_op *selarch_added_by(const struct selarch *sa, unsigned cuda,
					  enum selarch_list which, const char *item);

/* Where trees keep it, relative to the tree: PyTorch's path, then the example's. */
extern const char *const selarch_paths[];

#endif
