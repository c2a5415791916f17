# What a build loses silently (issue 35), said before anything compiles and
# in the configure read-back: NumPy (doctor and the build refuse a Python
# without it where the profile or the tree wants it), the BLAS (doctor
# checks the one the profile names; the read-back shows the one CMake used,
# and Eigen's in its place), and every option CMake turned off that the
# tree defaults on. The tree is the example with PyTorch v2.6.0's NumPy and
# BLAS logic (CMakeLists.txt:288, cmake/Dependencies.cmake) appended; its
# libraries are names no machine has, or stand-ins made here.
. "$(dirname "$0")/lib.sh"
export BWBUILD_CACHE_DIR="$TMP/cache72"

src="$TMP/np-src"
rm -rf "$src"
cp -r tests/fixtures/minitorch "$src"
rm -rf "$src/build"
cat >> "$src/CMakeLists.txt" <<'CMAKE'

# ---[ v2.6.0's NumPy and BLAS choices, as cmake/Dependencies.cmake makes them
option(USE_NUMPY "Use NumPy" ON)
if(USE_NUMPY)
  execute_process(COMMAND "${Python_EXECUTABLE}" -c "import numpy" RESULT_VARIABLE _np
                  OUTPUT_QUIET ERROR_QUIET)
  if(NOT _np EQUAL 0)
    message(WARNING "NumPy could not be found. Not building with NumPy. Suppress this warning with -DUSE_NUMPY=OFF")
    caffe2_update_option(USE_NUMPY OFF)
  endif()
endif()
set(BLAS "MKL" CACHE STRING "Selected BLAS library")
set(USE_BLAS 1)
if(BLAS STREQUAL "Eigen")
  set(CAFFE2_USE_EIGEN_FOR_BLAS ON)
elseif(BLAS STREQUAL "OpenBLAS")
  find_library(OpenBLAS_LIB NAMES openblas)
  if(NOT OpenBLAS_LIB)
    message(FATAL_ERROR "Could not find OpenBLAS")
  endif()
  set(BLAS_INFO "open")
elseif(BLAS STREQUAL "MKL")
  # a library no machine has: MKL is never found here
  find_library(MKL_LIB NAMES bwbuild_test_no_mkl_rt)
  if(MKL_LIB)
    set(BLAS_INFO "mkl")
  else()
    message(WARNING "MKL could not be found. Defaulting to Eigen")
    set(CAFFE2_USE_EIGEN_FOR_BLAS ON)
  endif()
endif()
CMAKE
sh scripts/make-example-repo.sh "$src" "$TMP/np/minitorch.git" v2.11.0 >/dev/null
cat > "$TMP/np.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: np72
source:
  repo: $TMP/np/minitorch.git
YAML
numpy_line=$(grep -n '^option(USE_NUMPY' "$src/CMakeLists.txt" | cut -d: -f1)

# A Python without NumPy (a stand-in: the system's, NumPy hidden).
mkdir -p "$TMP/nonumpy/block"
cat > "$TMP/nonumpy/block/sitecustomize.py" <<'PY'
import sys
class _NoNumpy:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ModuleNotFoundError(name)
        return None
sys.meta_path.insert(0, _NoNumpy())
PY
printf '#!/bin/sh\nPYTHONPATH="%s" exec /usr/bin/python3 "$@"\n' "$TMP/nonumpy/block" > "$TMP/nonumpy/python3"
chmod +x "$TMP/nonumpy/python3"
nonumpy="--set build.python=$TMP/nonumpy/python3"

# 1. NumPy. The tree defaults USE_NUMPY on and the profile does not say:
# doctor and the build refuse (it built a wheel without NumPy, silently).
run 0 "$BW" --profile "$TMP/np.yaml" --work "$TMP/w0" --out "$TMP/o0" --until fetch --set features.numpy=off
cp -r "$TMP/w0/src" "$TMP/tree"
# shellcheck disable=SC2086 # $nonumpy: one option and its value
run 1 "$BW" doctor --profile "$TMP/np.yaml" --source "$TMP/tree" $nonumpy
contains "$TMP/out" "❌ numpy          $TMP/nonumpy/python3 cannot import numpy, and the tree builds with NumPy unless told not to (CMakeLists.txt:$numpy_line: USE_NUMPY defaults ON) and the profile does not say: CMake would turn USE_NUMPY off and the wheel lack NumPy interop; install python3-numpy (pip: numpy) for that interpreter, or set 'features.numpy: off'"
# shellcheck disable=SC2086
run 1 "$BW" --profile "$TMP/np.yaml" --work "$TMP/w1" --out "$TMP/o1" --until compile $nonumpy
contains "$TMP/err" "error: '$TMP/nonumpy/python3' cannot import numpy, and the tree builds with NumPy unless told not to (CMakeLists.txt:$numpy_line: USE_NUMPY defaults ON)"
[ ! -e "$TMP/w1/logs/configure.log" ] || fail "the build configured without NumPy"
pass
# features.numpy on: refused before the fetch.
# shellcheck disable=SC2086
run 1 "$BW" --profile "$TMP/np.yaml" --work "$TMP/w2" --out "$TMP/o2" --until compile $nonumpy --set features.numpy=on
contains "$TMP/err" "--set features.numpy=on:1:16: error: '$TMP/nonumpy/python3' cannot import numpy, and features.numpy is on (--set features.numpy=on:1)"
grep -q "^fetch:" "$TMP/err" && fail "the build fetched before refusing"
# features.numpy off: the build goes on, and the read-back says off / off.
# shellcheck disable=SC2086
run 0 "$BW" doctor --profile "$TMP/np.yaml" --source "$TMP/tree" $nonumpy --set features.numpy=off
grep -q "^.. numpy " "$TMP/out" && fail "doctor judged NumPy that the profile turns off"
# shellcheck disable=SC2086
run 0 "$BW" --profile "$TMP/np.yaml" --work "$TMP/w3" --out "$TMP/o3" --until configure $nonumpy --set features.numpy=off
grep -qE '^  numpy +USE_NUMPY +off +off$' "$TMP/err" || { cat "$TMP/err"; fail "no numpy off/off row"; }
pass

# 2. The BLAS CMake used. Nothing named, MKL (the tree's default) not found:
# Eigen's, and the read-back says so (it said nothing).
run 0 "$BW" --profile "$TMP/np.yaml" --work "$TMP/w4" --out "$TMP/o4" --until configure --set features.numpy=off
contains "$TMP/err" "warning: no BLAS was found: configure fell back to Eigen's (BLAS=MKL, the tree's default was not found; $TMP/w4/src/build/bwbuild-effective.txt); matmuls run on Eigen's BLAS, several times slower; install MKL's libmkl_rt.so (apt-get install libmkl-dev), or libopenblas-dev with 'cmake.BLAS: OpenBLAS'"
grep -qE '^  blas +BLAS +\(tree\) +Eigen \(fallback\)$' "$TMP/err" || { cat "$TMP/err"; fail "no Eigen (fallback) row"; }
# (from the hook's dump: a plain variable, in no cache)
contains "$TMP/w4/src/build/bwbuild-effective.txt" "CAFFE2_USE_EIGEN_FOR_BLAS=ON"
# Every option the tree defaults on that CMake turned off unasked, with why.
contains "$TMP/err" "  turned off by the tree's CMake though it defaults them on (neither the profile nor the environment asked):"
contains "$TMP/err" "    USE_ROCM                 CMakeLists.txt:"
# Named and found (a stand-in library where CMake and doctor look): its row.
mkdir -p "$TMP/blaslib"
: > "$TMP/blaslib/libopenblas.so"
run 0 "$BW" --profile "$TMP/np.yaml" --work "$TMP/w5" --out "$TMP/o5" --until configure --set features.numpy=off \
	--set cmake.BLAS=OpenBLAS --set "cmake.CMAKE_LIBRARY_PATH=$TMP/blaslib"
grep -qE '^  blas +BLAS +OpenBLAS +open$' "$TMP/err" || { cat "$TMP/err"; fail "no OpenBLAS/open row"; }
grep -q "BLAS was found\|cmake.BLAS is" "$TMP/err" && fail "OpenBLAS found, yet reported"
# Named and not found: the preflight stops the build before anything is fetched ...
run 1 "$BW" --profile "$TMP/np.yaml" --work "$TMP/w6" --out "$TMP/o6" --until configure --set features.numpy=off \
	--set cmake.BLAS=MKL
contains "$TMP/err" "error: preflight: blas: cmake.BLAS is MKL (--set cmake.BLAS=MKL:1) but no libmkl_rt.so was found"
[ ! -e "$TMP/w6/src" ] || fail "the preflight let a checkout be made"
# ... and past it (--no-preflight) the read-back says configure did not do what the profile asked.
run 1 "$BW" --profile "$TMP/np.yaml" --work "$TMP/w6" --out "$TMP/o6" --until configure --set features.numpy=off \
	--set cmake.BLAS=MKL --no-preflight
contains "$TMP/err" "--set cmake.BLAS=MKL:1:7: error: cmake.BLAS is MKL, but configure did not find it and fell back to Eigen's ($TMP/w6/src/build/bwbuild-effective.txt)"

# 3. doctor and the BLAS: the one the profile names must be installed.
run 0 "$BW" doctor --profile "$TMP/np.yaml" --set features.numpy=off
grep -q "blas" "$TMP/out" && fail "doctor judged a BLAS the example does not name"
if ls /usr/lib/*/libblis.so /usr/lib64/libblis.so /usr/lib/libblis.so /usr/local/lib/libblis.so >/dev/null 2>&1; then
	skip "this machine has BLIS: its absence cannot be shown"
else
	run 1 "$BW" doctor --profile "$TMP/np.yaml" --set features.numpy=off --set cmake.BLAS=BLIS
	contains "$TMP/out" "❌ blas           cmake.BLAS is BLIS (--set cmake.BLAS=BLIS:1) but no libblis.so was found (in /usr/lib/x86_64-linux-gnu"
	contains "$TMP/out" "configure stops or falls back to Eigen's BLAS, several times slower; apt-get install libblis-dev, or name its directory in CMAKE_LIBRARY_PATH"
fi
: > "$TMP/blaslib/libblis.so"
run 0 "$BW" doctor --profile "$TMP/np.yaml" --set features.numpy=off --set cmake.BLAS=BLIS \
	--set "cmake.CMAKE_LIBRARY_PATH=$TMP/blaslib"
contains "$TMP/out" "✅ blas           cmake.BLAS BLIS: $TMP/blaslib/libblis.so"
CMAKE_LIBRARY_PATH="$TMP/blaslib" run 0 "$BW" doctor --profile "$TMP/np.yaml" --set features.numpy=off --set cmake.BLAS=BLIS
contains "$TMP/out" "✅ blas           cmake.BLAS BLIS: $TMP/blaslib/libblis.so"
# A real PyTorch profile that names none: PyTorch's default, MKL, looked for.
cat > "$TMP/real.yaml" <<YAML
extends: $TOP/profiles/cpu.yaml
name: real72
cmake:
  BLAS: MKL
YAML
mkdir -p "$TMP/mkl/lib/intel64"
: > "$TMP/mkl/lib/intel64/libmkl_rt.so"
MKLROOT="$TMP/mkl" "$BW" doctor --profile "$TMP/real.yaml" --json > "$TMP/out" 2>"$TMP/err" || true
python3 - "$TMP/out" "$TMP/mkl/lib/intel64/libmkl_rt.so" <<'PY'
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "blas"]
assert c and c[0]["status"] == "ok" and c[0]["detail"] == "cmake.BLAS MKL: " + sys.argv[2], c
PY
pass
if ls /usr/lib/*/libmkl_rt.so /usr/lib64/libmkl_rt.so /usr/lib/libmkl_rt.so /usr/local/lib/libmkl_rt.so >/dev/null 2>&1; then
	skip "this machine has MKL: PyTorch's default is found"
else
	cat > "$TMP/real-none.yaml" <<YAML
extends: $TOP/profiles/sm120.yaml
name: real72none
YAML
	"$BW" doctor --profile "$TMP/real-none.yaml" --json > "$TMP/out" 2>"$TMP/err" || true
	python3 - "$TMP/out" <<'PY'
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "blas"]
assert c and c[0]["status"] == "warn", c
assert c[0]["detail"].startswith("no cmake.BLAS, and PyTorch's default, MKL (libmkl_rt.so), is not installed"), c
assert "the build falls back to Eigen's BLAS" in c[0]["detail"], c
PY
	pass
	# OpenBLAS already there: set the key, not "apt-get install" it (issue 41).
	mkdir -p "$TMP/ob/lib" && : > "$TMP/ob/lib/libopenblas.so"
	OpenBLAS_HOME="$TMP/ob" "$BW" doctor --profile "$TMP/real-none.yaml" --json > "$TMP/out" 2>"$TMP/err" || true
	python3 - "$TMP/out" "$TMP/ob/lib/libopenblas.so" <<'PY'
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "blas"]
assert c[0]["detail"].endswith("slower; OpenBLAS is installed (%s): set 'cmake.BLAS: OpenBLAS'" % sys.argv[2]), c
assert "apt-get install" not in c[0]["detail"], c
PY
	pass
fi
