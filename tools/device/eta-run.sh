#!/bin/sh
# eta-run.sh KIT WORK [TARGETS]: issue 43's ETA and critical path on a GPU
# machine (no network), from the repository's root, with KIT made by
# scripts/offline-kit.sh. bwbuild builds the v2.6.0 bundle with the sm120
# profile of cuda-env.sh (flash attention off) up to TARGETS (default:
# c10, c10_cuda, oneDNN and FBGEMM) from a fresh work directory, ccache
# off; every line it prints is stamped with the time it came. Then:
#   scripts/eta-accuracy.py: the ETA it printed at 10, 50 and 90 % of the
#     steps against when the compile really ended;
#   scripts/critical-path.py: the compile's critical path, busy time over
#     the cores, and makespan (the build directory's .ninja_log).
# Run twice with two WORK directories: the second run's ETA weighs the
# units by the times the first taught the launcher (its peaks store is
# the user's, under ~/.cache/bwbuild, shared by both).
# Writes WORK-eta/: trace.txt, eta.txt, critical.txt, build.log.
set -u
[ $# -ge 2 ] || { echo "usage: $0 KIT WORK [TARGETS]" >&2; exit 2; }
KIT=$1
work=$2
targets=${3:-c10 c10_cuda dnnl fbgemm}
res="${work%/}-eta"
mkdir -p "$res"
# shellcheck source=tools/device/cuda-env.sh
. "$(dirname "$0")/cuda-env.sh"
prof="$res/profile.yaml"
write_profile "$prof" off
printf 'build:\n  cache: none\n' >>"$prof"
t0=$(date +%s)
"$kit/bin/bwbuild" build --profile "$prof" --bundle "$kit/bundle.tar.zst" --work "$work" \
	--no-preflight --targets "$(echo "$targets" | tr ' ' ',')" 2>&1 | while IFS= read -r line; do
	printf '%s 0 %s\n' "$(date +%s)" "$line"
done >"$res/trace.txt"
echo "bwbuild build --targets '$targets': $(($(date +%s) - t0)) s" | tee "$res/summary.txt"
cut -d' ' -f3- "$res/trace.txt" >"$res/build.log"
grep -E 'configure: done|compile: done|error' "$res/build.log" | head -n 5 | tee -a "$res/summary.txt"
python3 scripts/eta-accuracy.py "$res/trace.txt" 10 25 50 75 90 >"$res/eta.txt" 2>&1
clog=$(find "$work" -path '*/logs/compile.log' | head -n 1)
bdir=$(sed -n 's/^# cd //p' "$clog" | head -n 1)/build
# shellcheck disable=SC2086 # $targets: target names, split on purpose
python3 scripts/critical-path.py "$bdir" $targets --cores "$(nproc)" --top 8 >"$res/critical.txt" 2>&1
cat "$res/eta.txt" "$res/critical.txt"
