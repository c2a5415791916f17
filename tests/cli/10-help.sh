. "$(dirname "$0")/lib.sh"
run 0 "$BW" --version
contains "$TMP/out" "bwbuild "
run 0 "$BW" --help
for c in build plan verify manifest diff; do
	run 0 "$BW" $c --help
	contains "$TMP/out" "usage: bwbuild $c"
done
run 2 "$BW"
run 2 "$BW" frobnicate
contains "$TMP/err" "error: 'frobnicate' is not a bwbuild command"
run 2 "$BW" plan
contains "$TMP/err" "error: no profile given"
run 2 "$BW" plan --profile demo --bogus
contains "$TMP/err" "error: unknown option '--bogus'"
run 2 "$BW" build --profile demo --until link
contains "$TMP/err" "error: unknown step 'link' for --until"
run 2 "$BW" plan --profile no-such-profile
contains "$TMP/err" "error: no profile named 'no-such-profile'"
