# make install PREFIX=... DESTDIR=...: the installed binary, run from another
# directory, finds its profiles, patches and probes under share/bwbuild.
. "$(dirname "$0")/lib.sh"
make -s install DESTDIR="$TMP/dest" PREFIX=/opt/bw >/dev/null
ib="$TMP/dest/opt/bw/bin/bwbuild"
[ -x "$ib" ] || fail "no installed binary"
for f in profiles/sm120.yaml profiles/base/pytorch.yaml patches/pytorch/index.yaml probes/smoke-torch.py; do
	[ -f "$TMP/dest/opt/bw/share/bwbuild/$f" ] || fail "share/bwbuild/$f was not installed"
done
[ -f "$TMP/dest/opt/bw/share/doc/bwbuild/smoke.md" ] || fail "the docs were not installed"
mkdir -p "$TMP/elsewhere"
cd "$TMP/elsewhere"
"$ib" profiles > "$TMP/out"
contains "$TMP/out" "$TMP/dest/opt/bw/share/bwbuild/profiles/sm120.yaml"
"$ib" plan --profile sm120 > "$TMP/out"
contains "$TMP/out" "profile      sm120"
"$ib" plan --profile sm120 --set source.patches=pytorch > "$TMP/out"
contains "$TMP/out" "0001-select-compute-arch-autodetect-12.1.patch"
