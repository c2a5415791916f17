# Sources: cached mirrors, submodules two deep (relative URLs), refs as tags,
# branches and short ids, no network when the ref is cached, nothing
# rewritten on a second run, local changes refused / --force / --source, and
# a --source rerun that takes its own output for no change (issue 40).
. "$(dirname "$0")/lib.sh"
ex="$TMP/example85"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$ex/minitorch.git" v2.11.0
export BWBUILD_CACHE_DIR="$TMP/cache85"
rm -rf "$TMP/cache85" "$TMP/work85" "$TMP/work85s" "$TMP/work85o" "$TMP/away85" "$TMP/old210"
cat > "$TMP/src85.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: src85
source:
  repo: $ex/minitorch.git
  ref: v2.11.0
YAML
w="$TMP/work85"
fetch() { want=$1; shift; run "$want" "$BW" --profile "$TMP/src85.yaml" --work "$w" --out "$TMP/out85" --until fetch "$@"; }
fetch_ref() { want=$1 ref=$2; shift 2; run "$want" "$BW" --profile "$TMP/src85.yaml" --work "$w" --out "$TMP/out85" --until fetch --set "source.ref=$ref" "$@"; }

# First run: three mirrors fetched, the tree and both submodules checked out.
fetch 0
contains "$TMP/err" "fetching ref 'v2.11.0' into $TMP/cache85/git/minitorch-"
contains "$TMP/err" "$ex/cutlite.git: fetching commit"
contains "$TMP/err" "$ex/cute.git: fetching commit"
contains "$TMP/err" "(2 submodules)"
[ "$(cat "$w/src/third_party/cutlite/VERSION")" = 3.4 ] || fail "cutlite is not at 3.4"
[ -f "$w/src/third_party/cutlite/third_party/cute/include/cute/fast_math.h" ] || fail "nested submodule missing"
mirrors=$(find "$TMP/cache85/git" -mindepth 1 -maxdepth 1 -name '*.git' | wc -l)
[ "$mirrors" = 3 ] || fail "expected 3 mirrors: $(ls "$TMP/cache85/git")"
# git itself sees a normal checkout: objects through alternates, submodules initialised.
git -C "$w/src" submodule status --recursive > "$TMP/substatus"
[ "$(grep -c '^ ' "$TMP/substatus")" = 2 ] || { cat "$TMP/substatus"; fail "git submodule status"; }
[ -z "$(git -C "$w/src" status --porcelain)" ] || fail "fresh checkout is not clean"
grep -q "^$TMP/cache85/git/minitorch-.*\.git/objects$" "$w/src/.git/objects/info/alternates" ||
	fail "the work tree does not borrow the mirror's objects"

# Offline: with every upstream gone, the same ref builds and nothing is rewritten.
mkdir "$TMP/away85"
mv "$ex/minitorch.git" "$ex/cutlite.git" "$ex/cute.git" "$TMP/away85/"
touch "$TMP/stamp85"
sleep 1
fetch 0
if grep -q fetching "$TMP/err"; then fail "a cached ref touched the network: $(grep fetching "$TMP/err")"; fi
# (The cache's answers/ is the tools' versions, kept from the first run that found the cache.)
newer=$(find "$w/src" "$TMP/cache85" -newer "$TMP/stamp85" ! -path "$TMP/cache85" ! -path "$TMP/cache85/answers*" | head -5)
[ -z "$newer" ] || fail "a second run rewrote: $newer"
# ...v2.12.0 (fetched with every tag) also needs no network; cutlite moves to 3.5.
fetch_ref 0 v2.12.0
[ "$(cat "$w/src/third_party/cutlite/VERSION")" = 3.5 ] || fail "cutlite did not move to 3.5"
[ ! -f "$w/src/setup.py" ] || fail "setup.py of v2.11.0 left in the v2.12.0 tree"
# ...an unknown ref offline names the repository, the ref and the cache.
fetch_ref 1 v9.9
contains "$TMP/err" "error: cannot fetch '$ex/minitorch.git' for ref 'v9.9':"
contains "$TMP/err" "note: refs already in the cache ($TMP/cache85/git/minitorch-"
mv "$TMP/away85/"* "$ex/"
# Online, an unknown ref is named as such.
fetch_ref 1 v9.9
contains "$TMP/err" "error: unknown ref 'v9.9' in '$ex/minitorch.git': not a tag, branch or commit there"
# Branches and short commit ids are refs too.
fetch_ref 0 main
[ "$(git -C "$w/src" rev-parse HEAD)" = "$(git -C "$ex/minitorch.git" rev-parse 'v2.12.0^{commit}')" ] ||
	fail "main is not v2.12.0's commit"
short=$(git -C "$ex/minitorch.git" rev-parse --short=10 'v2.11.0^{commit}')
fetch_ref 0 "$short"
contains "$TMP/err" "at $(git -C "$ex/minitorch.git" rev-parse 'v2.11.0^{commit}')"

# Local changes, in the tree and in a submodule, are refused and listed...
echo "# local" >> "$w/src/CMakeLists.txt"
echo 9.9 > "$w/src/third_party/cutlite/VERSION"
echo x > "$w/src/third_party/cutlite/third_party/cute/new.txt"
fetch 1
contains "$TMP/err" "error: the checkout in '$w/src' has local changes"
contains "$TMP/err" "note: modified: CMakeLists.txt"
contains "$TMP/err" "note: modified: third_party/cutlite/VERSION"
contains "$TMP/err" "note: new: third_party/cutlite/third_party/cute/new.txt"
contains "$TMP/err" "--force"
grep -q "# local" "$w/src/CMakeLists.txt" || fail "a refused run changed the tree"
fetch 2 --source "$w/src" --force
contains "$TMP/err" "error: --source builds a tree as it is"
fetch 2 --source /nonexistent
contains "$TMP/err" "error: --source '/nonexistent' is not a directory"
# ...--force discards them all...
fetch 0 --force
contains "$TMP/err" "warning: --force: discarding 3 local changes in '$w/src'"
if grep -q "# local" "$w/src/CMakeLists.txt"; then fail "--force kept a change"; fi
[ "$(cat "$w/src/third_party/cutlite/VERSION")" = 3.4 ] || fail "--force kept the submodule change"
[ ! -e "$w/src/third_party/cutlite/third_party/cute/new.txt" ] || fail "--force kept a new file"
# ...and a submodule moved to another commit is a change too.
git -C "$w/src/third_party/cutlite" checkout -q --detach "$(git -C "$ex/cutlite.git" rev-parse v3.5)"
fetch 1
contains "$TMP/err" "note: moved: third_party/cutlite (at "

# --source: a local tree as it is (here with a change), built end to end;
# the manifest says what it was.
git -C "$w/src/third_party/cutlite" checkout -q --detach "$(git -C "$ex/cutlite.git" rev-parse v3.4)"
sed -i 's/^2.11.0/2.11.1/' "$w/src/version.txt"
run 0 "$BW" --profile "$TMP/src85.yaml" --source "$w/src" --work "$TMP/work85s" --out "$TMP/out85s"
contains "$TMP/err" "warning: building '$w/src' as it is, with 1 local change"
contains "$TMP/out" "wheel:    $TMP/out85s/minitorch-2.11.1"
[ ! -e "$TMP/work85s/src" ] || fail "--source made a checkout"
manifest=$(sed -n 's/^manifest: //p' "$TMP/out")
python3 - "$manifest" "$ex" <<'PY'
import json, subprocess, sys
m = json.load(open(sys.argv[1]))
s = m["source"]
ex = sys.argv[2]
rev = lambda repo, ref: subprocess.check_output(["git", "-C", repo, "rev-parse", ref + "^{commit}"], text=True).strip()
assert s["commit"] == rev(ex + "/minitorch.git", "v2.11.0"), s
assert s["changes"] == ["modified: version.txt"], s
assert s["local"].endswith("/work85/src"), s
subs = {x["path"]: x for x in s["submodules"]}
assert subs["third_party/cutlite"]["commit"] == rev(ex + "/cutlite.git", "v3.4"), subs
assert subs["third_party/cutlite"]["url"] == ex + "/cutlite.git", subs
assert subs["third_party/cutlite/third_party/cute"]["url"] == ex + "/cute.git", subs
assert m["verify"]["ok"], m["verify"]
PY

# A --source tree reconfigured with other settings keeps its build/lib.* and
# build/bdist.* (issue 31: they were removed, though the tree is the user's).
mkdir -p "$w/src/build/lib.keep85" "$w/src/build/bdist.keep85"
echo mine > "$w/src/build/lib.keep85/file"
echo mine > "$w/src/build/bdist.keep85/file"
run 0 "$BW" --profile "$TMP/src85.yaml" --source "$w/src" --work "$TMP/work85s" --out "$TMP/out85s" \
	--until configure --set build.env.CFLAGS=-O1
contains "$TMP/err" "settings changed since the last configure"
contains "$TMP/err" "is your tree (--source): files an earlier configuration installed into it and setup.py's staging (build/lib.*, build/bdist.*) are left"
if [ ! -s "$w/src/build/lib.keep85/file" ] || [ ! -s "$w/src/build/bdist.keep85/file" ]; then
	fail "a --source tree lost its build/lib.* or build/bdist.* on reconfigure"
fi
rm -rf "$w/src/build/lib.keep85" "$w/src/build/bdist.keep85"

# Option discovery: the tree's own option() calls decide. A ref that is not
# a release tag (here the branch main, v2.12.0) is checked against the tree.
fetch_ref 1 main --force --set features.fbgemm_genai=off --set cmake.USE_TYPO=1
# 5 files of the tree, and the 2 CMake config files the earlier build installed into minitorch/share
contains "$TMP/err" "fetch: 13 options declared in 7 build files"
contains "$TMP/err" "features.fbgemm_genai=off:1:23: error: torch 2.12.0 (main at "
contains "$TMP/err" "has no option USE_FBGEMM_GENAI: it was renamed USE_MSLK in 2.11; use 'features.mslk' for this tree"
contains "$TMP/err" "cmake.USE_TYPO=1:1:7: warning: torch 2.12.0 (main at "
contains "$TMP/err" "never reads USE_TYPO"
# A tree from before the rename (USE_FBGEMM_GENAI, 2.10.0), built as it is.
rm -rf "$TMP/old210"
cp -r "$w/src" "$TMP/old210"
sed -i 's/USE_MSLK/USE_FBGEMM_GENAI/g' "$TMP/old210/CMakeLists.txt"
echo 2.10.0 > "$TMP/old210/version.txt"
run 1 "$BW" --profile "$TMP/src85.yaml" --source "$TMP/old210" --work "$TMP/work85o" --until fetch --set source.ref=main --set features.mslk=off
contains "$TMP/err" "error: torch 2.10.0 ($TMP/old210 at "
contains "$TMP/err" "has no option USE_MSLK: this release still calls it USE_FBGEMM_GENAI (renamed USE_MSLK in 2.11); use 'features.fbgemm_genai' for this tree"
run 0 "$BW" --profile "$TMP/src85.yaml" --source "$TMP/old210" --work "$TMP/work85o" --until fetch --set source.ref=main --set features.fbgemm_genai=off
# An option no release has, and --strict for unread cmake entries.
sed -i '/USE_KINETO/d' "$TMP/old210/CMakeLists.txt"
run 1 "$BW" --profile "$TMP/src85.yaml" --source "$TMP/old210" --work "$TMP/work85o" --until fetch --set source.ref=main --set features.kineto=on --set cmake.USE_TYPO=1 --strict
contains "$TMP/err" "has no option USE_KINETO (none of the 12 options its CMake files declare); remove 'features.kineto' or build a release that has it"
contains "$TMP/err" "never reads USE_TYPO: no CMake file, setup.py or setup helper mentions it (--strict)"

# The same work directory with another upstream (a copy at another path):
# its own mirrors are fetched, and origin and the submodule URLs follow.
rm -rf "$TMP/example85b"
mkdir "$TMP/example85b"
cp -r "$ex/minitorch.git" "$ex/cutlite.git" "$ex/cute.git" "$TMP/example85b/"
fetch_ref 0 v2.11.0 --set "source.repo=$TMP/example85b/minitorch.git"
contains "$TMP/err" "$TMP/example85b/cutlite.git: fetching commit"
[ "$(git -C "$w/src" remote get-url origin)" = "$TMP/example85b/minitorch.git" ] || fail "origin did not follow the profile"
[ "$(git -C "$w/src" config submodule.third_party/cutlite.url)" = "$TMP/example85b/cutlite.git" ] ||
	fail "submodule URL did not follow: $(git -C "$w/src" config submodule.third_party/cutlite.url)"
[ -z "$(git -C "$w/src" status --porcelain)" ] || fail "tree not clean after changing upstream"

# A work directory that holds someone's files (no checkout) is refused, untouched.
rm -rf "$TMP/work85x"
mkdir -p "$TMP/work85x/src"
echo mine > "$TMP/work85x/src/notes.txt"
# (docs/design/filesystem.md: a non-empty --work without bwbuild's lock is refused before anything.)
run 2 "$BW" --profile "$TMP/src85.yaml" --work "$TMP/work85x" --until fetch
contains "$TMP/err" "error: --work '$TMP/work85x' is not empty and was not made by bwbuild"
# In a work directory of bwbuild's (its lock), the checkout step itself refuses the foreign src/.
: > "$TMP/work85x/lock"
run 1 "$BW" --profile "$TMP/src85.yaml" --work "$TMP/work85x" --until fetch
contains "$TMP/err" "error: '$TMP/work85x/src' exists, is not empty and is not a git checkout; remove it or choose another work directory"
[ "$(ls -A "$TMP/work85x/src")" = notes.txt ] || fail "a refused run wrote into someone's directory: $(ls -A "$TMP/work85x/src")"

# A --source tree without .gitignore (a release tarball, Debian's source):
# what the first run's configure wrote into it (build/, setup.py's files) is
# the build's, not a local change, so the second run is "configure: up to
# date" and keeps CMakeCache.txt (issue 40: the inputs' hash changed and it
# configured from scratch). The tree's own untracked file, there before the
# first build, and one the user makes after it stay changes.
t="$TMP/bare85"
rm -rf "$t" "$TMP/work85g"
cp -r tests/fixtures/minitorch "$t"
rm -rf "$t/build" "$t/.gitignore"
mkdir -p "$t/third_party/cutlite/third_party"
cp -r tests/fixtures/third_party/cutlite/. "$t/third_party/cutlite/"
cp -r tests/fixtures/third_party/cute "$t/third_party/cutlite/third_party/cute"
git -C "$t" init -q
git -C "$t" add -A
git -C "$t" -c user.name=t -c user.email=t@localhost commit -q -m tarball
echo mine > "$t/notes.txt"
gen() { want=$1; shift; run "$want" "$BW" --profile "$TMP/src85.yaml" --source "$t" --work "$TMP/work85g" --out "$TMP/out85g" "$@"; }
gen 0 --until configure
[ -f "$t/build/CMakeCache.txt" ] || fail "the first run configured nothing"
cp -p "$t/build/CMakeCache.txt" "$TMP/cache85g.txt"
gen 0 --until configure
contains "$TMP/err" "configure: up to date (configure.stamp matches; $t/build kept)"
contains "$TMP/err" "with 1 local change (recorded in the manifest)"
contains "$TMP/err" "note: new: notes.txt"
if grep -q "settings changed\|new: build/" "$TMP/err"; then fail "the build's own output was taken for a change"; fi
if ! cmp -s "$t/build/CMakeCache.txt" "$TMP/cache85g.txt" ||
	[ -n "$(find "$t/build/CMakeCache.txt" -newer "$TMP/cache85g.txt")" ]; then
	fail "the second run rewrote CMakeCache.txt"
fi
sleep 0.1
echo later > "$t/later.txt"
gen 0 --until fetch
contains "$TMP/err" "with 2 local changes (recorded in the manifest)"
contains "$TMP/err" "note: new: later.txt"

# The same kind of tree checked out (no .gitignore), configured, then a patch
# series added: the fetch undoes nothing, checks out onto the tree the build
# wrote into and applies the patch. What configure wrote there stays the
# build's, so the next run is "nothing to do", not "has local changes" (the
# marks were reset by that checkout; seen on the real v2.6.0 tree when patch
# 0006 joined the series).
git -C "$t" tag v2.11.0
rm -rf "$TMP/work85h" "$TMP/pp85"
cat >"$TMP/co85.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: co85
source:
  repo: $t
  ref: v2.11.0
YAML
co() { want=$1; shift; run "$want" "$BW" --profile "$TMP/co85.yaml" --work "$TMP/work85h" --out "$TMP/out85h" "$@"; }
co 0 --until configure
[ -f "$TMP/work85h/src/build/CMakeCache.txt" ] || fail "the checkout was not configured"
co 0 --until fetch --set source.patches=minitorch
contains "$TMP/err" "fetch: patch 0001-select-compute-arch-autodetect-12.1.patch: applied"
co 0 --until fetch --set source.patches=minitorch
contains "$TMP/err" "with its patches applied; nothing to do"
if grep -q "has local changes" "$TMP/err"; then fail "the build's own output was taken for a local change"; fi
