#!/bin/sh
# The benchmarks of issue 13 on a machine with a real torch installed (the
# GPU machine): bwbuild archs against cuobjdump over torch/lib, and verify of
# the installed torch repacked into a wheel against Python's RECORD check.
# usage: scripts/bench-device.sh [TORCH_DIR]   (default: the one python3 imports)
set -eu
cd "$(dirname "$0")/.."
BW=${BW:-$PWD/bin/bwbuild}
T=${1:-$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')}
CU=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -n 1 || true)
if [ -z "$CU" ]; then
	CU=$(python3 -c 'import nvidia.cuda_cuobjdump as m,os;print(os.path.join(os.path.dirname(m.__file__),"bin","cuobjdump"))' 2>/dev/null || true)
fi
echo "== bwbuild archs vs cuobjdump: $T/lib"
python3 scripts/bench_archs.py "$T/lib" "$BW" ${CU:+"$CU"} || true
D=${BENCH_TMP:-/tmp}/bwbuild-bench
mkdir -p "$D"
W=$(ls "$D"/*.whl 2>/dev/null | head -n 1 || true)
[ -n "$W" ] || W=$(python3 scripts/repack_installed.py "$T" "$D")
echo "== verify of the repacked torch"
sh scripts/bench-verify.sh "$W"
