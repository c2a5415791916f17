#!/usr/bin/env python3
"""Measure the memory peak and wall time of real PyTorch compile units, for
bwbuild's shipped seed table (data/peaks/*.seed, format in src/launch/peaks.h).

    seed-peaks.py UNITS_JSON OUT_TSV [--jobs N] [--deadline S] [--archs 9.0,12.0+PTX] [--check]

UNITS_JSON: {"units": [{"file", "directory", "command"}]}, entries of the
configured tree's build/compile_commands.json ("file" relative to the tree).
The tree's files (sources, headers, generated ATen code) must be at the paths
the commands name: to measure on a bigger machine, ship them there as an
archive and unpack it at the same absolute path (docs/real-pytorch.md).

Each CUDA unit is compiled once per arch in --archs, its -gencode flags
replaced; each C++ unit once.  Objects go to a scratch directory.  The peak is
the sum of the resident sets of the compiler's whole process tree (nvcc,
cudafe++, cicc, ptxas, cc1plus), sampled every 50 ms, which is what bwbuild's
launcher charges and what an OOM killer sees; ru_maxrss would report only the
largest single process.  Units still running at the deadline are killed and
written with their peak so far and "partial" in the status column.

--check runs only the compilers' front ends (nvcc --cuda, which runs cudafe++
over host and device code; g++ -fsyntax-only), once per unit, and writes each
unit's first error line: how a tree is checked against a new CUDA toolkit
(v2.6.0 with CUDA 13: docs/real-pytorch.md) in minutes instead of hours.
"""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_tree import children_map, tree_rss  # noqa: E402

def gencodes(arch):
    base = arch.replace("+PTX", "")
    num = base.replace(".", "")
    flags = ["-gencode", f"arch=compute_{num},code=sm_{num}"]
    if arch.endswith("+PTX"):
        flags += ["-gencode", f"arch=compute_{num},code=compute_{num}"]
    return flags


def variant(cmd, arch, obj, check=False):
    """The unit's argv with its -gencode pairs replaced and -o pointed at obj;
    depfile flags dropped (they would write into the build tree)."""
    a = shlex.split(cmd)
    out, i, placed = [], 0, False
    while i < len(a):
        t = a[i]
        if t in ("-MF", "-MT", "-MQ"):
            i += 2
            continue
        if t in ("-MD", "-MMD"):
            i += 1
            continue
        if t == "-c" and check:
            i += 1
            continue
        if t == "-o":
            if check and cmd.lstrip().split()[0].endswith("nvcc"):
                out += ["--cuda", "-o", obj + ".ii"]
            elif check:
                out += ["-fsyntax-only"]
            else:
                out += ["-o", obj]
            i += 2
            continue
        if arch and t == "-gencode":
            if not placed:
                out += gencodes(arch)
                placed = True
            i += 2
            continue
        out.append(t)
        i += 1
    return out


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    units = json.load(open(args[0]))["units"]
    out = args[1]
    jobs, deadline, archs = os.cpu_count() or 4, 560.0, ["9.0", "12.0+PTX"]
    check = "--check" in args
    rest = [a for a in args[2:] if a != "--check"]
    while rest:
        k, v = rest[0], rest[1]
        rest = rest[2:]
        if k == "--jobs":
            jobs = int(v)
        elif k == "--deadline":
            deadline = float(v)
        elif k == "--archs":
            archs = v.split(",")
    todo = []
    for u in units:
        if u["file"].endswith(".cu") and not check:
            todo += [(u, a) for a in archs]
        else:
            todo.append((u, ""))
    scratch = tempfile.mkdtemp(prefix="seed-peaks.")
    t0 = time.monotonic()
    running, rows = {}, []
    n = 0
    while todo or running:
        while todo and len(running) < jobs:
            u, arch = todo.pop(0)
            n += 1
            argv = variant(u["command"], arch, f"{scratch}/{n}.o", check)
            p = subprocess.Popen(argv, cwd=u["directory"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, start_new_session=True)
            running[p.pid] = dict(p=p, u=u, arch=arch, start=time.monotonic(), peak=0,
                                  obj=f"{scratch}/{n}.o")
        snap = children_map()
        for pid, r in list(running.items()):
            r["peak"] = max(r["peak"], tree_rss(pid, snap)[0])
            rc = r["p"].poll()
            late = time.monotonic() - t0 > deadline
            if rc is None and not late:
                continue
            status = "ok" if rc == 0 else f"rc={rc}"
            if rc is None:
                os.killpg(pid, signal.SIGKILL)
                r["p"].wait()
                status = "partial"
            err = r["p"].stderr.read().decode(errors="replace")
            if rc not in (0, None):
                sys.stderr.write(f"--- {r['u']['file']} {r['arch']}\n{err[-1500:]}\n")
                first = [ln for ln in err.splitlines() if "error" in ln]
                if check and first:
                    status += " " + re.sub(r"\x1b\[[0-9;]*[mK]", "", first[0]).strip()[:300]
            kind = "cuda" if r["u"]["file"].endswith(".cu") else "cxx"
            rows.append((r["u"]["file"], kind, r["arch"] or "-",
                         r["peak"] // (1 << 20), round(time.monotonic() - r["start"], 1), status))
            for junk in (r["obj"], r["obj"] + ".ii"):
                if os.path.exists(junk):
                    os.unlink(junk)
            del running[pid]
            print("\t".join(map(str, rows[-1])), flush=True)
        if time.monotonic() - t0 > deadline:
            todo = []
        time.sleep(0.05)
    with open(out + ".tmp", "w") as f:
        f.write("# file\tkind\tarch\tpeak_mb\tseconds\tstatus\n")
        for r in sorted(rows):
            f.write("\t".join(map(str, r)) + "\n")
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
