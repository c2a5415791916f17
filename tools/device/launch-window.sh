#!/bin/sh
# Issue 43's equal window on a GPU machine (no network), from the
# repository's root: the v2.6.0 bundle in KIT (scripts/offline-kit.sh)
# configured by bwbuild with PROFILE (cpu, or sm120 as cuda-env.sh writes
# it) and FIRST (c10) compiled by it; then TARGETS cleaned and compiled, alternately
# as bwbuild's compile step runs ninja (the environment its compile.log
# records: the launcher admitting, MAX_JOBS) and plainly (`ninja
# -j<cpus>`, the launcher CMake put in front of each compile running it
# directly, as it does without BWBUILD_LAUNCH_DIR), ROUNDS times each; ccache
# off in both. Writes WORK-window/: times.txt (one line a run), the logs.
#
#   sh tools/device/launch-window.sh KIT WORK [TARGETS] [ROUNDS]
set -u
[ $# -ge 2 ] || { echo "usage: $0 KIT WORK [TARGETS] [ROUNDS]" >&2; exit 2; }
KIT=$1
work=$2
targets=${3:-c10 dnnl}
rounds=${4:-2}
res="${work%/}-window"
mkdir -p "$res"
. "$(dirname "$0")/cuda-env.sh"
prof="$res/profile.yaml"
if [ "${PROFILE:-cpu}" = sm120 ]; then
	write_profile "$prof" off
	printf 'build:\n  cache: none\n' >>"$prof"
else
	cat >"$prof" <<YAML
extends: $top/profiles/cpu.yaml
name: cpu
source:
  ref: v2.6.0
build:
  cache: none
cmake:
  USE_SYSTEM_EIGEN_INSTALL: "1"
  CMAKE_PREFIX_PATH: $sysroot/usr
  CMAKE_INCLUDE_PATH: $sysroot/usr/include
YAML
fi
# The compile step's environment comes from its log: FIRST (c10) built by it.
first=${FIRST:-c10}
t0=$(date +%s)
"$kit/bin/bwbuild" build --profile "$prof" --bundle "$kit/bundle.tar.zst" --work "$work" \
	--no-preflight --targets "$first" >"$res/build.log" 2>&1
echo "bwbuild build --targets $first: exit $? after $(($(date +%s) - t0)) s" | tee -a "$res/times.txt"
clog=$(find "$work" -path '*/logs/compile.log' | head -n 1)
[ -n "$clog" ] || { tail -n 30 "$res/build.log"; exit 1; }
bdir=$(sed -n 's/^# cd //p' "$clog" | head -n 1)/build
[ -f "$bdir/build.ninja" ] || { echo "error: no build.ninja in $bdir" >&2; exit 1; }
# The compile step's environment, as its log records it.
sed -n 's/^# env //p' "$clog" >"$res/launch.env"
jobs=$(sed -n 's/^MAX_JOBS=//p' "$res/launch.env")
# shellcheck disable=SC2086 # $targets: target names, split on purpose
units=$(ninja -C "$bdir" -t commands $targets | grep -c ' -c ')
echo "units: $units; MAX_JOBS $jobs; $(nproc) CPUs" | tee -a "$res/times.txt"
onerun() {
	# shellcheck disable=SC2086 # $targets: target names, split on purpose
	ninja -C "$bdir" -t clean $targets >/dev/null
	s=$(date +%s%N)
	if [ "$1" = plain ]; then
		# shellcheck disable=SC2086 # $targets: target names, split on purpose
		env -u BWBUILD_LAUNCH_DIR CCACHE_DISABLE=1 ninja -C "$bdir" -j"$(nproc)" $targets >"$res/$1-$2.log" 2>&1
	else
		# shellcheck disable=SC2086 # $targets: target names, split on purpose
		(
			while IFS= read -r kv; do export "${kv?}"; done <"$res/launch.env"
			CCACHE_DISABLE=1 exec ninja -C "$bdir" -j"$jobs" $targets
		) >"$res/$1-$2.log" 2>&1
	fi
	rc=$?
	ms=$((($(date +%s%N) - s) / 1000000))
	echo "$1 $2: exit $rc, $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s" | tee -a "$res/times.txt"
}
r=1
while [ "$r" -le "$rounds" ]; do
	onerun plain "$r"
	onerun launched "$r"
	r=$((r + 1))
done
