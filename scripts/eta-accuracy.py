#!/usr/bin/env python3
"""The compile ETA's prediction against the real finish.

usage: eta-accuracy.py TRACE [PERCENT ...]   (default: 10 50 90)

TRACE: lines "EPOCH MEM_MIB LINE" sampled during a build, LINE the last
"compile: [n/m] p%, r/s, ETA M:SS" line bwbuild printed, or "compile: done
in ..." once the compile ended (docs/real-pytorch.md: the sampler beside
the real-tree build). For each percentage, the first sample at or past it
by ninja's count of its last run, the one that ended the compile (a first
run of the regeneration's few edges, "[1/4]", is not 25 % of the build):
when the ETA said the compile would end, when it did, and the error as a
share of the time that was still left.
"""
import re
import sys

PROGRESS = re.compile(r"compile: \[(\d+)/(\d+)\] \d+%, [\d.]+/s, ETA (-:--|(\d+):(\d\d))")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2])
    wanted = [float(p) for p in sys.argv[2:]] or [10.0, 50.0, 90.0]
    samples, end, start = [], None, None
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.split(None, 2)
            if len(parts) < 3:
                continue
            t = int(parts[0])
            if "compile: done" in parts[2]:
                end = t if end is None else end
                continue
            m = PROGRESS.search(parts[2])
            if not m:
                continue
            done, total = int(m.group(1)), int(m.group(2))
            eta = None if m.group(3) == "-:--" else int(m.group(4)) * 60 + int(m.group(5))
            start = t if start is None else start
            samples.append((t, done, total, eta))
    if end is None or not samples:
        sys.exit("eta-accuracy: the trace has no finished compile")
    # ninja's count of its last run: a first run of the regeneration's few
    # edges ("[1/4]") is not 25 % of the build.
    final = samples[-1][2]
    print(f"compile: {len(samples)} samples, {(end - start) / 60:.1f} min from the first progress line to the end")
    print(f"{'at':>5} {'step':>11} {'elapsed':>8} {'ETA said':>9} {'really left':>11} {'error':>8}")
    for p in wanted:
        hit = next((s for s in samples
                    if s[2] == final and s[1] * 100.0 / s[2] >= p and s[3] is not None), None)
        if not hit:
            print(f"{p:4.0f}%  no sample with an ETA")
            continue
        t, done, total, eta = hit
        left = end - t
        err = (eta - left) / left * 100 if left > 0 else 0.0
        print(f"{p:4.0f}% {done:5d}/{total:<5d} {(t - start) / 60:7.1f}m {eta / 60:8.1f}m {left / 60:10.1f}m {err:+7.0f}%")


if __name__ == "__main__":
    main()
