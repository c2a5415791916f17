# Source bundles: `bwbuild bundle` packs the configured checkout, `build
# --bundle` builds it with the repositories and the mirror cache gone and
# publishes the same wheel (name and sha256) as the build from the checkout;
# a rerun is up to date; a damaged, hostile or foreign bundle is refused and
# leaves nothing behind.
. "$(dirname "$0")/lib.sh"
ex="$TMP/example87"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$ex/minitorch.git" v2.11.0
export BWBUILD_CACHE_DIR="$TMP/cache87"
rm -rf "$TMP/cache87" "$TMP/cache87b" "$TMP/w87" "$TMP/w87b" "$TMP/o87" "$TMP/o87b" "$TMP/away87" \
	"$TMP/b87" "$TMP/w87x" "$TMP/o87x"
mkdir -p "$TMP/b87"
cat >"$TMP/b87.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: b87
source:
  repo: $ex/minitorch.git
  ref: v2.11.0
YAML
B="$TMP/b87/minitorch.tar.zst"

# The bundle: configured first, then packed; its first member says what it is.
run 0 "$BW" bundle --profile "$TMP/b87.yaml" --work "$TMP/w87" -o "$B"
contains "$TMP/err" "bwbuild: stopped after 'configure' as asked"
contains "$TMP/out" "bundle: $B ("
contains "$TMP/out" "@ v2.11.0, commit "
# Every file of the checkout, its submodules' included.
files87=$(git -C "$TMP/w87/src" ls-files --recurse-submodules | wc -l | tr -d ' ')
contains "$TMP/out" " $files87 files, "
[ -f "$B" ] || fail "no bundle written"
[ -z "$(find "$TMP/b87" -name '*.tmp.*')" ] || fail "a temporary was left beside the bundle"
tar --zstd -tf "$B" >"$TMP/members87"
[ "$(head -n 1 "$TMP/members87")" = bwbuild-bundle.json ] || fail "the metadata is not first"
grep -q '^src/third_party/cutlite/third_party/cute/include/cute/fast_math.h$' "$TMP/members87" ||
	fail "the nested submodule's header is missing"
if grep -E '^src/(build|\.git)/' "$TMP/members87"; then fail "build outputs or git metadata were packed"; fi
pass
tar --zstd -xOf "$B" bwbuild-bundle.json >"$TMP/meta87.json"
python3 - "$TMP/meta87.json" "$files87" <<'PY' || fail "metadata"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["format"] == "bwbuild-bundle/1" and m["ref"] == "v2.11.0", m
assert len(m["commit"]) == 40 and m["files"] == int(sys.argv[2]), m
assert [s["path"] for s in m["submodules"]] == ["third_party/cutlite", "third_party/cutlite/third_party/cute"], m
PY
pass

# The same bundle again: the same bytes.
run 0 "$BW" bundle --profile "$TMP/b87.yaml" --work "$TMP/w87" -o "$TMP/b87/again.tar.zst"
cmp -s "$B" "$TMP/b87/again.tar.zst" || fail "two bundles of one tree differ"
pass

# The wheel from the checkout.
run 0 "$BW" --profile "$TMP/b87.yaml" --work "$TMP/w87" --out "$TMP/o87"
w1=$(ls "$TMP"/o87/*.whl)

# The wheel from the bundle, with every repository and the mirror cache gone.
mkdir "$TMP/away87"
mv "$ex/minitorch.git" "$ex/cutlite.git" "$ex/cute.git" "$TMP/away87/"
at_exit "mv '$TMP/away87'/*.git '$ex'/ 2>/dev/null"
export BWBUILD_CACHE_DIR="$TMP/cache87b"
run 0 "$BW" --profile "$TMP/b87.yaml" --bundle "$B" --work "$TMP/w87b" --out "$TMP/o87b"
contains "$TMP/err" "fetch: --bundle $B"
contains "$TMP/err" "files extracted (tree "
w2=$(ls "$TMP"/o87b/*.whl)
[ "$(basename "$w1")" = "$(basename "$w2")" ] || fail "names differ: $(basename "$w1") vs $(basename "$w2")"
[ "$(sha256sum <"$w1")" = "$(sha256sum <"$w2")" ] || fail "the wheels differ"
pass
[ "$(git -C "$TMP/w87b/src" rev-parse HEAD)" = "$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["commit"])' "$TMP/meta87.json")" ] ||
	fail "the extracted tree does not name its commit"
pass
# A rerun: up to date, nothing extracted again.
run 0 "$BW" --profile "$TMP/b87.yaml" --bundle "$B" --work "$TMP/w87b" --out "$TMP/o87b"
contains "$TMP/out" "bwbuild: up to date"
# --until fetch on a tree already extracted: nothing to do.
run 0 "$BW" --profile "$TMP/b87.yaml" --bundle "$B" --work "$TMP/w87b" --out "$TMP/o87b" --until fetch
contains "$TMP/err" "is the bundle's tree already"

# Another ref than the profile's: refused before anything is written.
run 1 "$BW" --profile "$TMP/b87.yaml" --set source.ref=v2.12.0 --bundle "$B" --work "$TMP/w87x" --out "$TMP/o87x" --until fetch --no-preflight
contains "$TMP/err" "holds $ex/minitorch.git @ v2.11.0, and the profile asks for v2.12.0"
[ ! -e "$TMP/w87x/src" ] || fail "a refused bundle made a tree"
pass

# A damaged bundle: one byte of a file changed, recompressed: the digest refuses it.
rm -rf "$TMP/b87/x" "$TMP/w87x"
mkdir -p "$TMP/b87/x"
tar --zstd -xf "$B" -C "$TMP/b87/x"
printf 'x' >>"$TMP/b87/x/src/version.txt"
(cd "$TMP/b87/x" && tar --owner=0 --group=0 -cf - bwbuild-bundle.json src | zstd -q -o ../damaged.tar.zst)
run 1 "$BW" --profile "$TMP/b87.yaml" --bundle "$TMP/b87/damaged.tar.zst" --work "$TMP/w87x" --out "$TMP/o87x" --until fetch --no-preflight
contains "$TMP/err" "the bundle is damaged or was altered: make it again"
[ ! -e "$TMP/w87x/src" ] || fail "a damaged bundle left a tree"
[ -z "$(find "$TMP/w87x" -maxdepth 1 -name 'src.tmp.*')" ] || fail "a damaged bundle left its temporary"
pass

# A member that climbs out of the tree: refused, nothing written outside.
rm -rf "$TMP/b87/y" && mkdir -p "$TMP/b87/y/src"
cp "$TMP/b87/x/bwbuild-bundle.json" "$TMP/b87/y/"
printf 'owned\n' >"$TMP/b87/y/evil87"
# GNU tar strips "..": Python's tarfile writes the name as given.
python3 - "$TMP/b87/y" <<'PY'
import sys, tarfile
d = sys.argv[1]
with tarfile.open(d + "/climb.tar", "w", format=tarfile.PAX_FORMAT) as t:
    t.add(d + "/bwbuild-bundle.json", "bwbuild-bundle.json")
    t.add(d + "/evil87", "src/../../evil87")
PY
zstd -q --rm "$TMP/b87/y/climb.tar" -o "$TMP/b87/climb.tar.zst"
run 1 "$BW" --profile "$TMP/b87.yaml" --bundle "$TMP/b87/climb.tar.zst" --work "$TMP/w87x" --out "$TMP/o87x" --until fetch --no-preflight
contains "$TMP/err" "is not a relative, normalized path"
if [ -e "$TMP/w87x/evil87" ] || [ -e "$TMP/evil87" ]; then fail "a member was written outside the tree"; fi
pass

# A symbolic link out of the tree, and git metadata inside it: refused.
rm -rf "$TMP/b87/z" && mkdir -p "$TMP/b87/z/src/.git"
cp "$TMP/b87/x/bwbuild-bundle.json" "$TMP/b87/z/"
ln -s /etc "$TMP/b87/z/src/etc"
(cd "$TMP/b87/z" && tar --owner=0 --group=0 -cf - bwbuild-bundle.json src/etc | zstd -q -o ../link.tar.zst)
run 1 "$BW" --profile "$TMP/b87.yaml" --bundle "$TMP/b87/link.tar.zst" --work "$TMP/w87x" --out "$TMP/o87x" --until fetch --no-preflight
contains "$TMP/err" "member 'src/etc' links outside the tree"
printf '[core]\n\tfsmonitor = touch /tmp/pwned87\n' >"$TMP/b87/z/src/.git/config"
(cd "$TMP/b87/z" && tar --owner=0 --group=0 -cf - bwbuild-bundle.json src/.git/config | zstd -q -o ../git.tar.zst)
run 1 "$BW" --profile "$TMP/b87.yaml" --bundle "$TMP/b87/git.tar.zst" --work "$TMP/w87x" --out "$TMP/o87x" --until fetch --no-preflight
contains "$TMP/err" "member 'src/.git/config' is git metadata"

# Not a bundle at all; --bundle with --source.
printf 'not zstd' >"$TMP/b87/junk.tar.zst"
run 1 "$BW" --profile "$TMP/b87.yaml" --bundle "$TMP/b87/junk.tar.zst" --work "$TMP/w87x" --out "$TMP/o87x" --until fetch --no-preflight
contains "$TMP/err" "not a zstd stream bwbuild reads"
run 2 "$BW" --profile "$TMP/b87.yaml" --bundle "$B" --source "$TMP/w87/src" --work "$TMP/w87x" --until fetch
contains "$TMP/err" "--bundle and --source both name the tree to build; give one"
