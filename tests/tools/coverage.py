#!/usr/bin/env python3
"""The table behind `make coverage`: line coverage of src/LAYER/*.c from the
.gcno/.gcda files of a --coverage build in OBJDIR (obj-cov by default),
read with plain gcov's JSON output (gcc 9 or later), per layer and in total.

usage: coverage.py [-v] [OBJDIR]

-v adds one line per file. A file whose program never ran has no .gcda and
counts as 0 of its lines; a file that was not compiled at all is left out."""
import gzip
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layers import ORDER as LAYERS  # noqa: E402  (one list of layers: layers.py)


def gcov_json(src, objdir):
    """gcov's JSON for one source file, or None when no program ran it."""
    base = os.path.splitext(os.path.basename(src))[0]
    gcno = os.path.join(objdir, base + ".gcno")
    if not os.path.exists(gcno):
        return None
    if not os.path.exists(os.path.join(objdir, base + ".gcda")):
        return {}
    out = subprocess.run(["gcov", "--json-format", "--stdout", "-o", objdir, src],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout
    if out[:2] == b"\x1f\x8b":
        out = gzip.decompress(out)
    return json.loads(out)


def lines_of(src, data):
    """(executed, total) lines of src itself (not of the headers it inlines)."""
    if data == {}:
        return None
    want = os.path.normpath(src)
    for f in data.get("files", []):
        if os.path.normpath(f["file"]) == want:
            total = len(f["lines"])
            return sum(1 for ln in f["lines"] if ln["count"] > 0), total
    return 0, 0


def uncompiled_total(src, objdir):
    """The instrumented lines of a file that never ran: gcov with no .gcda
    reports every line at count 0 (it warns; the warning is dropped)."""
    out = subprocess.run(["gcov", "--json-format", "--stdout", "-o", objdir, src],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    if out[:2] == b"\x1f\x8b":
        out = gzip.decompress(out)
    got = lines_of(src, json.loads(out))
    return got[1] if got else 0


def pct(a, b):
    return "%5.1f%%" % (100.0 * a / b) if b else "    -"


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    objdir = args[0] if args else "obj-cov"
    if not os.path.isdir(objdir):
        print("error: no %s; run 'make coverage' first" % objdir, file=sys.stderr)
        return 2
    rows = []
    for layer in LAYERS:
        d = os.path.join("src", layer)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith(".c"):
                continue
            src = os.path.join(d, name)
            data = gcov_json(src, os.path.join(objdir, layer))
            if data is None:
                continue
            got = lines_of(src, data)
            if got is None:
                got = (0, uncompiled_total(src, os.path.join(objdir, layer)))
            rows.append((layer, src, got[0], got[1]))
    if not rows:
        print("error: no coverage data in %s" % objdir, file=sys.stderr)
        return 2
    print("%-10s %6s %8s %8s %7s" % ("layer", "files", "lines", "run", "cover"))
    all_run = all_total = 0
    for layer in LAYERS:
        mine = [r for r in rows if r[0] == layer]
        if not mine:
            continue
        run = sum(r[2] for r in mine)
        total = sum(r[3] for r in mine)
        all_run += run
        all_total += total
        print("%-10s %6d %8d %8d %7s" % (layer, len(mine), total, run, pct(run, total)))
        if verbose:
            for _, src, r, t in mine:
                print("  %-28s %6d %8d %7s" % (src[4:], t, r, pct(r, t)))
    print("%-10s %6d %8d %8d %7s" % ("total", len(rows), all_total, all_run, pct(all_run, all_total)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
