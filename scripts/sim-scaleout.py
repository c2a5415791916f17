#!/usr/bin/env python3
"""`make bench-scaleout`: the makespan of a PyTorch v2.6.0 compile (sm_90)
on one machine plus 0, 1, 2, 4 or 8 distcc hosts, simulated on the real
unit mix, as bwbuild's launcher schedules it (build.remote, docs/scale-out.md).

usage: sim-scaleout.py [--tree BUILD_DIR] [--seed SEED] [--peaks PEAKS]
                       [--cores 16] [--host-slots 16] [--mem 115G]

Units: every entry of BUILD_DIR/compile_commands.json (the configured real
tree: 7,082 host C/C++ units, 343 CUDA units). Durations, most specific
first: the unit's own wall time in BUILD_DIR/.ninja_log, else its sm_90 (or
host) row in the shipped seed (data/peaks/pytorch-2.6.0.seed), else the
median of the measured units of its class (C; C++; CUDA; flash-attention;
other CUTLASS/mem-efficient kernels). Peaks: the learned table
(<cache>/peaks/pytorch-2.6.0.peaks, "KEY BYTES"), else the seed, else
memmodel.h's cold estimates (2 GiB C++, 3 GiB CUDA, 6 GiB heavy).

The model: a unit is ready in ninja's order (compile_commands.json's); links
and dependencies are left out (they add the same tail to every row). Here:
CORES cores and a memory budget; a unit running here holds a core and its
peak. A host C/C++ unit goes to a host with a free slot when there is one
(the launcher's rule), else it runs here; remotely it still costs a core
here for distcc's preprocessing (PRE_FRACTION of its time, at least
PRE_MIN s), and a host slot for preprocessing, transfer and compile. CUDA
units, the device link and fatbinary never leave this machine.
"""
import argparse
import collections
import heapq
import json
import os
import re
import statistics
import sys

PRE_FRACTION = 0.06   # cpp of a PyTorch unit: 1-3 s of a 20-60 s compile
PRE_MIN = 0.2
GIB = 1 << 30
HEAVY = re.compile(r"flash|mem_eff|cutlass|fmha")


def parse_size(s):
    m = re.fullmatch(r"([0-9.]+)([KMGT]?)", s.upper())
    return int(float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2)])


def load_units(tree, seed_path, peaks_path):
    cc = json.load(open(os.path.join(tree, "compile_commands.json")))
    top = os.path.dirname(os.path.abspath(tree))
    measured = {}
    log = os.path.join(tree, ".ninja_log")
    if os.path.exists(log):
        for line in open(log):
            if line.startswith("#"):
                continue
            s, e, _, out, _ = line.rstrip("\n").split("\t")
            measured[out] = (int(e) - int(s)) / 1000.0
    seed_t, seed_p = {}, {}
    for line in open(seed_path):
        f = line.split()
        if len(f) == 6 and not f[0].startswith("#") and f[2] in ("-", "9.0"):
            seed_t[f[0]] = float(f[4])
            seed_p[f[0]] = float(f[3]) * (1 << 20)
    learned = {}
    if peaks_path and os.path.exists(peaks_path):
        for line in open(peaks_path):
            f = line.split()
            if len(f) >= 2 and "#" in f[0] and not f[0].startswith(("kind:", "remote:")):
                learned.setdefault(f[0].split("#")[0], int(f[1]))
    units = []
    for e in cc:
        src = e["file"]
        rel = os.path.relpath(src, top) if src.startswith(top) else src
        for pre in ("tree/",):
            rel = rel[len(pre):] if rel.startswith(pre) else rel
        out = e.get("output") or ""
        if not out:
            m = re.search(r"-o (\S+)", e["command"])
            out = m.group(1) if m else ""
        cuda = src.endswith(".cu")
        cls = ("flash" if "flash" in rel else "cutlass" if HEAVY.search(rel) else "cuda") if cuda else \
            ("c" if src.endswith((".c", ".S")) else "cxx")
        t = measured.get(out)
        src_of = "ninja log" if t is not None else None
        if t is None and rel in seed_t:
            t, src_of = seed_t[rel], "seed"
        peak = learned.get(rel) or seed_p.get(rel) or \
            {"c": 2 * GIB, "cxx": 2 * GIB, "cuda": 3 * GIB, "flash": 6 * GIB, "cutlass": 6 * GIB}[cls]
        units.append({"src": rel, "cls": cls, "t": t, "how": src_of, "peak": peak, "remote": not cuda})
    by = collections.defaultdict(list)
    for u in units:
        if u["t"] is not None:
            by[u["cls"]].append(u["t"])
    med = {c: statistics.median(v) for c, v in by.items()}
    for u in units:
        if u["t"] is None:
            u["t"], u["how"] = med[u["cls"]], "median of its class"
    return units, med, by


def simulate(units, cores, budget, hosts, slots, cuda_too=False):
    """Ninja's order, the launcher's choices; returns (makespan, CUDA-only tail, busy here, busy remote)."""
    t = 0.0
    free_cores, mem, running_here = cores, budget, 0
    free_slots = [slots] * hosts
    events = []
    seq = 0
    if cuda_too:  # sccache-dist's way: nvcc's units go too
        units = [dict(u, remote=True) for u in units]
    host_q = collections.deque(i for i, u in enumerate(units) if u["remote"])
    cuda_q = collections.deque(i for i, u in enumerate(units) if not u["remote"])
    last_host_unit = busy_here = busy_remote = 0.0
    done = 0
    while done < len(units):
        while free_cores > 0:
            c = cuda_q[0] if cuda_q else None
            h = host_q[0] if host_q else None
            c_ok = c is not None and (units[c]["peak"] <= mem or not running_here)
            pick = None
            if h is not None and (not c_ok or h < c):
                pick = h
            elif c_ok:
                pick = c
            if pick is None:
                break
            u = units[pick]
            k = max(range(hosts), key=lambda j: free_slots[j]) if hosts else -1
            if u["remote"] and k >= 0 and free_slots[k] > 0:
                host_q.popleft()
                pre = max(PRE_MIN, PRE_FRACTION * u["t"])
                free_slots[k] -= 1
                free_cores -= 1
                busy_here += pre
                busy_remote += pre + u["t"]
                heapq.heappush(events, (t + pre, seq, "pre", None)); seq += 1
                heapq.heappush(events, (t + pre + u["t"], seq, "remote", k)); seq += 1
            elif u["peak"] <= mem or not running_here:
                (host_q if u["remote"] else cuda_q).popleft()
                free_cores -= 1
                mem -= u["peak"]
                running_here += 1
                busy_here += u["t"]
                heapq.heappush(events, (t + u["t"], seq, "local", pick)); seq += 1
            else:
                break
        t, _, kind, p = heapq.heappop(events)
        if kind == "pre":
            free_cores += 1
        elif kind == "remote":
            free_slots[p] += 1
            done += 1
            last_host_unit = max(last_host_unit, t)
        else:
            free_cores += 1
            mem += units[p]["peak"]
            running_here -= 1
            done += 1
            if units[p]["remote"]:
                last_host_unit = max(last_host_unit, t)
    return t, t - last_host_unit, busy_here, busy_remote


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default="/work/rt/tree/build")
    ap.add_argument("--seed", default=os.path.join(os.path.dirname(__file__), "..", "data/peaks/pytorch-2.6.0.seed"))
    ap.add_argument("--peaks", default=os.path.expanduser("~/.cache/bwbuild/peaks/pytorch-2.6.0.peaks"))
    ap.add_argument("--cores", type=int, default=16)
    ap.add_argument("--host-slots", type=int, default=16)
    ap.add_argument("--mem", default="115G")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.tree, "compile_commands.json")):
        print("skipped: no configured tree at %s (scripts/real-tree.sh makes one)" % a.tree)
        return 0
    units, med, by = load_units(a.tree, a.seed, a.peaks)
    cnt = collections.Counter(u["cls"] for u in units)
    how = collections.Counter(u["how"] for u in units)
    work = collections.defaultdict(float)
    for u in units:
        work[u["cls"]] += u["t"]
    print("units: %s" % ", ".join("%s %d (%.0f s of work)" % (c, cnt[c], work[c]) for c in sorted(cnt)))
    print("durations from: %s" % ", ".join("%s %d" % kv for kv in how.most_common()))
    print("class medians (s): %s" % ", ".join("%s %.1f" % (c, med[c]) for c in sorted(med)))
    cuda = sum(u["t"] for u in units if not u["remote"])
    pole = max(units, key=lambda u: u["t"])
    print("local-only work: CUDA %.0f s / %d cores = %.0f s; longest unit %s %.0f s" %
          (cuda, a.cores, cuda / a.cores, pole["src"], pole["t"]))
    print()
    print("| hosts (x%d slots) | makespan, distcc (C/C++ only) | speed-up | CUDA-only tail | busy here | busy on hosts | makespan if CUDA went too (sccache-dist) |" % a.host_slots)
    print("|---|---|---|---|---|---|---|")
    base = None
    for hosts in (0, 1, 2, 4, 8):
        ms, tail, here, remote = simulate(units, a.cores, parse_size(a.mem), hosts, a.host_slots)
        all_ms = simulate(units, a.cores, parse_size(a.mem), hosts, a.host_slots, cuda_too=True)[0]
        base = base or ms
        print("| %d | %.0f s (%.2f h) | %.2fx | %.0f s | %.0f%% | %s | %.0f s (%.2fx) |" % (
            hosts, ms, ms / 3600, base / ms, tail, 100 * here / (a.cores * ms),
            "%.0f%%" % (100 * remote / (hosts * a.host_slots * ms)) if hosts else "-",
            all_ms, base / all_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
