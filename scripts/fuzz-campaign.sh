#!/bin/sh
# make fuzz-campaign: every libFuzzer target (ASan + UBSan) run until
# FUZZ_RUNS executions (default 10 million) or FUZZ_TIME seconds (default
# 3600) each, as many at once as there are CPUs. Each works on a copy of
# its replayed corpus (tests/fuzz/corpus/<target>) under $OUT (default
# build/fuzz-campaign); a finding is left there as crash-*/leak-*/timeout-*
# and fails the campaign. Prints executions per target.
set -eu
cd "$(dirname "$0")/.."
runs=${FUZZ_RUNS:-10000000}
time=${FUZZ_TIME:-3600}
out=${OUT:-build/fuzz-campaign}
bins=${FUZZ_BIN:-tests/bin}
jobs=${FUZZ_JOBS:-$(nproc)}
mkdir -p "$out"
targets=""
for f in tests/fuzz/fuzz_*.c; do
	t=${f##*/fuzz_}
	targets="$targets ${t%.c}"
done
# run_one TARGET: "TARGET EXECUTIONS FINDINGS EXIT"; libFuzzer exits non-zero
# on a finding, so its exit status alone fails nothing.
run_one() {
	t=$1
	rm -rf "${out:?}/$t" && mkdir -p "$out/$t/corpus" "$out/$t/found"
	cp "tests/fuzz/corpus/$t/"* "$out/$t/corpus/"
	rc=0
	"$bins/libfuzzer_$t" -runs="$runs" -max_total_time="$time" -rss_limit_mb=4096 -timeout=25 \
		-max_len=1048576 -artifact_prefix="$out/$t/found/" -print_final_stats=1 \
		"$out/$t/corpus" >"$out/$t.log" 2>&1 || rc=$?
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log" | tail -n 1)
	f=$(find "$out/$t/found" -type f | wc -l)
	echo "$t ${n:-0} $f $rc"
}
# At most $jobs at once.
pids=""
i=0
for t in $targets; do
	run_one "$t" >"$out/$t.result" &
	pids="$pids $!"
	i=$((i + 1))
	if [ "$i" -ge "$jobs" ]; then
		for p in $pids; do wait "$p"; done
		pids="" i=0
	fi
done
for p in $pids; do wait "$p"; done
printf '%-12s %14s %8s\n' target executions findings
bad=0
for t in $targets; do
	read -r name n f rc <"$out/$t.result"
	printf '%-12s %14s %8s\n' "$name" "$n" "$f"
	[ "$f" = 0 ] || bad=1
	# No finding, yet it ran nothing or failed: it did not fuzz (see its log).
	if [ "$f" = 0 ] && { [ "$n" = 0 ] || [ "$rc" != 0 ]; }; then
		echo "$t: exit $rc after $n executions and no finding: see $out/$t.log" >&2
		bad=1
	fi
done
[ "$bad" = 0 ] || { echo "findings or failures under $out (*/found, *.log)"; exit 1; }
