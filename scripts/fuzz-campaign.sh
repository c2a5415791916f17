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
targets=$(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_||; s|\.c$||')
run_one() {
	t=$1
	rm -rf "$out/$t" && mkdir -p "$out/$t/corpus" "$out/$t/found"
	cp tests/fuzz/corpus/$t/* "$out/$t/corpus/"
	"$bins/libfuzzer_$t" -runs="$runs" -max_total_time="$time" -rss_limit_mb=4096 -timeout=25 \
		-max_len=1048576 -artifact_prefix="$out/$t/found/" -print_final_stats=1 \
		"$out/$t/corpus" >"$out/$t.log" 2>&1 || true
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log" | tail -1)
	f=$(ls "$out/$t/found" | wc -l)
	echo "$t ${n:-0} $f"
}
# At most $jobs at once.
i=0
for t in $targets; do
	run_one "$t" > "$out/$t.result" &
	i=$((i + 1))
	if [ "$i" -ge "$jobs" ]; then wait; i=0; fi
done
wait
printf '%-12s %14s %8s\n' target executions findings
bad=0
for t in $targets; do
	set -- $(cat "$out/$t.result")
	printf '%-12s %14s %8s\n' "$1" "$2" "$3"
	[ "$3" = 0 ] || bad=1
done
[ "$bad" = 0 ] || { echo "findings under $out/*/found"; exit 1; }
