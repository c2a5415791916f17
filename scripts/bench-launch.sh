#!/bin/sh
# `make bench-launch`: what `bwbuild launch` costs beside the compiler it
# runs, against the compiler run plainly, in one run (issue 43's goals:
# <= 25 ms of CPU while a 5 s compile runs, <= 1.02x the wall of 160 units
# of 0.25 s through ninja -j<cpus>).
#
# CPU: the user + system time of the launcher and everything it forks
# (RUSAGE_CHILDREN of this script) minus the stand-in compiler's own, which
# it reports (build/bench/launch/cpuhog: 100 MiB touched, held 5 s), minus
# what is left the same way of the compiler run plainly (the peer: its
# exit, which frees the 100 MiB after it reported, and this script's
# spawn); the medians of RUNS (default 5). Wall:
# ninja -j<cpus> over 160 units of 0.25 s (tests/fixtures/bin/hog.c),
# plain and launched, alternated, the best of RUNS/2 rounded up (at least
# 2) each.
# BW names the bwbuild to measure; the launcher is the one its plan sets,
# bwbuild-launch beside it where there is one.
set -eu
cd "$(dirname "$0")/.."
BW=${BW:-$PWD/bin/bwbuild}
D=build/bench/launch
rm -rf "$D"
mkdir -p "$D"
cc -O1 -o "$D/hog" tests/fixtures/bin/hog.c
# usage: cpuhog MIB MS OUT: writes its own user + system CPU in µs to OUT.
cat >"$D/cpuhog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
int
main(int argc, char **argv)
{
	size_t mib = argc > 3 ? strtoul(argv[1], NULL, 10) : 0;
	long ms = argc > 3 ? strtol(argv[2], NULL, 10) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	struct rusage ru;
	char *p = malloc((mib << 20) + 1);
	FILE *f;

	if (argc < 4 || !p)
		return 2;
	memset(p, 1, mib << 20);
	nanosleep(&ts, NULL);
	getrusage(RUSAGE_SELF, &ru);
	if (!(f = fopen(argv[3], "w")))
		return 3;
	fprintf(f, "%ld\n", (long)(ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
				   ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec));
	fclose(f);
	free(p);
	return 0;
}
C
cc -O1 -o "$D/cpuhog" "$D/cpuhog.c"
if [ -x "$BW-launch" ]; then L="$BW-launch --"; else L="$BW launch --"; fi
python3 - "$D" "$L" "$(nproc)" "${RUNS:-5}" <<'PY'
import os, resource, statistics, subprocess, sys, time
d, launch, cpus, runs = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
hog = os.path.join(d, "hog")
env = dict(os.environ, BWBUILD_LAUNCH_DIR=os.path.join(d, "launch"),
           BWBUILD_LAUNCH_BUDGET=str(16 << 30), BWBUILD_LAUNCH_SLOTS=str(cpus),
           BWBUILD_SRC_ROOT=d)
for k in ("BWBUILD_LAUNCH_TABLE", "BWBUILD_LAUNCH_SEED", "BWBUILD_LAUNCH_REMOTE",
          "BWBUILD_LAUNCH_INSIDE", "BWBUILD_LAUNCH_PHASE"):
    env.pop(k, None)
src = os.path.join(d, "unit.cc")
open(src, "w").close()

def cpu_ms(cmd):
    """The CPU of cmd and its children, and the stand-in compiler's own, in ms."""
    own = os.path.join(d, "own")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd + [own, "-c", src, "-o", src + ".o"], env=env, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (1000 * (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime),
            int(open(own).read()) / 1000)

compile_ = [os.path.join(d, "cpuhog"), "100", "5000"]
plain, launched, rest_plain, rest = [], [], [], []
for i in range(runs):
    total, own = cpu_ms(compile_)
    plain.append(total)
    rest_plain.append(total - own)
    total, own = cpu_ms(launch.split() + compile_)
    launched.append(total)
    rest.append(total - own)
print("one compile of 5 s (100 MiB) through `%s`, %d runs, median CPU ms (user + system):" %
      (" ".join([os.path.basename(launch.split()[0])] + launch.split()[1:]), runs))
print("| run | CPU ms | the launcher's own |")
print("|---|---|---|")
print("| peer: the compiler alone | %.1f | - |" % statistics.median(plain))
print("| launched | %.1f | %.1f (goal <= 25) |" % (statistics.median(launched),
                                                 statistics.median(rest) - statistics.median(rest_plain)))
print()

units = 160
def ninja_file(launcher):
    lines = ["rule cc", "  command = %s%s 1 250 %s -c $in -o $out && touch $out" % (launcher, hog, os.devnull), ""]
    for i in range(units):
        lines.append("build u%03d.o: cc u%03d.cc" % (i, i))
    return "\n".join(lines) + "\n"

for i in range(units):
    open(os.path.join(d, "u%03d.cc" % i), "w").close()

def wall(launcher):
    for f in os.listdir(d):
        if f.endswith(".o") or f.startswith(".ninja"):
            os.remove(os.path.join(d, f))
    open(os.path.join(d, "build.ninja"), "w").write(ninja_file(launcher))
    t = time.monotonic()
    subprocess.run(["ninja", "-C", d, "-j", str(cpus)], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t

wp, wl = [], []
for i in range(max(2, (runs + 1) // 2)):
    wp.append(wall(""))
    wl.append(wall(launch + " "))
print("%d units of 0.25 s through ninja -j%d, best of %d:" % (units, cpus, len(wp)))
print("| run | wall s | vs peer |")
print("|---|---|---|")
print("| peer: plain ninja | %.2f | 1.00x |" % min(wp))
print("| ninja, launched | %.2f | %.3fx (goal <= 1.02x) |" % (min(wl), min(wl) / min(wp)))
PY
