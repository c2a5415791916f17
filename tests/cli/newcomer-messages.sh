# Messages a newcomer meets first: "did you mean", every problem of a
# profile in one run, and messages that name the cause (issue 24).
. "$(dirname "$0")/lib.sh"

# "Did you mean" for commands, options, profile keys and profile names.
run 2 "$BW" buidl
contains "$TMP/err" "error: 'buidl' is not a bwbuild command; see 'bwbuild --help'"
contains "$TMP/err" "hint: did you mean 'build'?"
run 2 "$BW" help verfy
contains "$TMP/err" "hint: did you mean 'verify'?"
run 2 "$BW" xyzzy
if grep -q "hint:" "$TMP/err"; then fail "a hint for a word near no command"; fi
run 2 "$BW" plan --profle demo
contains "$TMP/err" "error: unknown option '--profle'; see 'bwbuild plan --help'"
contains "$TMP/err" "hint: did you mean '--profile'?"
run 2 "$BW" --profile demo --stict
contains "$TMP/err" "hint: did you mean '--strict'?"
run 2 "$BW" plan --profile sm12
contains "$TMP/err" "error: no profile named 'sm12'"
contains "$TMP/err" "hint: did you mean 'sm120'?"
# Case alone is nearest, not another name (issue 41); a path lacking its
# .yaml is pointed at the file that has it.
run 2 "$BW" plan --profile SM120
contains "$TMP/err" "hint: did you mean 'sm120'?"
mkdir -p "$TMP/p" && cp "$TOP/profiles/demo.yaml" "$TMP/p/mine.yaml"
run 2 "$BW" plan --profile "$TMP/p/mine"
contains "$TMP/err" "error: cannot read profile '$TMP/p/mine': No such file or directory"
contains "$TMP/err" "hint: did you mean '$TMP/p/mine.yaml'?"
run 2 "$BW" plan --profile "$TMP/p/mine.yml"
contains "$TMP/err" "hint: did you mean '$TMP/p/mine.yaml'?"
mkdir -p "$TMP/keys"
printf 'extends: demo\ncuda:\n  archz: ["12.0"]\n' > "$TMP/keys/x.yaml"
run 2 "$BW" plan --profile "$TMP/keys/x.yaml"
contains "$TMP/err" "$TMP/keys/x.yaml:3:3: error: unknown key 'archz' in 'cuda'"
contains "$TMP/err" "hint: did you mean 'archs'?"
# The hint follows its error, before the next one.
[ "$(sed -n 2p "$TMP/err")" = "hint: did you mean 'archs'?" ] || fail "hint not after its error"
# A key of another section, at the top or under the wrong one.
printf 'extends: demo\narchs: ["12.0"]\nbuild:\n  home: /x\n' > "$TMP/keys/y.yaml"
run 2 "$BW" plan --profile "$TMP/keys/y.yaml"
contains "$TMP/err" "hint: did you mean 'cuda.archs' (the key 'archs' under 'cuda:')?"
contains "$TMP/err" "hint: did you mean 'cuda.home' (the key 'home' under 'cuda:')?"

# profiles: an invalid one is named by the command that shows why.
mkdir -p "$TMP/pp"
printf 'name: broken\ncolour: red\n' > "$TMP/pp/broken.yaml"
BWBUILD_PROFILE_PATH="$TMP/pp" run 0 "$BW" profiles
contains "$TMP/out" "broken           (invalid, 4 problems: 'bwbuild plan --profile $TMP/pp/broken.yaml' shows them)"
# ... apart from its description, when it has one.
printf 'name: told\ndescription: builds in seconds\ncolour: red\n' > "$TMP/pp/told.yaml"
BWBUILD_PROFILE_PATH="$TMP/pp" run 0 "$BW" profiles
contains "$TMP/out" "told             builds in seconds (invalid, "
rm "$TMP/pp/told.yaml"
BWBUILD_PROFILE_PATH="$TMP/pp" run 0 "$BW" profiles --json
python3 - "$TMP/out" <<'PY'
import json, sys
p = [x for x in json.load(open(sys.argv[1])) if x["name"] == "broken"][0]
assert p["valid"] is False and p["problems"] == 4, p
PY

# A file whose name: differs from its file name (issue 32): --profile NAME
# points at the file that declares it.
mkdir -p "$TMP/decl/profiles"
printf 'extends: sm120\nname: bw-ci\n' > "$TMP/decl/profiles/bw.yaml"
(cd "$TMP/decl" && run 2 "$BW" plan --profile bw-ci)
contains "$TMP/err" "error: no profile named 'bw-ci'"
contains "$TMP/err" "hint: 'profiles/bw.yaml' declares 'name: bw-ci' (its builds go to out/bw-ci/), but --profile takes a file's name: --profile bw, or the path"
(cd "$TMP/decl" && run 0 "$BW" plan --profile bw)

# An arch the toolkit cannot build: which CUDA can (issue 32).
run 2 "$BW" plan --profile sm120 --set cuda.version=12.6
contains "$TMP/err" "--set cuda.version=12.6"
contains "$TMP/err" "error: CUDA 12.6 (cuda.version) cannot build '12.0+PTX'; CUDA 12.8, 12.9 and 13.0 build it: set cuda.home to such a toolkit (and cuda.version to its version)"

# A local profile extends the shipped one of its own name (was: "a cycle").
mkdir -p "$TMP/local"
printf 'extends: sm120\ndescription: my own sm120\nbuild: {jobs: 3}\n' > "$TMP/local/sm120.yaml"
run 0 "$BW" plan --profile "$TMP/local/sm120.yaml"
contains "$TMP/out" "description  my own sm120"
contains "$TMP/out" "profiles/base/pytorch.yaml"
BWBUILD_PROFILE_PATH="$TMP/local" run 0 "$BW" plan --profile "$TMP/local/sm120.yaml"
printf 'extends: nothere\n' > "$TMP/local/nothere.yaml"
run 2 "$BW" plan --profile "$TMP/local/nothere.yaml"
contains "$TMP/err" "nothere.yaml:1:10: error: 'extends: nothere' names this file itself, and no other profile named 'nothere' is on the search path"

# torch: NAME in an extension profile: beside the profile file, not in the
# directory bwbuild runs in (whose profiles/mytorch.yaml differs).
mkdir -p "$TMP/ext" "$TMP/elsewhere/profiles"
printf 'name: mytorch\nsource: {repo: https://github.com/pytorch/pytorch, ref: v2.6.0}\ncuda: {archs: ["%s"], version: "12.8"}\n' \
	"12.0+PTX" > "$TMP/ext/mytorch.yaml"
printf 'name: mytorch\nsource: {repo: https://github.com/pytorch/pytorch, ref: v2.6.0}\ncuda: {archs: ["%s"], version: "12.8"}\n' \
	"9.0+PTX" > "$TMP/elsewhere/profiles/mytorch.yaml"
printf 'name: myext\nkind: extension\ntorch: mytorch\nsource: {repo: https://github.com/pytorch/extension-cpp.git, ref: v1}\n' \
	> "$TMP/ext/myext.yaml"
# (An extension's torch must be built before it is planned: the error names
# the torch profile that was found, the one beside the extension's file.)
(cd "$TMP/elsewhere" && run 2 "$BW" plan --profile ../ext/myext.yaml)
contains "$TMP/err" "the torch profile 'mytorch' has no published build"
contains "$TMP/err" "build it first: bwbuild --profile $TMP/ext/mytorch.yaml"

# cuda.version against the toolkit that builds: said, naming both and what to do.
mkdir -p "$TMP/cuda13"
printf '{"cuda": {"name": "CUDA SDK", "version": "13.0.88"}}\n' > "$TMP/cuda13/version.json"
run 0 "$BW" plan --profile sm120 --set "cuda.home=$TMP/cuda13" --set cuda.version=12.8
contains "$TMP/err" "--set cuda.version=12.8:1:14: warning: the profile says cuda.version 12.8 but the toolkit at '$TMP/cuda13' is CUDA 13.0 ($TMP/cuda13/version.json), and that one builds: the archs were checked for 12.8; set cuda.home to a CUDA 12.8 toolkit, or cuda.version to \"13.0\""
run 2 "$BW" plan --profile sm120 --set "cuda.home=$TMP/cuda13" --set cuda.version=12.8 --strict
contains "$TMP/err" "error: the profile says cuda.version 12.8 but the toolkit"
run 0 "$BW" plan --profile sm120 --set "cuda.home=$TMP/cuda13" --set cuda.version=13.0
if grep -q "cuda.version" "$TMP/err"; then fail "a warning for a toolkit that agrees"; fi

# A shell's MAX_JOBS / TORCH_CUDA_ARCH_LIST replaced by the plan: said once, with the value replaced.
MAX_JOBS=777 TORCH_CUDA_ARCH_LIST=7.0 run 0 "$BW" plan --profile demo --set build.jobs=3
contains "$TMP/err" "warning: this shell's MAX_JOBS=777 is replaced by MAX_JOBS=3 (bwbuild sets it from build.jobs and the memory budget; choose it with build.jobs in the profile)"
contains "$TMP/err" "warning: this shell's TORCH_CUDA_ARCH_LIST=7.0 is replaced by TORCH_CUDA_ARCH_LIST=8.0;12.0+PTX (bwbuild sets it from cuda.archs"
[ "$(grep -c "MAX_JOBS=777" "$TMP/err")" = 1 ] || fail "said more than once"
# The same value: nothing to say.
MAX_JOBS=3 run 0 "$BW" plan --profile demo --set build.jobs=3
if grep -q "MAX_JOBS" "$TMP/err"; then fail "warned about a MAX_JOBS the plan keeps"; fi

# An inherited USE_MKLDNN=0 is the shell's, not the tree's default.
USE_MKLDNN=0 run 0 "$BW" plan --profile demo
contains "$TMP/out" "  mkldnn             USE_MKLDNN=0 (inherited from the environment)"
if grep -q "mkldnn *tree default" "$TMP/out"; then fail "inherited USE_MKLDNN shown as tree default"; fi

# --source: the banner names the tree and its real commit, not the profile's ref.
ex="$TMP/example"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$ex/minitorch.git" v2.11.0 >/dev/null
export BWBUILD_CACHE_DIR="$TMP/cache"
cat > "$TMP/src.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: src22
source:
  repo: $ex/minitorch.git
  ref: v2.11.0
YAML
# doctor's checks a build cannot pass run before anything is fetched (issue
# 32: the build started fetching, to fail hours later): no checkout made.
TMPDIR=/nonexistent run 1 "$BW" --profile "$TMP/src.yaml" --work "$TMP/work" --out "$TMP/wheels"
contains "$TMP/err" "error: preflight: tmpdir: TMPDIR '/nonexistent' is not a directory you can write"
contains "$TMP/err" "hint: 'bwbuild doctor --profile $TMP/src.yaml' shows the whole checklist; fix it, or build anyway with --no-preflight"
if grep -q "^fetch:" "$TMP/err"; then fail "the build fetched before its preflight failed"; fi
[ ! -e "$TMP/work/src" ] || fail "a checkout was made before the preflight failed"
# A lack a step's own check finds (no ccache for build.cache) and the
# preflight's are said together, each once, then doctor with the build's
# own --set values (issue 41, F10).
mkdir -p "$TMP/noccache"
for f in /usr/local/bin/* /usr/bin/* /bin/*; do
	case "${f##*/}" in ccache) ;; *) [ -e "$TMP/noccache/${f##*/}" ] || ln -s "$f" "$TMP/noccache/${f##*/}" ;; esac
done
TMPDIR=/nonexistent PATH="$TMP/noccache" run 1 "$BW" --profile "$TMP/src.yaml" --work "$TMP/work" --out "$TMP/wheels" \
	--set build.cache=ccache --set 'build.env.CFLAGS=-O1 -g'
contains "$TMP/err" "--set build.cache=ccache:1:13: error: build.cache is ccache, but there is no ccache on PATH"
contains "$TMP/err" "error: preflight: tmpdir: TMPDIR '/nonexistent' is not a directory you can write"
contains "$TMP/err" "hint: 'bwbuild doctor --profile $TMP/src.yaml --set build.cache=ccache --set 'build.env.CFLAGS=-O1 -g'' shows the whole checklist; fix what it marks failed"
[ "$(grep -c "error: " "$TMP/err")" = 2 ] || fail "the build's errors are not each said once: $(cat "$TMP/err")"
[ ! -e "$TMP/work/src" ] || fail "a checkout was made before the checks failed"
TMPDIR=/nonexistent run 0 "$BW" --profile "$TMP/src.yaml" --work "$TMP/work" --out "$TMP/wheels" --until fetch --no-preflight
contains "$TMP/err" "bwbuild: stopped after 'fetch' as asked"
# A build stopped after the fetch is checked for what a fetch can fail (the
# host, the disk, a --source tree's patches): TMPDIR is for nvcc and the
# compilers, steps it never runs, so it fetches with the preflight on.
TMPDIR=/nonexistent run 0 "$BW" --profile "$TMP/src.yaml" --work "$TMP/work" --out "$TMP/wheels" --until fetch
if grep -q "preflight" "$TMP/err"; then fail "a build until fetch was stopped by a check of later steps: $(cat "$TMP/err")"; fi
contains "$TMP/err" "bwbuild: stopped after 'fetch' as asked"
run 0 "$BW" --profile "$TMP/src.yaml" --work "$TMP/work" --out "$TMP/wheels" --until fetch
cp -r "$TMP/work/src" "$TMP/tree"
commit=$(git -C "$TMP/tree" rev-parse HEAD)
run 0 "$BW" --profile "$TMP/src.yaml" --source "$TMP/tree" --work "$TMP/works" --out "$TMP/wheels" --until fetch --set source.ref=v2.12.0
contains "$TMP/err" "fetch: --source $TMP/tree, built as it is (the profile's $ex/minitorch.git @ v2.12.0 is not checked out)"
contains "$TMP/err" "fetch: $TMP/tree at $commit"
if grep -q "fetch: $ex/minitorch.git @ v2.12.0" "$TMP/err"; then fail "the banner shows the profile's ref"; fi
run 0 "$BW" plan --profile "$TMP/src.yaml" --source "$TMP/tree"
contains "$TMP/out" "source tree  $TMP/tree  (--source: built as it is"
# The release plan describes is the tree's, not the profile's ref (issue 41, F9).
run 0 "$BW" plan --profile "$TMP/src.yaml"
contains "$TMP/out" "release      torch 2.11 (source.ref): Python"
cp -r "$TMP/tree" "$TMP/tree210"
echo 2.10.0a0 >"$TMP/tree210/version.txt"
run 0 "$BW" plan --profile "$TMP/src.yaml" --source "$TMP/tree210"
contains "$TMP/out" "release      torch 2.10 (the tree's version.txt): Python"
if grep -q "torch 2.11" "$TMP/out"; then fail "plan --source names the profile's release: $(cat "$TMP/out")"; fi

# The configure table: an inherited USE_MKLDNN=0 is the environment's, not the tree's.
USE_MKLDNN=0 run 0 "$BW" --profile "$TMP/src.yaml" --source "$TMP/tree" --work "$TMP/works" --out "$TMP/wheels" --until configure
contains "$TMP/err" "  mkldnn               USE_MKLDNN                   0 (env)    off"
contains "$TMP/err" "  (env): not in the profile, inherited from this shell's environment"

# A flag the compiler refuses: the cause is the compiler's own line, not
# CMake's header above it, and the profile key that added the flag is named
# at its place (issue 32).
run 1 "$BW" --profile "$TMP/src.yaml" --source "$TMP/tree" --work "$TMP/works" --out "$TMP/wheels" --until configure --set build.env.CXXFLAGS=-mno-such-flag
contains "$TMP/err" "error: cause ($TMP/works/logs/configure.log:"
grep -q "^error: cause (.*): c++: error: unrecognized command-line option .-mno-such-flag.$" "$TMP/err" ||
	fail "the cause is not the compiler's line: $(grep cause "$TMP/err")"
contains "$TMP/err" "note: under the first CMake error ($TMP/works/logs/configure.log:"
contains "$TMP/err" "--set build.env.CXXFLAGS=-mno-such-flag:1:11: note: '-mno-such-flag' is added by build.env.CXXFLAGS; fix or remove it there"

# A --source tree without a submodule: the first CMake error of configure.log, with its line.
rm -rf "$TMP/tree/third_party/cutlite/"* "$TMP/tree/build"
run 1 "$BW" --profile "$TMP/src.yaml" --source "$TMP/tree" --work "$TMP/works" --out "$TMP/wheels" --until configure
line=$(grep -n "^CMake Error" "$TMP/works/logs/configure.log" | head -1 | cut -d: -f1)
contains "$TMP/err" "error: cause, the first CMake error ($TMP/works/logs/configure.log:$line):"
contains "$TMP/err" "submodule third_party/cutlite/include is missing"
contains "$TMP/err" "hint: the --source tree lacks a submodule: run 'git -C $TMP/tree -c protocol.file.allow=always submodule update --init --recursive'"
# ... and the hint's command works there (its submodules are local
# repositories, which git refuses by default: "transport 'file' not allowed").
rm -rf "$TMP/tree/third_party/cutlite"
git -C "$TMP/tree" -c protocol.file.allow=always submodule update --init --recursive >"$TMP/sub.out" 2>&1 ||
	fail "the hint's command failed: $(cat "$TMP/sub.out")"
[ -n "$(ls "$TMP/tree/third_party/cutlite")" ] || fail "the hint's command left the submodule empty"
