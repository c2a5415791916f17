# Configure means configure, in every era (issue 22): the tree's own
# configure-only switch (the argument where setup.py parses it, the
# variable where it reads it, cmake -S . -B build without setup.py),
# nothing of bwbuild's leaked into CMake, a configure that builds stopped,
# a stamp-less build directory adopted when its cache matches, changed
# settings named, and CMake's probes never learned as peaks.
. "$(dirname "$0")/lib.sh"
export BWBUILD_CACHE_DIR="$TMP/cache71"

# example71 NAME SETUP_SED [xnn]: the example with v2.6.0's setup.py (edited
# by SETUP_SED) as a repo tagged v2.6.0; with xnn, its CMakeLists.txt
# FORCE-sets the launchers to any ccache it finds, as v2.6.0's
# third_party/XNNPACK/CMakeLists.txt does (it took 6,792 of the real tree's
# 7,452 compiles out of bwbuild's launcher), and PyTorch's own USE_CCACHE.
example71() {
	rm -rf "$TMP/$1-src"
	cp -r tests/fixtures/minitorch "$TMP/$1-src"
	rm -rf "$TMP/$1-src/build"
	sed "$2" tests/fixtures/minitorch-v26/setup.py > "$TMP/$1-src/setup.py"
	if [ "${3:-}" = xnn ]; then
		# shellcheck disable=SC2016 # CMake's ${...}, written into CMakeLists.txt
		sed -i '/^project(minitorch CXX C)/a\
find_program(CCACHE_BINARY "ccache")\
if(CCACHE_BINARY)\
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_BINARY}" CACHE STRING "CXX compiler launcher" FORCE)\
  set(CMAKE_C_COMPILER_LAUNCHER "${CCACHE_BINARY}" CACHE STRING "C compiler launcher" FORCE)\
endif()' "$TMP/$1-src/CMakeLists.txt"
		grep -q 'CCACHE_BINARY}" CACHE STRING "CXX compiler launcher" FORCE' "$TMP/$1-src/CMakeLists.txt" ||
			fail "the XNNPACK-like block was not inserted"
	fi
	sh scripts/make-example-repo.sh "$TMP/$1-src" "$TMP/$1/minitorch.git" v2.6.0
	cat > "$TMP/$1.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: $1
source:
  repo: $TMP/$1/minitorch.git
  ref: v2.6.0
cuda:
  archs: ["8.0", "9.0+PTX"]   # archs torch 2.6 knows
cmake:
  # torch 2.6 with a CUDA 13 toolkit: the knowledge base's CUB rule (the
  # fixture has no FindCUB.cmake to patch; this is the accepted workaround)
  CMAKE_INCLUDE_PATH: /usr/local/cuda/include/cccl
YAML
}
# Objects and libraries of the tree itself (CMake's probes build in CMakeFiles/).
built() {
	find "$1/build" "$1/minitorch" \( -name '*.o' -o -name '*.so' \) ! -path '*/CMakeFiles/*' 2>/dev/null | wc -l
}

# 1. v2.6.0's contract: the argument, and no CMAKE_ONLY anywhere. Its tree
# has the XNNPACK-like block, and a ccache is on PATH (a stand-in, where the
# machine has none): every compile still goes through the launcher.
example71 v26 's/^x//' xnn
mkdir -p "$TMP/fakebin"
printf '#!/bin/sh\nexec "$@"\n' > "$TMP/fakebin/ccache"
chmod +x "$TMP/fakebin/ccache"
w="$TMP/work-v26"
# (The test run's own ccache, tests/run.sh's, stays out: this fake one is the point.)
MINITORCH_COMPILE_CACHE='' PATH="$TMP/fakebin:$PATH" run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure
contains "$w/logs/configure.log" "setup.py build --cmake-only"
# The read-back, as a table: what the profile asked, what CMakeCache.txt says.
contains "$TMP/err" "configure: requested vs effective ($w/src/build: CMakeCache.txt and the values configure ended with):"
grep -qE '^  cuda +USE_CUDA +on +on$' "$TMP/err" || fail "no USE_CUDA row in the read-back table"
if grep -q "CMAKE_ONLY" "$w/logs/configure.log"; then fail "CMAKE_ONLY reached the configure step"; fi
[ "$(built "$w/src")" = 0 ] || fail "configure compiled the tree: $(built "$w/src") objects"
[ -s "$w/configure.stamp" ] || fail "no configure.stamp"
# Nothing of bwbuild's own reached CMake, only what the plan means it to get.
if grep -E '^(CMAKE_ONLY|BWBUILD_|MAX_JOBS|CMAKE_BUILD_PARALLEL_LEVEL)[:=]' "$w/src/build/CMakeCache.txt"; then
	fail "bwbuild-internal variables in CMakeCache.txt"
fi
contains "$w/src/build/CMakeCache.txt" "CMAKE_CXX_COMPILER_LAUNCHER:STRING=$BW-launch;--"
# CMake's try-compiles ran through the launcher; none taught a peak.
contains "$w/src/build/CMakeFiles/CMakeConfigureLog.yaml" "CMakeScratch/TryCompile-"
contains "$w/src/build/CMakeFiles/CMakeConfigureLog.yaml" "$BW-launch -- /usr/bin/c++"
if grep -rqE 'CMakeScratch|TryCompile|CMakeTmp|CompilerId|CompilerABI' "$BWBUILD_CACHE_DIR/peaks" "$w/launch/peaks" 2>/dev/null; then
	fail "a CMake probe was learned as a peak"
fi
contains "$w/src/build/CMakeCache.txt" "CCACHE_BINARY:STRING=OFF"
if grep -q "LAUNCHER = .*ccache" "$w/src/build/build.ninja"; then
	fail "a compile left the launcher for ccache: $(grep -c 'LAUNCHER = .*ccache' "$w/src/build/build.ninja")"
fi
contains "$w/src/build/build.ninja" "LAUNCHER = $BW-launch"
contains "$w/src/build/CMakeCache.txt" "CMAKE_C_COMPILER_LAUNCHER:STRING=$BW-launch;--"

# 2. Nothing changed: no configure at all.
run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure
contains "$TMP/err" "configure: up to date"
if grep -q "^configure: .*setup.py" "$TMP/err"; then fail "a second run configured again"; fi

# 2b. What configure generates into the source tree, where no .gitignore
# covers it (the v2.6.0 superproject built from Debian's tarball has none:
# build/, aten/src/ATen/Config.h, torchgen/packaged/), is the build's output,
# not a local change: the next run resumes instead of refusing the tree.
[ -f "$w/outputs.since" ] || fail "configure did not mark when it began writing into the tree"
mkdir -p "$w/src/gen/packaged"
echo '#define GENERATED 1' > "$w/src/gen/Config.h"
: > "$w/src/gen/packaged/x.yaml"
run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure
contains "$TMP/err" "configure: up to date"
# Without the mark, the same untracked files are local changes, as a user's would be.
mv "$w/outputs.since" "$TMP/outputs.since.kept"
run 1 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure
contains "$TMP/err" "note: new: gen/"
mv "$TMP/outputs.since.kept" "$w/outputs.since"
rm -rf "$w/src/gen"

# 2c. --targets: only the named CMake targets, in the configured build dir,
# under the same launcher; it stops after compile (a part makes no wheel).
run 2 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --targets 'minitorch_cpu;rm'
contains "$TMP/err" "error: --targets 'minitorch_cpu;rm': give CMake target names separated by commas"
run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --targets minitorch_cpu
contains "$TMP/err" "compile: targets minitorch_cpu built (--targets stops after them)"
contains "$TMP/err" "bwbuild: stopped after 'compile' as asked"
contains "$w/logs/compile.log" "--target minitorch_cpu"
find "$w/src/build" -name 'libminitorch_cpu*.so*' | grep -q . || fail "--targets built no libminitorch_cpu"
if find "$w/src/build" -name 'libminitorch_cuda*.so*' | grep -q .; then fail "--targets built more than it named"; fi
[ ! -e "$TMP/out71" ] || [ -z "$(ls "$TMP/out71")" ] || fail "--targets published something"

# 3. A configured build directory without a stamp (a killed run) is adopted.
rm "$w/configure.stamp"
run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure
contains "$TMP/err" "configure: adopting $w/src/build"
if grep -q "settings changed" "$TMP/err"; then fail "an unchanged build directory was called changed"; fi
[ -s "$w/configure.stamp" ] || fail "adoption wrote no configure.stamp"

# 4. ... and not adopted when a setting differs, which is named.
rm "$w/configure.stamp"
PATH="$TMP/fakebin:$PATH" run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure \
	--set features.mem_eff_attention=off
contains "$TMP/err" "configure: settings changed since the last configure; removing"
contains "$TMP/err" "  USE_MEM_EFF_ATTENTION: 1 -> 0"
# With a stamp, a changed variable is named too.
PATH="$TMP/fakebin:$PATH" run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure \
	--set features.mem_eff_attention=off --set build.env.CFLAGS=-O1
contains "$TMP/err" "  CFLAGS: (unset) -> -O1"
if grep -q "USE_MEM_EFF_ATTENTION:" "$TMP/err"; then fail "an unchanged setting was named"; fi

# A configure killed before CMake wrote build.ninja is configured again on its cache.
rm "$w/configure.stamp" "$w/src/build/build.ninja"
PATH="$TMP/fakebin:$PATH" run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure \
	--set features.mem_eff_attention=off --set build.env.CFLAGS=-O1
contains "$TMP/err" "CMakeCache.txt holds the plan's settings, but its configure did not finish; configuring again from a fresh cache (build outputs kept)"
{ [ -s "$w/src/build/build.ninja" ] && [ -s "$w/configure.stamp" ]; } || fail "the interrupted configure was not finished"
# SIGTERM during a real configure: whatever it left, the next run finishes without calling it changed.
rm -rf "$w/src/build" "$w/configure.stamp"
PATH="$TMP/fakebin:$PATH" "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure \
	--set features.mem_eff_attention=off --set build.env.CFLAGS=-O1 >"$TMP/k.out" 2>"$TMP/k.err" &
bw=$!
i=0
while [ ! -e "$w/src/build/CMakeCache.txt" ] && [ "$i" -lt 600 ]; do i=$((i + 1)); sleep 0.05; done
kill -TERM "$bw"
set +e
wait "$bw"
st=$?
set -e
[ "$st" = 143 ] || [ "$st" = 0 ] || fail "configure stopped by SIGTERM exited $st: $(cat "$TMP/k.err")"
PATH="$TMP/fakebin:$PATH" run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until configure \
	--set features.mem_eff_attention=off --set build.env.CFLAGS=-O1
if grep -q "settings changed" "$TMP/err"; then fail "a killed configure was taken for changed settings"; fi
[ -s "$w/configure.stamp" ] || fail "no configure.stamp after resuming a killed configure"

# 5. A killed compile resumes: ninja goes on, nothing built is built again.
PATH="$TMP/fakebin:$PATH" run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until compile \
	--set features.mem_eff_attention=off --set build.env.CFLAGS=-O1
n=$(wc -l < "$w/src/build/.ninja_log")
rm -f "$w/src/minitorch/lib/libminitorch_cpu.so" "$w/src/build/libminitorch_cpu.so"
PATH="$TMP/fakebin:$PATH" run 0 "$BW" --profile "$TMP/v26.yaml" --work "$w" --out "$TMP/out71" --until compile \
	--set features.mem_eff_attention=off --set build.env.CFLAGS=-O1
contains "$TMP/err" "configure: up to date"
[ "$(wc -l < "$w/src/build/.ninja_log")" -le $((n + 3)) ] || fail "the resumed compile rebuilt: $(wc -l < "$w/src/build/.ninja_log") log lines, was $n"
# Real units were learned, in the table of the tree's version (not the work directory).
grep -Eq '^(pole:)?csrc/' "$BWBUILD_CACHE_DIR/peaks/pytorch-2.11.0.peaks" || fail "no unit learned: $(cat "$BWBUILD_CACHE_DIR"/peaks/*.peaks)"
# Only the tree's own units and their kinds (CMake's ABI probes once taught the CUDA kinds ~200 MB).
if grep -vE '^(pole:)?(csrc/|kind:)' "$BWBUILD_CACHE_DIR/peaks/pytorch-2.11.0.peaks"; then
	fail "something else than the tree's units was learned"
fi

# 6. A setup.py that takes the switch but builds anyway is stopped at its first real compile.
example71 liar 's/^        CMAKE_ONLY = True$/        CMAKE_ONLY = False/'
w="$TMP/work-liar"
run 1 "$BW" --profile "$TMP/liar.yaml" --work "$w" --out "$TMP/out71" --until configure
# The ninja watch or the launcher stops it, whichever sees it first.
grep -qE "error: the configure step started (compiling; the launcher refused:|building: ')" "$TMP/err" ||
	fail "a configure that built was not stopped: $(cat "$TMP/err")"
contains "$TMP/err" "hint: the tree's setup.py did not take the configure-only switch bwbuild gave it (the argument --cmake-only)"
[ "$(built "$w/src")" = 0 ] || fail "the refused configure compiled $(built "$w/src") objects"
[ ! -e "$w/configure.stamp" ] || fail "a configure that built wrote configure.stamp"
# Without the launcher, the ninja that builds in build/ is stopped.
printf 'build:\n  launcher: off\n' >> "$TMP/liar.yaml"
run 1 "$BW" --profile "$TMP/liar.yaml" --work "$TMP/work-liar2" --out "$TMP/out71" --until configure
contains "$TMP/err" "error: the configure step started building: '"
contains "$TMP/err" " install' ran in $TMP/work-liar2/src/build; stopped it"

# The launcher during configure: CMake's probes run, anything else is refused and recorded.
mkdir -p "$TMP/l71/CMakeFiles/CMakeScratch/TryCompile-ab12"
printf 'int main(void) { return 0; }\n' > "$TMP/l71/unit.c"
(
	export BWBUILD_LAUNCH_DIR="$TMP/l71/launch" BWBUILD_LAUNCH_BUDGET=1073741824 BWBUILD_LAUNCH_SLOTS=2
	export BWBUILD_SRC_ROOT="$TMP/l71" BWBUILD_LAUNCH_PHASE=configure
	cd "$TMP/l71/CMakeFiles/CMakeScratch/TryCompile-ab12"
	"$BW" launch -- cc -c "$TMP/l71/unit.c" -o probe.o
	[ -f probe.o ] || fail "a try-compile did not run during configure"
	cd "$TMP/l71"
	set +e
	"$BW" launch -- cc -c "$TMP/l71/unit.c" -o unit.o 2>"$TMP/l71/err"
	st=$?
	set -e
	[ "$st" = 1 ] || fail "a real compile during configure exited $st"
	[ ! -f unit.o ] || fail "a real compile ran during configure"
	contains "$TMP/l71/err" "bwbuild launch: unit.c: a real compile during the configure step; refused"
	contains "$TMP/l71/launch/configure-compiles" "unit.c"
	[ ! -e "$TMP/l71/launch/peaks" ] || fail "something was learned during configure"
)

# 7. A setup.py with no configure-only switch at all is not run as configure.
example71 noswitch 's/"--cmake-only"/"--no-such-flag"/'
run 1 "$BW" --profile "$TMP/noswitch.yaml" --work "$TMP/work-noswitch" --out "$TMP/out71" --until configure
contains "$TMP/err" "reads neither the argument --cmake-only nor the environment variable CMAKE_ONLY"
[ ! -e "$TMP/work-noswitch/logs/configure.log" ] || fail "configure ran a setup.py without a configure-only switch"

# 8. The variable where setup.py reads it (the example's own setup.py), era C's cmake -S . -B build.
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$TMP/ex71c/minitorch.git" v2.11.0
printf 'extends: %s/profiles/demo.yaml\nname: envform\nsource:\n  repo: %s\n  ref: v2.11.0\n' \
	"$TOP" "$TMP/ex71c/minitorch.git" > "$TMP/envform.yaml"
run 0 "$BW" --profile "$TMP/envform.yaml" --work "$TMP/work-env" --out "$TMP/out71" --until configure
contains "$TMP/work-env/logs/configure.log" "# env CMAKE_ONLY=1"
if grep -q -- "--cmake-only" "$TMP/work-env/logs/configure.log"; then fail "--cmake-only given to a setup.py that reads CMAKE_ONLY"; fi
[ "$(built "$TMP/work-env/src")" = 0 ] || fail "configure compiled the tree (CMAKE_ONLY form)"
# That setup.py takes CMAKE_ONLY out of the environment: CMake never sees it.
if grep -q "^CMAKE_ONLY" "$TMP/work-env/src/build/CMakeCache.txt"; then fail "CMAKE_ONLY reached CMake"; fi
v=$(cat tests/fixtures/minitorch-next/version.txt)
sed "s/v2.11.0/v$v/; s/name: envform/name: eraC/" "$TMP/envform.yaml" > "$TMP/eraC.yaml"
run 0 "$BW" --profile "$TMP/eraC.yaml" --work "$TMP/work-c" --out "$TMP/out71" --until configure
contains "$TMP/err" "configure: cmake -S $TMP/work-c/src -B $TMP/work-c/src/build -G Ninja"
[ -s "$TMP/work-c/configure.stamp" ] || fail "no configure.stamp in era C"
[ -s "$TMP/work-c/src/build/build.ninja" ] || fail "era C configure wrote no build.ninja"
[ "$(built "$TMP/work-c/src")" = 0 ] || fail "era C configure compiled the tree"

# 9. The shapes of PyTorch's setup.py (lib.sh, era_tree), each configured the
# way its tree documents: 2.7 reads only the argument; 2.9 and 2.10 read
# CMAKE_ONLY (and still take the argument): the variable, popped before CMake.
# What 2.9 and 2.10 import at load time comes from a stand-in prefix here.
# 10. CMake 4 refuses cmake_minimum_required below 3.5, which old submodules
# declare: the build sets CMAKE_POLICY_VERSION_MINIMUM=3.5 only where the tree
# has one, and says so (here a cmake that calls itself 4.4.3 in front of the
# real one). The 2.10 shape is that tree, configured once under it.
setuptools_deb "$TMP/debs71"
sh scripts/python-prefix.sh --from-debs "$TMP/debs71" >/dev/null
mkdir -p "$TMP/cmake4"
real_cmake=$(command -v cmake)
# shellcheck disable=SC2016 # the wrapper's own $1 and $@
printf '#!/bin/sh\nif [ "$1" = --version ]; then echo "cmake version 4.4.3"; exit 0; fi\nexec %s "$@"\n' "$real_cmake" >"$TMP/cmake4/cmake"
chmod +x "$TMP/cmake4/cmake"
for s in 2.7 2.9 2.10; do
	era_tree "$s" "$TMP/shape$s" vendored
	printf 'extends: %s/profiles/demo.yaml\nname: shape%s\n' "$TOP" "$s" >"$TMP/shape$s.yaml"
	p=$PATH
	if [ "$s" = 2.10 ]; then
		mkdir -p "$TMP/shape2.10/third_party/old"
		printf 'cmake_minimum_required(VERSION 2.8.12)\nproject(old NONE)\n' >"$TMP/shape2.10/third_party/old/CMakeLists.txt"
		printf 'cmake_minimum_required(VERSION 3.1...3.27)\n' >"$TMP/shape2.10/third_party/cutlite/CMakeLists.txt"
		p="$TMP/cmake4:$PATH"
	fi
	PATH="$p" run 0 "$BW" --profile "$TMP/shape$s.yaml" --source "$TMP/shape$s" --work "$TMP/ws$s" --out "$TMP/out71" --until configure
	[ "$(built "$TMP/shape$s")" = 0 ] || fail "the $s shape's configure compiled the tree"
	if grep -q "^CMAKE_ONLY" "$TMP/shape$s/build/CMakeCache.txt"; then fail "CMAKE_ONLY reached CMake ($s)"; fi
done
contains "$TMP/err" "fetch: cmake 4.4 refuses cmake_minimum_required below 3.5, which third_party/old/CMakeLists.txt:1 asks"
contains "$TMP/ws2.10/logs/configure.log" "# env CMAKE_POLICY_VERSION_MINIMUM=3.5"
contains "$TMP/ws2.7/logs/configure.log" "setup.py build --cmake-only"
if grep -q "CMAKE_ONLY" "$TMP/ws2.7/logs/configure.log"; then fail "CMAKE_ONLY given to the 2.7 shape"; fi
for s in 2.9 2.10; do
	contains "$TMP/ws$s/logs/configure.log" "# env CMAKE_ONLY=1"
	if grep -q -- "--cmake-only" "$TMP/ws$s/logs/configure.log"; then fail "--cmake-only given to the $s shape"; fi
done
PATH="$TMP/cmake4:$PATH" run 0 "$BW" plan --profile "$TMP/shape2.10.yaml" --source "$TMP/shape2.10"
contains "$TMP/out" "cmake        cmake 4.4 refuses cmake_minimum_required below 3.5, which third_party/old/CMakeLists.txt:1 asks (2.8): the build sets CMAKE_POLICY_VERSION_MINIMUM=3.5"
contains "$TMP/out" "  CMAKE_POLICY_VERSION_MINIMUM=3.5"
PATH="$TMP/cmake4:$PATH" run 0 "$BW" doctor --profile "$TMP/shape2.10.yaml" --source "$TMP/shape2.10"
grep -q "cmake policy .*which third_party/old/CMakeLists.txt:1 asks" "$TMP/out" || fail "doctor: $(cat "$TMP/out")"
# Without such a file (a range counts by its top), or with a cmake 3, nothing is set.
rm -r "$TMP/shape2.10/third_party/old"
PATH="$TMP/cmake4:$PATH" run 0 "$BW" plan --profile "$TMP/shape2.10.yaml" --source "$TMP/shape2.10"
contains "$TMP/out" "no CMakeLists.txt of the tree asks below 3.5"
if grep -q "CMAKE_POLICY_VERSION_MINIMUM=3.5$" "$TMP/out"; then fail "the policy set for a tree that needs none"; fi
run 0 "$BW" --profile "$TMP/shape2.7.yaml" --source "$TMP/shape2.7" --work "$TMP/ws2.7" --out "$TMP/out71" --until configure
if grep -q "CMAKE_POLICY_VERSION_MINIMUM" "$TMP/err" "$TMP/ws2.7/logs/configure.log"; then fail "cmake 3 got the policy"; fi
# ... nor does the policy's absence count as a changed setting.
contains "$TMP/err" "configure: up to date"
