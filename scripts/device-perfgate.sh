#!/bin/sh
# Issue 24's perf gate on a GPU machine with torch installed: the installed
# torch smoked twice, unchanged (two manifests whose "runtime" holds each
# benchmark's median of --reps repetitions and their spread), diffed: the
# gate must say they agree. Then the second run's benchmarks scaled to 90 %
# (a 10 % regression of every one, at the noise the GPU really showed),
# diffed: the gate must flag each. Results (JSON, text, exit codes) in RESULTDIR.
#
#   sh scripts/device-perfgate.sh RESULTDIR
# bin/bwbuild must run here; from a Debian build, carry the libraries ldd
# lists in .dev/libs (LD_LIBRARY_PATH is set below).
set -u
res=$1
mkdir -p "$res"
export LD_LIBRARY_PATH="$PWD/.dev/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BW="$PWD/bin/bwbuild"
torch=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv >"$res/gpu.txt" 2>&1
"$BW" manifest "$torch" -o "$res/base.json" >"$res/manifest.out" 2>&1
echo "manifest $?" >>"$res/rc.txt"
for run in a b; do
	cp "$res/base.json" "$res/$run.json"
	t0=$(date +%s)
	"$BW" smoke "$torch" --gpu 0 --timeout 60 --manifest "$res/$run.json" >"$res/smoke-$run.out" 2>&1
	echo "smoke-$run $? $(( $(date +%s) - t0 ))s" >>"$res/rc.txt"
done
"$BW" diff "$res/a.json" "$res/b.json" >"$res/diff-unchanged.out" 2>&1
echo "diff-unchanged $?" >>"$res/rc.txt"
python3 - "$res/b.json" "$res/r.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for b in m["runtime"]["benchmarks"]:
    b["value"] = round(b["value"] * 0.9, 3)
json.dump(m, open(sys.argv[2], "w"), indent=1)
PY
"$BW" diff "$res/a.json" "$res/r.json" >"$res/diff-regressed.out" 2>&1
echo "diff-regressed $?" >>"$res/rc.txt"
python3 - "$res/a.json" "$res/b.json" >"$res/noise.txt" <<'PY'
import json, sys
a, b = (json.load(open(p))["runtime"] for p in sys.argv[1:])
bb = {x["name"]: x for x in b["benchmarks"]}
for x in a["benchmarks"]:
    y = bb.get(x["name"])
    if y:
        print("%-20s a %9.1f (spread %5.2f %%, %s)  b %9.1f (spread %5.2f %%)  change %+6.2f %%" % (
            x["name"], x["value"], x.get("spread_percent") or 0, x.get("reps"), y["value"],
            y.get("spread_percent") or 0, (y["value"] - x["value"]) / x["value"] * 100))
PY
