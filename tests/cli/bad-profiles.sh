# Every bad profile prints exactly its .err file (file:line:col messages).
. "$(dirname "$0")/lib.sh"
# The same toolkit on every machine: a CUDA 13.0 one by its version.json.
mkdir -p "$TMP/cuda"
printf '{"cuda": {"name": "CUDA SDK", "version": "13.0.88"}}\n' > "$TMP/cuda/version.json"
CUDA_HOME="$TMP/cuda"
export CUDA_HOME
n=0
for y in tests/fixtures/profiles/bad/*.yaml; do
	case "$y" in *-base.yaml|*-parent.yaml) continue ;; esac
	run 2 "$BW" plan --profile "$y"
	# The test area, wherever it is, is shown as $TMP.
	sed "s|$TMP|\$TMP|g" "$TMP/err" > "$TMP/err.shown"
	if ! diff -u "${y%.yaml}.err" "$TMP/err.shown"; then
		fail "unexpected messages for $y"
	fi
	n=$((n + 1))
done
[ "$n" -ge 6 ] || fail "only $n bad profiles"
