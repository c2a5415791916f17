# tests/run.sh itself: a suite that never ran here, or took long last
# time, says it started before its result (the first run's suites are
# silent for minutes otherwise); a quick one known from the last run does
# not. Run on one fuzz corpus, in a TESTTMP of its own.
. "$(dirname "$0")/lib.sh"
rt="$TMP/runner"
TESTTMP="$rt" sh "$TOP/tests/run.sh" fuzz record >"$TMP/first" 2>&1 || fail "the runner failed: $(cat "$TMP/first")"
started=$(grep -n '^\.\.   fuzz-record  *started$' "$TMP/first" | cut -d: -f1)
ended=$(grep -n '^ok   fuzz-record ' "$TMP/first" | cut -d: -f1)
if [ -z "$started" ] || [ -z "$ended" ] || [ "$started" -ge "$ended" ]; then
	fail "no start line before the result on the first run: $(cat "$TMP/first")"
fi
pass
TESTTMP="$rt" sh "$TOP/tests/run.sh" fuzz record >"$TMP/second" 2>&1 || fail "the runner failed: $(cat "$TMP/second")"
grep -q 'started' "$TMP/second" && fail "a quick suite known from the last run said it started: $(cat "$TMP/second")"
contains "$TMP/second" "ok   fuzz-record"
# ... and one that took long says so, with its last time.
awk '$1 == "fuzz-record" { $2 = 45000 } { print }' "$rt/.durations" >"$rt/.d" && mv "$rt/.d" "$rt/.durations"
TESTTMP="$rt" sh "$TOP/tests/run.sh" fuzz record >"$TMP/third" 2>&1 || fail "the runner failed: $(cat "$TMP/third")"
contains "$TMP/third" "fuzz-record            started (it took 45.0 s last time)"
pass
