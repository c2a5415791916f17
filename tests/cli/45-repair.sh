# The repair of a wheel (src/wheel/repair.c, `bwbuild repair` and the
# build's repair step): a wheel whose library needs one from this machine
# (libd1.so.1, which needs libd2.so.3 in turn: libgomp and a BLAS in a real
# torch) is refused by verify; repaired, it carries both under hashed
# sonames in pkg.libs/, its members' DT_NEEDED and RUNPATH rewritten, verify
# passes, and the library loads with nothing on LD_LIBRARY_PATH. The
# libraries and the wheel are made here with gcc and Python's zipfile.
. "$(dirname "$0")/lib.sh"
command -v patchelf >/dev/null || { skip "patchelf is not installed (scripts/deps.sh installs it)"; exit 0; }
cd "$TMP"
mkdir -p deps src
printf 'int d2(void) { return 40; }\n' >src/d2.c
printf 'int d2(void);\nint d1(void) { return d2() + 2; }\n' >src/d1.c
printf 'int d1(void);\nint answer(void) { return d1(); }\n' >src/m.c
gcc -shared -fPIC -o deps/libd2.so.3 -Wl,-soname,libd2.so.3 src/d2.c
gcc -shared -fPIC -o deps/libd1.so.1 -Wl,-soname,libd1.so.1 src/d1.c -Ldeps -l:libd2.so.3
# An absolute RUNPATH of the build machine, as a build tree leaves it: repair drops it.
gcc -shared -fPIC -o src/libm1.so src/m.c -Ldeps -l:libd1.so.1 -Wl,-rpath,"\$ORIGIN:$TMP/deps"
python3 - <<'PY'
import base64, hashlib, zipfile
def h(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
files = {
    "pkg/__init__.py": b"",
    "pkg/lib/libm1.so": open("src/libm1.so", "rb").read(),
    "pkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n\n",
    "pkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n",
}
rec = "".join("%s,%s,%d\n" % (k, h(v), len(v)) for k, v in files.items()) + "pkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile("pkg-1.0-cp311-cp311-linux_x86_64.whl", "w", zipfile.ZIP_DEFLATED) as z:
    for k, v in files.items():
        z.writestr(k, v)
    z.writestr("pkg-1.0.dist-info/RECORD", rec)
PY
whl=pkg-1.0-cp311-cp311-linux_x86_64.whl

# Before: verify refuses what the wheel does not carry.
run 1 "$BW" verify "$whl"
contains "$TMP/err" "'pkg/lib/libm1.so' needs 'libd1.so.1', which is neither in the wheel nor on the manylinux or CUDA allow-lists"

# Not found (its RUNPATH directory is gone): the member, the soname and where
# it was looked for are named; nothing is written.
mv deps deps-ld
run 1 env -u LD_LIBRARY_PATH "$BW" repair "$whl" -w nowhere
contains "$TMP/err" "cannot repair '$whl': 'pkg/lib/libm1.so' needs 'libd1.so.1', which is not on the manylinux or CUDA allow-lists and was not found to copy in (looked in $TMP/deps, "
[ ! -e nowhere/$whl ] || fail "a failed repair left a wheel"
pass

# Found through LD_LIBRARY_PATH.
run 0 env LD_LIBRARY_PATH="$TMP/deps-ld" "$BW" repair "$whl" -w dist
d1=$(sha256sum deps-ld/libd1.so.1 | cut -c1-8)
d2=$(sha256sum deps-ld/libd2.so.3 | cut -c1-8)
contains "$TMP/out" "libd1.so.1: from $TMP/deps-ld/libd1.so.1 as pkg.libs/libd1-$d1.so.1"
contains "$TMP/out" "libd2.so.3: from $TMP/deps-ld/libd2.so.3 as pkg.libs/libd2-$d2.so.3"
contains "$TMP/out" "wheel: dist/$whl"
run 0 "$BW" verify "dist/$whl"
contains "$TMP/out" "ok: $whl (7 members, every RECORD hash matches)"

rm -rf x && mkdir x && (cd x && python3 -m zipfile -e "../dist/$whl" .)
readelf -d x/pkg/lib/libm1.so >x/m.txt
contains x/m.txt "Shared library: [libd1-$d1.so.1]"
contains x/m.txt "Library runpath: [\$ORIGIN:\$ORIGIN/../../pkg.libs]"
readelf -d "x/pkg.libs/libd1-$d1.so.1" >x/d1.txt
contains x/d1.txt "Library soname: [libd1-$d1.so.1]"
contains x/d1.txt "Shared library: [libd2-$d2.so.3]"
contains x/d1.txt "Library runpath: [\$ORIGIN]"
# The wheel's copy runs on its own: the machine's copies are gone from every path.
mv deps-ld deps-gone
got=$(env -u LD_LIBRARY_PATH python3 -c "import ctypes; print(ctypes.CDLL('x/pkg/lib/libm1.so').answer())")
[ "$got" = 42 ] || fail "the repaired library returned '$got', not 42"
pass
mv deps-gone deps-ld

# The same bytes every time; a repaired wheel needs nothing more.
sum1=$(sha256sum "dist/$whl" | cut -d' ' -f1)
run 0 env LD_LIBRARY_PATH="$TMP/deps-ld" "$BW" repair "$whl" -w dist2
[ "$sum1" = "$(sha256sum "dist2/$whl" | cut -d' ' -f1)" ] || fail "two repairs of one wheel differ"
pass
run 0 "$BW" repair "dist/$whl" -w dist3
contains "$TMP/out" "nothing to copy in"
cmp -s "dist/$whl" "dist3/$whl" || fail "a wheel that needed nothing was changed"
pass
# Repaired where it lies: the file is replaced, never emptied by a copy onto itself.
cp "dist/$whl" same.whl.orig
run 0 "$BW" repair "dist/$whl" -w dist
cmp -s "dist/$whl" same.whl.orig || fail "a repair in place changed a wheel that needed nothing"
pass

# The wheel's path is printed escaped: a newline and an escape sequence in
# -w forge no line and retitle no terminal (issue 40, F2).
evil=$(printf 'd\nwheel: forged\033]0;owned\007')
run 0 "$BW" repair "dist/$whl" -w "$evil"
contains "$TMP/out" "wheel: d\\x0awheel: forged\\x1b]0;owned\\x07/$whl"
if grep -q '^wheel: forged' "$TMP/out"; then fail "a -w path forged a line: $(cat "$TMP/out")"; fi
if grep -q "$(printf '\033')" "$TMP/out"; then fail "an escape sequence reached standard output"; fi
pass

# A SOURCE_DATE_EPOCH that is no number of seconds is refused, named (W11);
# strtoll took '1e9' as 1 and 'yesterday' as 0, without a word.
for junk in 1e9 yesterday ' 17' 99999999999999999999; do
	run 2 env SOURCE_DATE_EPOCH="$junk" "$BW" repair "dist/$whl" -w dist4
	contains "$TMP/err" "error: SOURCE_DATE_EPOCH is '$junk', not a number of seconds since 1970 (0 to 253402300799); unset it or give one, e.g. SOURCE_DATE_EPOCH=\$(git log -1 --format=%ct)"
done
[ ! -e "dist4/$whl" ] || fail "a repair under a junk SOURCE_DATE_EPOCH wrote a wheel"
pass
run 0 env SOURCE_DATE_EPOCH=1700000000 "$BW" repair "dist/$whl" -w dist4
