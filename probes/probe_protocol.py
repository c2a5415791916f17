"""The probe protocol (torch.py's: one JSON object per line
after "@bwbuild "), shared by probes/smoke-<extension>.py: each names its
checks; 'import' and 'cuda' failing end the run, 'kernel' is the GPU op
that verify's --target-gpu answer is compared with.
usage: smoke-<extension>.py [--skip A,B] [--quick] [--features F] [--archs A]
"""
import argparse
import json
import sys
import time


class Skip(Exception):
    """A check that does not apply: reported as 'skip', never failed."""


def emit(**kw):
    sys.stdout.write("@bwbuild " + json.dumps(kw) + "\n")
    sys.stdout.flush()


def torch_cuda():
    """The 'cuda' check through the torch the extension runs with."""
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch %s sees no GPU" % torch.__version__)
    cap = "sm_%d%d" % torch.cuda.get_device_capability(0)
    emit(info={"gpu": {"name": torch.cuda.get_device_name(0), "capability": cap,
                       "count": torch.cuda.device_count()}})
    return "%s (%s), torch %s" % (torch.cuda.get_device_name(0), cap, torch.__version__)


def run(checks):
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip", default="")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--features", default=None)
    ap.add_argument("--archs", default=None)
    args = ap.parse_args()
    skip = set(s for s in args.skip.split(",") if s)
    for name, fn in checks:
        if name in skip:
            continue
        emit(start=name)
        t = time.monotonic()
        try:
            status, reason = "ok", fn()
        except Skip as e:
            status, reason = "skip", str(e)
        except Exception as e:
            status, reason = "fail", ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:400]
        emit(check=name, status=status, reason=reason, seconds=round(time.monotonic() - t, 3))
        if name in ("import", "cuda") and status == "fail":
            return 0
    return 0
