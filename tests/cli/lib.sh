# Helpers for CLI tests; each test is a sh script that exits non-zero on failure.
# Sourced as `. "$(dirname "$0")/lib.sh"`. tests/run.sh exports TOP, BW and
# TMP (the suite's own scratch directory) for every suite; a suite run alone
# (`sh tests/cli/30-plan.sh`, from any directory) gets them here, with
# tests/tmp/30-plan as its own TMP.
#
# Every check that passes (run, contains, pass) and every skip (skip REASON)
# is a line in $TALLY; at exit the suite prints "N passed, N failed, N
# skipped". A suite that ran no check fails. Cleanup goes through at_exit,
# not `trap ... EXIT`, which would replace the summary.
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
TALLY=${TALLY:-$TMP.tally}
: >"$TALLY"
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
# An ASan build (make asan). LeakSanitizer cannot work under ptrace, so
# under ASan a run traced by strace goes with leak detection off (TRACED_ASAN).
ASAN_BUILD=""
TRACED_ASAN=${ASAN_OPTIONS:-}
if grep -q __asan_init "$BW" 2>/dev/null; then
	ASAN_BUILD=1
	TRACED_ASAN="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
export ASAN_BUILD TRACED_ASAN
cd "$TOP"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# A check that passed; run and contains count themselves.
pass() {
	echo ok >>"$TALLY"
}

# skip REASON: a check not made here, and why (a missing tool, no root, ...).
skip() {
	echo "skip $*" >>"$TALLY"
	echo "skip: $*" >&2
}

# at_exit CMD: run CMD when the suite ends, however it ends.
at_exit_cmds=""
at_exit() {
	at_exit_cmds="$at_exit_cmds
$1"
}

summary() {
	rc=$1
	set +e
	eval "$at_exit_cmds"
	n_ok=$(grep -c '^ok$' "$TALLY")
	n_skip=$(grep -c '^skip ' "$TALLY")
	n_fail=0
	[ "$rc" = 0 ] || n_fail=1
	if [ "$rc" = 0 ] && [ "$n_ok" = 0 ]; then
		echo "FAIL: no check ran" >&2
		n_fail=1 rc=1
	fi
	echo "$n_ok passed, $n_fail failed, $n_skip skipped"
	exit "$rc"
}
trap 'summary $?' EXIT
# Killed (a ^C, run.sh stopped): the cleanups still run.
trap 'exit 130' INT
trap 'exit 143' TERM

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
	pass
}

contains() {
	grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "'$1' lacks: $2"; }
	pass
}

# The wheels of tests/fixtures/wheels/make_wheels.py in $TMP/wheels, made once.
need_wheels() {
	[ -d "$TMP/wheels/good" ] || python3 tests/fixtures/wheels/make_wheels.py "$TMP/wheels"
}

# A pure wheel of minitorch 2.11.0 (a package bwbuild ships a smoke probe for)
# in DIR: minitorch-2.11.0-py3-none-any.whl, its __init__.py the version line
# and then each further argument as a line.
minitorch_wheel() {
	python3 - "$@" <<'PY'
import base64, hashlib, sys, zipfile
init = "__version__ = '2.11.0'\n" + "".join(line + "\n" for line in sys.argv[2:])
files = {
    "minitorch/__init__.py": init.encode(),
    "minitorch-2.11.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: minitorch\nVersion: 2.11.0\n",
    "minitorch-2.11.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
rec = []
with zipfile.ZipFile(sys.argv[1] + "/minitorch-2.11.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in files.items():
        z.writestr(n, d)
        rec.append("%s,sha256=%s,%d" % (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d)))
    rec.append("minitorch-2.11.0.dist-info/RECORD,,")
    z.writestr("minitorch-2.11.0.dist-info/RECORD", "\n".join(rec) + "\n")
PY
}

# The example's repository (tests/fixtures/minitorch at v2.11.0) made in
# DIR/minitorch.git, and a profile YAML over profiles/demo.yaml that builds
# it, named NAME, each further argument a line after source.repo.
example_profile() {
	sh scripts/make-example-repo.sh tests/fixtures/minitorch "$1/minitorch.git" v2.11.0
	{
		printf 'extends: %s/profiles/demo.yaml\nname: %s\nsource:\n  repo: %s/minitorch.git\n' "$TOP" "$3" "$1"
		shift 3
		for line; do printf '%s\n' "$line"; done
	} >"$2"
}
