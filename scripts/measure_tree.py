#!/usr/bin/env python3
"""Run a command and report its wall time and the peak memory of its whole
process tree (the sum of the resident sets of the command and every
descendant, sampled every 50 ms), which is what an OOM killer sees during a
parallel build; /usr/bin/time reports only the largest single process.

    measure_tree.py LABEL OUTFILE -- COMMAND...

Appends one JSON line {label, rc, wall_s, peak_tree_mib, peak_procs} to
OUTFILE and exits with the command's status.
"""
import json
import os
import subprocess
import sys
import time


def children_map():
    kids = {}
    rss = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/statm") as f:
                pages = int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(pid))
        rss[int(pid)] = pages * os.sysconf("SC_PAGE_SIZE")
    return kids, rss


def tree_rss(root, snap=None):
    """(bytes, processes) of root's tree; snap: one children_map() shared by
    several roots (scripts/seed-peaks.py samples many compiles at once)."""
    kids, rss = snap or children_map()
    total, n, todo = 0, 0, [root]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        n += 1
        todo.extend(kids.get(p, []))
    return total, n


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit("usage: measure_tree.py LABEL OUTFILE -- COMMAND...")
    label, outfile, cmd = sys.argv[1], sys.argv[2], sys.argv[4:]
    start = time.monotonic()
    child = subprocess.Popen(cmd)
    peak, peak_n = 0, 0
    while child.poll() is None:
        total, n = tree_rss(child.pid)
        if total > peak:
            peak, peak_n = total, n
        time.sleep(0.05)
    wall = time.monotonic() - start
    rec = {"label": label, "rc": child.returncode, "wall_s": round(wall, 1),
           "peak_tree_mib": round(peak / 2**20), "peak_procs": peak_n}
    with open(outfile, "a") as f:
        f.write(json.dumps(rec) + "\n")
    print("measure:", json.dumps(rec), file=sys.stderr)
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
