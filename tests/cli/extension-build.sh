# kind: extension: the example's extension (tests/fixtures/miniext, a
# setup.py that hard-codes its -gencode list and downloads a wheel unless
# forced) built on the example torch through the same pipeline; its
# patch series (patches/miniext) forces the source build and makes it
# honour the profile's archs. Companion version locks; archs the torch
# cannot run.
. "$(dirname "$0")/lib.sh"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$TMP/example/minitorch.git" v2.11.0
cat > "$TMP/torch.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: xtorch
source:
  repo: $TMP/example/minitorch.git
YAML
# The torch profile's output is where the extension finds it: work/xtorch.
mkdir -p "$TMP/proj"
cd "$TMP/proj"
run 0 "$BW" --profile "$TMP/torch.yaml"
torch=$(sed -n 's/^wheel: *//p' "$TMP/out")
tv=$(basename "$torch" | cut -d- -f2)

# The extension's repository, tagged like a release.
mkrepo() { # mkrepo SRC DEST TAG
	rm -rf "$2" "$2.work" && cp -r "$1" "$2.work"
	git -C "$2.work" init -q && git -C "$2.work" add -A
	git -C "$2.work" -c user.email=t@t -c user.name=t commit -qm "$3" --date=2026-01-01T00:00:00
	git -C "$2.work" tag "$3" && git clone -q --bare "$2.work" "$2"
}
mkrepo "$TOP/tests/fixtures/miniext" "$TMP/miniext.git" v0.1.0
cat > "$TMP/ext.yaml" <<YAML
name: miniext
kind: extension
torch: torch.yaml
source:
  repo: $TMP/miniext.git
  ref: v0.1.0
  patches: miniext
features:
  cuda: on
YAML

# 1. Built with the torch's archs (8.0;12.0+PTX), exactly those in its library.
run 0 "$BW" --profile "$TMP/ext.yaml"
contains "$TMP/err" "bwbuild: builds on minitorch $tv"
contains "$TMP/err" "fetch: build era: extension"
ew=$(sed -n 's/^wheel: *//p' "$TMP/out")
em=$(sed -n 's/^manifest: //p' "$TMP/out")
python3 - "$ew" "$em" "$tv" <<'PY'
import json, sys, zipfile
whl, man, tv = sys.argv[1:]
m = json.load(open(man))
assert m["verify"]["ok"], m["verify"]
libs = {l["path"]: l for l in m["libraries"]}
lib = [l for p, l in libs.items() if p.startswith("miniext/_C")][0]
assert lib["sass"] == ["sm_80", "sm_120"] and lib["ptx"] == ["compute_120"], lib
assert "libminitorch_cpu.so" in lib["needed"], lib["needed"]
assert m["torch"]["name"] == "minitorch" and m["torch"]["version"] == tv, m["torch"]
assert m["inputs"]["torch"]["version"] == tv, m["inputs"]["torch"]
# CC/CXX are the launcher's wrappers; the toolchain is the compilers they run.
tools = json.dumps(m["inputs"]["toolchain"])
assert "launch/bin" not in tools and '"version": ""' not in tools, tools
z = zipfile.ZipFile(whl)
meta = z.read([n for n in z.namelist() if n.endswith("METADATA")][0]).decode()
assert f"Requires-Dist: minitorch=={tv}" in meta.splitlines(), meta
PY
run 0 "$BW" verify "$ew" --against "$torch"
# plan shows what the build used: the torch (not its features), the build's
# python, the steps' environment; --json with the patches too.
run 0 "$BW" plan --profile "$TMP/ext.yaml"
contains "$TMP/out" "torch        minitorch $tv  ($torch)"
contains "$TMP/out" "features (set by the extension profile; the others are its torch's)"
grep -q "^  flash_attention" "$TMP/out" && fail "plan of an extension shows torch's features"
grep -q "^python       /" "$TMP/out" || fail "plan does not name the build's python"
for v in "PYTHONPATH=$TMP/proj/work/miniext/torch-site" "CMAKE_PREFIX_PATH=$TMP/proj/work/miniext/torch-site/minitorch/share/cmake" \
	"PYTORCH_NVCC=$BW launch -- " "CC=$TMP/proj/work/miniext/launch/bin/cc" "CXX=$TMP/proj/work/miniext/launch/bin/c++" \
	"MINIEXT_FORCE_BUILD=TRUE" "0001-honour-torch-cuda-arch-list.patch"; do
	contains "$TMP/out" "  $v"
done
run 0 "$BW" plan --profile "$TMP/ext.yaml" --json
python3 - "$TMP/out" "$tv" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["torch"]["name"] == "minitorch" and p["torch"]["version"] == sys.argv[2], p["torch"]
assert p["python"], p
assert [x["file"] for x in p["patches"]["selected"]] == ["0001-honour-torch-cuda-arch-list.patch"], p["patches"]
env = dict(e.split("=", 1) for e in p["step_env"])
assert env["PYTHONPATH"].endswith("/work/miniext/torch-site") and "PYTORCH_NVCC" in env and env["MINIEXT_FORCE_BUILD"] == "TRUE", env
PY
# smoke: the extension run with its torch (installed privately), its op
# called (a CPU op: no GPU needed); without that torch its import fails.
run 0 "$BW" smoke "$ew" --against "$torch"
contains "$TMP/out" "miniext_numel([2, 3, 4]) = 24 through minitorch's c10::numel"
run 1 "$BW" smoke "$ew"
contains "$TMP/out" "No module named 'minitorch'"
# ... and the build's smoke step does the same where a GPU the wheel covers
# is (a fake nvidia-smi saying 12.0): the result is the manifest's runtime.
# The same build, its CXX a compiler that records its parent, serves 6
# below: one build of the extension fewer.
mkdir -p "$TMP/gpu"
printf '#!/bin/sh\necho 12.0\n' > "$TMP/gpu/nvidia-smi" && chmod +x "$TMP/gpu/nvidia-smi"
cat > "$TMP/rec-cxx" <<SH
#!/bin/sh
tr '\\0' ' ' < /proc/\$PPID/cmdline >> "$TMP/cxx-parents"; echo >> "$TMP/cxx-parents"
exec c++ "\$@"
SH
chmod +x "$TMP/rec-cxx"
printf 'extends: ext.yaml\nname: miniext-gpu\nbuild:\n  env:\n    CXX: %s\n' "$TMP/rec-cxx" > "$TMP/ext-gpu.yaml"
rm -f "$TMP/cxx-parents"
PATH="$TMP/gpu:$PATH" run 0 "$BW" --profile "$TMP/ext-gpu.yaml"
contains "$TMP/err" "miniext_numel([2, 3, 4]) = 24"
python3 - "$(sed -n 's/^manifest: //p' "$TMP/out")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runtime"]
assert r["status"] == "ok" and [c["name"] for c in r["checks"]] == ["import", "op"], r
PY
# Nothing of the user's environment changed: the torch was importable for the build only.
python3 -c 'import minitorch' 2>/dev/null && fail "minitorch became importable outside the build"
# The build ran nvcc through the launcher (PYTORCH_NVCC).
contains "$TMP/proj/work/miniext/logs/compile.log" "launch -- /usr/local/cuda/bin/nvcc"

# 2. Without the patch (its env only), the hard-coded list shows: requested vs effective.
mkdir -p "$TMP/patches/miniext-env"
sed -n '1,/^patches:/p' "$TOP/patches/miniext/index.yaml" > "$TMP/patches/miniext-env/index.yaml"
echo "  []" >> "$TMP/patches/miniext-env/index.yaml"
sed -i 's/^patches:$/patches:/' "$TMP/patches/miniext-env/index.yaml"
printf 'extends: ext.yaml\nname: miniext-unpatched\nsource:\n  patches: miniext-env\n' > "$TMP/ext-env.yaml"
BWBUILD_PATCH_PATH="$TMP/patches" run 1 "$BW" --profile "$TMP/ext-env.yaml"
# named at the key the archs come from (the torch profile's, inherited)
contains "$TMP/err" "error: $TOP/profiles/demo.yaml:10:11: 'miniext/_C"
contains "$TMP/err" "carries sm_90, which cuda.archs (8.0;12.0+PTX) did not ask for"
# ... and without the series at all, setup.py would download a wheel: the cause is shown.
printf 'extends: ext.yaml\nname: miniext-bare\nsource:\n  patches: ""\n' > "$TMP/ext-bare.yaml"
run 1 "$BW" --profile "$TMP/ext-bare.yaml"
contains "$TMP/err" "would download a prebuilt wheel"

# 3. An arch the torch cannot run is refused at its key, before any fetch.
printf 'extends: ext.yaml\nname: miniext-90\ncuda:\n  archs: ["9.0"]\n' > "$TMP/ext-90.yaml"
# plan and doctor refuse it the same way, with the same status (2: the profile is wrong).
for c in build plan doctor; do
	run 2 "$BW" $c --profile "$TMP/ext-90.yaml"
	contains "$TMP/err" "ext-90.yaml:4:11: error: minitorch $tv does not run on sm_90"
done
[ ! -d "$TMP/proj/work/miniext-90/src" ] || fail "fetched though the archs were refused"

# 4. Companion locks: a torchvision 0.25 tree against torch 2.11 is refused by release.
cp -r "$TOP/tests/fixtures/miniext" "$TMP/vision-src"
echo "0.25.0a0" > "$TMP/vision-src/version.txt"
mkrepo "$TMP/vision-src" "$TMP/vision.git" v0.25.0
printf 'name: tv\nkind: extension\ntorch: torch.yaml\nsource:\n  repo: %s\n  ref: v0.25.0\n' \
	"$TMP/vision.git" > "$TMP/tv.yaml"
run 2 "$BW" --profile "$TMP/tv.yaml"
contains "$TMP/err" "torchvision 0.25 is released for torch 2.10, not 2.11; torch 2.11 goes with torchvision 0.26 (tag v0.26.0)"
# Said by the tag before anything is fetched, so plan and doctor say it too (issue 41, F6).
if grep -q "fetch" "$TMP/err"; then fail "the companion lock came after the fetch: $(cat "$TMP/err")"; fi
for c in plan doctor; do
	run 2 "$BW" "$c" --profile "$TMP/tv.yaml"
	contains "$TMP/err" "tv.yaml:6:8: error: torchvision 0.25 is released for torch 2.10, not 2.11; torch 2.11 goes with torchvision 0.26 (tag v0.26.0)"
done

# 5. An extension profile without torch:, or whose torch profile was never built.
printf 'name: lone\nkind: extension\nsource:\n  repo: %s\n  ref: v0.1.0\n' "$TMP/miniext.git" > "$TMP/lone.yaml"
run 2 "$BW" plan --profile "$TMP/lone.yaml"
contains "$TMP/err" "lone.yaml:2:7: error: a 'kind: extension' profile needs 'torch:'"
printf 'name: early\nkind: extension\ntorch: sm120\nsource:\n  repo: %s\n  ref: v0.1.0\n' \
	"$TMP/miniext.git" > "$TMP/early.yaml"
for c in build plan doctor; do
	run 2 "$BW" $c --profile "$TMP/early.yaml"
	contains "$TMP/err" "the torch profile 'sm120' has no published build"
done

# 6. C and C++ compiles of an extension go through the launcher too (CXX
# is <work>/launch/bin/c++, which runs the profile's CXX under 'bwbuild
# launch'): a recording compiler sees the launcher as its parent, once.
# The build of ext-gpu.yaml in 1 ran it.
contains "$TMP/cxx-parents" "launch -- $TMP/rec-cxx -c"
grep -q 'launch/bin/c++' "$TMP/cxx-parents" && fail "the wrapper ran the recording compiler directly"
# ... and, with a CXX of the profile's own, nvcc still through PYTORCH_NVCC.
contains "$TMP/proj/work/miniext-gpu/logs/compile.log" "launch -- /usr/local/cuda/bin/nvcc"

# 7. The CMake style (torchaudio's): setup.py runs CMake, which finds this
# torch by find_package through CMAKE_PREFIX_PATH and takes the arch flags
# from TORCH_CUDA_ARCH_LIST there; compiles go through the launcher by
# CMAKE_<LANG>_COMPILER_LAUNCHER, in parallel by CMAKE_BUILD_PARALLEL_LEVEL.
rm -rf "$TMP/cmake-src" && cp -r "$TOP/tests/fixtures/miniext-cmake" "$TMP/cmake-src"
cp -r "$TOP/tests/fixtures/miniext/csrc" "$TMP/cmake-src/"
mkrepo "$TMP/cmake-src" "$TMP/miniext-cmake.git" v0.1.0
cat > "$TMP/extc.yaml" <<YAML
name: miniext-cmake
kind: extension
torch: torch.yaml
source:
  repo: $TMP/miniext-cmake.git
  ref: v0.1.0
features:
  cuda: on
build:
  env:
    CXX: $TMP/rec-cxx
YAML
rm -f "$TMP/cxx-parents"
PATH="$TMP/gpu:$PATH" run 0 "$BW" --profile "$TMP/extc.yaml"
contains "$TMP/err" "fetch: CMake-built: find_package finds minitorch through CMAKE_PREFIX_PATH"
# no probe of its own: the generic runtime check, as 'bwbuild smoke --against' runs it
contains "$TMP/err" "probes/generic-extension.py"
contains "$TMP/err" "import               miniext_cmake on minitorch"
cw=$(sed -n 's/^wheel: *//p' "$TMP/out")
cm=$(sed -n 's/^manifest: //p' "$TMP/out")
python3 - "$cm" "$tv" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["verify"]["ok"], m["verify"]
lib = [l for l in m["libraries"] if l["path"].startswith("miniext_cmake/_C")][0]
assert lib["sass"] == ["sm_80", "sm_120"] and lib["ptx"] == ["compute_120"], lib
assert "libminitorch_cpu.so" in lib["needed"], lib["needed"]
assert m["torch"]["version"] == sys.argv[2], m["torch"]
PY
run 0 "$BW" verify "$cw" --against "$torch"
# (A unit run as the long pole, with idle cores, is learned as pole:KEY: scheduling decides which.)
grep -Eq '^(pole:)?csrc/scale.cu#' "$TMP/proj/work/miniext-cmake/launch/peaks" || fail "scale.cu did not go through the launcher"
# CMake's launcher in front of the c++ wrapper (its CXX the recording
# compiler): admitted once, no second wait.
contains "$TMP/cxx-parents" "launch -- $TMP/rec-cxx"
# A tree with no setup.py is named, not run.
mkdir -p "$TMP/nosetup" && cp -r "$TMP/cmake-src/." "$TMP/nosetup/" && rm "$TMP/nosetup/setup.py"
mkrepo "$TMP/nosetup" "$TMP/nosetup.git" v0.1.0
printf 'extends: extc.yaml\nname: nosetup\nsource:\n  repo: %s\n' "$TMP/nosetup.git" > "$TMP/nosetup.yaml"
run 1 "$BW" --profile "$TMP/nosetup.yaml"
contains "$TMP/err" "has no setup.py: kind: extension builds setup.py packages"
