#!/bin/sh
# The test run behind `make test`: unit tests, fuzz-corpus replay and the
# CLI tests in tests/cli (golden bad-profile messages, hostile wheels, the
# end-to-end demo build). Needs no network, GPU or root.
#
# usage: tests/run.sh [-j N] [unit | fuzz | cli]... [FILTER]...
#
# unit, fuzz and cli pick parts (all three by default). A FILTER picks the
# CLI suites whose name contains it ("plan", "smoke") and the unit suites
# and fuzz corpora of that module ("plan"). A CLI suite is named by its
# subject: tests/cli/NAME.sh (lib.sh and lib-*.sh are helpers they
# source). BW names the bwbuild to test and TESTBIN the directory of unit
# and fuzz_*, as `make asan` sets them;
# TESTEXEC, a command put before unit and fuzz_* (`make cross-test` runs
# aarch64 builds of them under "qemu-aarch64-static -L SYSROOT").
#
# A suite is the unit binary, one fuzz corpus or one CLI suite. Suites run
# N at a time (-j N; default: the number of CPUs; -j 1 one by one), those
# that took longest in the last run first. Each has a scratch directory of
# its own under TESTTMP (default tests/tmp; `make asan` uses obj-asan/tmp):
# unit/, fuzz-NAME/, and NAME/ for a CLI suite, so no two share a file,
# a port or a cache (the unit binary's test wheels are TESTTMP/wheels).
# A suite's output goes to TESTTMP/NAME.log and is printed in one piece when it ends: its summary for a pass, the output for
# a failure. Each suite reports "N passed, N failed, N skipped" with the
# reason of each skip; a suite that ran no check fails. The last line is the
# total, "N passed, N failed, N skipped", with the suites, the wall time and
# the CPU time the suites took (user+sys of each one's processes).
set -eu
here=$PWD
cd "$(dirname "$0")/.."
TOP=$PWD
abs() {
	case $1 in /*) echo "$1" ;; *) echo "$here/$1" ;; esac
}
BW=$(abs "${BW:-$TOP/bin/bwbuild}")
TESTBIN=$(abs "${TESTBIN:-$TOP/tests/bin}")
TESTTMP=$(abs "${TESTTMP:-$TOP/tests/tmp}")
TESTEXEC=${TESTEXEC:-}
export TOP BW TESTBIN TESTTMP TESTEXEC
unset BWBUILD_CACHE_DIR
# A version manager's shims (pyenv's, asdf's: a directory named shims)
# ahead of /usr/bin cost about 0.8 CPU s for each python3 started, a chain
# of bash scripts, and the suites start hundreds: they run the python3
# found past them, the system's, which bwbuild's builds use anyway.
PATH=$(printf '%s\n' "$PATH" | tr ':' '\n' | grep -v '/shims/*$' | paste -sd: -)
export PATH

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}
# seconds MS: "12.3"
seconds() {
	echo "$(($1 / 1000)).$(($1 % 1000 / 100))"
}
# cpu_ms FILE: the user+sys CPU of this shell's waited-for children so far,
# in ms, from `times` (its second line, "0m1.230000s 0m0.450000s") written
# to FILE by this shell itself: a subshell's `times` would count its own.
# CPU, not wall, is what a suite costs on a machine shared with other builds.
cpu_ms() {
	sed -n 2p "$1" | awk '{
		t = 0
		for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] }
		printf "%d\n", t * 1000 }'
}

# job_id KIND:NAME: the suite's name in TESTTMP.
job_id() {
	case $1 in
	unit:*) echo unit ;;
	fuzz:*) echo "fuzz-${1#*:}" ;;
	*) echo "${1#*:}" ;;
	esac
}

# run_suite KIND NAME: one suite, its output in TESTTMP/ID.log; writes
# TESTTMP/ID.result ("ok|FAIL PASSED FAILED SKIPPED MS") and ID.skips (one
# reason a line), then prints its report while holding the print lock.
run_suite() {
	kind=$1 name=$2
	id=$(job_id "$kind:$name")
	d="$TESTTMP/$id" log="$TESTTMP/$id.log" tally="$TESTTMP/$id.tally"
	rm -rf "$d" "$log" "$tally" "$TESTTMP/$id.result" "$TESTTMP/$id.skips" "$TESTTMP/$id.times"
	mkdir -p "$d"
	: >"$tally"
	: >"$TESTTMP/$id.skips"
	# A suite that took long last time, or never ran here (the first run's
	# builds take minutes), says it started: nothing else prints until it ends.
	last=$(awk -v id="$id" '$1 == id { print $2 }' "$TESTTMP/.durations" 2>/dev/null || true)
	if [ -z "$last" ] || [ "$last" -ge 30000 ]; then
		flock "$TESTTMP/.print-lock" printf '..   %-22s started%s\n' "$id" \
			"${last:+ (it took $(seconds "$last") s last time)}"
	fi
	times >"$TESTTMP/$id.times"
	t0=$(now_ms) c0=$(cpu_ms "$TESTTMP/$id.times")
	set +e
	case $kind in
	unit)
		# It writes TESTTMP/unit (this suite's directory) and TESTTMP/wheels.
		rm -rf "$TESTTMP/wheels"
		# shellcheck disable=SC2086
		TMPDIR="$d" $TESTEXEC "$TESTBIN/unit" $UNIT_FILTERS >"$log" 2>&1
		rc=$?
		counts=$(grep -o '[0-9]* passed, [0-9]* failed, [0-9]* skipped$' "$log" | tail -n 1 | tr -dc '0-9 ' | tr -s ' ')
		sed -n 's/^skip: //p' "$log" >"$TESTTMP/$id.skips"
		;;
	fuzz)
		if [ -d "tests/fuzz/corpus/$name" ]; then
			# shellcheck disable=SC2086
			TMPDIR="$d" $TESTEXEC "$TESTBIN/fuzz_$name" "tests/fuzz/corpus/$name" >"$log" 2>&1
			rc=$?
		else
			echo "no corpus in tests/fuzz/corpus/$name" >"$log"
			rc=1
		fi
		counts="$(sed -n 's/.*: \([0-9]*\) inputs replayed$/\1/p' "$log" | tail -n 1) 0 0"
		;;
	*)
		TMP="$d" XDG_CACHE_HOME="$d/cache" TALLY="$tally" sh "tests/cli/$name.sh" >"$log" 2>&1 </dev/null
		rc=$?
		counts="$(grep -c '^ok$' "$tally") 0 $(grep -c '^skip ' "$tally")"
		sed -n 's/^skip //p' "$tally" >"$TESTTMP/$id.skips"
		;;
	esac
	set -e
	times >"$TESTTMP/$id.times"
	ms=$(($(now_ms) - t0)) cpu=$(($(cpu_ms "$TESTTMP/$id.times") - c0))
	# shellcheck disable=SC2086
	set -- $counts
	p=${1:-0} f=${2:-0} s=${3:-0}
	# A crash or a failure the suite did not count is one failed check more.
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
	why=""
	[ "$rc" = 0 ] || why="exit $rc"
	if [ "$rc" = 0 ] && [ "$p" = 0 ]; then
		f=1 why="no check ran"
	fi
	status=ok
	[ "$f" = 0 ] || status=FAIL
	echo "$status $p $f $s $ms $cpu" >"$TESTTMP/$id.result"
	{
		printf '%-4s %-22s %4d passed, %d failed, %d skipped  %6s s, %6s s CPU%s\n' \
			"$status" "$id" "$p" "$f" "$s" "$(seconds "$ms")" "$(seconds "$cpu")" "${why:+  ($why)}"
		sed 's/^/     skip: /' "$TESTTMP/$id.skips"
		# The time and peak memory of each crafted input (resource-bounds).
		sed -n 's/^bound: /     /p' "$log"
		if [ "$status" = FAIL ]; then
			echo "     --- $log (last 60 lines):"
			tail -n 60 "$log" | sed 's/^/     /'
		fi
	} >"$TESTTMP/$id.report"
	flock "$TESTTMP/.print-lock" cat "$TESTTMP/$id.report"
}

if [ "${1:-}" = --suite ]; then
	# One job of the pool below: "KIND:NAME".
	job=$2
	run_suite "${job%%:*}" "${job#*:}"
	exit 0
fi

jobs=""
parts=""
filters=""
J=""
while [ $# -gt 0 ]; do
	case $1 in
	-j)
		[ $# -ge 2 ] || set -- -j ""
		J=$2
		shift
		;;
	-j*) J=${1#-j} ;;
	unit | fuzz | cli) parts="$parts $1" ;;
	-*) J=x ;;
	*) filters="$filters $1" ;;
	esac
	shift
done
[ -n "$J" ] || J=$(nproc 2>/dev/null || echo 1)
case $J in
'' | *[!0-9]* | 0)
	echo "usage: tests/run.sh [-j N] [unit | fuzz | cli]... [FILTER]..." >&2
	exit 2
	;;
esac
[ -n "$parts" ] || parts="unit fuzz cli"
want() {
	case " $parts " in *" $1 "*) return 0 ;; esac
	return 1
}

# named NAME: NAME contains a filter.
named() {
	[ -z "$filters" ] && return 0
	for f in $filters; do
		case $1 in *"$f"*) return 0 ;; esac
	done
	return 1
}
UNIT_FILTERS=$filters
export UNIT_FILTERS

built() {
	[ -x "$1" ] && return 0
	echo "error: '$1' is not built; run 'make all test-bins' first" >&2
	exit 2
}

# unit --list exits 2 when no suite matches the filters.
if want unit; then
	built "$TESTBIN/unit"
	set +e
	# shellcheck disable=SC2086
	$TESTEXEC "$TESTBIN/unit" --list $UNIT_FILTERS >/dev/null 2>&1
	list_rc=$?
	set -e
	[ "$list_rc" = 2 ] || jobs="$jobs unit:unit"
fi
if want fuzz; then
	for f in tests/fuzz/fuzz_*.c; do
		t=${f##*/fuzz_}
		t=${t%.c}
		if named "$t"; then
			built "$TESTBIN/fuzz_$t"
			jobs="$jobs fuzz:$t"
		fi
	done
fi
if want cli; then
	for t in tests/cli/*.sh; do
		name=$(basename "$t" .sh)
		# lib.sh and lib-*.sh are sourced by the suites, not suites.
		case $name in lib | lib-*) continue ;; esac
		if named "$name"; then
			built "$BW"
			jobs="$jobs cli:$name"
		fi
	done
fi
if [ -z "$jobs" ]; then
	# shellcheck disable=SC2086
	echo "error: no test matches$(printf " '%s'" $filters)" >&2
	exit 2
fi

mkdir -p "$TESTTMP"
# What CMake's compiler checks found, kept for every suite of this run by
# the example's configure (tests/fixtures/minitorch/tools/setup_helpers/
# platform_cache.py): a fresh configure then costs 0.3 CPU s, not 7.
MINITORCH_PLATFORM_CACHE=$TESTTMP/cmake-platform
rm -rf "$MINITORCH_PLATFORM_CACHE"
export MINITORCH_PLATFORM_CACHE
# One ccache for the example's compiles in every suite of this run
# (tests/fixtures/minitorch/tools/setup_helpers/compile_cache.py): after
# the first build, an nvcc compile of its kernels is a 0.02 s hit, not 3 s
# of CPU. A suite about compiling itself sets MINITORCH_COMPILE_CACHE=''.
MINITORCH_COMPILE_CACHE=$TESTTMP/compile-cache
rm -rf "$MINITORCH_COMPILE_CACHE"
export MINITORCH_COMPILE_CACHE
# The wheels of tests/fixtures/wheels/make_wheels.py, made by the first
# suite that needs them (tests/cli/lib.sh, need_wheels), anew each run.
rm -rf "$TESTTMP/shared-wheels" "$TESTTMP/shared-wheels.tmp"
# The slowest first, by the times of the last run (TESTTMP/.durations);
# without them (a fresh clone) by tests/durations, the times of a run on a
# 2-core machine, kept with the suites; a CLI suite in neither as one of
# 30 s, a unit or fuzz suite as one of 1 s.
order() {
	for j in $jobs; do
		id=$(job_id "$j")
		ms=$(awk -v id="$id" '$1 == id { print $2 }' "$TESTTMP/.durations" 2>/dev/null)
		[ -n "$ms" ] || ms=$(awk -v id="$id" '$1 == id { print $2 }' tests/durations)
		[ -n "$ms" ] || case $j in cli:*) ms=30000 ;; *) ms=1000 ;; esac
		echo "$ms $j"
	done | sort -k1,1nr | cut -d' ' -f2
}

echo "== $(echo "$jobs" | wc -w) suites, $J at a time; output in $TESTTMP/NAME.log"
t0=$(now_ms)
set +e
order | xargs -P "$J" -n 1 sh "$TOP/tests/run.sh" --suite
set -e
ms=$(($(now_ms) - t0))

pass=0 fail=0 skip=0 suites=0 failed="" ids="" cpu=0
: >"$TESTTMP/.durations.new"
for j in $jobs; do
	id=$(job_id "$j")
	ids="$ids $id"
	suites=$((suites + 1))
	if [ ! -f "$TESTTMP/$id.result" ]; then
		fail=$((fail + 1))
		failed="$failed $id(not run)"
		continue
	fi
	read -r status p f s d c <"$TESTTMP/$id.result"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s)) cpu=$((cpu + ${c:-0}))
	[ "$status" = ok ] || failed="$failed $id"
	echo "$id $d" >>"$TESTTMP/.durations.new"
done
# The times of the suites not run this time are kept for the next.
if [ -f "$TESTTMP/.durations" ]; then
	while read -r id d; do
		case " $ids " in *" $id "*) ;; *) echo "$id $d" ;; esac
	done <"$TESTTMP/.durations" >>"$TESTTMP/.durations.new"
fi
mv "$TESTTMP/.durations.new" "$TESTTMP/.durations"

n=0
for id in $ids; do
	[ -s "$TESTTMP/$id.skips" ] || continue
	[ "$n" -gt 0 ] || echo "skipped:"
	n=1
	sed "s|^|  $id: |" "$TESTTMP/$id.skips"
done
# shellcheck disable=SC2086
[ -z "$failed" ] || echo "failed:" $failed
echo "$pass passed, $fail failed, $skip skipped; $suites suites in $(seconds "$ms") s, $J at a time, $(seconds "$cpu") s CPU"
[ "$fail" = 0 ]
