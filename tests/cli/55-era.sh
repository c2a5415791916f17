# Both build eras of the example: v2.11.0 (setup.py) and v2.12.0
# (pyproject.toml with scikit-build-core, no setup.py), and trees bwbuild
# cannot drive.
. "$(dirname "$0")/lib.sh"
example_profile "$TMP/example5" "$TMP/next.yaml" next '  ref: v2.12.0'
run 0 "$BW" --profile "$TMP/next.yaml" --work "$TMP/work5" --out "$TMP/out5"
contains "$TMP/err" "fetch: build era: scikit-build-core (pyproject.toml, no setup.py)"
contains "$TMP/err" "compile: /usr/bin/python3 -m build --wheel --no-isolation --outdir $TMP/work5/dist"
contains "$TMP/out" "wheel:    $TMP/out5/minitorch-2.12.0+git"
manifest=$(sed -n 's/^manifest: //p' "$TMP/out")
python3 - "$manifest" "$TMP/work5/logs/compile.log" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["build"]["era"].startswith("scikit-build-core"), m["build"]
assert m["verify"]["ok"], m["verify"]
libs = {l["path"]: l for l in m["libraries"]}
for lib in ("minitorch/lib/libminitorch_cuda.so", "minitorch/lib/libminitorch_flash.so"):
    assert libs[lib]["sass"] == ["sm_80", "sm_120"] and libs[lib]["ptx"] == ["compute_120"], libs[lib]
e = m["features_effective"]
assert e["flash_attention"]["effective"] is True and e["nccl"]["effective"] is False, e
assert m["version_py"]["version"].startswith("2.12.0"), m["version_py"]
log = open(sys.argv[2]).read()
assert "# env CMAKE_BUILD_PARALLEL_LEVEL=4" in log, "MAX_JOBS does not reach the newest era"
PY
grep -q "^TORCH_CUDA_ARCH_LIST:STRING=8.0;12.0+PTX$" "$TMP/work5/src/build/CMakeCache.txt" ||
	fail "EnvVarForwarding lost part of TORCH_CUDA_ARCH_LIST: $(grep TORCH_CUDA_ARCH_LIST "$TMP/work5/src/build/CMakeCache.txt")"
# The same work directory goes back to the setup.py era and builds again.
run 0 "$BW" --profile "$TMP/next.yaml" --set source.ref=v2.11.0 --work "$TMP/work5" --out "$TMP/out5a"
contains "$TMP/err" "fetch: build era: setup.py (tools/setup_helpers/cmake.py)"
contains "$TMP/out" "wheel:    $TMP/out5a/minitorch-2.11.0+cu130.next.h"

# Trees bwbuild cannot drive are named with what was found.
rm -rf "$TMP/flit" "$TMP/work-flit"
mkdir -p "$TMP/flit/src"
(cd "$TMP/flit/src" && git init -q -b main && printf '[build-system]\nbuild-backend = "flit_core.buildapi"\n' > pyproject.toml &&
	git add pyproject.toml && git -c user.name=t -c user.email=t@t commit -q -m x && git tag v2.13.0)
printf 'extends: %s/profiles/demo.yaml\nname: flit\nsource:\n  repo: %s/flit/src\n  ref: v2.13.0\n' "$TOP" "$TMP" > "$TMP/flit.yaml"
run 1 "$BW" --profile "$TMP/flit.yaml" --work "$TMP/work-flit" --out "$TMP/out-flit" --until configure
contains "$TMP/err" "has no setup.py and its pyproject.toml names build-backend 'flit_core.buildapi'; bwbuild drives setup.py trees and scikit-build-core ones"
