# The whole pipeline on the example source: each CUDA library's arch lists
# must be exactly what the profile asked for; flags visibly change the wheel.
. "$(dirname "$0")/lib.sh"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$TMP/example/minitorch.git" v2.11.0
cat > "$TMP/demo-e2e.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: demo-e2e
source:
  repo: $TMP/example/minitorch.git
YAML
run 0 "$BW" --profile "$TMP/demo-e2e.yaml" --work "$TMP/work" --out "$TMP/out-demo"
contains "$TMP/out" "wheel:    $TMP/out-demo/minitorch-2.11.0+cu130.demo.e2e.h"
contains "$TMP/out" "manifest: $TMP/out-demo/"
manifest=$(sed -n 's/^manifest: //p' "$TMP/out")
wheel=$(sed -n 's/^wheel: *//p' "$TMP/out")
# --until stops after a step; a second run reuses the checkout offline.
# Here, while the work directory holds this profile's configure: a later
# one, after the noflash build, would configure afresh (7 CPU s) for it.
run 0 "$BW" build --profile "$TMP/demo-e2e.yaml" --work "$TMP/work" --out "$TMP/out-until" --until configure
contains "$TMP/err" "stopped after 'configure'"
for f in "$TMP/out-until/"*.whl; do
	[ ! -e "$f" ] || fail "a wheel was made before the wheel step: $f"
done
python3 - "$manifest" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
e = m["features_effective"]
assert e["flash_attention"] == {"requested": "on", "effective": True, "tree_default": True,
                                "option": "USE_FLASH_ATTENTION"}, e
assert e["nccl"]["requested"] == "off" and e["nccl"]["effective"] is False, e
# not in the cache (a plain variable in the example), but the configure hook sees it end OFF
assert e["mslk"] == {"requested": None, "effective": False, "tree_default": None, "option": "USE_MSLK"}, e
# what the tree defaults (its option() when a constant): what a profile leaves to it
assert e["kineto"]["tree_default"] is True and e["mkldnn"]["tree_default"] is None, e
PY
python3 - "$manifest" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["schema"] == "bwbuild-manifest/1"
assert m["verify"]["ok"] is True, m["verify"]
libs = {l["path"]: l for l in m["libraries"]}
cuda = [p for p, l in libs.items() if l["sass"] or l["ptx"]]
assert sorted(cuda) == ["minitorch/lib/libminitorch_cuda.so", "minitorch/lib/libminitorch_flash.so"], cuda
for p in cuda:
    assert libs[p]["sass"] == ["sm_80", "sm_120"], libs[p]
    assert libs[p]["ptx"] == ["compute_120"], libs[p]
assert libs["minitorch/lib/libminitorch_cpu.so"]["sass"] == []
assert m["archs"] == {"sass": ["sm_80", "sm_120"], "ptx": ["compute_120"]}
f = m["features"]
assert f["cuda"] and f["flash_attention"] and f["mem_eff_attention"] and not f["cudnn"] and not f["nccl"], f
assert m["source"]["commit"] and len(m["source"]["commit"]) == 40
assert m["source"]["commit"] == m["version_py"]["git_version"]
assert m["wheel"]["tags"] == [m["wheel"]["file"].split("-", 2)[2][:-4]], m["wheel"]
assert m["profile"]["name"] == "demo-e2e"
assert set(m["build"]["timings"]) >= {"fetch", "configure", "compile", "wheel", "verify", "smoke", "publish"}
t = m["build"]["toolchain"]
assert set(t) == {"cc", "c++", "cudahostcxx", "nvcc", "cmake", "ninja", "python", "setuptools"}, t
assert "release 13.0" in t["nvcc"]["version"] and t["cmake"]["version"].startswith("cmake version"), t
assert isinstance(m["build"]["inherited_env"], dict)
PY
# The wheel verifies on its own, against the profile too; manifest agrees.
run 0 "$BW" verify "$wheel" --profile "$TMP/demo-e2e.yaml"
contains "$TMP/out" "minitorch/lib/libminitorch_flash.so: manylinux_2_34; SASS sm_80 sm_120; PTX compute_120"
# A profile may let a library lack targets, each with its reason
# (verify.exceptions); the others are still errors, and --target-gpu still
# answers for the library as it is.
cat > "$TMP/except.yaml" <<YAML
extends: $TMP/demo-e2e.yaml
name: except
cuda:
  archs: ["8.0", "9.0", "12.0+PTX"]
verify:
  exceptions:
    - library: libminitorch_cuda.so
      missing: [sm_90]
      reason: upstream ships it without sm_90
YAML
run 1 "$BW" verify "$wheel" --profile "$TMP/except.yaml"
contains "$TMP/err" "error: 'minitorch/lib/libminitorch_flash.so' has no SASS for sm_90, which the profile asks for (coverage)"
if grep -q "libminitorch_cuda.so' has no SASS for sm_90, which" "$TMP/err"; then fail "the exception was not honoured"; fi
cat >> "$TMP/except.yaml" <<YAML
    - library: minitorch/lib/libminitorch_flash.so
      missing: [sm_90, sm_80]
      reason: flash kernels start at sm_80
YAML
run 1 "$BW" verify "$wheel" --profile "$TMP/except.yaml" --target-gpu sm_90
contains "$TMP/err" "note: 'minitorch/lib/libminitorch_cuda.so' has no SASS for sm_90: allowed by the profile's verify.exceptions (upstream ships it without sm_90)"
contains "$TMP/err" "note: verify.exceptions lets 'minitorch/lib/libminitorch_flash.so' lack sm_80, but it carries it: the exception can go"
contains "$TMP/out" "sm_90: NO"
run 0 "$BW" verify "$wheel" --profile "$TMP/except.yaml" --json
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["verify"]["ok"] is True, m["verify"]; assert m["profile"]["verify"]["exceptions"][0]["missing"] == ["sm_90"], m["profile"]' "$TMP/out"
printf 'extends: %s/except.yaml\nverify:\n  exceptions:\n    - library: x.so\n      missing: [7.5]\n' "$TMP" > "$TMP/except-bad.yaml"
run 2 "$BW" verify "$wheel" --profile "$TMP/except-bad.yaml"
contains "$TMP/err" "except-bad.yaml:4:7: error: a verify.exceptions entry needs 'library' (e.g. libtorch_cuda_linalg.so), 'missing' (e.g. [sm_75]) and 'reason'"
# A build-only setting (build.cache: ccache with no ccache on PATH) concerns the
# build alone: verify and doctor work; build stops before fetching, at the key.
# One ln a directory, not one a file (about 1,400 processes, 10 CPU s);
# /usr/local/bin's last so that it wins, as it does on PATH.
mkdir -p "$TMP/noccache"
ln -s /usr/bin/* "$TMP/noccache/"
ln -sf /usr/local/bin/* "$TMP/noccache/"
rm -f "$TMP/noccache/ccache"
printf 'extends: %s\nbuild:\n  cache: ccache\n' "$TMP/demo-e2e.yaml" > "$TMP/ccache-demo.yaml"
PATH="$TMP/noccache" run 0 "$BW" verify "$wheel" --profile "$TMP/ccache-demo.yaml"
PATH="$TMP/noccache" run 0 "$BW" doctor --profile "$TMP/ccache-demo.yaml"
contains "$TMP/out" "ready to build"
PATH="$TMP/noccache" run 1 "$BW" --profile "$TMP/ccache-demo.yaml" --work "$TMP/work-noccache" --out "$TMP/out-noccache"
contains "$TMP/err" "ccache-demo.yaml:3:10: error: build.cache is ccache, but there is no ccache on PATH"
[ ! -e "$TMP/work-noccache/src" ] || fail "build fetched though ccache is missing"
run 0 "$BW" manifest "$wheel" -o "$TMP/m2.json"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a["libraries"]==b["libraries"] and a["features"]==b["features"]' "$manifest" "$TMP/m2.json"
# An installed copy (what pip leaves in site-packages) gives the same libraries and features.
rm -rf "$TMP/site" && mkdir -p "$TMP/site"
python3 -m zipfile -e "$wheel" "$TMP/site"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); k={l["path"].split("/")[-1]: l["kernels"] for l in m["libraries"]}; assert k["libminitorch_flash.so"]==["flash_attention"] and k["libminitorch_cuda.so"]==["mem_eff_attention"], k' "$manifest"
run 0 "$BW" manifest "$TMP/site/minitorch" -o "$TMP/m3.json"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a["libraries"]==b["libraries"] and a["features"]==b["features"] and b["wheel"]["installed"] and b["verify"]["ok"]' "$manifest" "$TMP/m3.json"
run 0 "$BW" verify --deep "$TMP/site/minitorch"
contains "$TMP/out" "minitorch/lib/libminitorch_cuda.so: manylinux_2_3"
echo "# edited after install" >> "$TMP/site/minitorch/version.py"
run 1 "$BW" verify "$TMP/site/minitorch"
contains "$TMP/err" "error: 'minitorch/version.py' does not match its sha256 in RECORD (hashes)"
run 0 "$BW" manifest "$TMP/m3.json" --format md
contains "$TMP/out" "| flash_attention | ✅ |"
contains "$TMP/out" "| minitorch/lib/libminitorch_flash.so | sm_80 sm_120 | compute_120 | manylinux_2_3"
run 0 "$BW" manifest "$manifest" --format md
contains "$TMP/out" "| flash_attention | ✅ | on |"
# The profile in the heading; an option the tree does not declare (effective
# null: the example has no USE_FBGEMM_GENAI) is not "off" (issue 32).
head -n 1 "$TMP/out" | grep -q "^# minitorch 2.11.0+cu130.demo.e2e.h[0-9a-f]* (profile demo-e2e)\$" ||
	fail "the Markdown heading does not name the profile: $(head -n 1 "$TMP/out")"
contains "$TMP/out" "| fbgemm_genai | ➖ not in this tree (no USE_FBGEMM_GENAI) | – |"
contains "$TMP/out" "| mslk | ❌ | – |"

# Will it run there? NVIDIA's rules on the demo wheel (sm_80, sm_120, compute_120).
for g in sm_120 sm_121 sm_86; do
	run 0 "$BW" verify "$wheel" --target-gpu "$g"
	contains "$TMP/out" "$g: yes, every CUDA library runs"
done
run 0 "$BW" verify "$wheel" --target-gpu sm_121
contains "$TMP/out" "sm_121: minitorch/lib/libminitorch_cuda.so runs (SASS sm_120)"
for g in sm_90 sm_100 sm_103; do
	run 1 "$BW" verify "$wheel" --target-gpu "$g"
	contains "$TMP/out" "$g: NO: the wheel would fail with 'no kernel image is available'"
	contains "$TMP/err" "error: 'minitorch/lib/libminitorch_flash.so' has no code that runs on $g (it has SASS sm_80 sm_120; PTX compute_120)"
done
run 2 "$BW" verify "$wheel" --target-gpu sm120x
# --json tells the same verdict as the exit status.
run 1 "$BW" verify "$wheel" --target-gpu sm_100 --json
python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verify"]; assert v["ok"] is False and any("runs on sm_100" in e for e in v["errors"]), v' "$TMP/out"
# A truncated wheel failed (1); a missing one is a usage error (2).
head -c 3000 "$wheel" > "$TMP/truncated.whl"
run 1 "$BW" verify "$TMP/truncated.whl"
run 2 "$BW" verify "$TMP/no-such.whl"
# Output that cannot be written is no verdict: diff of identical builds into a full stdout.
if [ -w /dev/full ]; then
	set +e; "$BW" diff "$manifest" "$manifest" > /dev/full 2>"$TMP/err"; st=$?; set -e
	[ "$st" = 2 ] || fail "diff into a full stdout exited $st, not 2"
	pass
else
	skip "no writable /dev/full: diff into a full stdout is not checked"
fi
demo_manifest=$manifest

# A profile with another arch list and flash attention off gives another wheel.
cat > "$TMP/demo-noflash.yaml" <<YAML
extends: $TMP/demo-e2e.yaml
name: demo-noflash
cuda:
  archs: ["9.0a", "10.0+PTX"]
features:
  flash_attention: off
YAML
run 0 "$BW" --profile "$TMP/demo-noflash.yaml" --work "$TMP/work" --out "$TMP/out-noflash"
contains "$TMP/err" "settings changed since the last configure; removing"
manifest=$(sed -n 's/^manifest: //p' "$TMP/out")
python3 - "$manifest" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
libs = {l["path"]: l for l in m["libraries"]}
assert "minitorch/lib/libminitorch_flash.so" not in libs, libs
l = libs["minitorch/lib/libminitorch_cuda.so"]
assert l["sass"] == ["sm_90a", "sm_100"] and l["ptx"] == ["compute_100"], l
assert m["features"]["flash_attention"] is False
PY
# diff: a CI gate that names what was lost and gained.
run 0 "$BW" diff "$demo_manifest" "$wheel"
contains "$TMP/out" "builds agree"
run 1 "$BW" diff "$demo_manifest" "$manifest"
contains "$TMP/out" "feature flash_attention: on -> off"
contains "$TMP/out" "library removed: minitorch/lib/libminitorch_flash.so"
contains "$TMP/out" "library minitorch/lib/libminitorch_cuda.so: sass +sm_90a +sm_100 -sm_80 -sm_120; ptx +compute_100 -compute_120"
run 1 "$BW" diff "$demo_manifest" "$manifest" --json
python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["equal"] is False
assert d["features"] == {"gained": [], "lost": ["flash_attention"]}, d["features"]
assert d["libraries"]["removed"] == ["minitorch/lib/libminitorch_flash.so"]
assert d["archs"]["sass_lost"] == ["sm_80", "sm_120"] and d["archs"]["ptx_gained"] == ["compute_100"]
PY
# A gate that fails only on a loss (--ignore version,gains), and the same
# comparison as Markdown for a pull request: tables, the profile in every heading.
run 1 "$BW" diff "$demo_manifest" "$manifest" --ignore version,gains
contains "$TMP/out" "feature flash_attention: on -> off"
run 1 "$BW" diff "$demo_manifest" "$manifest" --format md
python3 - "$TMP/out" "$manifest" <<'PY'
import json, sys
md = open(sys.argv[1]).read()
name = json.load(open(sys.argv[2]))["profile"]["name"]
heads = [l for l in md.splitlines() if l.startswith("#")]
assert heads[0].startswith("## ") and heads[0].endswith("builds differ"), heads
assert len(heads) >= 4 and all(name in h for h in heads), (name, heads)
assert "| flash_attention | ✅ | ❌ | **lost** |" in md, md
assert "| libraries | – | minitorch/lib/libminitorch_flash.so |" in md, md
PY
# A new release changes the version and the commit: shown, not counted by
# default; --ignore none counts them; an unknown word is bad usage.
python3 - "$demo_manifest" "$TMP/next-release.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["wheel"]["version"] = m["wheel"]["version"].replace("2.11.0", "2.11.1")
m["source"]["commit"] = "0" * 40
json.dump(m, open(sys.argv[2], "w"))
PY
run 0 "$BW" diff "$demo_manifest" "$TMP/next-release.json"
contains "$TMP/out" "wheel.version: "
contains "$TMP/out" "(a new release's: not counted, --ignore version)"
contains "$TMP/out" "builds agree (2 differences not counted: --ignore version)"
run 1 "$BW" diff "$demo_manifest" "$TMP/next-release.json" --ignore none
contains "$TMP/out" "builds differ"
run 2 "$BW" diff "$demo_manifest" "$TMP/next-release.json" --ignore versions
contains "$TMP/err" "--ignore 'versions': give version, gains or none"
echo '{"schema": "other"}' > "$TMP/not-a-manifest.json"
run 2 "$BW" diff "$demo_manifest" "$TMP/not-a-manifest.json"
contains "$TMP/err" "is not a bwbuild manifest"

# The old wheel does not cover the new profile: verify names library and target.
run 1 "$BW" verify "$wheel" --profile "$TMP/demo-noflash.yaml"
contains "$TMP/err" "error: 'minitorch/lib/libminitorch_cuda.so' has no SASS for sm_90a, which the profile asks for (coverage)"

# Requested vs effective: the example finds no NCCL (nccl.h is only under
# /usr/local/cuda/include, which its find_path does not search) and turns it off.
run 1 "$BW" build --profile "$TMP/demo-e2e.yaml" --work "$TMP/work" --out "$TMP/out-until" --until configure --set features.nccl=on
contains "$TMP/err" "--set features.nccl=on:1:15: error: features.nccl is on, but the build turned USE_NCCL off: CMake did not find NCCL (nccl.h)"
contains "$TMP/err" "configure gave a build that differs from the profile"

# One bwbuild per work directory: the holder's pid is named. The build
# starts once the holder says it holds the lock ($TMP/held), not after a sleep.
rm -f "$TMP/held"
python3 - "$TMP/work/lock" "$TMP/held" <<'PY' &
import fcntl, sys, time
f = open(sys.argv[1], "w")
fcntl.flock(f, fcntl.LOCK_EX)
f.write("4242\n")
f.flush()
open(sys.argv[2], "w").close()
time.sleep(600)
PY
holder=$!
at_exit "kill $holder 2>/dev/null"
while [ ! -e "$TMP/held" ]; do
	kill -0 "$holder" 2>/dev/null || fail "the lock holder died"
	sleep 0.1
done
run 1 "$BW" build --profile "$TMP/demo-e2e.yaml" --work "$TMP/work" --out "$TMP/out-until" --until fetch
contains "$TMP/err" "error: work directory '$TMP/work' is in use by another bwbuild (pid 4242); wait for it to finish or use another --work"
kill "$holder"
wait "$holder" 2>/dev/null || true

# A broken tree fails with the command, the tail of its output and the log.
printf 'broken' >> "$TMP/work/src/csrc/cuda/ops.cu"
run 1 "$BW" --profile "$TMP/demo-e2e.yaml" --work "$TMP/work" --out "$TMP/out-broken"
contains "$TMP/err" "has local changes"
contains "$TMP/err" "note: modified: csrc/cuda/ops.cu"
