#ifndef BWBUILD_POLE_H
#define BWBUILD_POLE_H

struct buf;
struct strvec;

/*
 * The long pole (launch_pole_cores, admit.h), src/launch/'s alone: how many
 * cores a CUDA compile could use, and its gencodes: --threads up to one
 * per gencode (the objects' bytes do not change), and with
 * BWBUILD_LAUNCH_SPLIT=on --split-compile for the rest (nvcc records it in
 * the cubin's notes: the bytes then depend on when the unit ran). A
 * command that already says --threads (causal-conv1d's setup.py passes
 * --threads 4, whatever its gencodes) keeps it and gets no other, but may
 * still be split; one that says --split-compile is left alone. 1 for
 * anything else, and once the learned `times` say the extra cores did not
 * pay (`pkey`, "pole:KEY", no faster than `key` by 10 %).
 */
unsigned launch_pole_want(char *const *argv, const char *times, const char *key, const char *pkey,
			  unsigned slots, unsigned *gencodes);
/* The command with the long pole's flags after nvcc into `out`; what they are into `said`. */
void launch_pole_args(char *const *argv, unsigned cores, unsigned gencodes, struct strvec *out,
		      struct buf *said);

#endif
