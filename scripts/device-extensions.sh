#!/bin/sh
# Issue 14's proof on a GPU machine with torch installed (no network):
#  1. pytorch/extension-cpp built by bwbuild for 9.0;12.0+PTX against the
#     installed torch, verified --against it, its archs listed by bwbuild
#     and by cuobjdump, its op run on the GPU;
#  2. Dao-AILab/causal-conv1d built by bwbuild for 9.0 through the shipped
#     patch series (patches/causal-conv1d), and then as its README says
#     (every arch setup.py lists, MAX_JOBS=$(nproc)), each measured by
#     scripts/measure_tree.py (wall time, peak memory of the process tree).
#
#   sh scripts/device-extensions.sh SRCDIR RESULTDIR
# SRCDIR holds extension-cpp.git and causal-conv1d.git (bare clones);
# bin/bwbuild must run here (LD_LIBRARY_PATH set by the caller).
set -u
t0=$(date +%s)
deadline=${DEADLINE:-570}
src=$(cd "$1" && pwd)
res=$2
mkdir -p "$res"
res=$(cd "$res" && pwd)
top=$(pwd)
BW="$top/bin/bwbuild"
M="python3 $top/scripts/measure_tree.py"
torch=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')
ncpu=$(nproc)
log() { echo "== $*" | tee -a "$res/steps.txt"; }
log "torch $torch, $ncpu CPUs, $(nvidia-smi --query-gpu=name --format=csv,noheader)"
nvcc --version | tail -2 >>"$res/steps.txt"

work=/tmp/bwx
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat >ext.yaml <<YAML
extends: $top/profiles/extension-cpp.yaml
name: extension-cpp
torch: $torch
source:
  repo: $src/extension-cpp.git
cuda:
  archs: "9.0;12.0+PTX"
YAML
cat >cc.yaml <<YAML
extends: $top/profiles/causal-conv1d.yaml
name: causal-conv1d
torch: $torch
source:
  repo: $src/causal-conv1d.git
cuda:
  archs: ["9.0"]
  ptx: none
YAML

log "1. extension-cpp for 9.0;12.0+PTX"
$M extension-cpp-bwbuild "$res/measure.jsonl" -- "$BW" --profile ext.yaml >"$res/ext.out" 2>"$res/ext.err"
echo "rc=$?" >>"$res/steps.txt"
ew=$(sed -n 's/^wheel: *//p' "$res/ext.out")
if [ -n "$ew" ]; then
	cp "$ew" "$res/"
	cp "$(sed -n 's/^manifest: *//p' "$res/ext.out")" "$res/ext.manifest.json"
	"$BW" verify "$ew" --against "$torch" >"$res/ext.verify" 2>&1; echo "verify --against rc=$?" >>"$res/steps.txt"
	"$BW" archs "$ew" >"$res/ext.archs" 2>&1
	"$BW" manifest "$ew" --format md >"$res/ext.md" 2>&1
	rm -rf /tmp/xc && mkdir /tmp/xc && python3 -m zipfile -e "$ew" /tmp/xc
	for so in $(find /tmp/xc -name '*.so'); do
		echo "$so" && cuobjdump --list-elf --list-ptx "$so"
	done >"$res/ext.cuobjdump" 2>&1
	PYTHONPATH=/tmp/xc python3 - >"$res/ext.op" 2>&1 <<'PY'
import torch, extension_cpp
a = torch.randn(1 << 20, device="cuda"); b = torch.randn(1 << 20, device="cuda")
r = extension_cpp.ops.mymuladd(a, b, 0.5)
ok = torch.allclose(r, a * b + 0.5)
print("extension_cpp", extension_cpp.__file__, "on", torch.cuda.get_device_name(),
      "mymuladd ok" if ok else "mymuladd WRONG", float((r - (a * b + 0.5)).abs().max()))
PY
	echo "op rc=$?" >>"$res/steps.txt"
fi

log "2a. causal-conv1d for 9.0 through patches/causal-conv1d (bwbuild, MAX_JOBS from the budget)"
$M causal-conv1d-bwbuild-9.0 "$res/measure.jsonl" -- "$BW" --profile cc.yaml >"$res/cc.out" 2>"$res/cc.err"
echo "rc=$?" >>"$res/steps.txt"
cw=$(sed -n 's/^wheel: *//p' "$res/cc.out")
cp "$work/work/causal-conv1d/logs/compile.log" "$res/cc.compile.log" 2>/dev/null
if [ -n "$cw" ]; then
	cp "$(sed -n 's/^manifest: *//p' "$res/cc.out")" "$res/cc.manifest.json"
	"$BW" verify "$cw" --against "$torch" >"$res/cc.verify" 2>&1; echo "verify --against rc=$?" >>"$res/steps.txt"
	"$BW" archs "$cw" >"$res/cc.archs" 2>&1
	rm -rf /tmp/cc && mkdir /tmp/cc && python3 -m zipfile -e "$cw" /tmp/cc
	PYTHONPATH=/tmp/cc python3 - >"$res/cc.op" 2>&1 <<'PY'
import torch, torch.nn.functional as F
from causal_conv1d import causal_conv1d_fn
x = torch.randn(2, 64, 512, device="cuda"); w = torch.randn(64, 4, device="cuda"); b = torch.randn(64, device="cuda")
r = causal_conv1d_fn(x, w, b, activation="silu")
ref = F.silu(F.conv1d(x, w.unsqueeze(1), b, padding=3, groups=64)[..., :512])
print("causal_conv1d_fn", "ok" if torch.allclose(r, ref, atol=1e-4) else "WRONG", float((r - ref).abs().max()))
PY
	echo "op rc=$?" >>"$res/steps.txt"
fi

log "2b. causal-conv1d as its README says: CAUSAL_CONV1D_FORCE_BUILD=TRUE MAX_JOBS=$ncpu pip wheel ."
rm -rf /tmp/ccr && git clone -q "$src/causal-conv1d.git" /tmp/ccr
cd /tmp/ccr
left=$((deadline - ($(date +%s) - t0)))
echo "README build given ${left}s" >>"$res/steps.txt"
CAUSAL_CONV1D_FORCE_BUILD=TRUE MAX_JOBS=$ncpu $M causal-conv1d-readme-all "$res/measure.jsonl" -- \
	timeout "$left" python3 -m pip wheel --no-build-isolation --no-deps --no-index -w /tmp/ccr/dist . >"$res/ccr.log" 2>&1
echo "rc=$?" >>"$res/steps.txt"
rw=$(ls /tmp/ccr/dist/*.whl 2>/dev/null | head -1)
if [ -n "$rw" ]; then
	"$BW" archs "$rw" >"$res/ccr.archs" 2>&1
	"$BW" verify "$rw" --against "$torch" >"$res/ccr.verify" 2>&1; echo "readme wheel verify --against rc=$?" >>"$res/steps.txt"
fi
log done
