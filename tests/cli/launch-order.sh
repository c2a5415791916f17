# The launcher starts the longest waiting compile first: a fixture build
# graph of six units through ninja, one CPU slot, their times learned
# (peaks.times) or unknown. ninja starts every unit at once, in its own
# order (the manifest's); which one the launcher admits first is a race,
# every later one is the longest still waiting. Each stand-in compile ends
# only once every unit not yet started is in line in the ledger (a
# barrier, not a delay), so the order does not depend on timing.
. "$(dirname "$0")/lib.sh"
command -v ninja >/dev/null 2>&1 || { skip "no ninja"; exit 0; }
D="$TMP/order"
rm -rf "$D"
mkdir -p "$D/launch"
LB="$BW-launch"
[ -x "$LB" ] || LB="$BW launch"
units="u1 u2 u3 u4 u5 u6"
n=6
export BWBUILD_LAUNCH_DIR="$D/launch" BWBUILD_LAUNCH_BUDGET=$((1024 * 1024 * 1024))
export BWBUILD_LAUNCH_SLOTS=1 BWBUILD_SRC_ROOT="$D"
unset BWBUILD_LAUNCH_TABLE BWBUILD_LAUNCH_SEED BWBUILD_LAUNCH_REMOTE BWBUILD_LAUNCH_INSIDE \
	BWBUILD_LAUNCH_PHASE
# Keys without memory flags: the source and FNV-1a's offset basis.
cat >"$D/launch/peaks.times" <<'EOF'
u1.cc#cbf29ce484222325 100
u2.cc#cbf29ce484222325 5000
u4.cc#cbf29ce484222325 900
u5.cc#cbf29ce484222325 3000
u6.cc#cbf29ce484222325 200
EOF
# stub NAME: its name in the log, then wait until the ledger holds it and
# every unit not started yet (at most 60 s, then it fails).
cat >"$D/stub.sh" <<'EOF'
echo "$1" >>"$D/order.log"
started=$(wc -l <"$D/order.log")
i=0
while [ "$(wc -l <"$BWBUILD_LAUNCH_DIR/ledger")" -lt $((N - started + 1)) ]; do
	i=$((i + 1))
	[ "$i" -lt 6000 ] || exit 3
	sleep 0.01
done
EOF
{
	echo "rule cc"
	echo "  command = D=$D N=$n $LB sh $D/stub.sh \$name -c \$in && touch \$out"
	for u in $units; do
		: >"$D/$u.cc"
		echo "build $u.o: cc $u.cc"
		echo "  name = $u"
	done
} >"$D/build.ninja"
run 0 ninja -C "$D" -j "$n"
[ "$(wc -l <"$D/order.log")" = "$n" ] || fail "not every unit ran: $(cat "$D/order.log")"
pass
# After the first: longest first (u2 5 s, u5 3 s, u4 0.9 s, u6, u1), the unknown u3 last.
first=$(head -n 1 "$D/order.log")
want=$(for u in u2 u5 u4 u6 u1 u3; do [ "$u" = "$first" ] || echo "$u"; done)
got=$(tail -n +2 "$D/order.log")
[ "$got" = "$want" ] || fail "order after $first: $(echo "$got" | tr '\n' ' ')(want $(echo "$want" | tr '\n' ' '))"
pass

# Without times every unit is unknown: first come, first served (tickets).
rm -f "$D/order.log" "$D"/*.o "$D/launch/peaks.times" "$D/.ninja_log"
run 0 ninja -C "$D" -j "$n"
[ "$(wc -l <"$D/order.log")" = "$n" ] || fail "not every unit ran"
pass
