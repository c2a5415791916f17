# build.remote: host C++ compiles sent to distccd daemons on 127.0.0.1
# (started here, each in its own process group, and stopped at the end).
# One listed host has no daemon (every compile sent there is requeued
# here), one daemon is killed mid-build; the wheel must be byte for byte
# the local build's. Then the launcher alone: a compile error stays an
# error (no retry here), a dead host's compile runs here, .cu never goes.
. "$(dirname "$0")/lib.sh"
for t in distcc distccd; do
	command -v $t >/dev/null || fail "$t is not installed (apt-get install distcc; scripts/deps.sh does)"
done
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
pa=$(free_port)
pb=$(free_port)
pc=$(free_port)
while [ "$pb" = "$pa" ]; do pb=$(free_port); done
while [ "$pc" = "$pa" ] || [ "$pc" = "$pb" ]; do pc=$(free_port); done
D="$TMP/distccd"
mkdir -p "$D"
chmod 777 "$D"
pids=""
start_daemon() {
	# setsid: its own process group, so the daemon and its workers are stopped together.
	setsid distccd --no-detach --daemon --listen 127.0.0.1 --allow 127.0.0.1 --port "$1" -j 2 \
		--log-stderr --log-level info 2>"$D/$1.log" &
	echo $! >"$D/$1.pid"
	pids="$pids $!"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $1), 1)" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "distccd on port $1 did not start: $(cat "$D/$1.log")"
}
# The live (not zombie) processes of a daemon's group.
alive() {
	# shellcheck disable=SC2009 # by state (not zombies), which pgrep cannot select
	ps -o stat= -g "$1" 2>/dev/null | grep -v '^Z' || true
}
stop_daemons() {
	for p in $pids; do
		kill -TERM "-$p" 2>/dev/null || true
	done
	for p in $pids; do
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			[ -n "$(alive "$p")" ] || break
			sleep 0.1
		done
		kill -KILL "-$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}
at_exit stop_daemons
start_daemon "$pa"
start_daemon "$pb"

# The example with more C++ units, so the daemons and the host here share them.
rm -rf "$TMP/mt"
mkdir -p "$TMP/mt"
cp -r tests/fixtures/minitorch "$TMP/mt/minitorch"
extra=""
for i in 1 2 3 4 5 6 7 8; do
	cat >"$TMP/mt/minitorch/csrc/cpu/extra$i.cpp" <<CPP
#include <map>
#include <sstream>
#include <string>
namespace minitorch {
std::map<std::string, int> extra$i(const std::string &s) {
  std::map<std::string, int> m;
  std::istringstream in(s);
  std::string k;
  int v;
  while (in >> k >> v)
    m[k] = v + $i;
  return m;
}
} // namespace minitorch
CPP
	extra="$extra csrc/cpu/extra$i.cpp"
done
sed -i "s|^add_library(minitorch_cpu SHARED csrc/cpu/ops.cpp)|add_library(minitorch_cpu SHARED csrc/cpu/ops.cpp$extra)|" \
	"$TMP/mt/minitorch/CMakeLists.txt"
grep -q "extra8.cpp" "$TMP/mt/minitorch/CMakeLists.txt" || fail "the example's CMakeLists.txt changed shape"
sh scripts/make-example-repo.sh "$TMP/mt/minitorch" "$TMP/mt/minitorch.git" v2.11.0 >/dev/null
cat >"$TMP/local.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: remote-test
source:
  repo: $TMP/mt/minitorch.git
YAML
# The host without a daemon has the most slots: the first compiles go there and come back.
# The same build through distcc: the same name, so the same wheel (a variant
# without its own name is named after its file).
cat >"$TMP/remote.yaml" <<YAML
extends: $TMP/local.yaml
name: remote-test
build:
  cache: ccache
  remote: ./hosts
YAML
printf '# two daemons and one that is not there\n127.0.0.1:%s/2\n127.0.0.1:%s/2\n127.0.0.1:%s/4\n' \
	"$pa" "$pb" "$pc" >"$TMP/hosts"

run 0 "$BW" plan --profile "$TMP/remote.yaml"
contains "$TMP/out" "remote          3 distccd hosts, 8 slots: 127.0.0.1:$pa/2,mem="
contains "$TMP/out" " + 8 remote slots = "
contains "$TMP/out" "CCACHE_DEPEND=true"
run 0 "$BW" plan --profile "$TMP/remote.yaml" --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"]; assert j["remote_slots"] == 8 and j["remote"].count("/") == 3, j' "$TMP/out"
run 2 "$BW" plan --profile "$TMP/local.yaml" --remote "localhost:$pa/2"
contains "$TMP/err" "'build.remote' must be distccd hosts"
run 0 "$BW" plan --profile "$TMP/local.yaml"
grep -q "BWBUILD_LAUNCH_REMOTE\|remote slots" "$TMP/out" && fail "a profile without build.remote plans remote work"

run 0 "$BW" --profile "$TMP/local.yaml" --work "$TMP/w-local" --out "$TMP/o-local"
local_whl=$(sed -n 's/^wheel: *//p' "$TMP/out")
grep -q "DISTCC\|distcc" "$TMP/w-local/logs/compile.log" 2>/dev/null && fail "the local build used distcc"

# Kill daemon B once it has finished a compile: the build goes on without it.
(
	while [ ! -f "$D/build-done" ]; do
		if grep -q "COMPILE_OK" "$D/$pb.log" 2>/dev/null; then
			kill -TERM "-$(cat "$D/$pb.pid")" && echo killed >"$D/b-killed"
			exit 0
		fi
		sleep 0.1
	done
) &
watcher=$!
CCACHE_DIR="$TMP/ccache" BWBUILD_LAUNCH_REMOTE_BACKOFF=600 \
	run 0 "$BW" --profile "$TMP/remote.yaml" --work "$TMP/w-remote" --out "$TMP/o-remote"
remote_whl=$(sed -n 's/^wheel: *//p' "$TMP/out")
touch "$D/build-done"
wait "$watcher" || true
[ -f "$D/b-killed" ] || fail "daemon B never compiled anything: $(cat "$D/$pb.log")"
a_ok=$(grep -c "COMPILE_OK" "$D/$pa.log" || true)
[ "$a_ok" -ge 1 ] || fail "daemon A compiled nothing: $(cat "$D/$pa.log")"
grep -q "\.cu" "$D/$pa.log" "$D/$pb.log" && fail "a CUDA unit went to distcc"
L="$TMP/w-remote/launch"
grep -q "^127.0.0.1:$pc " "$L/hosts-down" || fail "the host without a daemon was not marked down: $(cat "$L/hosts-down" 2>/dev/null)"
times=$(find "$XDG_CACHE_HOME" -name 'pytorch-*.peaks.times' | head -n 1)
grep -q "^remote:csrc/cpu/extra" "$times" || fail "no remote time learned apart: $(cat "$times")"
grep -Eq "^(pole:)?csrc/cuda/ops.cu" "$times" || fail "no local time learned: $(cat "$times")"
[ "$(sha256sum <"$local_whl")" = "$(sha256sum <"$remote_whl")" ] ||
	fail "the wheel built through distcc differs from the local one: $local_whl $remote_whl"

# The launcher alone, on the daemon left (A) and the dead host (C).
export BWBUILD_LAUNCH_DIR="$TMP/l2" BWBUILD_LAUNCH_BUDGET=$((8 << 30)) BWBUILD_LAUNCH_SLOTS=2
export BWBUILD_SRC_ROOT="$TMP"
printf 'int f(int x) { return 2 * x; }\n' >"$TMP/good.cpp"
printf 'int g( {\n' >"$TMP/bad.cpp"
before=$(grep -c "COMPILE_ERROR" "$D/$pa.log" || true)
BWBUILD_LAUNCH_REMOTE="127.0.0.1:$pa/2" run 1 "$BW" launch -- c++ -c "$TMP/bad.cpp" -o "$TMP/bad.o"
[ "$(grep -c "COMPILE_ERROR" "$D/$pa.log")" = $((before + 1)) ] || fail "the bad unit was not compiled on A"
grep -q "runs here" "$TMP/err" && fail "a compile error was retried here"
contains "$TMP/err" "expected"
# Fallback: the only host is gone; distcc exits 116 instead of compiling here silently ...
DISTCC_DIR="$TMP/dd" DISTCC_HOSTS="127.0.0.1:$pc" DISTCC_FALLBACK=0 run 116 distcc c++ -c "$TMP/good.cpp" -o "$TMP/x.o"
# ... and the launcher runs the compile here, under its budget, and keeps the host down.
BWBUILD_LAUNCH_REMOTE="127.0.0.1:$pc/2" run 0 "$BW" launch -- c++ -c "$TMP/good.cpp" -o "$TMP/good.o"
contains "$TMP/err" "host 127.0.0.1:$pc failed (distcc exit 116)"
[ -s "$TMP/good.o" ] || fail "the requeued compile made no object"
BWBUILD_LAUNCH_REMOTE="127.0.0.1:$pc/2" run 0 "$BW" launch -- c++ -c "$TMP/good.cpp" -o "$TMP/good2.o"
grep -q "failed (distcc" "$TMP/err" && fail "a host marked down was tried again"
cmp "$TMP/good.o" "$TMP/good2.o" || fail "the same unit compiled twice differs"
# A CUDA unit never goes to a host: a fake nvcc here records that it ran here.
mkdir -p "$TMP/fakecuda"
# shellcheck disable=SC2016 # the fake's own $a and $o
printf '#!/bin/sh\necho here >"%s/fakecuda/ran"\nfor a; do o=$a; done\ncp "%s/good.o" "$o"\n' "$TMP" "$TMP" >"$TMP/fakecuda/nvcc"
chmod +x "$TMP/fakecuda/nvcc"
BWBUILD_LAUNCH_REMOTE="127.0.0.1:$pa/2" run 0 "$BW" launch -- "$TMP/fakecuda/nvcc" -c "$TMP/k.cu" -o "$TMP/k.o"
[ -f "$TMP/fakecuda/ran" ] || fail "nvcc did not run here"
[ -z "$(cat "$TMP/l2/ledger" 2>/dev/null)" ] || fail "ledger not empty: $(cat "$TMP/l2/ledger")"

# The long pole: a CUDA unit alone gets idle slots as --threads up to its gencodes ...
# shellcheck disable=SC2016 # the fake's own "$@", $a and $o
printf '#!/bin/sh\necho "$@" >>"%s/fakecuda/args"\nfor a; do o=$a; done\ncp "%s/good.o" "$o"\n' "$TMP" "$TMP" >"$TMP/fakecuda/nvcc"
g3="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_120,code=sm_120"
# shellcheck disable=SC2086 # $g3: three -gencode options, split on purpose
BWBUILD_LAUNCH_BUDGET=$((64 << 30)) BWBUILD_LAUNCH_SLOTS=8 run 0 "$BW" launch -- "$TMP/fakecuda/nvcc" $g3 -c "$TMP/pole.cu" -o "$TMP/pole.o"
contains "$TMP/err" "pole.cu: long pole, 2 cores idle: --threads=3"
contains "$TMP/fakecuda/args" "--threads=3 "
grep -q "split-compile" "$TMP/fakecuda/args" && fail "--split-compile without build.split_compile"
# ... and --split-compile for the rest only when asked;
# shellcheck disable=SC2086 # $g3: three -gencode options, split on purpose
BWBUILD_LAUNCH_BUDGET=$((64 << 30)) BWBUILD_LAUNCH_SLOTS=8 BWBUILD_LAUNCH_SPLIT=on run 0 "$BW" launch -- "$TMP/fakecuda/nvcc" $g3 -c "$TMP/pole.cu" -o "$TMP/pole.o"
contains "$TMP/err" "--threads=3 --split-compile=2"
# ... a command's own --threads stands (causal-conv1d passes --threads 4 for
# one gencode): no --threads added, but split when asked, and nothing when not.
: >"$TMP/fakecuda/args"
BWBUILD_LAUNCH_BUDGET=$((64 << 30)) BWBUILD_LAUNCH_SLOTS=8 BWBUILD_LAUNCH_SPLIT=on run 0 "$BW" launch -- "$TMP/fakecuda/nvcc" --threads 4 -gencode arch=compute_90,code=sm_90 -c "$TMP/own.cu" -o "$TMP/own.o"
grep -q -- "^--split-compile=[0-9]* .* --threads 4 " "$TMP/fakecuda/args" || fail "no --split-compile beside the own --threads: $(cat "$TMP/fakecuda/args")"
grep -q -- "--threads=" "$TMP/fakecuda/args" && fail "a --threads added to the command's own"
: >"$TMP/fakecuda/args"
BWBUILD_LAUNCH_BUDGET=$((64 << 30)) BWBUILD_LAUNCH_SLOTS=8 run 0 "$BW" launch -- "$TMP/fakecuda/nvcc" --threads 4 -gencode arch=compute_90,code=sm_90 -c "$TMP/own2.cu" -o "$TMP/own2.o"
grep -q -- "split-compile\|--threads=" "$TMP/fakecuda/args" && fail "long-pole flags without build.split_compile for one gencode"
# ... never with one slot, nor once the learned times say it did not pay.
: >"$TMP/fakecuda/args"
# shellcheck disable=SC2086 # $g3: three -gencode options, split on purpose
BWBUILD_LAUNCH_SLOTS=1 run 0 "$BW" launch -- "$TMP/fakecuda/nvcc" $g3 -c "$TMP/pole.cu" -o "$TMP/pole.o"
grep -q "threads" "$TMP/fakecuda/args" && fail "a long pole with one slot"
pk=$(sed -n 's/^pole:\(pole.cu#[0-9a-f]*\) .*/\1/p' "$TMP/l2/peaks.times" | head -n 1)
[ -n "$pk" ] || fail "no pole time learned: $(cat "$TMP/l2/peaks.times")"
echo "$pk 1" >>"$TMP/l2/peaks.times"
# shellcheck disable=SC2086 # $g3: three -gencode options, split on purpose
BWBUILD_LAUNCH_BUDGET=$((64 << 30)) BWBUILD_LAUNCH_SLOTS=8 run 0 "$BW" launch -- "$TMP/fakecuda/nvcc" $g3 -c "$TMP/pole.cu" -o "$TMP/pole.o"
grep -q "threads" "$TMP/fakecuda/args" && fail "the long pole was kept though it did not pay"
# ... nor to one of units that arrive together, times unknown (causal-conv1d's
# four on 16 cores: the first to arrive took 15 and the backward unit, the
# real pole, waited, 343 s against 77 s): another CUDA unit runs, so the
# cores are not this one's.
# shellcheck disable=SC2016 # the fake's own "$@", $a and $o
printf '#!/bin/sh\nfor a; do o=$a; done\n: >"%s/fakecuda/started"\nwhile [ ! -e "%s/fakecuda/go" ]; do sleep 0.05; done\ncp "%s/good.o" "$o"\n' \
	"$TMP" "$TMP" "$TMP" >"$TMP/fakecuda/slow-nvcc"
chmod +x "$TMP/fakecuda/slow-nvcc"
# shellcheck disable=SC2086 # $g3: three -gencode options, split on purpose
BWBUILD_LAUNCH_BUDGET=$((64 << 30)) BWBUILD_LAUNCH_SLOTS=8 "$BW" launch -- "$TMP/fakecuda/slow-nvcc" $g3 -c "$TMP/first.cu" -o "$TMP/first.o" 2>"$TMP/first.err" &
first=$!
while [ ! -e "$TMP/fakecuda/started" ]; do
	kill -0 "$first" 2>/dev/null || fail "the first unit ended before its compiler started: $(cat "$TMP/first.err")"
	sleep 0.05
done
: >"$TMP/fakecuda/args"
# shellcheck disable=SC2086 # $g3: three -gencode options, split on purpose
BWBUILD_LAUNCH_BUDGET=$((64 << 30)) BWBUILD_LAUNCH_SLOTS=8 run 0 "$BW" launch -- "$TMP/fakecuda/nvcc" $g3 -c "$TMP/second.cu" -o "$TMP/second.o"
grep -q "threads" "$TMP/fakecuda/args" && fail "a unit of unknown time took the idle cores beside another: $(cat "$TMP/fakecuda/args")"
: >"$TMP/fakecuda/go"
wait "$first" || fail "the first unit failed: $(cat "$TMP/first.err")"

# doctor: the daemon left compiles the probe with the same bytes; the host without one is named.
run 1 "$BW" doctor --profile "$TMP/local.yaml" --remote "127.0.0.1:$pa/2 127.0.0.1:$pc/1"
contains "$TMP/out" "✅ remote host    127.0.0.1:$pa: compiles with "
contains "$TMP/out" "the same bytes as here"
contains "$TMP/out" "❌ remote host    127.0.0.1:$pc: 127.0.0.1:$pc: Connection refused"

stop_daemons
for p in $pids; do
	[ -z "$(alive "$p")" ] || fail "daemon group $p still running"
done
for port in $pa $pb; do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null &&
		fail "something still listens on $port"
done
true
