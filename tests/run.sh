#!/bin/sh
# The test run behind `make test`: unit tests, fuzz-corpus replay, then the
# CLI tests in tests/cli (golden bad-profile messages, hostile wheels, the
# end-to-end demo build). Needs no network, GPU or root.
#
# usage: tests/run.sh [unit | fuzz | cli]... [FILTER]...
#
# unit, fuzz and cli pick parts (all three by default). A FILTER picks the
# CLI suites whose name contains it ("30-plan", "plan") and the unit suites
# and fuzz corpora of that module ("plan"). BW names the bwbuild to test
# and TESTBIN the directory of unit and fuzz_*, as `make asan` sets them.
# The last line is the total: "N passed, M failed" (one per unit suite,
# fuzz corpus and CLI suite).
set -eu
here=$PWD
cd "$(dirname "$0")/.."
TOP=$PWD
abs() {
	case $1 in /*) echo "$1" ;; *) echo "$here/$1" ;; esac
}
BW=$(abs "${BW:-$TOP/bin/bwbuild}")
TESTBIN=$(abs "${TESTBIN:-$TOP/tests/bin}")
TMP="$TOP/tests/tmp"
# Mirrors go to the test area, never to ~/.cache.
XDG_CACHE_HOME="$TMP/cache"
export TOP BW TMP XDG_CACHE_HOME
unset BWBUILD_CACHE_DIR

parts=""
filters=""
for a in "$@"; do
	case $a in
	unit | fuzz | cli) parts="$parts $a" ;;
	-*)
		echo "usage: tests/run.sh [unit | fuzz | cli]... [FILTER]..." >&2
		exit 2
		;;
	*) filters="$filters $a" ;;
	esac
done
[ -n "$parts" ] || parts="unit fuzz cli"
want() {
	case " $parts " in *" $1 "*) return 0 ;; esac
	return 1
}

# named NAME: NAME contains a filter. module NAME: the same, where
# "30-plan" also picks module "plan".
named() {
	[ -z "$filters" ] && return 0
	for f in $filters; do
		case $1 in *"$f"*) return 0 ;; esac
	done
	return 1
}
module() {
	[ -z "$filters" ] && return 0
	for f in $filters; do
		case $1 in *"$f"* | *"${f#[0-9][0-9]-}"*) return 0 ;; esac
	done
	return 1
}

unit_filters=""
for f in $filters; do
	unit_filters="$unit_filters ${f#[0-9][0-9]-}"
done
cli=""
for t in tests/cli/[0-9]*.sh; do
	name=$(basename "$t" .sh)
	if named "$name"; then cli="$cli $name"; fi
done
fuzz=""
for f in tests/fuzz/fuzz_*.c; do
	t=${f##*/fuzz_}
	t=${t%.c}
	if module "$t"; then fuzz="$fuzz $t"; fi
done

built() {
	[ -x "$1" ] && return 0
	echo "error: '$1' is not built; run 'make all test-bins' first" >&2
	exit 2
}
if want unit; then built "$TESTBIN/unit"; fi
if want fuzz; then for t in $fuzz; do built "$TESTBIN/fuzz_$t"; done; fi
if want cli && [ -n "$cli" ]; then built "$BW"; fi

rm -rf "$TMP"
mkdir -p "$TMP"
pass=0
fail=0
failed=""
ran=0

# unit --list exits 2 when no suite matches the filters.
list_rc=2
if want unit; then
	set +e
	# shellcheck disable=SC2086
	"$TESTBIN/unit" --list $unit_filters >/dev/null 2>&1
	list_rc=$?
	set -e
fi
if [ "$list_rc" != 2 ]; then
	ran=1
	echo "== unit"
	set +e
	# shellcheck disable=SC2086
	"$TESTBIN/unit" $unit_filters >"$TMP/unit.out" 2>"$TMP/unit.stderr"
	rc=$?
	set -e
	cat "$TMP/unit.out"
	n_ok=$(grep -c '^ok ' "$TMP/unit.out" || true)
	n_bad=$(grep -c '^FAIL ' "$TMP/unit.out" || true)
	if [ "$rc" != 0 ]; then
		sed 's/^/     /' "$TMP/unit.stderr" | tail -40
		# A crash leaves suites unreported: count it as one more failure.
		if [ "$n_bad" = 0 ]; then
			n_bad=1
			failed="$failed unit(exit $rc)"
		fi
		failed="$failed $(sed -n 's/^FAIL \([^ ]*\).*/unit:\1/p' "$TMP/unit.out" | tr '\n' ' ')"
	fi
	pass=$((pass + n_ok))
	fail=$((fail + n_bad))
fi

if want fuzz && [ -n "$fuzz" ]; then
	ran=1
	echo "== fuzz corpora"
	for t in $fuzz; do
		if [ ! -d "tests/fuzz/corpus/$t" ]; then
			echo "FAIL $t: no corpus in tests/fuzz/corpus/$t"
			fail=$((fail + 1))
			failed="$failed fuzz:$t"
		elif "$TESTBIN/fuzz_$t" "tests/fuzz/corpus/$t" >"$TMP/fuzz_$t.out" 2>&1; then
			printf 'ok   %-12s %s\n' "$t" "$(sed -n 's/.*: \([0-9]* inputs replayed\)$/\1/p' "$TMP/fuzz_$t.out")"
			pass=$((pass + 1))
		else
			echo "FAIL $t"
			sed 's/^/     /' "$TMP/fuzz_$t.out" | tail -40
			fail=$((fail + 1))
			failed="$failed fuzz:$t"
		fi
	done
fi

if want cli && [ -n "$cli" ]; then
	ran=1
	echo "== cli"
	for name in $cli; do
		if sh "tests/cli/$name.sh" >"$TMP/$name.out" 2>&1; then
			pass=$((pass + 1))
			echo "ok   $name"
			# The time and peak memory of each crafted input (47-bounds).
			sed -n 's/^bound: /     /p' "$TMP/$name.out"
		else
			echo "FAIL $name"
			sed 's/^/     /' "$TMP/$name.out" | tail -40
			fail=$((fail + 1))
			failed="$failed $name"
		fi
	done
fi

if [ "$ran" = 0 ]; then
	# shellcheck disable=SC2086
	echo "error: no test matches$(printf " '%s'" $filters)" >&2
	exit 2
fi
# shellcheck disable=SC2086
[ -z "$failed" ] || echo "failed:" $failed
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
