# bwbuild smoke --gpu all without GPUs: the C side's duties over a real
# run's probe output replayed (tests/fixtures/smoke-multi: two H100s on
# NVLink): each GPU's checks, the cross-GPU NCCL group, P2P and all-reduce
# bandwidth as % of the link's datasheet figure, in the report, the JSON,
# the manifest's Markdown and diff; the cross-GPU part skipped with its
# reason with one GPU or none; a hung cross-GPU probe killed. Then
# probes/multi-torch.py's own group handling (workers started, killed on
# silence or death) with stand-in workers.
. "$(dirname "$0")/lib.sh"
FIX="$TOP/tests/fixtures/smoke-multi"
minitorch_wheel "$TMP"
whl="$TMP/minitorch-2.11.0-py3-none-any.whl"
mkdir -p "$TMP/probes" "$TMP/gpu2" "$TMP/gpu1" "$TMP/nogpu"
cp "$FIX/replay.py" "$TMP/probes/smoke-minitorch.py"
cp "$FIX/replay.py" "$TMP/probes/multi-minitorch.py"
# nvidia-smi as the recorded node answers (two GPUs), and one that lists one.
cat > "$TMP/gpu2/nvidia-smi" <<SH
#!/bin/sh
[ "\$1" = --query-gpu=index ] && exec cut -d, -f1 "$FIX/nvidia-smi.txt"
exit 9
SH
printf '#!/bin/sh\necho 0\n' > "$TMP/gpu1/nvidia-smi"
printf '#!/bin/sh\nexit 9\n' > "$TMP/nogpu/nvidia-smi"
chmod +x "$TMP/gpu2/nvidia-smi" "$TMP/gpu1/nvidia-smi" "$TMP/nogpu/nvidia-smi"
unset CUDA_VISIBLE_DEVICES
export BWBUILD_PROBE_PATH="$TMP/probes" REPLAY_LOG="$TMP/calls" REPLAY_DIR="$FIX"

# Two GPUs: each GPU's checks (forward_compat fails on both: the official
# wheel has no PTX), their benchmarks side by side, then across them.
PATH="$TMP/gpu2:$PATH" run 1 "$BW" smoke "$whl" --gpu all -o "$TMP/r.json"
contains "$TMP/out" "gpu 0: NVIDIA H100 80GB HBM3 (sm_90), driver 580.159.04"
contains "$TMP/out" "gpu 1: NVIDIA H100 80GB HBM3 (sm_90), driver 580.159.04"
contains "$TMP/out" "| gemm_bf16 | 8192x8192x8192 | 663.5 TFLOPS (67 %) | 670.5 TFLOPS (68 %) |"
contains "$TMP/out" "across GPUs 0,1: link nvlink, NCCL 2.28.9"
contains "$TMP/out" "✅ p2p                  every pair of the 2 GPUs can access the other's memory"
contains "$TMP/out" "✅ nccl_all_gather      2 x 4 MiB gathered and compared; all 2 ranks agree"
contains "$TMP/out" "| 4GiB all-reduce, 2 GPUs | 344.5 GB/s | 344.5 GB/s | 77 % of 450 (nvlink) |"
contains "$TMP/err" "error: 2 checks failed"
# One probe run per GPU with only that GPU visible, then one across both.
cat > "$TMP/want" <<EOF
smoke-minitorch.py CUDA_VISIBLE_DEVICES=0 --features=
smoke-minitorch.py CUDA_VISIBLE_DEVICES=1 --features=
multi-minitorch.py CUDA_VISIBLE_DEVICES=0,1 --features= --timeout=300
EOF
cmp "$TMP/want" "$TMP/calls" || { cat "$TMP/calls"; fail "the probes ran otherwise"; }
python3 - "$TMP/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "failed" and [g["visible"] for g in r["gpus"]] == ["0", "1"], r["status"]
for g in r["gpus"]:
    st = {c["name"]: c["status"] for c in g["checks"]}
    # each GPU judged against the wheel's archs for its own capability
    assert st["static_vs_runtime"] == "ok" and st["forward_compat"] == "fail" and g["status"] == "failed", st
    assert g["gpu"]["capability"] == "sm_90" and len(g["benchmarks"]) == 11, g["gpu"]
c = r["cross_gpu"]
assert c["status"] == "ok" and c["visible"] == "0,1" and c["link"] == "nvlink" and c["nccl"] == "2.28.9", c
assert c["p2p"] == [[None, True], [True, None]] and c["topology"][0][1] == "NV18", c
assert [x["name"] for x in c["checks"]] == ["import", "gpus", "p2p", "link", "nccl_init", "nccl_all_reduce",
                                          "nccl_all_gather", "nccl_broadcast"], c["checks"]
b = {x["name"]: x for x in c["benchmarks"]}
big = b["allreduce_busbw_4GiB"]
assert big["value"] == 344.49 and big["algbw"] == 344.49 and big["peak"] == 450 and big["percent_of_peak"] == 76.5, big
assert big["unit"] == "GB/s" and big["link"] == "nvlink", big
assert len(b) == 5 and "target" not in c, b.keys()
PY

# Into a manifest; its Markdown shows every GPU and what ran across them.
printf '{"schema": "bwbuild-manifest/1", "wheel": {"file": "x.whl"}}\n' > "$TMP/m.json"
rm -f "$TMP/calls"
PATH="$TMP/gpu2:$PATH" run 1 "$BW" smoke "$whl" --gpu 0,1 --gpu 1 --manifest "$TMP/m.json"
cmp "$TMP/want" "$TMP/calls" || { cat "$TMP/calls"; fail "--gpu 0,1 --gpu 1 ran otherwise than --gpu all"; }
run 0 "$BW" manifest "$TMP/m.json" --format md
contains "$TMP/out" "## On 2 GPUs"
contains "$TMP/out" "| 1 | NVIDIA H100 80GB HBM3 | sm_90 | 580.159.04 | failed |"
contains "$TMP/out" "| Check | GPU 0 | GPU 1 | Detail |"
contains "$TMP/out" "| kernel | ✅ | ✅ | elementwise kernel on the GPU |"
contains "$TMP/out" "| forward_compat | ❌ | ❌ | RuntimeError: no PTX for this GPU"
contains "$TMP/out" "| copy_bandwidth | 1 GiB device-to-device | 3011.3 GB/s (90 %) | 3009.1 GB/s (90 %) |"
contains "$TMP/out" "### Across GPUs 0,1: link nvlink, NCCL 2.28.9"
contains "$TMP/out" "| nccl_broadcast | ✅ | 16 MiB from rank 1 arrived intact; all 2 ranks agree |"
contains "$TMP/out" "| 0 | – | ✅ (NV18) |"
contains "$TMP/out" "| 1GiB all-reduce, 2 GPUs | 327.0 GB/s | 327.0 GB/s | 73 % of 450 (nvlink) |"

# diff: per GPU and across, as for one GPU: a check that changed on GPU 1,
# an all-reduce slower than the tolerance allows, one faster (said only).
cp "$TMP/m.json" "$TMP/m2.json"
REPLAY_FAIL=1:kernel REPLAY_SCALE=allreduce_busbw_4GiB:0.5 PATH="$TMP/gpu2:$PATH" \
	run 1 "$BW" smoke "$whl" --gpu all --manifest "$TMP/m2.json"
run 1 "$BW" diff "$TMP/m.json" "$TMP/m2.json"
contains "$TMP/out" "runtime gpu 1 check kernel: ok -> fail"
contains "$TMP/out" "runtime gpu 1 check static_vs_runtime: ok -> fail"
contains "$TMP/out" "runtime across GPUs benchmark allreduce_busbw_4GiB: 344.5 -> 172.2 GB/s (-50.0 %, slower than the tolerance allows)"
if grep -q "runtime gpu 0 check" "$TMP/out"; then fail "GPU 0 did not change"; fi
run 1 "$BW" diff "$TMP/m2.json" "$TMP/m.json" --json
python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rt = d["runtime"]
assert [g["gpu"] for g in rt["gpus"]] == ["0", "1"] and rt["gpus"][0]["checks"] == [], rt
assert {c["name"]: (c["a"], c["b"]) for c in rt["gpus"][1]["checks"]} == {
    "kernel": ("fail", "ok"), "static_vs_runtime": ("fail", "ok")}, rt["gpus"][1]
(b,) = rt["cross_gpu"]["benchmarks"]
assert b["name"] == "allreduce_busbw_4GiB" and b["regression"] is False and b["change_percent"] == 99.9, b
assert d["differences"] == 2, d["differences"]
PY
run 0 "$BW" diff "$TMP/m.json" "$TMP/m.json"
# A single-GPU runtime against a --gpu all one: GPU 0 against it (the GPU
# it lacks, and the cross-GPU part, have nothing to be compared with).
printf '{"schema": "bwbuild-manifest/1", "wheel": {"file": "x.whl"}}\n' > "$TMP/m1.json"
PATH="$TMP/gpu2:$PATH" run 1 "$BW" smoke "$whl" --gpu 0 --manifest "$TMP/m1.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runtime"]; assert "gpus" not in r and r["checks"], r' "$TMP/m1.json"
run 0 "$BW" diff "$TMP/m1.json" "$TMP/m2.json"
cp "$TMP/m1.json" "$TMP/m3.json"
REPLAY_FAIL=0:cuda_graph PATH="$TMP/gpu2:$PATH" run 1 "$BW" smoke "$whl" --gpu all --manifest "$TMP/m3.json"
run 1 "$BW" diff "$TMP/m1.json" "$TMP/m3.json"
contains "$TMP/out" "runtime gpu 0 check cuda_graph: ok -> fail"
if grep -q "runtime gpu 1 " "$TMP/out"; then fail "GPU 1 is not in the single-GPU runtime"; fi

# A mixed node: each GPU judged for its own capability, against its own peaks.
REPLAY_MODEL="1:NVIDIA GeForce RTX 5090:sm_120" PATH="$TMP/gpu2:$PATH" run 1 "$BW" smoke "$whl" --gpu all --json
python3 - "$TMP/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g0, g1 = r["gpus"]
why = {g["visible"]: next(c["reason"] for c in g["checks"] if c["name"] == "static_vs_runtime") for g in r["gpus"]}
assert why == {"0": "verify --target-gpu sm_90 says yes, and the kernels ran",
               "1": "verify --target-gpu sm_120 says yes, and the kernels ran"}, why
peak = {g["visible"]: next(b["peak"] for b in g["benchmarks"] if b["name"] == "gemm_fp16") for g in r["gpus"]}
assert peak == {"0": 989.5, "1": 209.5}, peak
PY

# One GPU: its checks, and the cross-GPU part skipped with the reason.
rm -f "$TMP/calls"
PATH="$TMP/gpu1:$PATH" run 1 "$BW" smoke "$whl" --gpu all --quick --json
python3 - "$TMP/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["gpus"]) == 1 and r["gpus"][0]["benchmarks"] == [], r["gpus"]
c = r["cross_gpu"]
assert c["status"] == "skipped" and c["reason"].startswith("one GPU: nothing to check across GPUs"), c
PY
grep -q multi-minitorch "$TMP/calls" && fail "the cross-GPU probe ran with one GPU"
contains "$TMP/calls" "smoke-minitorch.py CUDA_VISIBLE_DEVICES=0 --quick"
PATH="$TMP/gpu1:$PATH" run 1 "$BW" smoke "$whl" --gpu all --quick
contains "$TMP/out" "across GPUs: skipped: one GPU: nothing to check across GPUs"
# CUDA_VISIBLE_DEVICES narrows "all" as it narrows CUDA.
rm -f "$TMP/calls"
CUDA_VISIBLE_DEVICES=1 PATH="$TMP/gpu2:$PATH" run 1 "$BW" smoke "$whl" --gpu all --quick
contains "$TMP/calls" "smoke-minitorch.py CUDA_VISIBLE_DEVICES=1 --quick"
contains "$TMP/out" "gpu 1: NVIDIA H100 80GB HBM3"
# No cross-GPU probe for the package: skipped, named.
rm "$TMP/probes/multi-minitorch.py"
PATH="$TMP/gpu2:$PATH" run 1 "$BW" smoke "$whl" --gpu all --quick
contains "$TMP/out" "across GPUs: skipped: no cross-GPU probe for 'minitorch' (probes/multi-minitorch.py)"
cp "$FIX/replay.py" "$TMP/probes/multi-minitorch.py"
# A GPU that CUDA cannot use among working ones fails the node; none at all is exit 3.
PATH="$TMP/gpu2:$PATH" run 1 "$BW" smoke "$whl" --gpu 0,7 --quick --json
python3 - "$TMP/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [g["status"] for g in r["gpus"]] == ["failed", "no_gpu"], r["gpus"]
assert r["cross_gpu"]["reason"].startswith("1 of the 2 GPUs could be used"), r["cross_gpu"]
PY
PATH="$TMP/nogpu:$PATH" run 3 "$BW" smoke "$whl" --gpu all
contains "$TMP/err" "smoke: --gpu all: nvidia-smi --query-gpu=index failed (exit 9); running on whatever CUDA finds"
contains "$TMP/err" "error: no usable GPU on any of the 1 runs (exit 3"
contains "$TMP/out" "across GPUs: skipped: no GPU listed (nvidia-smi --query-gpu=index failed (exit 9))"
# The shipped probes, no GPU here: the import, no CUDA device, exit 3.
BWBUILD_PROBE_PATH='' PATH="$TMP/gpu2:$PATH" run 3 "$BW" smoke "$whl" --gpu all --quick
contains "$TMP/out" "❌ cuda "
contains "$TMP/out" "across GPUs: skipped: 0 of the 2 GPUs could be used"
# Usage.
# shellcheck disable=SC2016 # a literal $(reboot) is the input under test
run 2 "$BW" smoke "$whl" --gpu '0,$(reboot)'
contains "$TMP/err" "error: --gpu '\$(reboot)' is not a GPU such as 0, GPU-<uuid>, a list (0,1) or all"

# probes/multi-torch.py owns its group: stand-in workers (no torch here)
# that answer, hang, die or report a wrong value; the group is killed and
# the phases after the failure are skipped with its reason.
cat > "$TMP/worker.py" <<'PY'
import json, os, sys, time
rank = int(sys.argv[2])
mode = os.environ.get("MODE", "")
names = ["nccl_init", "nccl_all_reduce", "nccl_all_gather", "nccl_broadcast"]
if "--quick" not in sys.argv:
    names += ["bench:allreduce_busbw_" + l for l in ("1MiB", "16MiB", "256MiB", "1GiB", "4GiB")]
for n in names:
    if mode == "hang:%s:%d" % (n, rank):
        time.sleep(100)
    if mode == "die:%s:%d" % (n, rank):
        print("RuntimeError: NCCL error: unhandled cuda error", flush=True)
        sys.exit(3)
    bad = mode == "bad:%s:%d" % (n, rank)
    d = {"phase": n, "status": "fail" if bad else "ok", "reason": "wrong" if bad else "fine on rank %d" % rank}
    if n.startswith("bench"):
        d["time"] = 0.001 * (rank + 1)
    print("@rank " + json.dumps(d), flush=True)
PY
cat > "$TMP/group.py" <<'PY'
import argparse, importlib.util, os, sys
spec = importlib.util.spec_from_file_location("mt", os.path.join(os.environ["TOP"], "probes/multi-torch.py"))
mt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mt)
mt.__file__ = os.path.join(os.environ["TMP"], "worker.py")
# timeout 20: a rank silent for 16 s (its 0.8) is killed; a loaded machine
# starts a worker in 3 s, which the old 3 (2.4 s) could not wait for.
mt.run_group(2, argparse.Namespace(quick=False, timeout=20), set(sys.argv[1:]), {"link": "nvlink"})
PY
# group MODE [FILE]: the group's @bwbuild lines into FILE (default g.jsonl).
group() {
	MODE=$1 python3 "$TMP/group.py" | sed -n 's/^@bwbuild //p' > "${2:-$TMP/g.jsonl}"
}
# The group with a silent rank waits 16 s: it runs beside the smoke case
# below, which waits 20 s, and is checked after it.
group hang:nccl_all_gather:1 "$TMP/g-hang.jsonl" &
ghang=$!
# A cross-GPU probe that goes silent is killed after --timeout and failed;
# the probe runs again past it, the per-GPU results stand. 20 s: the
# checks before the hang must not time out on a loaded machine (the
# replay's hang sleeps 120 s).
REPLAY_HANG=nccl_all_gather PATH="$TMP/gpu2:$PATH" run 1 "$BW" smoke "$whl" --gpu all --quick --timeout 20 --json
python3 - "$TMP/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cross_gpu"]
st = {x["name"]: (x["status"], x["reason"]) for x in c["checks"]}
assert st["nccl_all_gather"][0] == "fail" and "timed out" in st["nccl_all_gather"][1], st
assert st["nccl_all_reduce"][0] == "ok" and c["status"] == "failed" and c["restarts"] == 1, c
assert len(r["gpus"]) == 2, r
PY
if pgrep -f "$TMP/probes/multi-minitorch.py" >/dev/null; then fail "a hung probe outlived smoke"; fi

wait "$ghang"
contains "$TMP/g-hang.jsonl" '"check": "nccl_all_gather", "status": "fail", "reason": "rank 1 silent for 16 s in nccl_all_gather; the group was killed"'
contains "$TMP/g-hang.jsonl" '"check": "bench:allreduce_busbw_4GiB", "status": "skip", "reason": "not run: rank 1 silent for 16 s'

group ""
python3 - "$TMP/g.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
st = {l["check"]: l["status"] for l in lines if "check" in l}
assert st == dict.fromkeys(["nccl_init", "nccl_all_reduce", "nccl_all_gather", "nccl_broadcast"], "ok"), st
b = {l["bench"]: l for l in lines if "bench" in l}
# 1 MiB in 1 ms on rank 0 and 2 ms on rank 1: the average, 1.5 ms; busbw = algbw * 2(n-1)/n
assert b["allreduce_busbw_1MiB"]["algbw"] == round((1 << 20) / 0.0015 / 1e9, 2), b
assert b["allreduce_busbw_1MiB"]["value"] == b["allreduce_busbw_1MiB"]["algbw"] and b["allreduce_busbw_1MiB"]["link"] == "nvlink", b
PY
group die:nccl_all_reduce:0
contains "$TMP/g.jsonl" '"check": "nccl_all_reduce", "status": "fail", "reason": "rank 0 exited with 3: RuntimeError: NCCL error: unhandled cuda error in nccl_all_reduce"'
group bad:nccl_broadcast:1
contains "$TMP/g.jsonl" '"check": "nccl_broadcast", "status": "fail"'
contains "$TMP/g.jsonl" '"reason": "wrong"'
contains "$TMP/g.jsonl" '"bench": "allreduce_busbw_4GiB"'
if pgrep -f "$TMP/worker.py" >/dev/null; then fail "a worker outlived its group"; fi
# After a restart past the group, it is not started again.
python3 "$TMP/group.py" nccl_all_gather | sed -n 's/^@bwbuild //p' > "$TMP/g.jsonl"
contains "$TMP/g.jsonl" '"check": "nccl_init", "status": "skip", "reason": "not run again: the NCCL group was stopped in an earlier run of this probe"'
