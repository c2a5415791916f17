#ifndef BWBUILD_MEMMODEL_H
#define BWBUILD_MEMMODEL_H

#include <stdint.h>

/*
 * The memory model the plan (MAX_JOBS, FLASH_ATTENTION_MAX_JOBS) and the
 * launcher (admission) share: what one compile is taken to need before
 * anything has been measured (docs/design/scheduling.md §2, §7).
 */

#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

/*
 * The plan's estimates of one compile's peak (docs/design/scheduling.md §2):
 * ordinary C++ 1-2 GB; nvcc grows with the number of targets it compiles
 * for; flash-attention-class kernels take 4.5-5.3 GB per process.
 */
#define EST_CXX (1536 * MiB)
#define EST_CUDA_BASE (1024 * MiB)
#define EST_CUDA_PER_TARGET (512 * MiB)
#define EST_HEAVY (5 * GiB + 512 * MiB)

/*
 * The launcher's cold-start reservations (docs/design/scheduling.md §7), per
 * compile until its peak is learned; CUDA ones are scaled by gencodes and
 * --threads (docs/design/scheduling.md §2).
 */
#define EST_LAUNCH_CXX (2 * GiB)
#define EST_LAUNCH_CUDA (3 * GiB)
#define EST_LAUNCH_HEAVY (6 * GiB)
/*
 * What a compile sent to a remote host holds here until its own is
 * learned: distcc's local preprocessing (cpp of a PyTorch unit: 0.1-0.4 GB).
 */
#define EST_LAUNCH_PRE (512 * MiB)
/* Peaks below this are cache hits or trivia: not learned. */
#define LEARN_MIN (64 * MiB)
/*
 * Real compiles of a kind before its largest peak may bound the estimate
 * of the kind's unseen files below the default: a few small files (a
 * protobuf-lite unit at 200 MB) say nothing about ATen's 2 GB ones
 * (issue 22: they set C++ reservations to 251 MB).
 */
#define LAUNCH_KIND_MIN_SAMPLES 8

/*
 * Whether a source path (or a ninja description naming one) is of the
 * heavy kernels: flash and memory-efficient attention, CUTLASS, FMHA,
 * MSLK, FBGEMM GPU and GenAI. The one list behind the cold estimate, the
 * kind and the ETA's weights (pipeline/eta.c); defined in launch/peaks.c.
 */
int launch_is_heavy(const char *source);

#endif
