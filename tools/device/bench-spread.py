#!/usr/bin/env python3
"""The repetition spread of the smoke benchmarks people read first (GEMM, SDPA,
conv), by two timing methods, on the GPU this runs on (issue 32, item 10).

usage: python3 tools/device/bench-spread.py [REPS]   (default 3)

"probe": what probes/smoke-torch.py's timeit did: 1 s of warm-up, then 7
blocks of back-to-back calls of ~0.1 s each between CUDA events, the median
block. "settled": warm up until three consecutive ~0.25 s blocks agree
within 1 % (at most 20 s: the clocks have settled under the power limit),
then 7 blocks of ~0.25 s, the median block. Each method runs every benchmark
REPS times in a row, as a smoke run's repetitions do; the table gives each
repetition's TFLOPS and the spread, (max - min) / median of the repetitions.
"""
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def block(fn, calls):
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(calls):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / 1000.0 / calls


def calls_for(fn, seconds):
    torch.cuda.synchronize()
    t0, n = time.monotonic(), 0
    while time.monotonic() - t0 < 0.2:
        fn()
        n += 1
        torch.cuda.synchronize()
    return max(1, int(seconds / ((time.monotonic() - t0) / n)))


def probe_method(fn):
    torch.cuda.synchronize()
    t0, n = time.monotonic(), 0
    while True:
        for _ in range(5):
            fn()
        n += 5
        torch.cuda.synchronize()
        if time.monotonic() - t0 > 1.0:
            break
    per = (time.monotonic() - t0) / n
    return statistics.median(block(fn, max(1, int(0.1 / per))) for _ in range(7))


def settled_method(fn):
    calls = calls_for(fn, 0.25)
    t0, last = time.monotonic(), []
    while time.monotonic() - t0 < 20:
        last = (last + [block(fn, calls)])[-3:]
        if len(last) == 3 and (max(last) - min(last)) / min(last) < 0.01:
            break
    return statistics.median(block(fn, calls) for _ in range(7))


def benches():
    n = 8192
    out = []
    for name, dt in (("gemm_fp16", torch.float16), ("gemm_bf16", torch.bfloat16)):
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, n, device="cuda", dtype=dt)
        out.append((name, (lambda a=a, b=b: a @ b), 2 * n ** 3))
    from torch.nn.attention import SDPBackend, sdpa_kernel
    B, H, S, D = 4, 32, 4096, 128
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
    for name, be in (("sdpa_flash", SDPBackend.FLASH_ATTENTION),
                     ("sdpa_mem_efficient", SDPBackend.EFFICIENT_ATTENTION),
                     ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)):
        def f(be=be):
            with sdpa_kernel([be]):
                return F.scaled_dot_product_attention(q, k, v)
        out.append((name, f, 4 * B * H * S * S * D))
    torch.backends.cudnn.benchmark = True
    x = torch.randn(64, 256, 56, 56, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    w = torch.randn(256, 256, 3, 3, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    out.append(("conv2d_fp16", lambda: F.conv2d(x, w, padding=1), 2 * 64 * 256 * 56 * 56 * 256 * 9))
    return out


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print("GPU: %s, torch %s" % (torch.cuda.get_device_name(0), torch.__version__))
    print("%-20s %-8s %-40s %s" % ("benchmark", "method", "TFLOPS per repetition", "spread"))
    for name, fn, flops in benches():
        for mname, method in (("probe", probe_method), ("settled", settled_method)):
            vals = [flops / method(fn) / 1e12 for _ in range(reps)]
            med = statistics.median(vals)
            spread = (max(vals) - min(vals)) / med * 100
            print("%-20s %-8s %-40s %.2f %%" % (name, mname, " ".join("%.1f" % v for v in vals), spread),
                  flush=True)


if __name__ == "__main__":
    main()
