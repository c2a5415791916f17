# Fault injection: bwbuild is SIGKILLed at every injection point (src/core/fault.h)
# of a real build of the example, then run again as it is; the second run
# must succeed with consistent outputs (the wheel's sha256 is the manifest's,
# no temporary file left, no compile still running). The kills inside a
# submodule's checkout are faults-checkout.sh's, damaged state
# faults-damage.sh's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faults.sh"
n=0
# killed_at POINT [ARG]: a build SIGKILLed at POINT; nothing of it may go on
# running beside the next one.
killed_at() {
	n=$((n + 1))
	rm -f "$w/last-build.json"
	BWBUILD_FAULT="$1" run 137 "$BW" --profile "$TMP/f90.yaml" --work "$w" --out "$o" ${2:+"$2"}
	k=0
	while pgrep -f "$w/src" >/dev/null; do
		k=$((k + 1))
		[ "$k" -lt 150 ] || fail "processes outlived bwbuild killed at $1: $(pgrep -af "$w/src")"
		sleep 0.1
	done
}
# kill_at POINT [ARG]: killed at POINT, then run again as it is.
kill_at() {
	killed_at "$@"
	rm -f "$w/last-build.json"
	run 0 "$BW" --profile "$TMP/f90.yaml" --work "$w" --out "$o" ${2:+"$2"}
	consistent "a kill at $1"
}
# Inside the checkout of a new work tree, after its marker. Its re-run is
# the suite's one whole build of a new tree (CMake's compiler checks, every
# kernel compiled), so it is also the build that lists the points a whole
# build reaches.
killed_at checkout-begun
BWBUILD_FAULT=list build 0
contains "$TMP/err" "was cut short; finishing it"
consistent "a kill at checkout-begun"
grep '^fault point: ' "$TMP/err" | sed 's/^fault point: //' | sort -u > "$TMP/points90"
for p in before-fetch after-fetch before-configure configure-read-back after-configure \
	before-compile after-compile before-wheel after-wheel before-verify after-verify \
	before-publish publish-wheel-copied publish-manifest-renamed after-publish; do
	grep -qx "$p" "$TMP/points90" || fail "fault point $p not reached by a build"
done
# Each point of a build whose every step has work to do: a touched source
# recompiles, and the wheel is packed, verified and published again.
grep -v -e '^checkout-' -e '^compile$' -e '^configure$' -e '^wheel$' "$TMP/points90" > "$TMP/steps90"
while read -r p; do
	touch_src
	kill_at "$p"
done < "$TMP/steps90"
# Inside the compile: its 1st and 2nd progress lines, compilers running.
touch_src
kill_at compile:1
touch_src
kill_at compile:2
# Inside the checkout of a new work tree, after 6 files (after its marker: the first kill).
rm -rf "$w"
kill_at checkout-file:6
# The same with --force on a tree killed mid-checkout.
rm -rf "$w"
BWBUILD_FAULT=checkout-file:3 run 137 "$BW" --profile "$TMP/f90.yaml" --work "$w" --out "$o" --until fetch
run 0 "$BW" --profile "$TMP/f90.yaml" --work "$w" --out "$o" --until fetch --force
n=$((n + 1))
echo "fault points: $n kills, every re-run recovered"
