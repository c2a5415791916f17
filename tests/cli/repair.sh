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

# Found only for another machine (issue 44): the same wheel for aarch64 (its
# library's e_machine 183, as a cross build leaves it) beside x86-64 copies.
mkdir -p arm
python3 - "$whl" arm/pkg-1.0-cp311-cp311-linux_aarch64.whl <<'PY'
import base64, hashlib, sys, zipfile
def h(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
files = {n: zipfile.ZipFile(sys.argv[1]).read(n) for n in zipfile.ZipFile(sys.argv[1]).namelist()
         if not n.endswith("RECORD")}
lib = bytearray(files["pkg/lib/libm1.so"])
lib[0x12:0x14] = (183).to_bytes(2, "little")
files["pkg/lib/libm1.so"] = bytes(lib)
files["pkg-1.0.dist-info/WHEEL"] = files["pkg-1.0.dist-info/WHEEL"].replace(b"x86_64", b"aarch64")
rec = "".join("%s,%s,%d\n" % (k, h(v), len(v)) for k, v in files.items()) + "pkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
    for k, v in files.items():
        z.writestr(k, v)
    z.writestr("pkg-1.0.dist-info/RECORD", rec)
PY
run 1 env LD_LIBRARY_PATH="$TMP/deps-ld" "$BW" repair arm/pkg-1.0-cp311-cp311-linux_aarch64.whl -w nowhere
contains "$TMP/err" "'pkg/lib/libm1.so' needs 'libd1.so.1', which was found only for x86-64: $TMP/deps-ld/libd1.so.1; install its aarch64 build, or put the directory of one on LD_LIBRARY_PATH"
[ ! -e nowhere/pkg-1.0-cp311-cp311-linux_aarch64.whl ] || fail "a failed repair left a wheel"

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

# Issue 40 E2: the repack's temporary is created new under a fresh name; a
# hard link planted at the old name <wheel>.tmp.<pid> (the pid is known:
# exec keeps it) is never written through.
rm -rf e2 && mkdir e2 && printf 'precious\n' > e2-victim
# shellcheck disable=SC2016 # $1, $2 and $$ are the inner shell's
run 0 env LD_LIBRARY_PATH="$TMP/deps-ld" sh -c 'ln e2-victim "e2/$1.tmp.$$" && exec "$2" repair "$1" -w e2' sh "$whl" "$BW"
[ "$(cat e2-victim)" = precious ] || fail "the repack wrote through a hard link planted at its temporary's name"
run 0 "$BW" verify "e2/$whl"
pass

# Issue 40: crafted wheels around pkg/lib/libm1.so. mk.py DIR [--unlisted
# M=FILE] [--lie M] [--link M=FILE] [--dir M=FILE] M=FILE...: a wheel with
# its RECORD as DIR/$whl (M's hash wrong with --lie; the --unlisted member left out of
# it; --link a symbolic link, --dir a directory entry, holding FILE's bytes).
cat >mk.py <<'PY'
import base64, hashlib, stat, sys, zipfile
def h(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
out, args = sys.argv[1] + "/pkg-1.0-cp311-cp311-linux_x86_64.whl", sys.argv[2:]
import os; os.makedirs(sys.argv[1], exist_ok=True)
files, unlisted, lie, links, dirs = {}, {}, None, {}, {}
while args:
    a = args.pop(0)
    if a == "--lie":
        lie = args.pop(0)
        continue
    kind = {"--unlisted": unlisted, "--link": links, "--dir": dirs}.get(a)
    if kind is not None:
        a = args.pop(0)
    k, v = a.split("=", 1)
    (kind if kind is not None else files)[k] = open(v, "rb").read()
files["pkg-1.0.dist-info/METADATA"] = b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n\n"
files["pkg-1.0.dist-info/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n"
listed = {**files, **links, **dirs}
rec = "".join("%s,%s,%d\n" % (k, h(v + (b"#" if k == lie else b"")), len(v)) for k, v in listed.items())
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for k, v in files.items():
        z.writestr(k, v)
    for k, v in {**links, **dirs}.items():
        i = zipfile.ZipInfo(k)
        i.create_system = 3
        i.external_attr = ((stat.S_IFLNK | 0o777) if k in links else (stat.S_IFDIR | 0o755)) << 16
        z.writestr(i, v)
    for k, v in unlisted.items():
        z.writestr(k, v)
    z.writestr("pkg-1.0.dist-info/RECORD", rec + "pkg-1.0.dist-info/RECORD,,\n")
PY
# A stand-in patchelf on PATH that counts its runs, then runs the real one.
real_pe=$(command -v patchelf)
mkdir -p pebin
printf '#!/bin/sh\necho run >>"%s/pe.count"\nexec "%s" "$@"\n' "$TMP" "$real_pe" >pebin/patchelf
chmod +x pebin/patchelf
pe_runs() { rm -f "$TMP/pe.count"; "$@"; }
runs() { wc -l <"$TMP/pe.count" | tr -d ' '; }
L="$TMP/deps-ld"

# U1 + U2: a member naming libd1.so.1 101 times (patchelf --add-needed
# repeats it) took 102 patchelf runs (the issue's 2,001 took 14 s); now the member takes two (every
# --replace-needed in one run, the RUNPATH in another), libd1 three
# (soname, needed, RUNPATH), libd2 one.
cp src/libm1.so u2.so
i=0; while [ $i -lt 100 ]; do patchelf --add-needed libd1.so.1 u2.so; i=$((i + 1)); done
[ "$(readelf -d u2.so | grep -c 'Shared library: \[libd1.so.1\]')" = 101 ] || fail "u2.so was not made"
python3 mk.py u2 pkg/lib/libm1.so=u2.so
pe_runs run 0 env PATH="$TMP/pebin:$PATH" LD_LIBRARY_PATH="$L" "$BW" repair u2/$whl -w u2out
[ "$(runs)" = 6 ] || fail "U2: $(runs) patchelf runs for one member and two libraries, not 6"
run 0 "$BW" verify u2out/$whl
pass
# The member needs two vendored libraries: both renamed in its one run.
gcc -shared -fPIC -o u2b.so src/m.c -Wl,--no-as-needed -Ldeps-ld -l:libd1.so.1 -l:libd2.so.3
python3 mk.py u2b pkg/lib/libm1.so=u2b.so
pe_runs run 0 env PATH="$TMP/pebin:$PATH" LD_LIBRARY_PATH="$L" "$BW" repair u2b/$whl -w u2out
[ "$(runs)" = 6 ] || fail "U2: $(runs) patchelf runs, not 6"
rm -rf x && mkdir x && (cd x && python3 -m zipfile -e ../u2out/$whl .)
readelf -d x/pkg/lib/libm1.so >x/m.txt
contains x/m.txt "Shared library: [libd1-$d1.so.1]"
contains x/m.txt "Shared library: [libd2-$d2.so.3]"
contains x/m.txt "Library runpath: [\$ORIGIN/../../pkg.libs]"
pass

# U3: a RUNPATH of one directory 3,000 times is searched once per library
# (the message lists it once); 300 distinct directories are refused.
cp src/libm1.so u3.so
# (a short absolute name: 3,000 of one under $TMP pass the 128 KiB an argument may have)
nope=/bwbuild-t45-nope
patchelf --set-rpath "$(python3 -c "print(':'.join(['$nope'] * 3000))")" u3.so
python3 mk.py u3 pkg/lib/libm1.so=u3.so
run 1 env -u LD_LIBRARY_PATH "$BW" repair u3/$whl -w u3out
contains "$TMP/err" "(looked in $nope, /"
[ "$(grep -o "$nope" "$TMP/err" | wc -l)" = 1 ] || fail "U3: the repeated RUNPATH entry was searched $(grep -o "$nope" "$TMP/err" | wc -l) times"
patchelf --set-rpath "$(python3 -c "print(':'.join('$nope%d' % i for i in range(300)))")" u3.so
python3 mk.py u3 pkg/lib/libm1.so=u3.so
run 1 env LD_LIBRARY_PATH="$L" "$BW" repair u3/$whl -w u3out
contains "$TMP/err" "'pkg/lib/libm1.so' would have libraries looked for in "
contains "$TMP/err" "directories (its RUNPATH, LD_LIBRARY_PATH, ld.so.conf), more than 256: a crafted RUNPATH?"
pass

# U4: a 256 MiB member that needs a vendored library is streamed to the
# scratch file, not held (a stand-in patchelf that edits nothing: the
# figure is bwbuild's own).
cp src/libm1.so u4.so && truncate -s 256M u4.so
python3 mk.py u4 pkg/lib/libm1.so=u4.so
printf '#!/bin/sh\nexit 0\n' >pebin-noop && chmod +x pebin-noop && mkdir -p penoop && mv pebin-noop penoop/patchelf
run 0 env PATH="$TMP/penoop:$PATH" LD_LIBRARY_PATH="$L" python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print("peak %d MB" % peak)
sys.exit(rc or (peak >= 128))' "$BW" repair u4/$whl -w u4out
contains "$TMP/out" "peak "
rm -f u4.so u4out/$whl
pass

# W1: a soname with a '/' is opened by the loader as a path, never looked
# up in a library directory: refused, nothing hashed.
cp src/libm1.so w1.so && patchelf --replace-needed libd1.so.1 ../deps-ld/libd1.so.1 w1.so
python3 mk.py w1 pkg/lib/libm1.so=w1.so
run 1 env LD_LIBRARY_PATH="$L/x" "$BW" repair w1/$whl -w w1out
contains "$TMP/err" "'pkg/lib/libm1.so' needs '../deps-ld/libd1.so.1', which has a '/': the loader opens it as a path, never from a library directory; it is not copied in"
# W2: a soname with an escape byte is refused (it was copied in, exit 0,
# and verify refused the wheel); the message shows the byte escaped.
cp deps-ld/libd1.so.1 "deps-ld/libd1$(printf '\033').so.1"
cp src/libm1.so w2.so && patchelf --replace-needed libd1.so.1 "libd1$(printf '\033').so.1" w2.so
python3 mk.py w2 pkg/lib/libm1.so=w2.so
run 1 env LD_LIBRARY_PATH="$L" "$BW" repair w2/$whl -w w2out
contains "$TMP/err" "needs 'libd1\\x1b.so.1', which has a control byte or a backslash, which no wheel member may have; it is not copied in"
rm -f "deps-ld/libd1$(printf '\033').so.1"
[ ! -e w2out/$whl ] || fail "W2: a wheel was written"
pass

# W3: an ELF without a dynamic section (an object file) first on the path
# is not the library; the loader goes on to the next directory.
mkdir -p w3dir && gcc -c -fPIC -o w3dir/libd1.so.1 src/d1.c
run 0 env LD_LIBRARY_PATH="$TMP/w3dir:$L" "$BW" repair "$whl" -w w3out
contains "$TMP/out" "libd1.so.1: from $L/libd1.so.1 as pkg.libs/libd1-$d1.so.1"
pass

# E1 and W4: repair refuses what verify refuses: a tampered hash, an
# unlisted library, a symbolic link or a directory entry holding ELF bytes.
python3 mk.py e1a pkg/lib/libm1.so=src/libm1.so --lie pkg/lib/libm1.so
python3 mk.py e1b pkg/__init__.py=src/d1.c --unlisted pkg/lib/libm1.so=src/libm1.so
python3 mk.py w4a pkg/__init__.py=src/d1.c --link pkg/lib/libm1.so=src/libm1.so
python3 mk.py w4b pkg/__init__.py=src/d1.c --dir pkg/lib/=src/libm1.so
for w in e1a e1b w4a w4b; do
	run 1 env LD_LIBRARY_PATH="$L" "$BW" repair $w/$whl -w e1out
	contains "$TMP/err" "cannot repair '$w/$whl': it fails verify, and repair does not mend that (run 'bwbuild verify' on it):"
	[ ! -e e1out/$whl ] || fail "$w: repair wrote a wheel"
done
run 1 "$BW" repair e1a/$whl -w e1out
contains "$TMP/err" "'pkg/lib/libm1.so' does not match its sha256 in RECORD (hashes)"
run 1 "$BW" repair w4b/$whl -w e1out
contains "$TMP/err" "'pkg/lib/' is a directory entry holding "
run 1 "$BW" verify w4b/$whl
contains "$TMP/err" "'pkg/lib/' is a directory entry holding "
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
