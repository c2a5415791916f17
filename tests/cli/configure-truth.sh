# Verdicts that must be true (issue 12): what configure really ended with.
. "$(dirname "$0")/lib.sh"
ex="$TMP/example92"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$ex/minitorch.git" v2.11.0
export BWBUILD_CACHE_DIR="$TMP/cache92"
cat > "$TMP/t92.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: t92
source:
  repo: $ex/minitorch.git
YAML
w="$TMP/work92"
# The first configure runs CMake's compiler checks (its own, empty
# platform cache); a second work dir gets their results back from it
# (tests/fixtures/minitorch/tools/setup_helpers/platform_cache.py, what
# every other suite's configures use) and must come out the same.
MINITORCH_PLATFORM_CACHE="$TMP/platform92" run 0 "$BW" --profile "$TMP/t92.yaml" --work "$w" --out "$TMP/out92" --until configure
MINITORCH_PLATFORM_CACHE="$TMP/platform92" run 0 "$BW" --profile "$TMP/t92.yaml" --work "$TMP/work92b" --out "$TMP/out92" --until configure
v=$(cat "$TMP"/platform92/*/version)
[ -d "$w/src/build/CMakeFiles/$v/CompilerIdCUDA" ] || fail "the first configure did not check the compilers"
[ ! -e "$TMP/work92b/src/build/CMakeFiles/$v/CompilerIdCUDA" ] || fail "the second configure checked the compilers again"
sed "s#$w#W#g" "$w/src/build/CMakeCache.txt" >"$TMP/cache92a"
sed "s#$TMP/work92b#W#g" "$TMP/work92b/src/build/CMakeCache.txt" >"$TMP/cache92b"
cmp "$TMP/cache92a" "$TMP/cache92b" || { diff "$TMP/cache92a" "$TMP/cache92b"; fail "a configure with kept compiler checks wrote another CMakeCache.txt"; }
pass
rm -rf "$TMP/work92b"
# The key names the programs the checks would run, not PATH's text: a
# directory for other programs (a fake nvidia-smi, a ccache) keeps the
# kept checks; one with a tool of theirs (an ar) is another key.
mkdir -p "$TMP/path92/other" "$TMP/path92/tool"
for f in other/nvidia-smi other/ccache tool/ar; do
	printf '#!/bin/sh\nexit 0\n' >"$TMP/path92/$f" && chmod +x "$TMP/path92/$f"
done
PYTHONPATH=tests/fixtures/minitorch python3 - "$TMP/path92" <<'PY' || fail "the platform cache's key"
import os, sys
from tools.setup_helpers.platform_cache import _key
d, path = sys.argv[1], os.environ["PATH"]
args = ["cmake", "-GNinja", "-DUSE_CUDA=1", "tests/fixtures/minitorch"]
key = lambda p: _key(args, dict(os.environ, PATH=p))[0]
assert key(d + "/other:" + path) == key(path), "a directory of other programs changed the key"
assert key(d + "/tool:" + path) != key(path), "an ar put first on PATH did not change the key"
# find_path's and find_library's search paths are not the checks'; a module path may be.
opts = lambda *o: _key(args[:2] + list(o) + args[2:], dict(os.environ))[0]
assert opts("-DCMAKE_LIBRARY_PATH=/x", "-DCMAKE_INCLUDE_PATH=/y") == opts(), "a library search path changed the key"
assert opts("-DCMAKE_MODULE_PATH=/x") != opts(), "a module path did not change the key"
PY
pass
contains "$w/src/build/bwbuild-effective.txt" "USE_FLASH_ATTENTION=1"
# The configure stamp holds the toolchain (checked here, on the first
# configure's stamp: a fresh work dir for it alone cost a configure).
contains "$w/configure.stamp" "tool nvcc /usr/local/cuda/bin/nvcc Cuda compilation tools, release 13.0"
contains "$w/configure.stamp" "tool cmake "
# CMake run again over the cache, as ninja does when a build file changes:
# with CMake's old cmake_dependent_option policy (a tree requiring < 3.22,
# as PyTorch did up to 2.5) the condition now fails, the cache keeps
# USE_FLASH_ATTENTION:INTERNAL=1, and flash is not built. That is a
# dropped feature, never a success.
(cd "$w/src/build" && cmake . >/dev/null 2>&1)
contains "$w/src/build/CMakeCache.txt" "USE_FLASH_ATTENTION:INTERNAL=1"
run 1 "$BW" --profile "$TMP/t92.yaml" --work "$w" --out "$TMP/out92" --until configure
contains "$TMP/err" "error: features.flash_attention is on, but the build turned USE_FLASH_ATTENTION off"
# Without the hook's dump, the cache is read with INTERNAL understood.
rm "$w/src/build/bwbuild-effective.txt"
run 1 "$BW" --profile "$TMP/t92.yaml" --work "$w" --out "$TMP/out92" --until configure
contains "$TMP/err" "but the build turned USE_FLASH_ATTENTION off"
contains "$TMP/err" "CMakeCache.txt)"

# The interpreter: an active venv whose setuptools (>= 70.1) builds wheels
# without the 'wheel' package is chosen; one that cannot is named as skipped.
mkdir -p "$TMP/venv/bin" "$TMP/venv/lib/setuptools"
printf '#!/bin/sh\nPYTHONPATH=%s/venv/lib exec /usr/bin/python3 -S "$@"\n' "$TMP" > "$TMP/venv/bin/python3"
chmod +x "$TMP/venv/bin/python3"
echo '__version__ = "70.1.0"' > "$TMP/venv/lib/setuptools/__init__.py"
VIRTUAL_ENV="$TMP/venv" PATH="$TMP/venv/bin:$PATH" run 0 "$BW" doctor
contains "$TMP/out" "python         $TMP/venv/bin/python3 can build wheels"
echo '__version__ = "69.5.1"' > "$TMP/venv/lib/setuptools/__init__.py"
VIRTUAL_ENV="$TMP/venv" PATH="$TMP/venv/bin:$PATH" run 0 "$BW" doctor
contains "$TMP/out" "can build wheels (setup.py trees); skipped $TMP/venv/bin/python3 (the active environment, \$VIRTUAL_ENV): cannot build wheels (needs setuptools >= 70.1, or setuptools and wheel)"
# The venv's python is first on PATH too: named once, not twice.
[ "$(grep -o "$TMP/venv/bin/python3 (" "$TMP/out" | wc -l)" -eq 1 ] || fail "the venv's interpreter was listed twice"

# The configure stamp holds what the shell passed in: a variable that
# changes the build makes the next run configure afresh (here over the
# work dir whose cache the checks above turned flash off in: a changed
# stamp removes that cache, so no fresh work dir is needed).
USE_ROCM_KERNEL_ASSERT=1 run 0 "$BW" --profile "$TMP/t92.yaml" --work "$w" --out "$TMP/out92" --until configure
contains "$TMP/err" "configure: settings changed since the last configure"
contains "$w/configure.stamp" "inherited USE_ROCM_KERNEL_ASSERT=1"
run 0 "$BW" --profile "$TMP/t92.yaml" --work "$w" --out "$TMP/out92" --until configure --set build.env.CFLAGS=-O1
contains "$TMP/err" "configure: settings changed since the last configure"
contains "$w/configure.stamp" "CFLAGS=-O1"
contains "$w/src/build/bwbuild-effective.txt" "USE_FLASH_ATTENTION=1"
# The same settings again: up to date, CMake not run.
run 0 "$BW" --profile "$TMP/t92.yaml" --work "$w" --out "$TMP/out92" --until configure --set build.env.CFLAGS=-O1
contains "$TMP/err" "configure: up to date (configure.stamp matches"

# The wheel's own evidence must agree with configure: a tree that keeps
# USE_FLASH_ATTENTION on but never packs the flash library is caught at verify.
rm -rf "$TMP/lying"
cp -r "$w/src" "$TMP/lying"
rm -rf "$TMP/lying/build"
sed -i 's/list(APPEND _install_libs minitorch_flash)//' "$TMP/lying/CMakeLists.txt"
run 1 "$BW" --profile "$TMP/t92.yaml" --source "$TMP/lying" --work "$TMP/work92l" --out "$TMP/out92l"
contains "$TMP/err" "error: configure ended with USE_FLASH_ATTENTION=ON, but no library of the wheel exports flash_attention kernels (features)"
[ -z "$(ls "$TMP/out92l" 2>/dev/null)" ] || fail "a wheel whose features disagree with configure was published"
contains "$TMP/err" "publish: not published to $TMP/out92l: the wheel failed verify; it and its manifest stay in $TMP/work92l/dist"
ls "$TMP/work92l/dist/"*.manifest.json >/dev/null || fail "no manifest beside the failed wheel"

# A wheel without the build-settings header (v2.6.0's installs none): the
# manifest's features come from the build tree's copy, the text libtorch was
# compiled with (they were {} for the first real wheel).
rm -rf "$TMP/nomacros"
cp -r "$w/src" "$TMP/nomacros"
rm -rf "$TMP/nomacros/build"
sed -i '/caffe2\/core\/macros.h" DESTINATION/d' "$TMP/nomacros/CMakeLists.txt"
run 0 "$BW" --profile "$TMP/t92.yaml" --source "$TMP/nomacros" --work "$TMP/work92m" --out "$TMP/out92m"
python3 - "$TMP/out92m" <<'PY' || fail "the manifest's features did not come from the build tree"
import glob, json, sys, zipfile
d = sys.argv[1]
whl = glob.glob(d + "/*.whl")[0]
assert not [n for n in zipfile.ZipFile(whl).namelist() if n.endswith("caffe2/core/macros.h")], "the header is in the wheel"
m = json.load(open(glob.glob(d + "/*.manifest.json")[0]))
assert m["build_settings"]["source"] == "build/caffe2/core/macros.h", m["build_settings"]
assert m["features"].get("cuda") is True and m["features"].get("flash_attention") is True, m["features"]
assert m["build_settings"]["values"].get("USE_CUDA"), m["build_settings"]["values"]
PY
