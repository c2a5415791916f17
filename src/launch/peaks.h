#ifndef BWBUILD_PEAKS_H
#define BWBUILD_PEAKS_H
/*
 * The launcher's own estimates and learned peaks (launch/peaks.c): what a
 * compile is, what it will take, what it took. Private to src/launch/.
 */
#include <stdint.h>

struct buf;

/*
 * Whether a compile is one of CMake's probes (try_compile, check_*,
 * compiler identification), from its arguments and working directory:
 * under CMakeFiles/CMakeScratch/TryCompile-*, CMakeFiles/CMakeTmp or
 * CMakeFiles/<version>/CompilerId*. Probes are run at once and never learned.
 */
int launch_is_probe(char *const *argv, const char *cwd);

/*
 * The tree's version key: the release part of <src>/version.txt
 * ("2.6.0a0" -> "2.6.0"), "unknown" without one.
 */
void launch_tree_version(const char *src_dir, struct buf *out);

/*
 * The archs a compile builds for, as TORCH_CUDA_ARCH_LIST spells them,
 * sorted: "9.0;12.0+PTX" from -gencode arch=compute_90,code=sm_90 ...; "-"
 * for a compile without gencodes.
 */
void launch_archs(char *const *argv, struct buf *out);

/*
 * A seed table: text lines of whitespace-separated fields
 *	PATH KIND ARCHS PEAK_MB SECONDS VERSION
 * PATH relative to the source tree, KIND as launch_kind names it (or
 * "-"), ARCHS as launch_archs spells them, PEAK_MB the measured peak RSS
 * of the compile's process tree in MiB, SECONDS its wall time, VERSION
 * the tree's version key. '#' starts a comment line. The peak in bytes of
 * the line for (path, archs, version), 0 when none; the largest wins.
 */
uint64_t launch_seed_lookup(const char *text, const char *path, const char *archs,
			    const char *version);
/* The same line's SECONDS in milliseconds, 0 when none. */
uint64_t launch_seed_ms(const char *text, const char *path, const char *archs,
			const char *version);

/*
 * The key of a compile: its source relative to `root` plus a hash of the
 * flags that change its memory (archs, --threads, -G, -O, -lineinfo).
 * The source is the argument after -c (else the last .c/.cc/.cpp/.cu).
 */
void launch_key(char *const *argv, const char *root, struct buf *key, struct buf *source);

/* The cold estimate (memmodel.h): C/C++, CUDA scaled by gencodes and --threads, heavy kernels. */
uint64_t launch_estimate(char *const *argv, const char *source);

/*
 * The kind of a compile, for estimates of files never compiled before:
 * "kind:cxx", "kind:cxx-heavy", "kind:cuda-g3-t1", "kind:cuda-heavy-g3-t1"
 * (language, heavy kernels, gencode count, nvcc --threads). The largest
 * peak seen for a kind in this work directory bounds the cold estimate of
 * the next compile of that kind (a PyTorch tree has thousands of alike
 * C++ files; after the first few the default 2 GiB guess is replaced).
 */
void launch_kind(char *const *argv, const char *source, struct buf *kind);

/* Learned peaks: "key bytes" lines ("kind:... bytes samples" for kinds). */
uint64_t peaks_get(const char *text, const char *key);
/* The samples a kind line counts (its third field), 0 when none. */
unsigned peaks_samples(const char *text, const char *key);
/*
 * The estimate of a compile: its own learned peak + 10 %; else a seed's
 * peak + 10 %; else its kind's largest peak + 25 % when the kind has
 * LAUNCH_KIND_MIN_SAMPLES real samples and that is below the default;
 * else the default `est`. `learned` is the table's text, `seed` the seed
 * peak in bytes (0: none).
 */
uint64_t launch_estimate_from(const char *learned, const char *key, const char *kind, uint64_t seed,
			      uint64_t est);
/* Rise at once, decay slowly: new = old > peak ? (9*old + peak) / 10 : peak. */
uint64_t peaks_learn(uint64_t old, uint64_t peak);
/*
 * A learned table `text` (NULL: none) with `key` learned as `value` into
 * `out`: every other key's row as it was, then the key's (a kind keeps
 * the largest value and counts its samples; `force`: the value as it is).
 * A line that is no row ("KEY NUMBER", "kind:NAME NUMBER NUMBER") is
 * dropped: one cut short or planted was carried on by every rewrite.
 */
void peaks_rewrite(const char *text, const char *key, uint64_t value, int force, struct buf *out);

#endif
