#!/bin/sh
# `make bench-sched`: memory-aware scheduling against the usual ways of
# choosing MAX_JOBS, in one run. A synthetic build of 16 light compiles
# (250 MiB, 0.6 s) and 4 heavy ones (1200 MiB, 1.5 s, like flash-attention
# kernels) under a 2 GiB budget: plain `ninja -j<cpus>` (MAX_JOBS = cpus),
# `ninja -j1` (MAX_JOBS = budget / heavy estimate, the safe guess), and
# `ninja -j<2 x cpus>` through `bwbuild launch`, cold and with learned
# peaks. Peak memory is the most the compiles held at once (from their
# own start/end/size records), what a cgroup of that size would have seen.
# Then the demo profile under a generous and a tight --mem-budget.
set -eu
cd "$(dirname "$0")/.."
BW=${BW:-$PWD/bin/bwbuild}
D=build/bench/sched
rm -rf "$D"
mkdir -p "$D"
cc -O1 -o "$D/hog" tests/fixtures/bin/hog.c
cpus=$(nproc)
python3 - "$D" "$BW" "$cpus" <<'PY'
import os, subprocess, sys, time
d, bw, cpus = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = os.path.abspath(d)
budget = 1 << 30
jobs = [("light%02d" % i, 120, 500) for i in range(16)] + [("flash_heavy%d" % i, 600, 1200) for i in range(4)]

def ninja_file(launcher, log):
    lines = ["rule hog", "  command = %s%s/hog $mib $ms %s -c $in && touch $out" % (launcher, d, log), ""]
    for name, mib, ms in jobs:
        open(os.path.join(d, name + ".cc"), "w").close()
        lines += ["build %s/%s.o: hog %s/%s.cc" % (d, name, d, name), "  mib = %d" % mib, "  ms = %d" % ms]
    return "\n".join(lines) + "\n"

def peak(log):
    ev = []
    for line in open(log):
        s, e, mib = map(int, line.split())
        ev += [(s, mib), (e, -mib)]
    cur = best = 0
    for _, m in sorted(ev, key=lambda x: (x[0], x[1])):
        cur += m
        best = max(best, cur)
    return best

def run(name, j, launcher, env_extra=None, fresh_peaks=False):
    log = os.path.join(d, "".join(c if c.isalnum() else "_" for c in name) + ".log")
    if os.path.exists(log):
        os.remove(log)
    for f in os.listdir(d):
        if f.endswith(".o"):
            os.remove(os.path.join(d, f))
    if fresh_peaks and os.path.isdir(os.path.join(d, "launch")):
        subprocess.run(["rm", "-rf", os.path.join(d, "launch")], check=True)
    nf = os.path.join(d, "build.ninja")
    open(nf, "w").write(ninja_file(launcher, log))
    env = dict(os.environ)
    env.update(env_extra or {})
    t = time.monotonic()
    subprocess.run(["ninja", "-C", d, "-j", str(j)], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t
    p = peak(log)
    print("| %s | %d | %.1f | %.2fx | %d | %s |" % (name, j, wall, wall / best[0] if best else 1.0, p,
                                                "yes" if p > budget >> 20 else "no"))
    return wall

launch_env = {"BWBUILD_LAUNCH_DIR": os.path.join(d, "launch"), "BWBUILD_LAUNCH_BUDGET": str(budget),
              "BWBUILD_LAUNCH_SLOTS": str(cpus), "BWBUILD_SRC_ROOT": d}
print("synthetic build: 16 x 120 MiB/0.5 s + 4 x 600 MiB/1.2 s, budget 1024 MiB, %d CPUs" % cpus)
print("| scheduling | ninja -j | wall s | vs best static in budget | peak MiB held | over budget (OOM in a 1 GiB cgroup) |")
print("|---|---|---|---|---|---|")
best = []
run("peer: MAX_JOBS = cpus", cpus, "")
best.append(run("peer: MAX_JOBS = budget / heavy", 1, ""))
run("bwbuild launch, cold estimates", 2 * cpus, bw + " launch -- ", launch_env, fresh_peaks=True)
run("bwbuild launch, learned peaks", 2 * cpus, bw + " launch -- ", launch_env)
PY
echo
# The demo profile builds build/example/minitorch.git, which a fresh clone lacks.
[ -d build/example/minitorch.git ] ||
	sh scripts/make-example-repo.sh tests/fixtures/minitorch build/example/minitorch.git v2.11.0 >/dev/null
echo "demo profile (the example source), compile step:"
echo "| --mem-budget | compile s | MAX_JOBS | OOM recoveries |"
echo "|---|---|---|---|"
for b in 64G 3G 1G; do
	"$BW" --profile demo --work "$D/demo-work" --out "$D/demo-out" --mem-budget "$b" >"$D/demo.out" 2>"$D/demo.err" || {
		cat "$D/demo.err"; exit 1; }
	m=$(sed -n 's/^manifest: //p' "$D/demo.out")
	python3 - "$m" "$b" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["build"]
print("| %s | %.1f | %d | %d |" % (sys.argv[2], b["timings"]["compile"], b["max_jobs"], len(b["oom_recoveries"])))
PY
	rm -rf "$D/demo-work/src/build" "$D/demo-work/configure.stamp"
done
