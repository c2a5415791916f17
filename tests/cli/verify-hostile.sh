# Good wheels verify clean; each hostile wheel is rejected naming its rule.
. "$(dirname "$0")/lib.sh"
need_wheels
for w in "$TMP"/wheels/good/*.whl; do
	run 0 "$BW" verify --deep "$w"
	contains "$TMP/out" "ok: "
done
n=0
for d in "$TMP"/wheels/bad/*/; do
	rule=$(cat "$d/rule")
	# args are words written by make_wheels.py, their paths relative to the case
	# shellcheck disable=SC2046
	(cd "$d" && run 1 "$BW" verify "$d"*.whl $(cat "$d/args"))
	contains "$TMP/err" "$rule"
	contains "$TMP/out" "FAILED: "
	n=$((n + 1))
done
[ "$n" -ge 40 ] || fail "only $n hostile wheels"
bad=$TMP/wheels/bad
run 1 "$BW" verify "$bad/hashes/tiny-1.0-py3-none-any.whl"
contains "$TMP/err" "error: 'tiny/__init__.py' does not match its sha256 in RECORD (hashes)"
run 1 "$BW" verify "$bad/record-unlisted/tiny-1.0-py3-none-any.whl"
contains "$TMP/err" "error: 'tiny/unlisted.py' is in the archive but not in RECORD (RECORD)"
# A name holding a bidi control is refused, and shown escaped (issue 40, F4).
run 1 "$BW" verify "$bad/names-bidi/tiny-1.0-py3-none-any.whl"
contains "$TMP/err" "error: member name with an invisible or bidi character U+202E: 'tiny/gpj.\\u202eyp.py' (names)"
run 1 "$BW" verify "$bad/needed/plat-1.0-cp311-cp311-linux_x86_64.whl"
contains "$TMP/err" "error: 'plat/lib/libneed.so' needs 'libfoo.so', which is neither in the wheel nor on the manylinux or CUDA allow-lists (needed)"
run 1 "$BW" verify "$bad/runpath/plat-1.0-cp311-cp311-linux_x86_64.whl"
contains "$TMP/err" "error: 'plat/lib/librp.so' has RUNPATH entry '/home/builder/pytorch/build/lib', a path on the build machine; use \$ORIGIN-relative entries (runpath)"
run 1 "$BW" verify "$bad/manylinux/plat-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
contains "$TMP/err" "so it satisfies manylinux_2_3"
contains "$TMP/err" "yet the wheel claims 'manylinux_2_17_x86_64'; build it on an older glibc (manylinux)"
run 1 "$BW" verify "$bad/platform/plat-1.0-cp311-cp311-linux_aarch64.whl"
contains "$TMP/err" "'plat/lib/k.so' is built for x86-64, but the platform tag 'linux_aarch64' is for aarch64 (platform)"
# aarch64 (issue 44): the tags each arch has, the libc, the extension's suffix.
run 1 "$BW" verify "$bad/platform-suffix/plat-1.0-cp311-cp311-linux_aarch64.whl"
contains "$TMP/err" "error: 'plat/_ext.cpython-311-x86_64-linux-gnu.so' is named for CPython on x86_64, but the platform tag is 'linux_aarch64': CPython on aarch64 does not import it; build it with CPython on aarch64 (platform)"
run 1 "$BW" verify "$bad/platform-manylinux1/plat-1.0-cp311-cp311-manylinux1_aarch64.whl"
contains "$TMP/err" "error: the platform tag 'manylinux1_aarch64' names no policy: aarch64 wheels start at manylinux_2_17 (manylinux2014); manylinux1 and manylinux2010 are x86_64 and i686 only (platform)"
grep -q "older glibc" "$TMP/err" && fail "manylinux1_aarch64 judged as a glibc too new"
run 1 "$BW" verify "$bad/platform-armv7l/plat-1.0-cp311-cp311-linux_armv7l.whl"
contains "$TMP/err" "error: 'plat/lib/k.so' is built for aarch64, but the platform tag 'linux_armv7l' is for arm (platform)"
run 1 "$BW" verify "$bad/platform-musl/plat-1.0-cp311-cp311-musllinux_1_2_aarch64.whl"
contains "$TMP/err" "the platform tag 'musllinux_1_2_aarch64' is for musl systems, which cannot load it; tag it manylinux (platform)"
run 1 "$BW" verify --deep "$bad/deep/plat-1.0-cp311-cp311-linux_x86_64.whl"
contains "$TMP/err" "entry says sm_120 but its cubin is built for sm_121 (deep)"
run 0 "$BW" verify --deep --threads 1 "$TMP/wheels/good/plat-1.0-cp311-cp311-linux_x86_64.whl"
contains "$TMP/out" "plat/lib/k.so: manylinux_2_17; SASS sm_80 sm_120; PTX compute_120 [5 entries decompressed and checked]"
printf 'not a zip' > "$TMP/junk.whl"
# A file that is no zip failed the check (1); usage errors are 2.
run 1 "$BW" verify "$TMP/junk.whl"
contains "$TMP/err" "is not a valid zip file"

# A member over 32 MiB is hashed on a second thread while it inflates (the
# pipe in src/wheel/verify_members.c): a wrong hash, a damaged stream and a good one.
python3 - "$TMP" <<'PY'
import base64, hashlib, os, random, sys, zipfile
top = sys.argv[1]
rng = random.Random(7)
big = bytes(rng.getrandbits(8) for _ in range(1 << 16)) * 600 + b"tail"
def digest(d):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
for name, record_data in (("good", big), ("badhash", big[:-1] + b"X")):
    w = "%s/big%s-1.0-py3-none-any.whl" % (top, name)
    with zipfile.ZipFile(w, "w", zipfile.ZIP_DEFLATED) as z:
        di = "big%s-1.0.dist-info" % name
        files = {"big/data.bin": big, di + "/METADATA": b"Metadata-Version: 2.1\nName: big\nVersion: 1.0\n",
                 di + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
        rec = []
        for n, d in files.items():
            z.writestr(n, d)
            rec.append("%s,%s,%d" % (n, digest(record_data if n == "big/data.bin" else d), len(d)))
        z.writestr(di + "/RECORD", "\n".join(rec + [di + "/RECORD,,"]) + "\n")
# A damaged stream: flip bytes in the middle of the big member's data.
src = "%s/biggood-1.0-py3-none-any.whl" % top
data = bytearray(open(src, "rb").read())
zi = zipfile.ZipFile(src).getinfo("big/data.bin")
mid = zi.header_offset + 30 + len(zi.filename) + zi.compress_size // 2
data[mid:mid + 64] = bytes(64)
open("%s/bigbroken-1.0-py3-none-any.whl" % top, "wb").write(data)
PY
run 0 "$BW" verify "$TMP/biggood-1.0-py3-none-any.whl"
run 1 "$BW" verify "$TMP/bigbadhash-1.0-py3-none-any.whl"
contains "$TMP/err" "'big/data.bin' does not match its sha256 in RECORD (hashes)"
run 1 "$BW" verify "$TMP/bigbroken-1.0-py3-none-any.whl"
contains "$TMP/err" "big/data.bin"

# RECORD rows are quoted cut to their first 200 bytes (issue 31): a 100 KB
# path, hash or size was printed whole, into the manifest's errors too.
python3 - "$TMP/longrow-1.0-py3-none-any.whl" <<'PY'
import sys, zipfile
long = "x" * 102400
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("longrow-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("longrow/__init__.py", "")
    z.writestr("longrow-1.0.dist-info/RECORD", "\n".join([
        "longrow/%s.py,sha256=x,1" % long,
        "longrow/__init__.py,%s,0" % long,
        "longrow-1.0.dist-info/WHEEL,sha256=x,%s" % ("9" * 102400),
        "longrow-1.0.dist-info/RECORD,,"]) + "\n")
PY
run 1 "$BW" verify "$TMP/longrow-1.0-py3-none-any.whl"
x=$(printf '%200s' '' | tr ' ' x)
contains "$TMP/err" "lists 'longrow/${x%????????}…(102411 bytes)', which is not in the archive (RECORD)"
contains "$TMP/err" "hash '$x…(102400 bytes)' of 'longrow/__init__.py' is not algo=digest (hashes)"
contains "$TMP/err" "size '$(echo "$x" | tr x 9)…(102400 bytes)' of 'longrow-1.0.dist-info/WHEEL' is not a number"
[ "$(wc -c < "$TMP/err")" -lt 4000 ] || fail "RECORD's rows were quoted whole: $(wc -c < "$TMP/err") bytes of messages"
run 0 "$BW" manifest "$TMP/longrow-1.0-py3-none-any.whl"
[ "$(wc -c < "$TMP/out")" -lt 20000 ] || fail "the manifest's errors quote RECORD's rows whole: $(wc -c < "$TMP/out") bytes"
