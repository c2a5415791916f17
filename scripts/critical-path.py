#!/usr/bin/env python3
"""The critical path of a finished ninja build, beside its makespan.

usage: critical-path.py BUILD_DIR [TARGET ...] [--cores N] [--top K]

Reads the build's graph from ninja itself (`ninja -C BUILD_DIR -t graph
TARGET...`, all default targets when none is named) and each step's time
from BUILD_DIR/.ninja_log (v5/v6: "START_MS END_MS MTIME PATH HASH"; the
last line of an output wins, as ninja's own log reading does). A step's
time is that of its outputs' log line; a phony step or one absent from
the log takes none.

Prints:
  - the critical path: the longest chain of steps, each waiting for the
    one before, with the K longest of its steps in their order (the floor no number of
    cores lowers);
  - the busy time (all steps' times summed) over N cores (default: this
    machine's), the other floor;
  - the makespan, from the first start to the last end among the steps of
    the graph that were built in the log's last run (ninja writes a line
    when its step ends, with times from that run's start: a line that ends
    before the one above it begins a new run), and how far it is above
    the larger floor.
"""
import os
import re
import subprocess
import sys

NODE = re.compile(r'^"(0x[0-9a-f]+|[^"]+)" \[label="((?:[^"\\]|\\.)*)"(, shape=ellipse)?\]$')
ARROW = re.compile(r'^"([^"]+)" -> "([^"]+)"(?: \[(.*)\])?$')


def read_log(path):
    """{output: (start_ms, end_ms)} of the last run, and of every run."""
    last_run, every = {}, {}
    prev_end = None
    with open(path, encoding="utf-8", errors="replace") as f:
        head = f.readline()
        if not head.startswith("# ninja log v"):
            sys.exit(f"critical-path: {path}: not a ninja log (first line {head.strip()!r})")
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 5:
                continue
            try:
                start, end = int(parts[0]), int(parts[1])
            except ValueError:
                continue
            if prev_end is not None and end < prev_end:
                last_run = {}
            prev_end = end
            last_run[parts[3]] = (start, end)
            every[parts[3]] = (start, end)
    return last_run, every


def read_graph(build_dir, targets):
    """(labels, preds): a node's path or rule name, and what it waits for.

    A file's predecessor is the step that makes it; a step's, its inputs
    (order-only ones too: the step cannot start before them)."""
    out = subprocess.run(["ninja", "-C", build_dir, "-t", "graph"] + targets,
                         check=True, capture_output=True, text=True).stdout
    labels, steps, preds = {}, set(), {}
    for line in out.splitlines():
        m = NODE.match(line)
        if m:
            labels[m.group(1)] = m.group(2).replace('\\"', '"')
            if m.group(3):
                steps.add(m.group(1))
            continue
        m = ARROW.match(line)
        if not m:
            continue
        src, dst, attrs = m.group(1), m.group(2), m.group(3) or ""
        if "arrowhead=none" in attrs or src in steps:
            preds.setdefault(dst, []).append(src)
        else:
            # The short form "IN -> OUT [label=" RULE"]": one input, one output.
            step = f"{src}->{dst}"
            labels[step] = attrs.split('"')[1].strip() if '"' in attrs else ""
            steps.add(step)
            preds.setdefault(step, []).append(src)
            preds.setdefault(dst, []).append(step)
    return labels, steps, preds


def main():
    args = sys.argv[1:]
    cores, top = os.cpu_count() or 1, 12
    rest = []
    while args:
        a = args.pop(0)
        if a == "--cores" and args:
            cores = int(args.pop(0))
        elif a == "--top" and args:
            top = int(args.pop(0))
        else:
            rest.append(a)
    if not rest:
        sys.exit(__doc__.strip().splitlines()[2])
    build_dir, targets = rest[0], rest[1:]
    last_run, every = read_log(os.path.join(build_dir, ".ninja_log"))
    labels, steps, preds = read_graph(build_dir, targets)

    outputs = {}
    for node, ps in preds.items():
        for p in ps:
            if p in steps and node not in steps:
                outputs.setdefault(p, []).append(labels.get(node, node))

    def step_time(step):
        t = [every[o][1] - every[o][0] for o in outputs.get(step, []) if o in every]
        return max(t) / 1000.0 if t else 0.0

    # finish[n]: the longest chain of step times ending at n; iterative DFS.
    finish, via = {}, {}
    for root in list(labels):
        if root in finish:
            continue
        stack = [(root, False)]
        while stack:
            n, expanded = stack.pop()
            if n in finish:
                continue
            if not expanded:
                stack.append((n, True))
                for p in preds.get(n, []):
                    if p not in finish:
                        stack.append((p, False))
                continue
            best, arg = 0.0, None
            for p in preds.get(n, []):
                if finish.get(p, 0.0) > best:
                    best, arg = finish[p], p
            finish[n] = best + (step_time(n) if n in steps else 0.0)
            via[n] = arg
    end = max(finish, key=lambda n: finish[n]) if finish else None
    chain = []
    while end is not None:
        if end in steps and step_time(end) > 0:
            chain.append(end)
        end = via.get(end)
    chain.reverse()
    crit = sum(step_time(s) for s in chain)

    built = [s for s in steps if any(o in every for o in outputs.get(s, []))]
    busy = sum(step_time(s) for s in built)
    run = [last_run[o] for s in built for o in outputs.get(s, []) if o in last_run]
    makespan = (max(e for _, e in run) - min(s for s, _ in run)) / 1000.0 if run else 0.0
    floor = max(crit, busy / cores)

    print(f"steps: {len(built)} in the log")
    print(f"critical path: {crit:.1f} s over {len(chain)} steps")
    longest = set(sorted(chain, key=step_time, reverse=True)[:top])
    for s in (s for s in chain if s in longest):
        outs = outputs.get(s, [])
        print(f"  {step_time(s):8.1f} s  {labels.get(s, '')}  {outs[0] if outs else ''}")
    print(f"busy time: {busy:.1f} s over {cores} cores = {busy / cores:.1f} s")
    if makespan > 0:
        print(f"makespan: {makespan:.1f} s, {makespan / floor:.2f}x the larger floor ({floor:.1f} s)")


if __name__ == "__main__":
    main()
