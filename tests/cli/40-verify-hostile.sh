# Good wheels verify clean; each hostile wheel is rejected naming its rule.
. tests/cli/lib.sh
for w in "$TMP"/wheels/good/*.whl; do
	run 0 "$BW" verify "$w"
	contains "$TMP/out" "ok: "
done
n=0
for d in "$TMP"/wheels/bad/*/; do
	rule=$(basename "$d")
	case "$rule" in
	hashes*) tag="(hashes)" ;;
	record*) tag="(RECORD)" ;;
	names*) tag="(names)" ;;
	wheel-tags) tag="(WHEEL)" ;;
	dist-info) tag="(dist-info)" ;;
	*) fail "no rule for $rule" ;;
	esac
	run 1 "$BW" verify "$d"*.whl
	contains "$TMP/err" "$tag"
	contains "$TMP/out" "FAILED: "
	n=$((n + 1))
done
[ "$n" -ge 9 ] || fail "only $n hostile wheels"
run 1 "$BW" verify "$TMP/wheels/bad/hashes/tiny-1.0-py3-none-any.whl"
contains "$TMP/err" "error: 'tiny/__init__.py' does not match its sha256 in RECORD (hashes)"
run 1 "$BW" verify "$TMP/wheels/bad/record-unlisted/tiny-1.0-py3-none-any.whl"
contains "$TMP/err" "error: 'tiny/unlisted.py' is in the archive but not in RECORD (RECORD)"
printf 'not a zip' > "$TMP/junk.whl"
run 2 "$BW" verify "$TMP/junk.whl"
contains "$TMP/err" "is not a valid zip file"
