# Fetch for the real world, offline: a tree whose submodules name GitHub
# URLs (as PyTorch's do) comes from a mirror directory laid out as people
# lay mirrors out (<owner>+<name>/repo, <owner>/<name>.git, <name>.git,
# another case), with url.<base>.insteadOf from a test HOME's .gitconfig
# for a renamed repository, a nested submodule left out by
# source.submodules.exclude, and a large file whose blob the mirror lacks.
# Then the true cause of each failure, and the cache trust check.
. "$(dirname "$0")/lib.sh"
d="$TMP/f86"
rm -rf "$d"
mkdir -p "$d"
g() { git -c user.name=t -c user.email=t@localhost -c init.defaultBranch=main "$@"; }
# repo DIR: a work repository with one commit of the files already in DIR
repo() { (cd "$1" && g init -q && g add -A && g commit -q -m "$(basename "$1")"); }
# bare SRC DEST: a mirror of SRC as a bare repository (objects copied, loose)
bare() { mkdir -p "$(dirname "$2")" && g clone -q --bare --no-hardlinks "$1" "$2"; }
sub() { # sub REPO PATH URL COMMIT
	printf '[submodule "%s"]\n\tpath = %s\n\turl = %s\n' "$2" "$2" "$3" >> "$1/.gitmodules"
	(cd "$1" && g update-index --add --cacheinfo "160000,$4,$2")
}

# deep (nested in lib), hip (nested in tools: ROCm only, in no mirror)
mkdir -p "$d/w/deep" "$d/w/hip" "$d/w/renamed"
echo deep > "$d/w/deep/deep.h"
echo hip > "$d/w/hip/hip.py"
echo renamed > "$d/w/renamed/README"
repo "$d/w/deep"
repo "$d/w/hip"
repo "$d/w/renamed"
# lib: a 5 MiB file the snapshot lacks, and deep as a submodule
mkdir -p "$d/w/lib/media"
echo lib > "$d/w/lib/lib.h"
head -c 5242880 /dev/urandom > "$d/w/lib/media/big.bin"
(cd "$d/w/lib" && g init -q && g add -A)
sub "$d/w/lib" third_party/deep https://github.com/acme/deep "$(git -C "$d/w/deep" rev-parse HEAD)"
(cd "$d/w/lib" && g add .gitmodules && g commit -q -m lib)
mkdir -p "$d/w/tools"
echo tools > "$d/w/tools/tools.py"
(cd "$d/w/tools" && g init -q && g add -A)
sub "$d/w/tools" third_party/hip https://github.com/rocm/hip-only.git "$(git -C "$d/w/hip" rev-parse HEAD)"
(cd "$d/w/tools" && g add .gitmodules && g commit -q -m tools)
# the superproject: the example tree with four GitHub-URL submodules
mkdir -p "$d/w/super"
(cd tests/fixtures/minitorch && tar cf - --exclude=./build --exclude=./dist --exclude='*.pyc' --exclude='__pycache__' .) |
	(cd "$d/w/super" && tar xf -)
(cd "$d/w/super" && g init -q && g add -A)
sub "$d/w/super" third_party/lib https://github.com/acme/lib.git "$(git -C "$d/w/lib" rev-parse HEAD)"
sub "$d/w/super" third_party/tools https://github.com/acme/tools "$(git -C "$d/w/tools" rev-parse HEAD)"
sub "$d/w/super" third_party/renamed https://github.com/old/renamed.git "$(git -C "$d/w/renamed" rev-parse HEAD)"
(cd "$d/w/super" && g add .gitmodules && g commit -q -m super && g tag v2.11.0)
bare "$d/w/super" "$d/super.git"

# The mirror directory, each repository named another way.
M="$d/mirrors"
bare "$d/w/lib" "$M/acme+lib/repo"
bare "$d/w/tools" "$M/acme/tools.git"
bare "$d/w/deep" "$M/deep.git"
bare "$d/w/renamed" "$M/New+Renamed/repo"
# The snapshot lacks lib's large file, as our fetched snapshots lack files >= 4 MiB.
big=$(git -C "$d/w/lib" rev-parse HEAD:media/big.bin)
rm "$M/acme+lib/repo/objects/$(echo "$big" | cut -c1-2)/$(echo "$big" | cut -c3-)"

# The user's git config: the renamed repository, and ROCm's URLs pointing nowhere
# (so nothing here ever reaches for the network).
H="$d/home"
mkdir -p "$H"
cat > "$H/.gitconfig" <<EOF
[url "https://github.com/new/renamed"]
	insteadOf = https://github.com/old/renamed
[url "$d/gone/"]
	insteadOf = https://github.com/rocm/
EOF
export HOME="$H" XDG_CONFIG_HOME="$H/.config"
unset BWBUILD_MIRRORS
export BWBUILD_CACHE_DIR="$d/cache"
cat > "$d/p86.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: p86
source:
  repo: $d/super.git
  ref: v2.11.0
  mirrors: mirrors
  submodules:
    exclude: [third_party/tools/third_party/hip]
YAML
w="$d/work"
fetch() { want=$1; shift; run "$want" "$BW" --profile "$d/p86.yaml" --work "$w" --out "$d/out" --until fetch "$@"; }

# 1. The whole tree from the mirror directory; only the superproject (a local
# path) goes through the cache. The large file is skipped with one warning.
fetch 0
contains "$TMP/err" "fetch: 1 submodule left out (source.submodules.exclude):"
contains "$TMP/err" "fetch:   third_party/tools/third_party/hip"
contains "$TMP/err" "warning: 1 file is missing from the mirrors and was not checked out"
contains "$TMP/err" "note: third_party/lib/media/big.bin"
contains "$TMP/err" "fetch: checked out "
contains "$TMP/err" "(4 submodules)"
if grep -q "fetching commit" "$TMP/err"; then fail "a submodule was fetched: $(grep fetching "$TMP/err")"; fi
mirrors=$(find "$d/cache/git" -mindepth 1 -maxdepth 1 -name '*.git' | wc -l)
[ "$mirrors" = 1 ] || fail "cache mirrors made for mirrored URLs: $(ls "$d/cache/git")"
[ "$(cat "$w/src/third_party/lib/third_party/deep/deep.h")" = deep ] || fail "nested submodule from <name>.git"
[ "$(cat "$w/src/third_party/renamed/README")" = renamed ] || fail "insteadOf to another name, another case"
[ -f "$w/src/third_party/tools/tools.py" ] || fail "URL without .git from <owner>/<name>.git"
[ -z "$(ls -A "$w/src/third_party/tools/third_party/hip" 2>/dev/null)" ] || fail "an excluded submodule was checked out"
[ ! -e "$w/src/third_party/lib/media/big.bin" ] || fail "the absent file exists"
grep -qx "$M/acme+lib/repo/objects" "$w/src/.git/modules/third_party/lib/objects/info/alternates" ||
	fail "lib does not borrow the mirror directory's objects: $(cat "$w/src/.git/modules/third_party/lib/objects/info/alternates")"
# git itself sees a clean tree (the absent file is skip-worktree), and so does bwbuild.
[ -z "$(git -C "$w/src" status --porcelain)" ] || fail "git status: $(git -C "$w/src" status --porcelain)"
[ -z "$(git -C "$w/src/third_party/lib" status --porcelain)" ] || fail "git status in lib: $(git -C "$w/src/third_party/lib" status --porcelain)"
git -C "$w/src/third_party/lib" ls-files -v media/big.bin | grep -q '^S ' || fail "big.bin is not skip-worktree"
touch "$d/stamp"
sleep 1
fetch 0
newer=$(find "$w/src" -newer "$d/stamp" | head -3)
[ -z "$newer" ] || fail "a second run rewrote: $newer"
if grep -q "local changes" "$TMP/err"; then fail "an absent file taken for a local change"; fi
# --force keeps it absent and the tree whole.
fetch 0 --force
[ -f "$w/src/third_party/lib/lib.h" ] || fail "--force lost lib.h"

# 2. The same from $BWBUILD_MIRRORS alone (the profile names none).
sed '/mirrors:/d' "$d/p86.yaml" > "$d/p86e.yaml"
rm -rf "$w"
BWBUILD_MIRRORS="/nonexistent86:$M" run 0 "$BW" --profile "$d/p86e.yaml" --work "$w" --out "$d/out" --until fetch
contains "$TMP/err" "(4 submodules)"

# 3. The true cause of each failure: the path, the commit, the URL, each mirror tried.
rm -rf "$w"
fetch 1 --set 'source.submodules.exclude=[]'
hip=$(git -C "$d/w/hip" rev-parse HEAD)
contains "$TMP/err" "error: cannot fetch '$d/gone/hip-only.git' for commit $hip:"
contains "$TMP/err" "note: submodule 'third_party/tools/third_party/hip' needs commit $hip from 'https://github.com/rocm/hip-only.git'"
contains "$TMP/err" "note: tried $d/gone/hip-only.git, as url.<base>.insteadOf in your git config rewrites it"
contains "$TMP/err" "note: tried $M (no repository for this URL"
contains "$TMP/err" "leave it out: 'source.submodules: {exclude: [third_party/tools/third_party/hip]}'"
if grep -q "never overwrites local changes" "$TMP/err"; then fail "a missing submodule blamed on local changes"; fi
# ...a mirror that lacks the commit says so.
mv "$M/acme/tools.git" "$d/tools.away"
bare "$d/w/deep" "$M/acme/tools.git"
rm -rf "$w"
fetch 1
contains "$TMP/err" "note: tried $M/acme/tools.git (has no commit $(git -C "$d/w/tools" rev-parse HEAD))"
rm -rf "$M/acme/tools.git"
mv "$d/tools.away" "$M/acme/tools.git"
# ...without the user's insteadOf, the renamed repository is not found under its old name.
rm -rf "$w"
HOME="$d/nohome" XDG_CONFIG_HOME="$d/nohome" fetch 1
contains "$TMP/err" "note: submodule 'third_party/renamed' needs commit"
contains "$TMP/err" "note: tried $M (no repository for this URL"
# ...a commit whose tree the mirror lacks names the object and the mirror.
cp -r "$M/deep.git" "$d/deep.keep"
tree=$(git -C "$d/w/deep" rev-parse 'HEAD^{tree}')
rm "$M/deep.git/objects/$(echo "$tree" | cut -c1-2)/$(echo "$tree" | cut -c3-)"
rm -rf "$w"
fetch 1
contains "$TMP/err" "error: cannot check out 'third_party/lib/third_party/deep' at $(git -C "$d/w/deep" rev-parse HEAD): its tree $tree is missing"
contains "$TMP/err" "note: the objects come from '$M/deep.git/objects', which is incomplete"
rm -rf "$M/deep.git"
mv "$d/deep.keep" "$M/deep.git"

# 4. A fetch into a log prints a bounded number of progress lines: none for
# a quick one, then one summary line.
rm -rf "$w"
fetch 0
[ "$(grep -c '%' "$TMP/err")" -le 10 ] || fail "progress lines: $(grep -c '%' "$TMP/err")"
[ "$(grep -c 'fetch: checked out' "$TMP/err")" = 1 ] || fail "no single summary line"

# 5. Trust: every level of the cache, and the mirror directories.
chmod 777 "$d/cache/git"
fetch 1
contains "$TMP/err" "error: '$d/cache/git' in the cache is writable by others"
chmod 755 "$d/cache/git"
if [ "$(id -u)" = 0 ]; then
	m=$(ls -d "$d"/cache/git/super-*.git)
	chown -R 65534 "$m"
	fetch 1
	contains "$TMP/err" "error: '$m' in the cache belongs to uid 65534, not to you"
	chown -R 0 "$m"
else
	skip "not root: a mirror of another user (chown) is not checked"
fi
chmod 757 "$M/acme+lib/repo"
rm -rf "$w"
fetch 1
contains "$TMP/err" "note: tried $M/acme+lib/repo (refused: writable by all"
chmod 755 "$M/acme+lib/repo"
fetch 0

# 6. A bad source.submodules is refused at its line.
cat > "$d/bad86.yaml" <<YAML
extends: $d/p86.yaml
source:
  submodules:
    exclude: [../outside]
    include: [x]
YAML
run 2 "$BW" plan --profile "$d/bad86.yaml"
contains "$TMP/err" "bad86.yaml:4:15: error: '../outside' is not a submodule path inside the tree"
contains "$TMP/err" "bad86.yaml:5:5: error: unknown key 'include' in source.submodules (known keys: exclude)"
