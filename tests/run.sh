#!/bin/sh
# The test run behind `make test`: unit tests, fuzz-corpus replay, then the
# CLI tests in tests/cli (golden bad-profile messages, hostile wheels, the
# end-to-end demo build). Needs no network, GPU or root.
set -eu
cd "$(dirname "$0")/.."
export BW="$PWD/bin/bwbuild"
export TOP="$PWD"
export TMP="$PWD/tests/tmp"
# Mirrors go to the test area, never to ~/.cache.
export XDG_CACHE_HOME="$TMP/cache"
unset BWBUILD_CACHE_DIR
rm -rf "$TMP"
mkdir -p "$TMP"

python3 tests/fixtures/wheels/make_wheels.py "$TMP/wheels"

echo "== unit"
tests/bin/unit 2>"$TMP/unit.stderr" || { cat "$TMP/unit.stderr"; exit 1; }

echo "== fuzz corpora"
for f in tests/fuzz/fuzz_*.c; do
	t=${f##*/fuzz_}
	t=${t%.c}
	[ -d "tests/fuzz/corpus/$t" ] || { echo "no corpus for fuzz target $t"; exit 1; }
	tests/bin/fuzz_$t tests/fuzz/corpus/$t
done

echo "== cli"
pass=0
failed=""
for t in tests/cli/[0-9]*.sh; do
	name=$(basename "$t" .sh)
	if sh "$t" >"$TMP/$name.out" 2>&1; then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		echo "FAIL $name"
		sed 's/^/     /' "$TMP/$name.out" | tail -40
		failed="$failed $name"
	fi
done
if [ -n "$failed" ]; then
	echo "cli: $pass passed, failed:$failed"
	exit 1
fi
echo "cli: $pass passed"
