# Helpers for CLI tests; each test is a sh script that exits non-zero on failure.
# Sourced as `. "$(dirname "$0")/lib.sh"`. tests/run.sh exports TOP, BW and
# TMP for every suite; a suite run alone (`sh tests/cli/30-plan.sh`, from
# any directory) gets them here, with tests/tmp/30-plan as its own TMP.
set -eu
if [ -z "${TOP:-}" ]; then
	TOP=$(cd "$(dirname "$0")/../.." && pwd)
	TMP="$TOP/tests/tmp/$(basename "$0" .sh)"
	# Mirrors go to the test area, never to ~/.cache.
	XDG_CACHE_HOME="$TMP/cache"
	export TOP TMP XDG_CACHE_HOME
	rm -rf "$TMP"
	mkdir -p "$TMP"
fi
unset BWBUILD_CACHE_DIR
BW=${BW:-$TOP/bin/bwbuild}
case $BW in /*) ;; *) BW="$PWD/$BW" ;; esac
if [ ! -x "$BW" ]; then
	echo "error: '$BW' is not built; run 'make' first" >&2
	exit 1
fi
# As bwbuild names itself (realpath of /proc/self/exe), e.g. in its launcher lines.
BW=$(realpath "$BW")
export BW
cd "$TOP"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# run EXPECTED_STATUS CMD...: run, keep stdout/stderr in $TMP/out and $TMP/err
run() {
	want=$1
	shift
	set +e
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"
		fail "'$*' exited $got, expected $want"
	fi
}

contains() {
	grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "'$1' lacks: $2"; }
}

# The wheels of tests/fixtures/wheels/make_wheels.py in $TMP/wheels, made once.
need_wheels() {
	[ -d "$TMP/wheels/good" ] || python3 tests/fixtures/wheels/make_wheels.py "$TMP/wheels"
}
