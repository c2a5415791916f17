#!/bin/sh
# `make bench-verify`: bwbuild verify against the peers on one wheel, in one
# run. usage: scripts/bench-verify.sh [WHEEL]   (default: a synthetic wheel
# of BENCH_MB MiB, 512 unless set, written to build/bench/). Prints wall time
# and peak memory (max RSS of the process tree) per tool.
set -eu
cd "$(dirname "$0")/.."
BW=${BW:-$PWD/bin/bwbuild}
PY=${PYTHON:-python3}
wheel=${1:-}
if [ -z "$wheel" ]; then
	wheel=build/bench/bench-1.0-cp311-cp311-linux_x86_64.whl
	[ -f "$wheel" ] || $PY scripts/bench_wheel.py "$wheel" "${BENCH_MB:-512}"
fi
$PY - "$wheel" "$BW" "$PY" <<'PYEOF'
import os, resource, subprocess, sys, time
wheel, bw, py = sys.argv[1:4]
cpus = len(os.sched_getaffinity(0))
runs = [
    ("bwbuild verify --threads 1", [bw, "verify", "--threads", "1", wheel]),
    ("bwbuild verify (%d threads)" % cpus, [bw, "verify", wheel]),
    ("bwbuild verify --deep (%d threads)" % cpus, [bw, "verify", "--deep", wheel]),
    ("peer: zipfile+hashlib RECORD check (pip/installer's way)", [py, "scripts/record_check.py", wheel]),
    ("peer: python3 -m zipfile -t (CRC only)", [py, "-m", "zipfile", "-t", wheel]),
]
size = os.path.getsize(wheel)
print("wheel: %s (%.1f MiB compressed), %d CPUs" % (os.path.basename(wheel), size / 2**20, cpus))
print("| tool | wall s | max RSS MiB | exit |")
print("|---|---|---|---|")
for name, cmd in runs:
    # Each measurement in its own child so RUSAGE_CHILDREN is that tool's alone.
    probe = ("import resource,subprocess,sys,time;t=time.monotonic();"
             "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL).returncode;"
             "print(time.monotonic()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r)")
    out = subprocess.run([sys.executable, "-c", probe] + cmd, capture_output=True, text=True).stdout.split()
    print("| %s | %.2f | %.0f | %s |" % (name, float(out[0]), int(out[1]) / 1024, out[2]))
PYEOF
