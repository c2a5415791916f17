# Version-keyed patch series: apply, re-run without rewriting, undo when the
# release no longer takes a patch, conflicts that leave the tree as it was,
# a hash that does not match, and the shipped PyTorch patch on a tree of its shape.
. "$(dirname "$0")/lib.sh"
example_profile "$TMP/example6" "$TMP/patched.yaml" patched '  patches: minitorch'
f="$TMP/work6/src/cmake/select_compute_arch.cmake"
run 0 "$BW" plan --profile "$TMP/patched.yaml"
contains "$TMP/out" "0001-select-compute-arch-autodetect-12.1.patch  (when >=2.0,<2.12)"
run 0 "$BW" --profile "$TMP/patched.yaml" --work "$TMP/work6" --out "$TMP/out6"
contains "$TMP/err" "fetch: patch 0001-select-compute-arch-autodetect-12.1.patch: applied"
grep -qF 'REGEX REPLACE "(^|;)2' "$f" || fail "patch not in the tree"
manifest=$(sed -n 's/^manifest: //p' "$TMP/out")
python3 - "$manifest" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
p = m["source"]["patches"]
assert [x["file"] for x in p] == ["0001-select-compute-arch-autodetect-12.1.patch"] and p[0]["status"] == "applied", p
assert len(p[0]["sha256"]) == 64
PY
# The patch does what it says: a detected 12.1 stays sm_121, a detected 2.1 still runs 2.0 code.
# shellcheck disable=SC2016 # CMake's ${F}
printf 'include(%s)\ncuda_select_nvcc_arch_flags(F Auto)\nmessage(STATUS "flags: ${F}")\n' "$f" > "$TMP/probe.cmake"
MINITORCH_DETECTED_GPUS="12.1 2.1" cmake -P "$TMP/probe.cmake" > "$TMP/probe.out" 2>&1
contains "$TMP/probe.out" "arch=compute_121,code=sm_121"
contains "$TMP/probe.out" "arch=compute_20,code=sm_21"

# Again: already applied, nothing rewritten (so nothing rebuilt).
before=$(stat -c %Y.%N "$f")
sleep 1
run 0 "$BW" build --profile "$TMP/patched.yaml" --work "$TMP/work6" --out "$TMP/out6" --until fetch
contains "$TMP/err" "with its patches applied; nothing to do"
[ "$(stat -c %Y.%N "$f")" = "$before" ] || fail "the patched file was rewritten"

# v2.12.0 takes no patch (when <2.12): it is undone before the checkout.
run 0 "$BW" build --profile "$TMP/patched.yaml" --set source.ref=v2.12.0 --work "$TMP/work6" --out "$TMP/out6" --until fetch
contains "$TMP/err" "fetch: patch 0001-select-compute-arch-autodetect-12.1.patch: undone"
if grep -qF 'REGEX REPLACE "(^|;)2' "$f"; then fail "patch still applied on v2.12.0"; fi

# A series whose patch changed after an earlier build applied it (a newer
# bwbuild's series): the old text cannot be undone, and the error says so
# rather than calling the patched file a local change.
mkdir -p "$TMP/pp/moved"
cp patches/minitorch/0001-select-compute-arch-autodetect-12.1.patch "$TMP/pp/moved/"
sm=$(sha256sum "$TMP/pp/moved/0001-select-compute-arch-autodetect-12.1.patch" | cut -d' ' -f1)
printf 'patches:\n  - file: 0001-select-compute-arch-autodetect-12.1.patch\n    sha256: %s\n' "$sm" > "$TMP/pp/moved/index.yaml"
BWBUILD_PATCH_PATH="$TMP/pp" run 0 "$BW" build --profile "$TMP/patched.yaml" --set source.patches=moved --work "$TMP/work7" --out "$TMP/out7" --until fetch
sed -i "s/Fermi's 2.1 runs 2.0 code/Fermi's 2.1 runs the 2.0 code/" "$TMP/pp/moved/0001-select-compute-arch-autodetect-12.1.patch"
sm2=$(sha256sum "$TMP/pp/moved/0001-select-compute-arch-autodetect-12.1.patch" | cut -d' ' -f1)
[ "$sm" != "$sm2" ] || fail "the moved patch did not change"
printf 'patches:\n  - file: 0001-select-compute-arch-autodetect-12.1.patch\n    sha256: %s\n' "$sm2" > "$TMP/pp/moved/index.yaml"
BWBUILD_PATCH_PATH="$TMP/pp" run 1 "$BW" build --profile "$TMP/patched.yaml" --set source.patches=moved --work "$TMP/work7" --out "$TMP/out7" --until fetch
contains "$TMP/err" "error: patch '0001-select-compute-arch-autodetect-12.1.patch' has changed since an earlier build applied it"
contains "$TMP/err" "run with --force to check the tree out again with the new series"
BWBUILD_PATCH_PATH="$TMP/pp" run 0 "$BW" build --profile "$TMP/patched.yaml" --set source.patches=moved --work "$TMP/work7" --out "$TMP/out7" --until fetch --force
contains "$TMP/err" "fetch: patch 0001-select-compute-arch-autodetect-12.1.patch: applied"

# A series whose second patch does not apply: named with file and hunk, the first undone.
mkdir -p "$TMP/pp/conflict"
cp patches/minitorch/0001-select-compute-arch-autodetect-12.1.patch "$TMP/pp/conflict/"
cat > "$TMP/pp/conflict/0002-conflict.patch" <<'PATCH'
diff --git a/version.txt b/version.txt
--- a/version.txt
+++ b/version.txt
@@ -1 +1 @@
-9.9.9
+9.9.10
PATCH
s1=$(sha256sum "$TMP/pp/conflict/0001-select-compute-arch-autodetect-12.1.patch" | cut -d' ' -f1)
s2=$(sha256sum "$TMP/pp/conflict/0002-conflict.patch" | cut -d' ' -f1)
printf 'patches:\n  - file: 0001-select-compute-arch-autodetect-12.1.patch\n    sha256: %s\n  - file: 0002-conflict.patch\n    sha256: %s\n' "$s1" "$s2" > "$TMP/pp/conflict/index.yaml"
mkdir -p "$TMP/ppwd" && cd "$TMP/ppwd"
BWBUILD_PATCH_PATH="$TMP/pp" run 1 "$BW" build --profile "$TMP/patched.yaml" --set source.patches=conflict --work "$TMP/work6" --out "$TMP/out6" --until fetch
cd "$TOP"
contains "$TMP/err" "$TMP/pp/conflict/index.yaml:4:5: error: patch '0002-conflict.patch' does not apply to this tree: 'version.txt', hunk @@ -1 +1 @@"
contains "$TMP/err" "note: the 1 patch applied before it was undone; the tree is as it was"
(cd "$TMP/work6/src" && git status --porcelain) > "$TMP/status"
[ ! -s "$TMP/status" ] || fail "tree not as it was: $(cat "$TMP/status")"

# A patch that changed after the index was written is refused at its hash.
printf '# edited\n' >> "$TMP/pp/conflict/0001-select-compute-arch-autodetect-12.1.patch"
cd "$TMP/ppwd"
BWBUILD_PATCH_PATH="$TMP/pp" run 2 "$BW" plan --profile "$TMP/patched.yaml" --set source.patches=conflict
cd "$TOP"
contains "$TMP/err" "$TMP/pp/conflict/index.yaml:3:13: error: '0001-select-compute-arch-autodetect-12.1.patch' has sha256"
contains "$TMP/err" "not the $s1 the index records; if the change is meant, update the index"

# The shipped PyTorch patch, on a tree of its shape (the lines sit elsewhere: the hunk moves).
rm -rf "$TMP/ptree"
cp -r tests/fixtures/pytorch-shape "$TMP/ptree"
(cd "$TMP/ptree" && git init -q -b main && git add -A && git -c user.name=t -c user.email=t@t commit -q -m x && git tag v2.11.0)
printf 'extends: %s/profiles/demo.yaml\nname: pshape\nsource:\n  repo: %s/ptree\n  ref: v2.11.0\n  patches: pytorch\n' "$TOP" "$TMP" > "$TMP/pshape.yaml"
run 0 "$BW" build --profile "$TMP/pshape.yaml" --work "$TMP/work-p" --out "$TMP/out-p" --until fetch
contains "$TMP/err" "fetch: patch 0001-select-compute-arch-autodetect-12.1.patch: applied"
pf="$TMP/work-p/src/cmake/Modules_CUDA_fix/upstream/FindCUDA/select_compute_arch.cmake"
# shellcheck disable=SC2016 # CMake's ${G}
printf 'include(%s)\nCUDA_DETECT_INSTALLED_GPUS(G)\nmessage(STATUS "gpus: ${G}")\n' "$pf" > "$TMP/pprobe.cmake"
DETECTED="12.1 2.1" cmake -P "$TMP/pprobe.cmake" > "$TMP/pprobe.out" 2>&1
contains "$TMP/pprobe.out" "gpus: 12.1;2.1(2.0)"

# The CUDA-13 fork's CI-script patch on the same tree at a 2.12 tag (its
# version.txt says 2.12.0: the tree's own release selects the patches): both
# scripts' hunks move (our fixture has them at other lines) and the scripts
# then export what the fork's CI builds with.
(cd "$TMP/ptree" && echo 2.12.0 > version.txt &&
	git -c user.name=t -c user.email=t@t commit -q -am 2.12 && git tag v2.12.0)
run 0 "$BW" build --profile "$TMP/pshape.yaml" --set source.ref=v2.12.0 --set source.patches=pytorch-cuda13-fork --work "$TMP/work-pc" --out "$TMP/out-pc" --until fetch
contains "$TMP/err" "fetch: patch 0001-ci-cuda13-enable-fbgemm-attention-mslk.patch: applied"
ci="$TMP/work-pc/src/.ci/pytorch"
BUILD_ENVIRONMENT=linux-jammy-cuda13.0-py3.10-gcc11 bash "$ci/build.sh" > "$TMP/ci13.out"
for v in USE_FBGEMM=1 USE_FLASH_ATTENTION=1 USE_MEM_EFF_ATTENTION=1 USE_MSLK=1 "TORCH_CUDA_ARCH_LIST=8.0;8.6;8.9;9.0;10.0;12.0"; do
	contains "$TMP/ci13.out" "$v"
done
BUILD_ENVIRONMENT=linux-jammy-cuda13.0-py3.10-gcc11 TORCH_CUDA_ARCH_LIST=12.0 bash "$ci/build.sh" > "$TMP/ci13b.out"
contains "$TMP/ci13b.out" "TORCH_CUDA_ARCH_LIST=12.0"
BUILD_ENVIRONMENT=linux-jammy-cuda12.8-py3.10-gcc11 bash "$ci/build.sh" > "$TMP/ci12.out"
if grep -q USE_ "$TMP/ci12.out"; then fail "a CUDA 12.8 build got the CUDA 13 switches: $(cat "$TMP/ci12.out")"; fi
BUILD_ENVIRONMENT=linux-jammy-cuda13.0 bash -c ". '$ci/common_utils.sh'; install_torchrec_and_fbgemm" > "$TMP/cu13.out"
contains "$TMP/cu13.out" 'install_fbgemm cuda'
# ...and the upstream scripts as they were, for comparison: FBGEMM off, not installed.
BUILD_ENVIRONMENT=linux-jammy-cuda13.0 bash "tests/fixtures/pytorch-shape/.ci/pytorch/build.sh" > "$TMP/ci13u.out"
contains "$TMP/ci13u.out" "USE_FBGEMM=0"
BUILD_ENVIRONMENT=linux-jammy-cuda13.0 bash -c ". tests/fixtures/pytorch-shape/.ci/pytorch/common_utils.sh; install_torchrec_and_fbgemm" > "$TMP/cu13u.out"
if grep -q install_fbgemm "$TMP/cu13u.out"; then fail "the unpatched fixture installs fbgemm for CUDA 13"; fi
# plan lists it for 2.12, not for 2.11 (when: ">=2.12").
run 0 "$BW" plan --profile "$TMP/pshape.yaml" --set source.patches=pytorch-cuda13-fork --set source.ref=v2.12.0
contains "$TMP/out" "0001-ci-cuda13-enable-fbgemm-attention-mslk.patch  (when >=2.12)"
run 0 "$BW" plan --profile "$TMP/pshape.yaml" --set source.patches=pytorch-cuda13-fork
if grep -q "0001-ci-cuda13" "$TMP/out"; then fail "the CUDA-13 CI patch is listed for 2.11"; fi
