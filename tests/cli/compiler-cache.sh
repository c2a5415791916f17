# A shared compiler cache: build from one checkout, then from a second fresh
# checkout with an empty local cache; the second is served from a real Redis
# server (started here on 127.0.0.1, stopped at the end).
. "$(dirname "$0")/lib.sh"
# The port is this suite's once the server answering there is the one
# started here (its process_id is our pidfile's): another suite or user may
# start one at the same moment, so a port taken is given up for the next.
mkdir -p "$TMP/redis"
port=$((20000 + $$ % 20000))
ours() {
	[ -s "$TMP/redis/pid" ] &&
		[ "$(redis-cli -h 127.0.0.1 -p "$port" info server 2>/dev/null | tr -d '\r' |
			sed -n 's/^process_id://p')" = "$(cat "$TMP/redis/pid")" ]
}
started=""
for try in 1 2 3 4 5 6 7 8 9 10; do
	while redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; do port=$((port + 1)); done
	rm -f "$TMP/redis/pid"
	redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --daemonize yes \
		--pidfile "$TMP/redis/pid" --dir "$TMP/redis" --logfile "$TMP/redis/log" || true
	n=0
	while [ $n -lt 25 ] && ! ours; do
		n=$((n + 1))
		sleep 0.2
	done
	if ours; then
		started=$try
		break
	fi
	port=$((port + 1))
done
[ -n "$started" ] || fail "no Redis server of this suite's answered: $(tail -n 5 "$TMP/redis/log")"
at_exit "kill $(cat "$TMP/redis/pid") 2>/dev/null"
example_profile "$TMP/example8" "$TMP/cache.yaml" cache build: '  cache: ccache' "  cache_remote: redis://127.0.0.1:$port"
run 0 "$BW" plan --profile "$TMP/cache.yaml"
contains "$TMP/out" "CMAKE_CUDA_COMPILER_LAUNCHER=$BW-launch;--;"
contains "$TMP/out" "CCACHE_REMOTE_STORAGE=redis://127.0.0.1:$port"

CCACHE_DIR="$TMP/ccache-a" run 0 "$BW" --profile "$TMP/cache.yaml" --work "$TMP/work-a" --out "$TMP/out-a"
first=$(sed -n 's/^manifest: //p' "$TMP/out")
CCACHE_DIR="$TMP/ccache-b" run 0 "$BW" --profile "$TMP/cache.yaml" --work "$TMP/work-b" --out "$TMP/out-b"
second=$(sed -n 's/^manifest: //p' "$TMP/out")
contains "$TMP/err" "compile: ccache "
python3 - "$first" "$second" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["build"]["cache"]
b = json.load(open(sys.argv[2]))["build"]["cache"]
assert a["tool"] == "ccache" and a["remote"].startswith("redis://127.0.0.1:"), a
assert a["misses"] >= 3 and a["remote_hits"] == 0, a       # a cold cache: every TU compiled
assert b["local_hits"] == 0, b                              # the second local cache starts empty
assert b["remote_hits"] >= 3 and b["misses"] == 0, b        # ... and Redis serves every TU
assert b["remote_errors"] == 0, b
PY
[ "$(redis-cli -h 127.0.0.1 -p "$port" dbsize)" -gt 0 ] || fail "nothing stored in Redis"
