#!/bin/sh
# cuda-build.sh KIT WORK [SECONDS] [FLASH]: the whole CUDA wheel of PyTorch
# v2.6.0 on the GPU machine (no network), from the repository's root, with
# KIT made by scripts/offline-kit.sh (bwbuild, its libraries, the bundle):
# `bwbuild build --bundle` from fetch to publish, profile and environment
# from tools/device/cuda-env.sh, flash and memory-efficient attention FLASH
# (default off), up to UNTIL (default verify: smoke is cuda-prove.sh's, then
# UNTIL=publish). It stops itself after SECONDS (default 560: a device
# command has 600), and the same command run again goes on where it
# stopped (bwbuild resumes: the work directory is kept while the machine
# is). What it measured goes to WORK-run/ (beside the work directory
# bwbuild owns): build.log (every run's output), summary.txt, and once the
# wheel is made (WORK/dist; published: WORK-run/dist) archs.txt and
# verify.txt; `free` and the peak of /proc/meminfo's used memory are
# sampled every 5 s into mem.txt.
set -u
[ $# -ge 2 ] || { echo "usage: $0 KIT WORK [SECONDS] [FLASH]" >&2; exit 2; }
start=$(date +%s)
work=$2
secs=${3:-560}
run="${work%/}-run"
mkdir -p "$run/dist"
# shellcheck source=tools/device/cuda-env.sh
KIT=$1
. "$(dirname "$0")/cuda-env.sh"
prof="$run/sm120-v2.6.0.yaml"
[ -f "$prof" ] || write_profile "$prof" "${4:-off}"
# Memory, every 5 s, while the build runs (the peak is the largest "used").
(while :; do
	printf '%s %s\n' "$(date +%s)" "$(free -b | awk '/^Mem:/ { print $3 }')"
	sleep 5
done) >>"$run/mem.txt" &
sampler=$!
left=$((secs - ($(date +%s) - start)))
[ "$left" -gt 30 ] || left=30
t0=$(date +%s)
timeout -s TERM -k 20 "$left" "$kit/bin/bwbuild" build --profile "$prof" \
	--bundle "$kit/bundle.tar.zst" --work "$work" --out "$run/dist" --no-preflight \
	--until "${UNTIL:-verify}" --mem-budget "${MEM_BUDGET:-400G}" >>"$run/build.log" 2>&1
rc=$?
kill "$sampler" 2>/dev/null
echo "bwbuild build: exit $rc after $(($(date +%s) - t0)) s ($(date -u +%H:%M:%S))" >>"$run/summary.txt"
whl=
for f in "$work"/dist/torch-*.whl "$run"/dist/torch-*.whl; do [ -f "$f" ] && whl=$f; done
if [ -n "$whl" ]; then
	"$kit/bin/bwbuild" archs "$whl" >"$run/archs.txt" 2>&1
	"$kit/bin/bwbuild" verify "$whl" >"$run/verify.txt" 2>&1
	ls -l "$whl" >>"$run/summary.txt"
	sha256sum "$whl" >>"$run/summary.txt"
fi
awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { printf "peak used memory: %.1f GiB\n", m / 1073741824 }' \
	"$run/mem.txt" >>"$run/summary.txt"
tail -n 25 "$run/build.log"
cat "$run/summary.txt"
