#!/bin/sh
# The benchmarks of issue 13 on a machine with a real torch installed (the
# GPU machine): bwbuild archs against cuobjdump over torch/lib, and verify of
# the installed torch repacked into a wheel against Python's RECORD check.
# usage: scripts/bench-device.sh [TORCH_DIR]   (default: the one python3 imports)
set -eu
cd "$(dirname "$0")/.."
BW=${BW:-$PWD/bin/bwbuild}
T=${1:-$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')}
CU=$(command -v cuobjdump || true)
for c in /usr/local/cuda*/bin/cuobjdump; do
	[ -n "$CU" ] || [ ! -x "$c" ] || CU=$c
done
if [ -z "$CU" ]; then
	CU=$(python3 -c 'import nvidia.cuda_cuobjdump as m,os;print(os.path.join(os.path.dirname(m.__file__),"bin","cuobjdump"))' 2>/dev/null || true)
fi
echo "== bwbuild archs vs cuobjdump: $T/lib"
# A mismatch fails the run, after the verify benchmark.
archs=0
python3 scripts/bench_archs.py "$T/lib" "$BW" ${CU:+"$CU"} || archs=$?
# The repacked wheel is kept for the next run (BENCH_DIR, default build/bench/device).
D=${BENCH_DIR:-build/bench/device}
mkdir -p "$D"
W=""
for w in "$D"/*.whl; do
	[ -n "$W" ] || [ ! -f "$w" ] || W=$w
done
[ -n "$W" ] || W=$(python3 scripts/repack_installed.py "$T" "$D")
echo "== verify of the repacked torch"
sh scripts/bench-verify.sh "$W"
[ "$archs" = 0 ] || { echo "bench-device: bwbuild archs and cuobjdump disagree (above)" >&2; exit 1; }
