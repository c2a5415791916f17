"""The probe protocol of `bwbuild smoke` (src/wheel/smoke.c, docs/smoke.md),
shared by every probes/smoke-<package>.py: one JSON object per line on
stdout, after the marker "@bwbuild ":

  {"start": NAME}                         a check begins (the timeout restarts)
  {"check": NAME, "status": S, "reason": TEXT, "seconds": T}   S: ok, warn, fail, skip
  {"info": {...}}                         versions, the GPU, its capability
  {"bench": NAME, "value": X, "unit": U, "dtype": D, "shape": TEXT}

Each probe names its checks; a check returns its reason, or raises Skip or
Warn (any other exception fails it). 'import' and 'cuda' failing end the
run; 'kernel' is the GPU op that verify's --target-gpu answer is compared
with. --cpu: the wheel has no CUDA (bwbuild read it from the wheel, its
profile or its manifest), so the probe runs its CPU checks, none that
needs a GPU, whatever GPUs the host has.
usage: smoke-<package>.py [--skip A,B] [--quick] [--cpu] [--features F,G] [--archs sm_90,...]
"""
import argparse
import json
import os
import sys
import time
import traceback


class Skip(Exception):
    """The check does not apply here (status skip)."""


class Warn(Exception):
    """The check passed with a reservation (status warn)."""


class Skip(Exception):
    """A check that does not apply: reported as 'skip', never failed."""


def emit(**kw):
    sys.stdout.write("@bwbuild " + json.dumps(kw) + "\n")
    sys.stdout.flush()


def reason_of(e):
    """An exception as one line of at most 400 characters."""
    text = ("%s: %s" % (type(e).__name__, e)).strip()
    return text.splitlines()[0][:400] if text else type(e).__name__


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip", default="")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cpu", action="store_true")
    ap.add_argument("--features", default=None)
    ap.add_argument("--archs", default=None)
    # Whole repetitions of each benchmark: their median and spread (docs/smoke.md).
    ap.add_argument("--reps", type=int, default=int(os.environ.get("BWBUILD_SMOKE_REPS", "3")))
    return ap.parse_args()


def skipped(args):
    """The names --skip lists (bwbuild adds one per check that timed out)."""
    return set(s for s in args.skip.split(",") if s)


def run_checks(checks, args):
    """Run (name, fn) checks in order; False when 'import' or 'cuda' failed."""
    skip = skipped(args)
    for name, fn in checks:
        if name in skip:
            continue
        emit(start=name)
        t = time.monotonic()
        try:
            status, reason = "ok", fn()
        except Skip as e:
            status, reason = "skip", str(e)
        except Warn as e:
            status, reason = "warn", str(e)
        except Exception as e:
            status, reason = "fail", reason_of(e)
            if os.environ.get("BWBUILD_SMOKE_TRACE"):
                traceback.print_exc()
        emit(check=name, status=status, reason=reason, seconds=round(time.monotonic() - t, 3))
        if name in ("import", "cuda") and status == "fail":
            return False
    return True


def block_seconds(fn, calls):
    """Seconds per call of one block of `calls` back-to-back calls of `fn`,
    timed between CUDA events (the GPU's time, not the launch loop's)."""
    import torch
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(calls):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / 1000.0 / calls


def settle(fn, block=0.2, tolerance=0.01, window=4, least=2.0, most=15.0):
    """Warm `fn` up until the GPU's clocks settle, as cuBLAS's and
    nccl-tests' benchmarks do: blocks of ~`block` seconds of back-to-back
    calls until the last `window` blocks agree within `tolerance` of their
    median (a GPU boosts, then heats and slows under its power limit: on an
    H100 a fixed 1 s warm-up left fp16 GEMM's repetitions 6-8 % apart), for
    at least `least` and at most `most` seconds. The number of calls a
    block of `block` seconds takes."""
    import torch
    torch.cuda.synchronize()
    t0 = time.monotonic()
    fn()
    torch.cuda.synchronize()
    per = max(time.monotonic() - t0, 1e-6)
    calls = max(1, int(block / per))
    recent = []
    while True:
        per = block_seconds(fn, calls)
        calls = max(1, int(block / per))
        recent = (recent + [per])[-window:]
        spent = time.monotonic() - t0
        if spent >= most:
            break
        if spent >= least and len(recent) == window:
            mid = sorted(recent)[window // 2]
            if (max(recent) - min(recent)) / mid <= tolerance:
                break
    return calls


def median_block(fn, calls, blocks):
    """Seconds per call of `fn`: `blocks` blocks of `calls` back-to-back calls,
    each timed between CUDA events; the median block. The caller warms up
    (settle)."""
    times = sorted(block_seconds(fn, calls) for _ in range(blocks))
    return times[len(times) // 2]


def torch_cuda():
    """The 'cuda' check through the torch the extension runs with."""
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch %s sees no GPU" % torch.__version__)
    cap = "sm_%d%d" % torch.cuda.get_device_capability(0)
    emit(info={"gpu": {"name": torch.cuda.get_device_name(0), "capability": cap,
                       "count": torch.cuda.device_count()}})
    return "%s (%s), torch %s" % (torch.cuda.get_device_name(0), cap, torch.__version__)


# The checks that need a GPU, left out under --cpu of a probe that names no CPU checks of its own.
GPU_CHECKS = ("cuda", "arch_list", "kernel", "forward_compat")


def cpu_only(checks, cpu_checks=None):
    """The checks of a --cpu run: the probe's CPU checks, else its checks less GPU_CHECKS."""
    if cpu_checks is not None:
        return cpu_checks
    return [(name, fn) for name, fn in checks if name not in GPU_CHECKS]


def run(checks, cpu_checks=None):
    """The whole run of a probe without benchmarks; the exit status (0)."""
    args = parse_args()
    run_checks(cpu_only(checks, cpu_checks) if args.cpu else checks, args)
    return 0
