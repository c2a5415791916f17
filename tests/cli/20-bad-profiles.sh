# Every bad profile prints exactly its .err file (file:line:col messages).
. "$(dirname "$0")/lib.sh"
n=0
for y in tests/fixtures/profiles/bad/*.yaml; do
	case "$y" in *-base.yaml|*-parent.yaml) continue ;; esac
	run 2 "$BW" plan --profile "$y"
	if ! diff -u "${y%.yaml}.err" "$TMP/err"; then
		fail "unexpected messages for $y"
	fi
	n=$((n + 1))
done
[ "$n" -ge 6 ] || fail "only $n bad profiles"
