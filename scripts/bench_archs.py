"""`make bench-archs`: bwbuild archs against cuobjdump on every library of a
directory, in one run, and whether they agree library by library.

usage: bench_archs.py DIR BWBUILD [CUOBJDUMP]

cuobjdump is run as people run it, once per library with --list-elf and
--list-ptx; bwbuild archs once over the directory. Both read files already
in the page cache (the directory is read once first). Prints wall time and
peak memory (max RSS of each tool's processes), then the per-library
comparison: SASS and PTX targets with entry counts of .nv_fatbin (cuobjdump
--list-elf/--list-ptx do not list __nv_relfatbin entries, measured on torch
2.11's libtorch_nvshmem.so; bwbuild reports them apart). Exit 1 on a mismatch.
"""
import collections
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time


def libraries(top):
    out = []
    for root, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(root, f)
            if (f.endswith(".so") or ".so." in f) and not os.path.islink(p) and os.path.isfile(p):
                out.append(p)
    return sorted(out)


def timed(cmd_list):
    """Run the commands one after another in a child; wall seconds, peak RSS MiB, outputs."""
    probe = (
        "import json,resource,subprocess,sys,time\n"
        "cmds=json.loads(sys.stdin.read());t=time.monotonic();outs=[]\n"
        "for c in cmds:\n"
        "    r=subprocess.run(c,capture_output=True,text=True,errors='replace');outs.append([r.returncode,r.stdout])\n"
        "print(json.dumps([time.monotonic()-t,resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,outs]))\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], input=json.dumps(cmd_list),
                       capture_output=True, text=True, check=True)
    wall, rss, outs = json.loads(r.stdout)
    return wall, rss / 1024, outs


ELF_RE = re.compile(r"^ELF file\s+\d+:\s+\S*?\.(sm_\d+[af]?)\.cubin", re.M)
PTX_RE = re.compile(r"^PTX file\s+\d+:\s+\S*?\.(sm_\d+[af]?)\.ptx", re.M)


def main():
    top, bw = sys.argv[1], sys.argv[2]
    cuobjdump = sys.argv[3] if len(sys.argv) > 3 else (shutil.which("cuobjdump") or "")
    libs = libraries(top)
    for p in libs:
        with open(p, "rb") as f:
            while f.read(1 << 24):
                pass
    total = sum(os.path.getsize(p) for p in libs)
    print("directory: %s (%d libraries, %.0f MiB), %d CPUs" % (top, len(libs), total / 2**20,
                                                                len(os.sched_getaffinity(0))))
    bw_wall, bw_rss, bw_out = timed([[bw, "archs", "--json", top]])
    ours = {}
    for l in json.loads(bw_out[0][1])["libraries"]:
        ours[l["path"]] = (dict(l["sass"]), dict(l["ptx"]))
    print("| tool | wall s | max RSS MiB |")
    print("|---|---|---|")
    if cuobjdump:
        cu_wall, cu_rss, cu_out = timed([[cuobjdump, "--list-elf", "--list-ptx", p] for p in libs])
        print("| peer: cuobjdump --list-elf --list-ptx, per library | %.2f | %.0f |" % (cu_wall, cu_rss))
    print("| bwbuild archs DIR | %.3f | %.1f |" % (bw_wall, bw_rss))
    if not cuobjdump:
        print("cuobjdump is not installed here: no peer, no comparison")
        return 0
    print("speed: %.0fx cuobjdump; memory: 1/%.0f of cuobjdump's" % (cu_wall / bw_wall, cu_rss / bw_rss))
    bad = 0
    for p, (rc, text) in zip(libs, cu_out):
        sass = dict(collections.Counter(ELF_RE.findall(text)))
        ptx = dict(collections.Counter("compute_" + a[3:] for a in PTX_RE.findall(text)))
        mine = ours.get(p, ({}, {}))
        if not sass and not ptx and p not in ours:
            continue
        if (sass, ptx) != mine:
            bad += 1
            print("MISMATCH %s\n  cuobjdump: %s %s\n  bwbuild:   %s %s" % (p, sass, ptx, mine[0], mine[1]))
    print("per-library sets and counts: %s (%d libraries with CUDA code compared)" %
          ("identical" if not bad else "%d differ" % bad, sum(1 for v in ours.values() if v[0] or v[1])))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
