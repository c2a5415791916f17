# doctor: a checklist with exit 1 when something required is missing; GPUs and
# toolkits are faked with scripts on PATH so the test needs neither.
. "$(dirname "$0")/lib.sh"
run 0 "$BW" doctor --profile demo --json
python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [c["name"] for c in d["checks"]]
for n in ("nvcc", "nvcc targets", "host compiler", "cmake", "ninja", "python", "disk", "memory", "gpu"):
    assert n in names, (n, names)
assert d["ok"] is True
PY
# An aarch64 profile (issue 44) on an x86_64 machine: refused, saying where it builds.
if [ "$(uname -m)" = x86_64 ]; then
	run 1 "$BW" doctor --profile gb10
	contains "$TMP/out" "❌ host           profiles/gb10.yaml:"
	contains "$TMP/out" ": this profile builds on an aarch64 host (Grace, DGX Spark), and this machine is x86_64: run doctor and the build there"
	run 1 "$BW" doctor --profile gb200 --json
	python3 -c 'import json,sys; c=[c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "host"]; assert c and c[0]["status"] == "fail", c' "$TMP/out"
	# The build stops at the key, first, before it makes a work tree.
	run 1 "$BW" --profile gb10 --work "$TMP/w-gb10" --out "$TMP/o-gb10"
	contains "$TMP/err" "profiles/gb10.yaml:$(grep -n 'host_arch:' profiles/gb10.yaml | cut -d: -f1):14: error: this profile builds on an aarch64 host (Grace, DGX Spark), and this machine is x86_64: run doctor and the build there"
	[ "$(grep -c 'error:' "$TMP/err")" = 1 ] || fail "the wrong machine said more than once"
	[ ! -e "$TMP/w-gb10" ] || fail "a work tree made for a build on the wrong machine"
fi
mkdir -p "$TMP/fake/bin" "$TMP/fakecuda/bin"
cat > "$TMP/fake/bin/nvidia-smi" <<'SH'
#!/bin/sh
echo "NVIDIA GeForce RTX 5090, 12.0, 575.51.02"
echo "NVIDIA H100 80GB HBM3, 9.0, 560.35.03"
echo "NVIDIA GB10, 12.1, 580.95.05"
echo "Tesla V100, 7.0, 575.51.02"
SH
chmod +x "$TMP/fake/bin/nvidia-smi"
PATH="$TMP/fake/bin:$PATH" run 1 "$BW" doctor --profile demo
# The toolkit here is CUDA 13.0, whose code needs R580 (R570 is Blackwell's own minimum).
contains "$TMP/out" "❌ driver         NVIDIA GeForce RTX 5090: driver 575; CUDA 13.0 needs R580 or newer"
contains "$TMP/out" "❌ driver         NVIDIA H100 80GB HBM3: driver 560; CUDA 13.0 needs R580 or newer"
contains "$TMP/out" "✅ driver         NVIDIA GB10: driver 580"
contains "$TMP/out" "✅ gpu coverage   NVIDIA GB10 (sm_121): "
contains "$TMP/out" "❌ gpu coverage   Tesla V100 (sm_70): the profile's archs (8.0;12.0+PTX) have no SASS or PTX that runs on it; add 7.0 to cuda.archs"
contains "$TMP/out" "not ready: fix the ❌ items above"
# A CUDA 12.6 toolkit: too old for 12.0, and gcc 12 is within its range.
cat > "$TMP/fakecuda/bin/nvcc" <<'SH'
#!/bin/sh
case "$1" in
--version) echo "Cuda compilation tools, release 12.6, V12.6.85" ;;
--list-gpu-code) printf 'sm_50\nsm_52\nsm_60\nsm_70\nsm_75\nsm_80\nsm_86\nsm_89\nsm_90\n' ;;
esac
SH
chmod +x "$TMP/fakecuda/bin/nvcc"
# Without a version.json the toolkit is asked (nvcc --version): the knowledge
# base refuses 12.0 for CUDA 12.6 at the arch's key, before any checklist.
run 2 "$BW" doctor --profile demo --set "cuda.home=$TMP/fakecuda"
contains "$TMP/err" "profiles/demo.yaml:10:18: error: CUDA 12.6 ($TMP/fakecuda/bin/nvcc --version) cannot build '12.0+PTX'"
run 0 "$BW" doctor --profile demo --set "cuda.home=$TMP/fakecuda" --set 'cuda.archs=8.0;9.0+PTX'
contains "$TMP/out" "✅ nvcc           CUDA 12.6 at $TMP/fakecuda/bin/nvcc"
run 1 "$BW" doctor --profile demo --set "cuda.home=$TMP/fakecuda" --set cuda.version=13.0
contains "$TMP/out" "❌ nvcc version   the profile says cuda.version 13.0 (--set cuda.version=13.0:1) but $TMP/fakecuda/bin/nvcc is CUDA 12.6"
run 2 "$BW" doctor --profile tests/fixtures/profiles/bad/kb-torch.yaml
contains "$TMP/err" "torch 2.5 (source.ref) does not accept '12.0f' in TORCH_CUDA_ARCH_LIST"

# profiles: names, descriptions and where each lives; shadowed names marked.
run 0 "$BW" profiles
contains "$TMP/out" "demo             bundled torch-shaped example"
contains "$TMP/out" "$TOP/profiles/sm120.yaml"
mkdir -p "$TMP/pp"
printf 'extends: %s/profiles/sm120.yaml\nname: sm120\ndescription: my own sm120\n' "$TOP" > "$TMP/pp/sm120.yaml"
printf 'name: broken\ncuda: {archs: [sm_120]}\n' > "$TMP/pp/broken.yaml"
BWBUILD_PROFILE_PATH="$TMP/pp" run 0 "$BW" profiles --json
python3 - "$TMP/out" "$TMP/pp" <<'PY'
import json, sys
ps = json.load(open(sys.argv[1]))
mine = [p for p in ps if p["path"].startswith(sys.argv[2])]
by = {p["name"]: p for p in mine}
assert by["sm120"]["shadowed"] and by["sm120"]["description"] == "my own sm120", by
assert not by["broken"]["valid"], by
assert [p for p in ps if p["name"] == "demo"][0]["valid"]
PY

# profiles checks a profile as plan does (issue 32): the knowledge base's
# findings too (12.1a needs CUDA 12.9, so cuda.version 12.8 is refused),
# each problem the line plan prints, each profile's kind and torch.
mkdir -p "$TMP/kb"
printf 'extends: %s/profiles/sm120.yaml\nname: old-cuda\ncuda:\n  version: "12.8"\n  archs: "10.0;12.1a"\n' "$TOP" > "$TMP/kb/old-cuda.yaml"
BWBUILD_PROFILE_PATH="$TMP/kb" run 0 "$BW" profiles --json
python3 - "$TMP/out" <<'PY'
import json, sys
ps = json.load(open(sys.argv[1]))
old = [p for p in ps if p["name"] == "old-cuda"][0]
assert not old["valid"] and old["problems"] == len(old["errors"]) >= 1, old
assert any("12.1a" in e for e in old["errors"]), old
by = {p["name"]: p for p in ps if not p["shadowed"]}
assert by["extension-cpp"]["kind"] == "extension", by["extension-cpp"]
assert by["extension-cpp"]["torch"].endswith("/profiles/sm120.yaml"), by["extension-cpp"]
assert by["extension-cpp"]["archs"] == by["sm120"]["archs"] == "12.0+PTX", by["extension-cpp"]
assert by["sm120"]["kind"] == "torch" and by["sm120"]["torch"] is None
# As typed (issue 41): the name --profile takes for that file, not its path.
assert by["extension-cpp"]["torch_name"] == "sm120", by["extension-cpp"]
assert by["sm120"]["torch_name"] is None
assert by["cpu"]["archs"] is None
assert by["extension-cpp"]["waits"].startswith("the torch profile 'sm120' has no published build"), by
assert by["sm120"]["waits"] is None
PY
run 0 "$BW" profiles
contains "$TMP/out" "plan and build wait: the torch profile 'sm120' has no published build (work/sm120/last-build.json); build it first: bwbuild --profile sm120"
contains "$TMP/out" "/profiles/extension-cpp.yaml (extension on torch 'sm120')"
pass
run 2 "$BW" plan --profile "$TMP/kb/old-cuda.yaml"
contains "$TMP/err" "12.1a"

# ... and they agree on every shipped and test profile: the same error
# lines, in the same order; an extension's torch not built yet (the
# machine's state, not a problem of the profile) is its "waits", the line
# plan refuses it with, and plan passes exactly when a profile is valid
# and waits for nothing (issue 41, F5).
BWBUILD_PROFILE_PATH="$TOP/tests/fixtures/profiles/bad:$TMP/kb" run 0 "$BW" profiles --json
cp "$TMP/out" "$TMP/all.json"
python3 - "$TMP/all.json" "$BW" <<'PY'
import json, subprocess, sys
ps = json.load(open(sys.argv[1]))
assert len(ps) > 30, len(ps)
bad = []
for p in ps:
    r = subprocess.run([sys.argv[2], "plan", "--profile", p["path"]], capture_output=True, text=True)
    errs = [l for l in r.stderr.splitlines() if l.startswith("error: ") or ": error: " in l]
    waits = [l for l in errs if "has no published build" in l]
    errs = [l for l in errs if "has no published build" not in l]
    said = [w for w in waits if p["waits"] and w.endswith("error: " + p["waits"])]
    if errs != p["errors"] or said != waits or bool(waits) != bool(p["waits"]) or \
            (r.returncode == 0) != (p["valid"] and not p["waits"]):
        bad.append((p["path"], r.returncode, errs, waits, p["errors"], p["waits"]))
assert not bad, bad
PY
pass

# A build's preflight reports only the checks that fail, so one that can at
# worst warn starts no process there: doctor asks python for 'build'
# (pyproject trees), the build leaves that to its fetch step, which asks
# it of the trees whose era needs it. Each python started writes its
# arguments to pyargs; the build's whole preflight runs (a build past the
# fetch), then its fetch stops at a ref the repository lacks.
mkdir -p "$TMP/py"
cat >"$TMP/py/python3" <<PY
#!/bin/sh
printf '%s\n' "\$*" >>"$TMP/py/pyargs"
exec /usr/bin/python3 "\$@"
PY
chmod +x "$TMP/py/python3"
example_profile "$TMP/py" "$TMP/py.yaml" pyargs "  ref: no-such-ref" "build:" "  python: $TMP/py/python3"
run 0 "$BW" doctor --profile "$TMP/py.yaml"
contains "$TMP/out" "python build"
contains "$TMP/py/pyargs" "-c import build"
rm -f "$TMP/py/pyargs"
BWBUILD_CACHE_DIR="$TMP/py/cache" run 1 "$BW" build --profile "$TMP/py.yaml" --work "$TMP/py/w" \
	--out "$TMP/py/out" --until configure
contains "$TMP/err" "no-such-ref"
contains "$TMP/py/pyargs" "-c import os"
! grep -qxF -- "-c import build" "$TMP/py/pyargs" || fail "a build's preflight asked python for 'build'"
pass
