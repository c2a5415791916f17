# Knowledge from the tree (issue 22): archs judged by the tree's own
# select_compute_arch.cmake (plan says so), torch 2.6 + CUDA 13 needs the CUB
# patch, doctor checks what the tree's build imports with the build's
# interpreter and CMake against the tree's cmake_minimum_required, a build
# checks CMake before fetching, and deps.sh takes CMake from bookworm-backports.
# Every tree, toolkit and interpreter here is made by this test.
. "$(dirname "$0")/lib.sh"

# A tree in v2.6.0's shape (the constructs of its select_compute_arch.cmake,
# FindCUB.cmake as released, torchgen importing yaml and typing_extensions).
t26="$TMP/t26"
mkdir -p "$t26/cmake/Modules_CUDA_fix/upstream/FindCUDA" "$t26/cmake/Modules" "$t26/torchgen" \
	"$t26/tools/setup_helpers"
sel26="$t26/cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake"
cat > "$sel26" <<'CMAKE'
set(CUDA_KNOWN_GPU_ARCHITECTURES  "Kepler" "Maxwell")
set(CUDA_ALL_GPU_ARCHITECTURES "3.5" "5.0")
if(CUDA_VERSION VERSION_GREATER "12.6")
  list(APPEND CUDA_KNOWN_GPU_ARCHITECTURES "Blackwell")
  list(APPEND CUDA_ALL_GPU_ARCHITECTURES "10.0")
endif()
function(CUDA_SELECT_NVCC_ARCH_FLAGS out_variable)
  set(CUDA_ARCH_LIST "${ARGN}")
  set(cuda_arch_bin)
  foreach(arch_name ${CUDA_ARCH_LIST})
    set(arch_bin)
    if(arch_name MATCHES "(.*)\\+PTX$")
      set(arch_name ${CMAKE_MATCH_1})
    endif()
    if(arch_name MATCHES "^([0-9]+\\.[0-9]a?(\\([0-9]+\\.[0-9]\\))?)$")
      set(arch_bin ${CMAKE_MATCH_1})
    else()
      if(${arch_name} STREQUAL "Blackwell")
        set(arch_bin 10.0)
      else()
        message(SEND_ERROR "Found Unknown CUDA Architecture Name in CUDA_SELECT_NVCC_ARCH_FLAGS: ${arch_name} ")
      endif()
    endif()
    list(APPEND cuda_arch_bin ${arch_bin})
  endforeach()
  string(REGEX REPLACE "\\." "" cuda_arch_bin "${cuda_arch_bin}")
  string(REGEX MATCHALL "[0-9()]+a?" cuda_arch_bin "${cuda_arch_bin}")
  set(nvcc_flags "")
  foreach(arch ${cuda_arch_bin})
    list(APPEND nvcc_flags -gencode arch=compute_${arch},code=sm_${arch})
  endforeach()
  set(${out_variable} ${nvcc_flags} PARENT_SCOPE)
endfunction()
CMAKE
cat > "$t26/cmake/Modules/FindCUB.cmake" <<'CMAKE'
# Try to find the CUB library and headers.
#  CUB_FOUND        - system has CUB
#  CUB_INCLUDE_DIRS - the CUB include directory

find_path(CUB_INCLUDE_DIR
        HINTS "${CUDA_TOOLKIT_INCLUDE}"
        NAMES cub/cub.cuh
        DOC "The directory where CUB includes reside"
)

set(CUB_INCLUDE_DIRS ${CUB_INCLUDE_DIR})

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUB
        FOUND_VAR CUB_FOUND
        REQUIRED_VARS CUB_INCLUDE_DIR
)

mark_as_advanced(CUB_FOUND)
CMAKE
printf 'cmake_minimum_required(VERSION 3.18 FATAL_ERROR)\nproject(Torch CXX C)\n' > "$t26/CMakeLists.txt"
# shellcheck disable=SC2016 # CMake's ${...}, not the shell's
printf 'set(GEN_COMMAND\n    "${Python_EXECUTABLE}" -m torchgen.gen\n)\n' > "$t26/cmake/Codegen.cmake"
printf 'import os\nimport setuptools\nfrom tools.setup_helpers.env import IS_LINUX\n' > "$t26/setup.py"
: > "$t26/tools/__init__.py"
: > "$t26/tools/setup_helpers/__init__.py"
printf 'import platform\nIS_LINUX = platform.system() == "Linux"\n' > "$t26/tools/setup_helpers/env.py"
: > "$t26/torchgen/__init__.py"
printf 'import yaml\nfrom torchgen.utils import Target\n' > "$t26/torchgen/gen.py"
printf 'import hashlib\n\nfrom typing_extensions import assert_never\n\nclass Target:\n    pass\n' \
	> "$t26/torchgen/utils.py"
printf '2.6.0\n' > "$t26/version.txt"

# The newer shape: 'a' and 'f' suffixes.
tnew="$TMP/tnew"
cp -r "$t26" "$tnew"
sed -i 's/a?/[af]?/g' "$tnew/cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake"
# Half-updated: the numeric form takes 'f', the MATCHALL still keeps 'a' only.
thalf="$TMP/thalf"
cp -r "$t26" "$thalf"
sed -i 's/^\(    if(arch_name MATCHES "^(\[0-9\]+\\\\.\[0-9\]\)a?/\1[af]?/' \
	"$thalf/cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake"
grep -q '\[af\]?(' "$thalf/cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake" ||
	fail "the half-updated fixture was not made"

cat > "$TMP/p26.yaml" <<YAML
extends: $TOP/profiles/sm120.yaml
name: p26
source:
  ref: v2.6.0
cuda:
  version: "13.0"
YAML

# 1. torch 2.6 with 12.0+PTX: the tree's file accepts it (the table used to refuse it).
run 0 "$BW" plan --profile "$TMP/p26.yaml" --source "$t26"
contains "$TMP/out" "  archs checked against the tree's select_compute_arch.cmake ($sel26), run by CMake; for CUDA 13.0 its All list is 3.5 5.0 10.0 and Blackwell gives sm_100 (a known name from CUDA 12.7)"
run 0 "$BW" plan --profile "$TMP/p26.yaml" --source "$t26" --set cuda.version=12.6 --set 'cuda.archs=9.0+PTX'
contains "$TMP/out" "for CUDA 12.6 its All list is 3.5 5.0 and Blackwell gives sm_100 (not among its known names for this CUDA; from CUDA 12.7)"
grep -q "does not know" "$TMP/err" "$TMP/out" && fail "the old table rule still refuses 12.0 for torch 2.6"
run 0 "$BW" plan --profile "$TMP/p26.yaml"
contains "$TMP/out" "  archs checked against bwbuild's table for torch 2.6 (source.ref); the tree's own select_compute_arch.cmake is read after the fetch"
run 0 "$BW" plan --profile "$TMP/p26.yaml" --json
python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["arch_source"].startswith("bwbuild's table for torch 2.6"), d["arch_source"]
PY
# A tree without the file: the table, and why.
mkdir -p "$TMP/bare"
printf 'import setuptools\n' > "$TMP/bare/setup.py"
run 0 "$BW" plan --profile "$TMP/p26.yaml" --source "$TMP/bare"
contains "$TMP/out" "archs checked against bwbuild's table for torch 2.6 (source.ref); '$TMP/bare' has no cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake"

# 2. 'f' entries: v2.6.0's shape refuses them, the newer takes them, the half-updated drops the 'f'.
run 2 "$BW" plan --profile "$TMP/p26.yaml" --source "$t26" --set 'cuda.archs=10.0f;12.0+PTX'
contains "$TMP/err" "error: the tree's select_compute_arch.cmake ($sel26) does not accept '10.0f': CMake stops with \"Found Unknown CUDA Architecture Name in CUDA_SELECT_NVCC_ARCH_FLAGS: 10.0f\"; it takes '10.0' ('f' entries need a tree with PyTorch PR #157999)"
run 0 "$BW" plan --profile "$TMP/p26.yaml" --source "$tnew" --set 'cuda.archs=10.0f;12.0+PTX'
run 2 "$BW" plan --profile "$TMP/p26.yaml" --source "$thalf" --set 'cuda.archs=10.0f;12.0+PTX'
contains "$TMP/err" "accepts '10.0f' but gives 'sm_100': the 'f' would be dropped and sm_100 built instead"
# The tree's answer is kept (src/core/answers.h): a second plan of the same
# file, in another directory, runs no CMake; a changed file runs it again.
if command -v strace >/dev/null 2>&1; then
	rm -rf "$TMP/ans-cache" "$TMP/t26b" && mkdir -p "$TMP/ans-cache" && cp -r "$t26" "$TMP/t26b"
	# cmake_p ARGS...: bwbuild plan ARGS under strace; how many `cmake -P` it started.
	cmake_p() {
		BWBUILD_CACHE_DIR="$TMP/ans-cache" ASAN_OPTIONS="$TRACED_ASAN" strace -f -qq -e trace=execve \
			-e signal=none -o "$TMP/ans-trace" "$BW" plan "$@" >"$TMP/out" 2>"$TMP/err" ||
			fail "plan $* failed: $(cat "$TMP/err")"
		grep -v ENOENT "$TMP/ans-trace" | grep 'execve("[^"]*/cmake"' | grep -c '"-P"' || true
	}
	[ "$(cmake_p --profile "$TMP/p26.yaml" --source "$t26")" -ge 1 ] || fail "the first plan ran no cmake -P"
	[ "$(cmake_p --profile "$TMP/p26.yaml" --source "$TMP/t26b")" = 0 ] || fail "a kept answer was asked again"
	contains "$TMP/out" "its All list is 3.5 5.0 10.0 and Blackwell gives sm_100"
	echo '# changed' >>"$TMP/t26b/cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake"
	[ "$(cmake_p --profile "$TMP/p26.yaml" --source "$TMP/t26b")" -ge 1 ] || fail "a changed file was not run again"
else
	skip "strace is not installed: the kept select_compute_arch answers are not counted"
fi
# Without a tree, the table refuses 'f' for 2.6 (read) and only warns where it was not read.
run 2 "$BW" plan --profile "$TMP/p26.yaml" --set 'cuda.archs=10.0f;12.0+PTX'
contains "$TMP/err" "error: torch 2.6 (source.ref) does not accept '10.0f' in TORCH_CUDA_ARCH_LIST"
run 0 "$BW" plan --profile "$TMP/p26.yaml" --set source.ref=v2.7.0 --set 'cuda.archs=10.0f;12.0+PTX'
contains "$TMP/err" "warning: bwbuild's table cannot say whether torch 2.7 (source.ref) accepts '10.0f'"

# 3. torch x CUDA: 2.6 with CUDA 13 needs the CUB patch, which the shipped profiles apply.
contains "$TOP/profiles/base/pytorch.yaml" "patches: pytorch"
run 0 "$BW" plan --profile "$TMP/p26.yaml"
contains "$TMP/out" "  0002-find-cub-in-cuda13-cccl.patch  (when >=2.0,<2.9)"
run 2 "$BW" plan --profile "$TMP/p26.yaml" --set source.patches=
contains "$TMP/err" "error: torch 2.6 (source.ref) with CUDA 13.0 (cuda.version): configure stops with 'Cannot find CUB.'"
contains "$TMP/err" "set 'source.patches: pytorch' (patches/pytorch/0002-find-cub-in-cuda13-cccl.patch fixes it)"
run 0 "$BW" plan --profile "$TMP/p26.yaml" --set source.patches= \
	--set cmake.CMAKE_INCLUDE_PATH=/usr/local/cuda/include/cccl
grep -q "CUB" "$TMP/err" && fail "CMAKE_INCLUDE_PATH to include/cccl is not taken as the fix"
run 0 "$BW" plan --profile "$TMP/p26.yaml" --set source.patches= --set source.ref=v2.8.0
contains "$TMP/err" "warning: torch 2.8 (source.ref) with CUDA 13.0"
contains "$TMP/err" "(known for torch <= 2.6; torch 2.8 is not verified)"
run 2 "$BW" plan --profile "$TMP/p26.yaml" --set source.patches= --set source.ref=v2.8.0 --strict
run 0 "$BW" plan --profile "$TMP/p26.yaml" --set source.patches= --set source.ref=v2.9.0
grep -q "CUB" "$TMP/err" && fail "torch 2.9 is warned about CUB"
run 0 "$BW" plan --profile "$TMP/p26.yaml" --set source.patches= --set cuda.version=12.8
grep -q "CUB" "$TMP/err" && fail "CUDA 12.8 is warned about CUB"

# The patch is a real one: it applies to the released FindCUB.cmake, and CMake
# then finds CUB in a CUDA 13 layout (include/cccl only) where it did not.
cp -r "$t26" "$TMP/t26git"
git -C "$TMP/t26git" init -q
git -C "$TMP/t26git" apply --check "$TOP/patches/pytorch/0002-find-cub-in-cuda13-cccl.patch" ||
	fail "0002 does not apply to v2.6.0's FindCUB.cmake"
mkdir -p "$TMP/cuda13/include/cccl/cub" "$TMP/cuda13/bin"
: > "$TMP/cuda13/include/cccl/cub/cub.cuh"
: > "$TMP/cuda13/include/cuda.h"
mkdir -p "$TMP/cubproj"
cat > "$TMP/cubproj/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(cubprobe NONE)
set(CUDA_TOOLKIT_INCLUDE "$TMP/cuda13/include")
list(APPEND CMAKE_MODULE_PATH "\${MODULES}")
find_package(CUB)
if(NOT CUB_FOUND)
  message(FATAL_ERROR "Cannot find CUB.")
endif()
message(STATUS "CUB at \${CUB_INCLUDE_DIRS}")
CMAKE
run 1 cmake -S "$TMP/cubproj" -B "$TMP/cubproj/b1" -DMODULES="$TMP/t26git/cmake/Modules"
contains "$TMP/err" "Cannot find CUB."
git -C "$TMP/t26git" apply "$TOP/patches/pytorch/0002-find-cub-in-cuda13-cccl.patch"
run 0 cmake -S "$TMP/cubproj" -B "$TMP/cubproj/b2" -DMODULES="$TMP/t26git/cmake/Modules"
contains "$TMP/out" "CUB at $TMP/cuda13/include/cccl"

# 4. doctor with that toolkit (a fake nvcc): the unpatched tree cannot configure;
# the patched one or CMAKE_INCLUDE_PATH can.
cat > "$TMP/cuda13/bin/nvcc" <<'SH'
#!/bin/sh
case "$1" in
--version) echo "Cuda compilation tools, release 13.0, V13.0.88" ;;
--list-gpu-code) printf 'sm_75\nsm_80\nsm_90\nsm_100\nsm_120\n' ;;
esac
SH
chmod +x "$TMP/cuda13/bin/nvcc"
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26" --set "cuda.home=$TMP/cuda13"
contains "$TMP/err" "$t26/cmake/Modules/FindCUB.cmake looks for cub/cub.cuh only in the toolkit's include/, and $TMP/cuda13/include has it only under cccl/ (CUDA 13): configure would stop with 'Cannot find CUB.'"
contains "$TMP/out" "❌ tree           $t26 cannot configure with the toolkit at $TMP/cuda13"
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$TMP/t26git" --set "cuda.home=$TMP/cuda13"
grep -q "❌ tree" "$TMP/out" && fail "the patched tree is said not to configure"
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26" --set "cuda.home=$TMP/cuda13" \
	--set "cmake.CMAKE_INCLUDE_PATH=$TMP/cuda13/include/cccl"
grep -q "❌ tree" "$TMP/out" && fail "CMAKE_INCLUDE_PATH to include/cccl is not taken as the fix"

# nvml.h: c10/cuda/driver_api.h includes it; a toolkit without its NVML
# headers (this fake one, and the CUDA 13.0 of the development machine) fails
# the check, which names where it looked; build.env.CXXFLAGS -isystem DIR
# holding one passes it.
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$TMP/t26git" --set "cuda.home=$TMP/cuda13"
contains "$TMP/out" "❌ nvml           no nvml.h in $TMP/cuda13/include"
mkdir -p "$TMP/nvmlinc"
: > "$TMP/nvmlinc/nvml.h"
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$TMP/t26git" --set "cuda.home=$TMP/cuda13" \
	--set "build.env.CXXFLAGS=-O2 -isystem $TMP/nvmlinc"
contains "$TMP/out" "✅ nvml           $TMP/nvmlinc/nvml.h"

# A --source tree is judged by the patches its release needs: t26 in v2.6.0's
# unpatched shape (each file a patch of the series changes holds the lines
# the patch expects), a git checkout. With the CUB hint taken
# (CMAKE_INCLUDE_PATH) and NVML found, nothing else fails: doctor said
# "ready to build", and SortStable.cu then failed with 11 errors (0003).
t26u="$TMP/t26u"
cp -r "$t26" "$t26u"
python3 - "$t26u" patches/pytorch/*.patch <<'PY2'
import os, re, sys
tree = sys.argv[1]
for patch in sys.argv[2:]:
    path, old = None, []
    lines = open(patch).read().split("\n")
    hunks = []
    for line in lines:
        if line.startswith("--- a/"):
            path = line[6:]
        elif line.startswith("@@ "):
            old = []
            hunks.append((path, old))
        elif hunks and line[:1] in (" ", "-"):
            old.append(line[1:])
    for path, old in hunks:
        f = os.path.join(tree, path)
        os.makedirs(os.path.dirname(f), exist_ok=True)
        have = open(f).read() if os.path.exists(f) else ""
        text = "\n".join(old) + "\n"
        if text not in have:
            open(f, "a").write(text)
PY2
git -C "$t26u" init -q
git -C "$t26u" add -A
git -C "$t26u" -c user.name=t -c user.email=t@example.com commit -qm "v2.6.0 shape, unpatched"
ok26="--set cuda.home=$TMP/cuda13 --set cmake.CMAKE_INCLUDE_PATH=$TMP/cuda13/include/cccl --set build.python=/usr/bin/python3 --set features.cudnn=off --set features.nccl=off"
# shellcheck disable=SC2086 # $ok26: several options
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26u" $ok26 --set "build.env.CXXFLAGS=-isystem $TMP/nvmlinc"
contains "$TMP/out" "❌ patches        $t26u (torch 2.6 by its version.txt) lacks 6 of the 6 patches that source.patches 'pytorch' applies to 2.6, and a --source tree is built as it is: apply them there (git -C $t26u apply $TOP/patches/pytorch/0001-select-compute-arch-autodetect-12.1.patch"
contains "$TMP/out" "or build without --source, which applies them"
[ "$(grep -c "^❌" "$TMP/out")" = 1 ] || { cat "$TMP/out"; fail "more than the patches fail: the case is not the one meant"; }
contains "$TMP/out" "not ready"
# Without CUDA, only a warning.
# shellcheck disable=SC2086
run 0 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26u" $ok26 --set features.cuda=off \
	--set features.flash_attention=off \
	--set features.mem_eff_attention=off
contains "$TMP/out" "⚠️  patches        $t26u (torch 2.6 by its version.txt) lacks 6 of the 6 patches"
contains "$TMP/out" "(only a warning: features.cuda is off, and what they fix may be CUDA code alone)"
# Patched as the build patches: ready.
for f in patches/pytorch/*.patch; do git -C "$t26u" apply "$TOP/$f" || fail "$f does not apply to the unpatched shape"; done
# shellcheck disable=SC2086
run 0 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26u" $ok26 --set "build.env.CXXFLAGS=-isystem $TMP/nvmlinc"
contains "$TMP/out" "✅ patches        $t26u has the 6 patches source.patches 'pytorch' applies to torch 2.6"
contains "$TMP/out" "ready to build"
# A tree that is no checkout is judged by its text: the same answers.
rm -rf "$t26u/.git"
# shellcheck disable=SC2086
run 0 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26u" $ok26 --set "build.env.CXXFLAGS=-isystem $TMP/nvmlinc"
contains "$TMP/out" "✅ patches        $t26u has the 6 patches"
(cd "$t26u" && GIT_CEILING_DIRECTORIES="$TMP" git apply -R "$TOP/patches/pytorch/0003-cccl3-removed-cub-names.patch") ||
	fail "0003 cannot be undone in the copy"
# shellcheck disable=SC2086
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26u" $ok26 --set "build.env.CXXFLAGS=-isystem $TMP/nvmlinc"
contains "$TMP/out" "lacks 1 of the 6 patches that source.patches 'pytorch' applies to 2.6"
contains "$TMP/out" "apply $TOP/patches/pytorch/0003-cccl3-removed-cub-names.patch) or build"
# Files unlike what a patch expects: neither applied nor applicable, said (t26 lacks 0003's and 0004's files).
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26" --set "cuda.home=$TMP/cuda13"
contains "$TMP/out" "⚠️  patches        of source.patches 'pytorch', neither applied to $t26 nor applicable there: "
contains "$TMP/out" "0003-cccl3-removed-cub-names.patch ('aten/src/ATen/cuda/cub.cuh' is not as the patch expects)"
# plan --source: no patch reaches a --source tree (it listed 0001 "for v2.6.0", the profile's ref).
run 0 "$BW" plan --profile "$TMP/p26.yaml" --source "$t26u"
contains "$TMP/out" "patches      none: a --source tree is built as it is (source.patches 'pytorch' is not applied)"
contains "$TMP/out" "  the series has 6 for torch 2.6 (its version.txt): 'bwbuild doctor --source $t26u' says whether the tree has them"
grep -q "0001-select" "$TMP/out" && fail "plan --source lists the series' patches"
run 0 "$BW" plan --profile "$TMP/p26.yaml" --source "$t26u" --json
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["patches"]; assert p["selected"] == [] and p["not_applied"] == "a --source tree is built as it is", p' "$TMP/out"

# At the fetch: a fetched tree's own files decide. Here cuda.version says 12.8
# (no version rule fires) while cuda.home is a CUDA 13 layout, and no patches.
cp -r "$t26" "$TMP/t26src"
git -C "$TMP/t26src" init -q
git -C "$TMP/t26src" add -A
git -C "$TMP/t26src" -c user.name=t -c user.email=t@example.com commit -qm "v2.6.0 shape"
git -C "$TMP/t26src" tag v2.6.0
cat > "$TMP/pf.yaml" <<YAML
extends: $TMP/p26.yaml
name: pf
source:
  repo: $TMP/t26src
  patches: ""
cuda:
  version: "12.8"
  home: $TMP/cuda13
features: {cudnn: off, nccl: off}
YAML
run 1 "$BW" build --profile "$TMP/pf.yaml" --work "$TMP/wf" --out "$TMP/of" --until fetch
contains "$TMP/err" "fetch: archs checked against the tree's select_compute_arch.cmake ($TMP/wf/src/cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake), run by CMake"
contains "$TMP/err" "$TMP/wf/src/cmake/Modules/FindCUB.cmake looks for cub/cub.cuh only in the toolkit's include/"
# The tree is here now, and it is PyTorch's (torchgen/): the build's
# preflight stops at the nvml.h c10_cuda needs and this toolkit lacks,
# before fetching again (issue 32: it fetched, to fail an hour in). A run
# that stops after the fetch preflights only what a fetch can fail, so the
# build here goes on to configure, which needs the header.
run 1 "$BW" build --profile "$TMP/pf.yaml" --work "$TMP/wf" --out "$TMP/of" --until configure \
	--set "cmake.CMAKE_INCLUDE_PATH=$TMP/cuda13/include/cccl"
contains "$TMP/err" "error: preflight: nvml: no nvml.h in $TMP/cuda13/include"
if grep -q "^fetch:" "$TMP/err"; then fail "the build fetched before its preflight failed"; fi
# With the workaround, a run stopped after the fetch passes: its preflight
# does not ask for the nvml.h only later steps need.
run 0 "$BW" build --profile "$TMP/pf.yaml" --work "$TMP/wf" --out "$TMP/of" --until fetch \
	--set "cmake.CMAKE_INCLUDE_PATH=$TMP/cuda13/include/cccl"
contains "$TMP/err" "fetch: archs checked against the tree's select_compute_arch.cmake"

# 5. doctor: what the tree's build imports, with the interpreter the build uses.
# A fake interpreter: /usr/bin/python3 that cannot find typing_extensions.
mkdir -p "$TMP/fakepy/block"
cat > "$TMP/fakepy/block/sitecustomize.py" <<'PY'
import sys
class _NoTypingExtensions:
    def find_spec(self, name, path=None, target=None):
        if name == "typing_extensions":
            raise ModuleNotFoundError(name)
        return None
sys.meta_path.insert(0, _NoTypingExtensions())
PY
printf '#!/bin/sh\nPYTHONPATH="%s" exec /usr/bin/python3 "$@"\n' "$TMP/fakepy/block" > "$TMP/fakepy/python3"
chmod +x "$TMP/fakepy/python3"
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26" --set "build.python=$TMP/fakepy/python3"
contains "$TMP/out" "❌ python imports $TMP/fakepy/python3 cannot import 'typing_extensions' (torchgen/utils.py:3), which the build imports; apt-get install python3-typing-extensions"
contains "$TMP/out" "not ready"
# The real interpreter has them (deps.sh installs python3-yaml and python3-typing-extensions).
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26" --set build.python=/usr/bin/python3
contains "$TMP/out" "✅ python imports /usr/bin/python3 has the 6 modules the tree's build imports (from setup.py, torchgen/gen.py; 7 files read)"
# No tree yet: bwbuild's list for PyTorch, with the same interpreter.
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --work "$TMP/nowork" --set "build.python=$TMP/fakepy/python3" --json
python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["checks"] if c["name"] == "python imports"]
assert c and c[0]["status"] == "fail" and "bwbuild's list for PyTorch" in c[0]["detail"], c
assert d["ok"] is False
PY

# A tree with only pyproject.toml: its build requirements are all needed (the backend is one).
mkdir -p "$TMP/tc"
printf '[build-system]\nrequires = ["scikit-build-core>=1.0", "bwbuild-no-such-module"]\nbuild-backend = "scikit_build_core.build"\n' \
	> "$TMP/tc/pyproject.toml"
run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$TMP/tc" --set build.python=/usr/bin/python3
contains "$TMP/out" "❌ python reqs    /usr/bin/python3 lacks"
contains "$TMP/out" "bwbuild_no_such_module"
# With setup.py, a requirement nothing imports is a warning.
printf 'import setuptools\n' > "$TMP/tc/setup.py"
# (nvml.h from the stand-in directory: a machine's toolkit may lack it.)
run 0 "$BW" doctor --profile "$TMP/p26.yaml" --source "$TMP/tc" --set build.python=/usr/bin/python3 \
	--set "build.env.CXXFLAGS=-isystem $TMP/nvmlinc"
contains "$TMP/out" "⚠️  python reqs    /usr/bin/python3 lacks"

# 6. CMake against the tree's cmake_minimum_required, in doctor and before a build fetches.
tbig="$TMP/tbig"
cp -r tests/fixtures/minitorch "$tbig"
sed -i 's/cmake_minimum_required(VERSION 3.18 FATAL_ERROR)/cmake_minimum_required(VERSION 99.0 FATAL_ERROR)/' "$tbig/CMakeLists.txt"
grep -q "VERSION 99.0" "$tbig/CMakeLists.txt" || fail "the fixture's cmake_minimum_required was not raised"
run 1 "$BW" doctor --profile demo --source "$tbig"
contains "$TMP/out" "❌ cmake          $(command -v cmake) is cmake"
contains "$TMP/out" "this build needs >= 99.0 (CMakeLists.txt:5 cmake_minimum_required)"
run 1 "$BW" build --profile demo --source "$tbig" --work "$TMP/wbig" --out "$TMP/obig" --until fetch
contains "$TMP/err" "this build needs >= 99.0 (CMakeLists.txt:5 cmake_minimum_required); on Debian 12, scripts/deps.sh installs cmake 3.31 from bookworm-backports"
grep -q "^fetch:" "$TMP/err" && fail "the build fetched before checking CMake"
# The era's need: a real PyTorch tree asks 3.18, but needs 3.27.
mkdir -p "$TMP/oldcmake"
printf '#!/bin/sh\necho "cmake version 3.25.1"\n' > "$TMP/oldcmake/cmake"
chmod +x "$TMP/oldcmake/cmake"
PATH="$TMP/oldcmake:$PATH" run 1 "$BW" doctor --profile "$TMP/p26.yaml" --source "$t26"
contains "$TMP/out" "❌ cmake          $TMP/oldcmake/cmake is cmake 3.25; this build needs >= 3.27 (real PyTorch trees: requirements-build.txt's cmake>=3.27)"
# The same cmake cannot run the tree's select_compute_arch.cmake: said, and the table judges.
PATH="$TMP/oldcmake:$PATH" run 0 "$BW" plan --profile "$TMP/p26.yaml" --source "$t26"
contains "$TMP/err" "warning: $TMP/oldcmake/cmake -P "
contains "$TMP/err" "gave no answer (exit 0): cmake version 3.25.1 ('$sel26' not run); the archs are judged by bwbuild's table only"
contains "$TMP/out" "archs checked against bwbuild's table for torch 2.6 (source.ref); $TMP/oldcmake/cmake -P "

# 7. deps.sh on a fresh Debian 12 (os-release, apt and the tools faked): cmake
# 3.25 -> the backports line is added once and cmake comes from there.
etc="$TMP/etc"
mkdir -p "$etc/apt/sources.list.d" "$TMP/fakebin"
printf 'ID=debian\nVERSION_ID="12"\n' > "$etc/os-release"
cat > "$TMP/fakebin/dpkg-query" <<'SH'
#!/bin/sh
echo "install ok installed"
SH
printf '#!/bin/sh\necho 0\n' > "$TMP/fakebin/id"
printf '#!/bin/sh\necho "apt-get $*" >> "%s"\n' "$TMP/apt.log" > "$TMP/fakebin/apt-get"
# shellcheck disable=SC2016 # expanded by the fake cmake when it runs
printf '#!/bin/sh\necho "cmake version ${FAKE_CMAKE:-3.25.1}"\n' > "$TMP/fakebin/cmake"
chmod +x "$TMP/fakebin/"*
PATH="$TMP/fakebin:$PATH" BWBUILD_DEPS_ETC="$etc" run 0 sh scripts/deps.sh
contains "$TMP/err" "deps: cmake 3.25 is older than 3.27, which real PyTorch trees need; installing cmake from bookworm-backports"
contains "$TMP/err" "deps: no apt source names bookworm-backports; adding $etc/apt/sources.list.d/bwbuild-backports.list"
contains "$etc/apt/sources.list.d/bwbuild-backports.list" "deb http://deb.debian.org/debian bookworm-backports main"
contains "$TMP/apt.log" "apt-get update -qq"
contains "$TMP/apt.log" "apt-get install -y -qq --no-install-recommends -t bookworm-backports cmake"
# Again, with the source there: not added twice.
PATH="$TMP/fakebin:$PATH" BWBUILD_DEPS_ETC="$etc" run 0 sh scripts/deps.sh
grep -q "adding" "$TMP/err" && fail "deps.sh added the backports line twice"
[ "$(cat "$etc"/apt/sources.list.d/* | grep -c bookworm-backports)" = 1 ] || fail "more than one backports line"
# A cmake that is new enough: nothing to do.
: > "$TMP/apt.log"
FAKE_CMAKE=3.31.6 PATH="$TMP/fakebin:$PATH" BWBUILD_DEPS_ETC="$etc" run 0 sh scripts/deps.sh
[ ! -s "$TMP/apt.log" ] || fail "deps.sh ran apt-get with cmake 3.31 and everything installed: $(cat "$TMP/apt.log")"
# Not root: the commands, backports line included, are printed.
rm -f "$etc/apt/sources.list.d/bwbuild-backports.list"
printf '#!/bin/sh\necho 1000\n' > "$TMP/fakebin/id"
printf '#!/bin/sh\nexit 1\n' > "$TMP/fakebin/sudo"
chmod +x "$TMP/fakebin/id" "$TMP/fakebin/sudo"
PATH="$TMP/fakebin:$PATH" BWBUILD_DEPS_ETC="$etc" run 1 sh scripts/deps.sh
contains "$TMP/err" "echo 'deb http://deb.debian.org/debian bookworm-backports main' | sudo tee $etc/apt/sources.list.d/bwbuild-backports.list"
contains "$TMP/err" "sudo apt-get install -y -t bookworm-backports cmake"
