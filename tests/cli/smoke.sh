# bwbuild smoke without a GPU (CI never has one): the documented exit 3 and
# message; then the C side's duties with recorded probes on
# BWBUILD_PROBE_PATH: the report, --json/-o/--manifest, a hung check killed
# by its timeout and the probe run again past it, a probe that dies.
. "$(dirname "$0")/lib.sh"
# A small real wheel of a package named minitorch (no CUDA library in it).
minitorch_wheel "$TMP" 'import os' "_lib_dir = os.path.join(os.path.dirname(__file__), 'lib')" \
	'def load_library(name):' '    import ctypes' "    return ctypes.CDLL(os.path.join(_lib_dir, 'lib%s.so' % name))"
whl="$TMP/minitorch-2.11.0-py3-none-any.whl"
run 0 "$BW" verify "$whl"

# No GPU here: the shipped probe imports the package, finds no CUDA device,
# and smoke says so with its own status; nothing is left in TMPDIR.
mkdir -p "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" run 3 "$BW" smoke "$whl"
contains "$TMP/out" "✅ import               minitorch 2.11.0 from $TMP/tmpdir/bwbuild-smoke-"
contains "$TMP/out" "❌ cuda "
contains "$TMP/err" "error: no usable GPU: "
contains "$TMP/err" "(exit 3: nothing beyond the import was run)"
[ -z "$(ls "$TMP/tmpdir")" ] || fail "smoke left its private install behind"

# A recorded probe (an H100's answers): the report, peaks from the knowledge base.
mkdir -p "$TMP/probes"
cat > "$TMP/probes/smoke-minitorch.py" <<'PY'
import os, sys
args = " ".join(sys.argv[1:])
lines = [
    '{"start": "import"}', '{"check": "import", "status": "ok", "reason": "minitorch 2.11.0"}',
    '{"info": {"gpu": {"name": "NVIDIA H100 80GB HBM3", "capability": "sm_90", "driver": "580.159.04"}}}',
    '{"start": "cuda"}', '{"check": "cuda", "status": "ok", "reason": "1 GPU"}',
    '{"start": "kernel"}', '{"check": "kernel", "status": "ok", "reason": "ran"}',
    '{"start": "torch_compile"}', '{"check": "torch_compile", "status": "warn", "reason": "Triton is not importable"}',
    '{"start": "forward_compat"}', '{"check": "forward_compat", "status": "fail", "reason": "no PTX for this GPU"}',
    '{"start": "bench:gemm_fp16"}', '{"bench": "gemm_fp16", "value": %s, "unit": "TFLOPS", "dtype": "fp16", "shape": "8192x8192x8192"}' % os.environ.get("GEMM", "720.3"),
]
if os.environ.get("FIXED"):
    lines[10] = '{"check": "forward_compat", "status": "ok", "reason": "PTX JIT runs"}'

print("noise the probe's libraries print")
for l in lines:
    print("@bwbuild " + l)
print("args:", args, file=sys.stderr)
PY
BWBUILD_PROBE_PATH="$TMP/probes" run 1 "$BW" smoke "$whl" -o "$TMP/r.json"
contains "$TMP/out" "gpu: NVIDIA H100 80GB HBM3 (sm_90), driver 580.159.04"
contains "$TMP/out" "⚠️ torch_compile        Triton is not importable"
contains "$TMP/out" "❌ forward_compat       no PTX for this GPU"
contains "$TMP/out" "| gemm_fp16 | 8192x8192x8192 | 720.3 TFLOPS | 73 % of 990 |"
# verify's static answer for sm_90 (no CUDA library: nothing that cannot run) agrees with the run.
contains "$TMP/out" "✅ static_vs_runtime    verify --target-gpu sm_90 says yes, and the kernels ran"
contains "$TMP/err" "error: 1 check failed"
python3 - "$TMP/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "failed" and r["gpu"]["capability"] == "sm_90", r
st = {c["name"]: c["status"] for c in r["checks"]}
assert st == {"import": "ok", "cuda": "ok", "kernel": "ok", "torch_compile": "warn",
              "forward_compat": "fail", "static_vs_runtime": "ok"}, st
(b,) = r["benchmarks"]
assert b["peak"] == 989.5 and b["percent_of_peak"] == 72.7, b
PY
# Into a manifest's runtime section (atomically), keeping the rest.
printf '{"schema": "bwbuild-manifest/1", "wheel": {"file": "x.whl"}}\n' > "$TMP/m.json"
BWBUILD_PROBE_PATH="$TMP/probes" run 1 "$BW" smoke "$whl" --manifest "$TMP/m.json"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["wheel"]["file"] == "x.whl" and m["runtime"]["status"] == "failed", m' "$TMP/m.json"
run 0 "$BW" manifest "$TMP/m.json" --format md
contains "$TMP/out" "## On the GPU: NVIDIA H100 80GB HBM3 (sm_90), driver 580.159.04"
contains "$TMP/out" "| forward_compat | ❌ | no PTX for this GPU |"
contains "$TMP/out" "| gemm_fp16 | 8192x8192x8192 | 720.3 TFLOPS | 73 % |"
# diff gates on runtime: a check that changed, a benchmark slower than the tolerance.
cp "$TMP/m.json" "$TMP/m2.json"
FIXED=1 GEMM=600 BWBUILD_PROBE_PATH="$TMP/probes" run 0 "$BW" smoke "$whl" --manifest "$TMP/m2.json"
run 1 "$BW" diff "$TMP/m.json" "$TMP/m2.json"
contains "$TMP/out" "runtime check forward_compat: fail -> ok"
contains "$TMP/out" "runtime benchmark gemm_fp16: 720.3 -> 600.0 TFLOPS (-16.7 %, slower than the tolerance allows)"
run 1 "$BW" diff "$TMP/m.json" "$TMP/m2.json" --perf-tolerance 20% --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["runtime"]; assert d["benchmarks"] == [] and d["checks"][0]["b"] == "ok", d' "$TMP/out"
run 2 "$BW" diff "$TMP/m.json" "$TMP/m2.json" --perf-tolerance fast
contains "$TMP/err" "--perf-tolerance 'fast' is not a percentage such as 10%"
# Without a GPU (the shipped probe here) a manifest's runtime is left as it was...
cp "$TMP/m2.json" "$TMP/m3.json"
run 3 "$BW" smoke "$whl" --manifest "$TMP/m3.json"
contains "$TMP/err" "note: '$TMP/m3.json' was not changed: without a GPU there are no runtime results"
cmp -s "$TMP/m2.json" "$TMP/m3.json" || fail "smoke without a GPU rewrote the manifest's runtime"
# ... and a no_gpu runtime never agrees with one that ran: its status and the checks it never ran differ.
python3 - "$TMP/m2.json" "$TMP/m4.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["runtime"]["status"] = "no_gpu"
m["runtime"]["checks"] = [c for c in m["runtime"]["checks"] if c["name"] == "import"]
m["runtime"]["benchmarks"] = []
json.dump(m, open(sys.argv[2], "w"))
PY
run 1 "$BW" diff "$TMP/m2.json" "$TMP/m4.json"
contains "$TMP/out" "runtime status: ok -> no_gpu"
contains "$TMP/out" "runtime check kernel: ok -> (not run)"
contains "$TMP/out" "builds differ"

# A check that hangs is killed after --timeout and failed; the probe runs
# again without it and the later checks still run. One that kills the probe too.
# The timeout counts from the probe's start, Python's own start-up included:
# 20 s, not 2 or 8, so a loaded machine (a python3 start-up of 3 s beside
# other builds) cannot time out the checks before it; the hang sleeps 60.
# It runs beside the rest of the suite (its own probe directory and
# output), which fills the 20 s it waits; its checks are at the end.
mkdir -p "$TMP/probes-hang"
cat > "$TMP/probes-hang/smoke-minitorch.py" <<'PY'
import os, sys, time
skip = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--skip=")), "").split(",")
def say(s):
    print("@bwbuild " + s, flush=True)
for name in ("import", "hangs", "dies", "after"):
    if name in skip:
        continue
    say('{"start": "%s"}' % name)
    if name == "hangs":
        time.sleep(60)
    if name == "dies":
        print("Segmentation fault in the driver", file=sys.stderr, flush=True)
        os.kill(os.getpid(), 9)
    say('{"check": "%s", "status": "ok", "reason": "fine"}' % name)
PY
rm -f "$TMP/hang.rc"
(
	rc=0
	BWBUILD_PROBE_PATH="$TMP/probes-hang" "$BW" smoke "$whl" --timeout 20 --json \
		>"$TMP/hang.out" 2>"$TMP/hang.err" || rc=$?
	echo "$rc" >"$TMP/hang.rc"
) &
hang=$!
at_exit "pkill -f '$TMP/probes-hang/' 2>/dev/null"
hang_checks() {
	wait "$hang"
	[ "$(cat "$TMP/hang.rc")" = 1 ] || { cat "$TMP/hang.out" "$TMP/hang.err"; fail "smoke of a hanging probe exited $(cat "$TMP/hang.rc"), expected 1"; }
	pass
	python3 - "$TMP/hang.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in r["checks"]}
assert c["hangs"]["status"] == "fail" and "timed out: no word from the probe for 20 s; killed" in c["hangs"]["reason"], c
assert c["dies"]["status"] == "fail" and "was killed by signal 9" in c["dies"]["reason"], c
assert "Segmentation fault in the driver" in c["dies"]["reason"], c
assert c["after"]["status"] == "ok" and r["restarts"] == 2, r
PY
	if pgrep -f "$TMP/probes-hang/smoke-minitorch.py" >/dev/null; then fail "a hung probe outlived smoke"; fi
}

# Usage: no such target; a package without a probe.
run 2 "$BW" smoke "$TMP/nothing.whl"

# The build's smoke step: skipped without a GPU; with one the wheel covers
# (a fake nvidia-smi saying 12.0, a recorded probe) the checks go into the
# manifest's "runtime"; a failed check keeps the wheel from --out.
ex="$TMP/example58"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$ex/minitorch.git" v2.11.0
export BWBUILD_CACHE_DIR="$TMP/cache58"
printf 'extends: %s/profiles/demo.yaml\nname: s58\nsource:\n  repo: %s/minitorch.git\n' "$TOP" "$ex" > "$TMP/s58.yaml"
mkdir -p "$TMP/nogpu"
printf '#!/bin/sh\nexit 9\n' > "$TMP/nogpu/nvidia-smi" && chmod +x "$TMP/nogpu/nvidia-smi"
PATH="$TMP/nogpu:$PATH" run 0 "$BW" --profile "$TMP/s58.yaml" --work "$TMP/w58" --out "$TMP/o58"
contains "$TMP/err" "smoke: skipped: no GPU here (run 'bwbuild smoke' on the wheel where one is)"
mkdir -p "$TMP/gpu"
printf '#!/bin/sh\necho 9.0\necho 12.0\n' > "$TMP/gpu/nvidia-smi" && chmod +x "$TMP/gpu/nvidia-smi"
cat > "$TMP/probes/smoke-minitorch.py" <<'PY'
import os
for l in ['{"info": {"gpu": {"name": "NVIDIA GeForce RTX 5090", "capability": "sm_120", "driver": "580.95.05"}}}',
          '{"check": "import", "status": "ok", "reason": "fine"}', '{"check": "cuda", "status": "ok", "reason": "fine"}',
          '{"check": "kernel", "status": "ok", "reason": "ran"}',
          '{"check": "forward_compat", "status": "%s", "reason": "JIT"}' % os.environ.get("FC", "ok")]:
    print("@bwbuild " + l)
PY
rm -rf "$TMP/o58" "$TMP/w58/last-build.json"   # else the pair in <work>/dist is published again
touch "$TMP/w58/src/csrc/cpu/ops.cpp"
PATH="$TMP/gpu:$PATH" BWBUILD_PROBE_PATH="$TMP/probes" run 0 "$BW" --profile "$TMP/s58.yaml" --work "$TMP/w58" --out "$TMP/o58"
contains "$TMP/err" "  ✅ static_vs_runtime    verify --target-gpu sm_120 says yes, and the kernels ran"
python3 - "$TMP/o58" <<'PY'
import glob, json, sys
(m,) = glob.glob(sys.argv[1] + "/*.manifest.json")
r = json.load(open(m))["runtime"]
assert r["status"] == "ok" and r["gpu"]["name"] == "NVIDIA GeForce RTX 5090", r
assert [c["name"] for c in r["checks"]][-1] == "static_vs_runtime", r
PY
rm -rf "$TMP/o58" "$TMP/w58/last-build.json"   # else the pair in <work>/dist is published again
touch "$TMP/w58/src/csrc/cpu/ops.cpp"
FC=fail PATH="$TMP/gpu:$PATH" BWBUILD_PROBE_PATH="$TMP/probes" run 1 "$BW" --profile "$TMP/s58.yaml" --work "$TMP/w58" --out "$TMP/o58"
contains "$TMP/err" "publish: not published to $TMP/o58: the wheel failed smoke"
contains "$TMP/err" "error: the wheel failed on this machine's GPU (bwbuild smoke)"

# Issue 39: a CPU-only wheel (features.cuda off: no CUDA library, no fatbin)
# built where nvidia-smi lists GPUs is judged by what it contains: the
# shipped probe's CPU checks, none of CUDA, and it is published. Before,
# its cuda check failed (torch.cuda.is_available() is False on a CPU
# wheel) and publish refused a correct wheel.
printf 'extends: %s/profiles/demo.yaml\nname: s58cpu\nsource:\n  repo: %s/minitorch.git\nfeatures:\n  cuda: off\n  flash_attention: off\n  mem_eff_attention: off\n' "$TOP" "$ex" > "$TMP/s58cpu.yaml"
PATH="$TMP/gpu:$PATH" run 0 "$BW" --profile "$TMP/s58cpu.yaml" --work "$TMP/w58c" --out "$TMP/o58c"
contains "$TMP/err" "smoke: on the CPU: the wheel has no CUDA (the profile says features.cuda: off; no CUDA library, no fatbin)"
contains "$TMP/err" "  ✅ cpu_ops              minitorch_version() = 2.11.0 from libminitorch_cpu.so"
python3 - "$TMP/o58c" <<'PY'
import glob, json, sys
(m,) = glob.glob(sys.argv[1] + "/*.manifest.json")
r = json.load(open(m))["runtime"]
assert r["status"] == "ok" and r["device"] == "cpu", r
assert [c["name"] for c in r["checks"]] == ["import", "cpu_ops"], r
PY
# By hand, with no profile: the wheel's build settings (USE_CUDA OFF) say the same.
cpuwhl=$(ls "$TMP"/o58c/minitorch-*.whl)
PATH="$TMP/gpu:$PATH" run 0 "$BW" smoke "$cpuwhl"
contains "$TMP/out" "cpu: the wheel has no CUDA (its build settings say USE_CUDA OFF; no CUDA library, no fatbin): CPU checks only"
contains "$TMP/out" "✅ cpu_ops "
# --gpu all has no GPU work to do for it: one run on the CPU; the manifest says where it ran.
PATH="$TMP/gpu:$PATH" run 0 "$BW" smoke "$cpuwhl" --gpu all
contains "$TMP/err" "smoke: --gpu: the wheel has no CUDA (its build settings say USE_CUDA OFF; no CUDA library, no fatbin); one run on the CPU"
run 0 "$BW" manifest "$TMP"/o58c/*.manifest.json --format md
contains "$TMP/out" "## On the CPU: the wheel has no CUDA (the profile says features.cuda: off; no CUDA library, no fatbin)"

# The benchmarks' warm-up (probes/probe_protocol.py, settle): blocks until
# the last four agree within 1 %, as clocks that boost, then settle under
# the power limit, need; on a stand-in torch whose CUDA events replay a
# recorded descent (10 % slower over eight blocks, then flat), so nothing
# here depends on this machine's timing (issue 32: a fixed 1 s warm-up
# left fp16 GEMM's repetitions 6-8 % apart on an H100).
mkdir -p "$TMP/faketorch/torch"
cat > "$TMP/faketorch/torch/__init__.py" <<'PY'
# Milliseconds per call of each block in turn; the calls are counted.
TIMES = [1.00, 1.02, 1.04, 1.06, 1.08, 1.10, 1.10, 1.101, 1.10, 1.099, 1.10, 1.10]
calls = 0
blocks = 0
def tick():
    global calls
    calls += 1
class _Event:
    def __init__(self, enable_timing=False):
        self.at = 0
    def record(self):
        self.at = calls
    def synchronize(self):
        pass
    def elapsed_time(self, end):
        global blocks
        ms = (end.at - self.at) * TIMES[min(blocks, len(TIMES) - 1)]
        blocks += 1
        return ms
class cuda:
    Event = _Event
    @staticmethod
    def synchronize():
        pass
PY
PYTHONPATH="$TMP/faketorch" run 0 python3 - "$TOP/probes" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import probe_protocol, torch
calls = probe_protocol.settle(torch.tick, block=0.2, least=0, most=600)
# Blocks 1-8 speed down (the window spans more than 1 %); 6-9 agree within it.
assert torch.blocks == 9, torch.blocks
assert calls == int(0.2 / 0.0011), calls
per = probe_protocol.median_block(torch.tick, calls, 3)
assert abs(per - 0.0011) < 1e-12, per
print("settled after", torch.blocks - 3, "blocks")
PY
contains "$TMP/out" "settled after 9 blocks"

# The hanging probe started above, by now past its timeout.
hang_checks
