# Helpers for CLI tests; each test is a sh script that exits non-zero on failure.
set -eu
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
