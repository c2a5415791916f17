# The exit-code contract, command by command: each row names the class of
# outcome ('bwbuild help exit-codes' says which status that class is) and a
# command line; the test runs it and wants that status. So the contract that
# is printed and the statuses the commands give cannot differ.
. "$(dirname "$0")/lib.sh"
need_wheels
T=$TMP
GOOD="$TMP/wheels/good/tiny-1.0-py3-none-any.whl"
CUDA="$TMP/wheels/good/plat-1.0-cp311-cp311-linux_x86_64.whl"
BADW=$(find "$TMP/wheels/bad/hashes" -name "*.whl" | sort | head -n 1)

# The classes, from the command itself.
run 0 "$BW" help exit-codes
cp "$TMP/out" "$TMP/codes"
code() {
	c=$(awk -v n="$1" '$2 == n { print $1 }' "$TMP/codes")
	[ -n "$c" ] || fail "'bwbuild help exit-codes' has no class '$1'"
	echo "$c"
}
for c in ok failed usage no-gpu interrupted terminated; do code "$c" >/dev/null; done
if ! { [ "$(code ok)" = 0 ] && [ "$(code failed)" = 1 ] && [ "$(code usage)" = 2 ] &&
	[ "$(code no-gpu)" = 3 ] && [ "$(code interrupted)" = 130 ] && [ "$(code terminated)" = 143 ]; }; then
	fail "the contract changed: $(cat "$TMP/codes")"
fi

# Inputs: a profile with an unknown key; an extension whose torch is not
# there; a torch profile whose source.repo is not there.
printf 'name: bad\nsource:\n  repo: x\n  ref: v2.6.0\ncuda:\n  archs: ["12.0+PTX"]\nbogus: 1\n' > "$T/bad.yaml"
printf 'name: ext\nkind: extension\ntorch: %s/no-torch.whl\nsource:\n  repo: x\n  ref: v1\ncuda:\n  archs: ["12.0+PTX"]\n' "$T" > "$T/ext.yaml"
printf 'extends: %s/profiles/demo.yaml\nname: gone\nsource:\n  repo: %s/no-such.git\n' "$TOP" "$T" > "$T/gone.yaml"
# A pure wheel of a package bwbuild ships a smoke probe for (minitorch).
minitorch_wheel "$T"
SW="$T/minitorch-2.11.0-py3-none-any.whl"
# Recorded probes for smoke (no GPU here): all passing with FIXED=1, one failed check otherwise.
mkdir -p "$T/probes"
cat > "$T/probes/smoke-minitorch.py" <<'PY'
import os, sys, time
if os.environ.get("SLEEP"):
    print("@bwbuild {\"start\": \"import\"}", flush=True)
    open(os.environ["SLEEP"], "w").close()   # running: bwbuild forwards signals now
    time.sleep(60)
ok = os.environ.get("FIXED")
for l in ['{"start": "import"}', '{"check": "import", "status": "ok", "reason": "minitorch 2.11.0"}',
          '{"start": "cuda"}', '{"check": "cuda", "status": "ok", "reason": "1 GPU"}',
          '{"start": "kernel"}',
          '{"check": "kernel", "status": "%s", "reason": "ran"}' % ("ok" if ok else "fail")]:
    print("@bwbuild " + l)
PY
run 0 "$BW" manifest "$GOOD" -o "$T/m.json"
run 0 "$BW" manifest "$CUDA" -o "$T/m2.json"

# class | environment | command line
while IFS='|' read -r class envs args; do
	case $class in '#'* | '') continue ;; esac
	want=$(code "$class")
	eval "set -- $args"
	# shellcheck disable=SC2086 # the environment words split on purpose
	run "$want" env $envs "$BW" "$@"
done <<EOF
ok||help
ok||help help
ok||help exit-codes
ok||help verify
usage||help frobnicate
usage||help verify extra
usage||frobnicate
usage||plan
usage||plan --profile demo --bogus
ok||plan --profile demo
usage||plan --profile $T/bad.yaml
usage||doctor --profile $T/bad.yaml
usage||build --profile $T/bad.yaml
usage||plan --profile $T/ext.yaml
usage||doctor --profile $T/ext.yaml
usage||build --profile $T/ext.yaml --work $T/w-ext --out $T/o-ext
usage||build --profile $T/gone.yaml --work $T/w-gone --out $T/o-gone
usage||build --profile demo --work $T/w-proc --out /proc/no/out
failed||doctor --profile demo --set cuda.home=$T/no-cuda
ok||verify $GOOD
failed||verify $BADW
failed||verify $CUDA --target-gpu sm_70
usage||verify $T/nowhere.whl
usage||verify $GOOD --threads 0
ok||archs $CUDA
usage||archs $T/nowhere
usage||archs $CUDA $T/nowhere
ok||manifest $GOOD
usage||manifest $GOOD -o /proc/no/m.json
usage||manifest $T/nowhere.whl
usage||manifest $GOOD --format xml
ok||diff $T/m.json $T/m.json
failed||diff $T/m.json $T/m2.json
usage||diff $T/m.json $T/nowhere.json
usage||diff $T/m.json $T/m.json --perf-tolerance x
no-gpu||smoke $SW
ok|BWBUILD_PROBE_PATH=$T/probes FIXED=1|smoke $SW
failed|BWBUILD_PROBE_PATH=$T/probes|smoke $SW
usage|BWBUILD_PROBE_PATH=$T/probes FIXED=1|smoke $SW -o /proc/no/r.json
usage|BWBUILD_PROBE_PATH=$T/probes FIXED=1|smoke $SW --manifest $T/no-manifest.json
usage||smoke $T/nowhere.whl
ok||profiles
usage||profiles stray
usage||provenance $T/nowhere.whl
usage||provenance $T/m.json
EOF

# The findings behind the rows above, by what they print.
run 2 "$BW" archs "$T/nowhere"
grep -q "ELF files carry" "$TMP/out" && fail "archs on a missing path printed a summary"
run 1 "$BW" verify "$CUDA" --target-gpu sm_70
grep -q "^ok:" "$TMP/out" && fail "verify --target-gpu said ok, then NO"
contains "$TMP/out" "FAILED: plat-1.0"
run 0 "$BW" help help
contains "$TMP/out" "usage: bwbuild help [COMMAND|exit-codes]"

# Stopped by a signal: 128 + N, whichever command runs (smoke in its probe
# here). The signal goes once the probe says it runs (its file in SLEEP),
# never on a progress line: bwbuild installs its handlers as it starts the
# probe, and a job started with & ignores SIGINT until then.
for sig in INT:interrupted TERM:terminated; do
	rm -f "$T/probe-runs"
	SLEEP="$T/probe-runs" BWBUILD_PROBE_PATH="$T/probes" "$BW" smoke "$SW" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	i=0
	while [ ! -e "$T/probe-runs" ]; do
		i=$((i + 1))
		if ! kill -0 "$pid" 2>/dev/null || [ "$i" -ge 3000 ]; then fail "the smoke probe never ran: $(cat "$TMP/err")"; fi
		sleep 0.1
	done
	kill -"${sig%%:*}" "$pid"
	set +e
	wait "$pid"
	got=$?
	set -e
	[ "$got" = "$(code "${sig#*:}")" ] || fail "smoke stopped by SIG${sig%%:*} exited $got"
done
