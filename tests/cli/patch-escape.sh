# A patch series never writes outside the source tree (issue 27 H1) and a
# malformed binary patch is refused, not handed to libgit2 to spin on (H6):
# a patch may not make, change or delete a symlink (one to outside is named
# so), nor write through one the upstream tree has (refused at that patch, the
# patches before it undone); a valid binary patch applies and is undone.
. "$(dirname "$0")/lib.sh"
out="$TMP/outside"
mkdir -p "$out"
# The upstream tree: one file, a directory and a symlink to outside it.
rm -rf "$TMP/up"
mkdir -p "$TMP/up/sub"
echo 2.11.0 > "$TMP/up/version.txt"
echo keep > "$TMP/up/sub/keep.txt"
echo "from setuptools import setup" > "$TMP/up/setup.py"
printf 'a\0b\0c' > "$TMP/up/blob.bin"
ln -s "$out" "$TMP/up/uplink"
(cd "$TMP/up" && git init -q -b main && git add -A && git -c user.name=t -c user.email=t@t commit -q -m x && git tag v2.11.0)
printf 'extends: %s/profiles/demo.yaml\nname: esc\nsource:\n  repo: %s/up\n  ref: v2.11.0\n' "$TOP" "$TMP" > "$TMP/esc.yaml"

# series NAME PATCH...: patches/NAME with an index listing the PATCH files (from $TMP/p) in order.
series() {
	name=$1
	shift
	rm -rf "$TMP/pp/$name"
	mkdir -p "$TMP/pp/$name"
	echo "patches:" > "$TMP/pp/$name/index.yaml"
	for f in "$@"; do
		cp "$TMP/p/$f" "$TMP/pp/$name/"
		printf '  - file: %s\n    sha256: %s\n' "$f" "$(sha256sum "$TMP/p/$f" | cut -d' ' -f1)" >> "$TMP/pp/$name/index.yaml"
	done
}
# build_series NAME STATUS: fetch with that series; no file may appear outside the tree.
build_series() {
	BWBUILD_PATCH_PATH="$TMP/pp" run "$2" timeout 60 "$BW" build --profile "$TMP/esc.yaml" --set "source.patches=$1" --work "$TMP/w-$1" --out "$TMP/o-$1" --until fetch
	[ -z "$(ls -A "$out")" ] || fail "series $1 wrote outside the tree: $(ls -A "$out")"
}
# clean NAME: the checkout is as upstream has it (patches before the refused one undone).
clean() {
	(cd "$TMP/w-$1/src" && git status --porcelain) > "$TMP/status"
	[ ! -s "$TMP/status" ] || fail "series $1 left the tree changed: $(cat "$TMP/status")"
}
mkdir -p "$TMP/p"

# The reproduction: 0001 makes a symlink to a directory outside, 0002 writes through it.
cat > "$TMP/p/0001-link-abs.patch" <<EOF
diff --git a/evil-link2 b/evil-link2
new file mode 120000
index 0000000..1111111
--- /dev/null
+++ b/evil-link2
@@ -0,0 +1 @@
+$out
\ No newline at end of file
EOF
cat > "$TMP/p/0002-through.patch" <<'EOF'
diff --git a/evil-link2/pwned b/evil-link2/pwned
new file mode 100644
index 0000000..2222222
--- /dev/null
+++ b/evil-link2/pwned
@@ -0,0 +1 @@
+pwned
EOF
series abs 0001-link-abs.patch 0002-through.patch
build_series abs 1
contains "$TMP/err" "$TMP/pp/abs/0001-link-abs.patch:7: error: refusing patch '0001-link-abs.patch': 'evil-link2' would be a symlink to '$out', outside the source tree"
contains "$TMP/err" "$TMP/pp/abs/index.yaml:2:5: note: listed here"
# plan refuses it too, before anything is fetched.
BWBUILD_PATCH_PATH="$TMP/pp" run 2 "$BW" plan --profile "$TMP/esc.yaml" --set source.patches=abs
contains "$TMP/err" "0001-link-abs.patch:7: error: refusing patch"

# The same with a relative target climbing out of the tree.
sed "s|^+$out|+sub/../../outside|" "$TMP/p/0001-link-abs.patch" > "$TMP/p/0001-link-rel.patch"
series rel 0001-link-rel.patch 0002-through.patch
build_series rel 1
contains "$TMP/err" "0001-link-rel.patch:7: error: refusing patch '0001-link-rel.patch': 'evil-link2' would be a symlink to 'sub/../../outside', outside the source tree"

# A symlink inside the tree is refused too: libgit2 reads through symlinks,
# so it could not undo one (nor find it applied on a re-run).
sed "s|^+$out|+sub|" "$TMP/p/0001-link-abs.patch" > "$TMP/p/0001-link-in.patch"
series inside 0001-link-in.patch 0002-through.patch
build_series inside 1
contains "$TMP/err" "0001-link-in.patch:1: error: refusing patch '0001-link-in.patch': 'evil-link2' is a symlink (mode 120000): bwbuild's patches do not make, change or delete symlinks"

# The upstream tree's own symlink to outside: not written through, at the
# patch that would (its first patch undone), nor changed, nor deleted.
printf 'diff --git a/version.txt b/version.txt\n--- a/version.txt\n+++ b/version.txt\n@@ -1 +1 @@\n-2.11.0\n+2.11.1\n' > "$TMP/p/0001-good.patch"
sed 's|evil-link2/pwned|uplink/pwned|g' "$TMP/p/0002-through.patch" > "$TMP/p/0002-up.patch"
series up 0001-good.patch 0002-up.patch
build_series up 1
contains "$TMP/err" "fetch: patch 0001-good.patch: applied"
contains "$TMP/err" "$TMP/pp/up/0002-up.patch:1: error: refusing patch '0002-up.patch': 'uplink/pwned' goes through 'uplink', a symlink in the tree (to '$out'); bwbuild does not write through symlinks"
contains "$TMP/err" "$TMP/pp/up/index.yaml:4:5: note: listed here"
contains "$TMP/err" "note: the 1 patch applied before it was undone; the tree is as it was"
clean up
printf 'diff --git a/uplink b/uplink\nindex 1111111..2222222 100644\n--- a/uplink\n+++ b/uplink\n@@ -1 +1 @@\n-%s\n\\ No newline at end of file\n+changed\n' "$out" > "$TMP/p/0001-upfile.patch"
series upfile 0001-upfile.patch
build_series upfile 1
contains "$TMP/err" "0001-upfile.patch:1: error: refusing patch '0001-upfile.patch': 'uplink' is a symlink in the tree (to '$out'); bwbuild's patches do not change symlinks nor write through them"
clean upfile
printf 'diff --git a/uplink b/uplink\ndeleted file mode 120000\nindex 1111111..0000000\n--- a/uplink\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n' > "$TMP/p/0001-updel.patch"
series updel 0001-updel.patch
build_series updel 1
contains "$TMP/err" "0001-updel.patch:1: error: refusing patch '0001-updel.patch': 'uplink' is a symlink (mode 120000)"

# '..' and .git are refused where the patch names them.
printf 'diff --git a/x b/x\n--- a/x\n+++ b/../x\n@@ -0,0 +1 @@\n+x\n' > "$TMP/p/0001-dotdot.patch"
series dotdot 0001-dotdot.patch
build_series dotdot 1
contains "$TMP/err" "0001-dotdot.patch:3: error: refusing patch '0001-dotdot.patch': '../x' is not a plain path inside the tree"

# H6: a binary hunk whose zlib data stops short (libgit2 spun on it forever).
printf 'diff --git a/blob.bin b/blob.bin\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 5\nMcmZ?wbYf&+00320ssI20\n\nliteral 0\nHcmV?d00001\n\n' > "$TMP/p/0001-binbad.patch"
series binbad 0001-binbad.patch
build_series binbad 1
contains "$TMP/err" "0001-binbad.patch:4: error: refusing patch '0001-binbad.patch': the binary data inflates to more than the 5 bytes it declares"
# ...a line shorter than its length letter says, and a block without its reverse.
printf 'diff --git a/blob.bin b/blob.bin\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 5\nMcmZ?wbYf&+00320\n\nliteral 0\nHcmV?d00001\n\n' > "$TMP/p/0001-binshort.patch"
printf 'diff --git a/blob.bin b/blob.bin\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 5\nMcmYdfNMc9^00VOYCjbBd\n\n' > "$TMP/p/0001-binhalf.patch"
series binshort 0001-binshort.patch
build_series binshort 1
contains "$TMP/err" "0001-binshort.patch:5: error: refusing patch '0001-binshort.patch': a binary data line of 13 bytes has 15 characters, not 20"
series binhalf 0001-binhalf.patch
build_series binhalf 1
contains "$TMP/err" "0001-binhalf.patch:6: error: refusing patch '0001-binhalf.patch': a binary patch needs its reverse block too"

# A valid binary patch (git diff --binary) applies, is found applied on a re-run,
# and is undone when a later patch does not apply.
rm -rf "$TMP/bin-gen"
cp -r "$TMP/up" "$TMP/bin-gen"
printf 'a\0B\0c\0d' > "$TMP/bin-gen/blob.bin"
(cd "$TMP/bin-gen" && git diff --binary) > "$TMP/p/0001-bin.patch"
printf 'diff --git a/version.txt b/version.txt\n--- a/version.txt\n+++ b/version.txt\n@@ -1 +1 @@\n-9.9.9\n+9.9.10\n' > "$TMP/p/0002-conflict.patch"
series bin 0001-bin.patch
build_series bin 0
contains "$TMP/err" "fetch: patch 0001-bin.patch: applied"
cmp -s "$TMP/w-bin/src/blob.bin" "$TMP/bin-gen/blob.bin" || fail "the binary patch did not give the new blob"
build_series bin 0
contains "$TMP/err" "with its patches applied; nothing to do"
series binundo 0001-bin.patch 0002-conflict.patch
build_series binundo 1
contains "$TMP/err" "fetch: patch 0001-bin.patch: applied"
contains "$TMP/err" "note: the 1 patch applied before it was undone; the tree is as it was"
clean binundo

# Binary blocks are bounded in total, not only each (issue 31): three new
# files of 64 MiB each, within the cap per block, made a 200 KB patch that
# wrote 192 MiB (sixteen: 1 GiB); refused at the block past 128 MiB.
python3 - "$TMP/p/0001-binbig.patch" <<'PY'
import base64, sys, zlib
def block(data):
    z = zlib.compress(data, 9)
    lines = ["literal %d" % len(data)]
    for i in range(0, len(z), 52):
        c = z[i:i + 52]
        n = len(c)
        lines.append((chr(ord("A") + n - 1) if n <= 26 else chr(ord("a") + n - 27)) + base64.b85encode(c, pad=True).decode())
    return "\n".join(lines) + "\n\n"
big = block(bytes(64 << 20))
with open(sys.argv[1], "w") as f:
    for k in range(3):
        f.write("diff --git a/big%d.bin b/big%d.bin\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\n" % (k, k))
        f.write(big + block(b""))
PY
series binbig 0001-binbig.patch
BWBUILD_PATCH_PATH="$TMP/pp" run 2 "$BW" plan --profile "$TMP/esc.yaml" --set source.patches=binbig
line=$(grep -n '^literal 67108864' "$TMP/p/0001-binbig.patch" | sed -n '3s/:.*//p')
contains "$TMP/err" "0001-binbig.patch:$line: error: refusing patch '0001-binbig.patch': its binary blocks declare 201326592 bytes so far, more than the 128 MiB bwbuild takes in one patch"
