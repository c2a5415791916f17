#ifndef BWBUILD_ARCH_H
#define BWBUILD_ARCH_H

struct buf;

/*
 * One TORCH_CUDA_ARCH_LIST entry in the numeric form PyTorch's
 * select_compute_arch.cmake accepts: "X.Y", "X.Ya", "X.Yf", each with an
 * optional "+PTX". X.Y is compute capability major.minor (one-digit minor).
 */
struct arch {
	int major;
	int minor;
	char variant; /* 0, 'a' (exact-target) or 'f' (family) */
	int ptx;      /* "+PTX": also embed PTX for forward compatibility */
};

/*
 * Parse `text`. On failure returns -1 and writes a one-line reason with a
 * suggestion ("did you mean '12.0'?") to `why`; nothing is printed.
 */
int arch_parse(struct arch *out, const char *text, struct buf *why);

/* "sm_120a" */
void arch_sass_name(const struct arch *a, struct buf *out);
/* "compute_120a" */
void arch_ptx_name(const struct arch *a, struct buf *out);
/* "12.0a+PTX" (the canonical TORCH_CUDA_ARCH_LIST spelling) */
void arch_format(const struct arch *a, struct buf *out);
/* Order by major, minor, variant; ptx ignored. */
int arch_cmp(const struct arch *a, const struct arch *b);

#endif
