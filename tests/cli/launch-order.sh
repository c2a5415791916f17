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

# scripts/critical-path.py over a real build.ninja and a .ninja_log whose
# times are written here: the longest chain runs through the generated
# header (an order-only input) and d.o, not through the longest unit b.o.
C="$TMP/critical"
rm -rf "$C"
mkdir -p "$C"
cat >"$C/build.ninja" <<'NINJA'
rule cc
  command = touch $out
build a.o: cc a.c
build b.o: cc b.c
build gen.h gen.c: cc gen.in
build d.o: cc d.c || gen.h
build liba.so: cc a.o b.o
build app: cc liba.so d.o
default app
NINJA
printf '# ninja log v5\n' >"$C/.ninja_log"
# ninja writes a line when its step ends.
printf '%s\t%s\t0\t%s\t0\n' 0 1000 a.o 0 3000 gen.h 0 3000 gen.c 0 5000 b.o \
	5000 6000 liba.so 3000 7000 d.o 7000 7500 app >>"$C/.ninja_log"
run 0 python3 scripts/critical-path.py "$C" --cores 2
contains "$TMP/out" "critical path: 7.5 s over 3 steps"
contains "$TMP/out" "busy time: 14.5 s over 2 cores = 7.2 s"
contains "$TMP/out" "makespan: 7.5 s, 1.00x the larger floor (7.5 s)"
[ "$(sed -n 3p "$TMP/out")" = "       3.0 s  cc  gen.h" ] || fail "the path does not start at gen.h: $(cat "$TMP/out")"
pass
# A run after the first: ninja writes its times from that run's start.
printf '%s\t%s\t0\t%s\t0\n' 0 2000 d.o 2000 2500 app >>"$C/.ninja_log"
run 0 python3 scripts/critical-path.py "$C" app --cores 2
contains "$TMP/out" "makespan: 2.5 s"
run 1 python3 scripts/critical-path.py "$TMP"
