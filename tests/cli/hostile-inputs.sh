# Small hostile inputs end at once with a clear error (exit 2), in bounded
# memory: an alias bomb, deep nesting, /dev/zero, a FIFO, a manifest that
# is no manifest. Each runs under a 2 GB address-space limit and 20 s
# (under ASan: 1 GB of resident memory and 120 s).
. "$(dirname "$0")/lib.sh"
if [ -n "$ASAN_BUILD" ]; then
	# ASan reserves terabytes of address space, so no ulimit -v: the peak
	# resident set is measured instead (ASan's shadow and quarantine allowed).
	skip "ASan build: no 2 GB address-space limit (ulimit -v), ASan reserves terabytes of shadow; the peak resident set (under 1 GB) is checked instead"
	bounded() {
		want=$1
		shift
		run "$want" python3 -c '
import resource, subprocess, sys
try:
    rc = subprocess.run(sys.argv[1:], timeout=120).returncode
except subprocess.TimeoutExpired:
    rc = 124
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
if peak >= 1024:
    sys.stderr.write("peak resident set %d MB\n" % peak)
    rc = 99
sys.exit(rc if rc >= 0 else 128 - rc)' "$@"
	}
else
	bounded() { want=$1; shift; run "$want" sh -c 'ulimit -v 2000000; exec timeout 20 "$@"' sh "$@"; }
fi
python3 - "$TMP" <<'PY'
import sys
d = sys.argv[1]
lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
for i in range(1, 9):
    p, c = chr(ord('a') + i - 1), chr(ord('a') + i)
    lines.append(f'{c}: &{c} [' + ','.join(['*' + p] * 9) + ']')
open(d + '/bomb.yaml', 'w').write('\n'.join(lines) + '\n')
open(d + '/deep.yaml', 'w').write('x: ' + '[' * 100000 + ']' * 100000 + '\n')
open(d + '/empty-object.json', 'w').write('{}')
open(d + '/array.json', 'w').write('[]')
open(d + '/string.json', 'w').write('"str"')
open(d + '/bare.json', 'w').write('{"schema": "bwbuild-manifest/1"}')
PY
bounded 2 "$BW" plan --profile "$TMP/bomb.yaml"
contains "$TMP/err" "bomb.yaml:1:20: error: more than 10000 values once aliases are expanded"
bounded 2 "$BW" plan --profile "$TMP/deep.yaml"
contains "$TMP/err" "deep.yaml:1:67: error: nested deeper than 64 levels"
mkdir -p "$TMP/pp"
cp "$TMP/bomb.yaml" "$TMP/pp/bomb.yaml"
BWBUILD_PROFILE_PATH="$TMP/pp" bounded 0 "$BW" profiles
contains "$TMP/out" "bomb             (invalid"
bounded 2 "$BW" plan --profile /dev/zero
contains "$TMP/err" "'/dev/zero' is not a regular file"
bounded 2 "$BW" manifest /dev/zero
bounded 2 "$BW" diff /dev/zero /dev/zero
mkfifo "$TMP/fifo.whl"
bounded 2 "$BW" verify "$TMP/fifo.whl"
contains "$TMP/err" "not a regular file"
for j in empty-object array string; do
	bounded 2 "$BW" manifest "$TMP/$j.json"
	contains "$TMP/err" "is not a bwbuild manifest"
done
bounded 0 "$BW" manifest "$TMP/bare.json" --format md
if grep -q "(null)" "$TMP/out"; then fail "Markdown of a sparse manifest shows (null)"; fi
# A manifest with bytes after its value, or a member of the wrong type, is
# refused: diff took the first value and read features [] as none (issue 40, W10).
printf '{"schema": "bwbuild-manifest/1"}\n{"features": {"cuda": true}}\n' >"$TMP/trailing.json"
printf '{"schema": "bwbuild-manifest/1", "features": ["cuda"]}' >"$TMP/features-array.json"
printf '{"schema": "bwbuild-manifest/1", "features": {"cuda": "yes"}}' >"$TMP/features-string.json"
printf '{"schema": "bwbuild-manifest/1", "libraries": {}}' >"$TMP/libraries-object.json"
bounded 2 "$BW" diff "$TMP/bare.json" "$TMP/trailing.json"
contains "$TMP/err" "error: '$TMP/trailing.json' is not a manifest: trailing bytes after the JSON value, at byte 33"
bounded 2 "$BW" diff "$TMP/bare.json" "$TMP/features-array.json"
contains "$TMP/err" "error: '$TMP/features-array.json' is not a bwbuild manifest: 'features' is an array, not an object"
bounded 2 "$BW" diff "$TMP/features-string.json" "$TMP/bare.json"
contains "$TMP/err" "error: '$TMP/features-string.json' is not a bwbuild manifest: 'features.cuda' is a string, not true or false"
bounded 2 "$BW" manifest "$TMP/libraries-object.json"
contains "$TMP/err" "error: '$TMP/libraries-object.json' is not a bwbuild manifest: 'libraries' is an object, not an array"
# A wheel cut to half while it is mapped: SIGBUS is reported, not a crash (135).
python3 -c 'import os, sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").writestr("big/data.bin", os.urandom(100000))' "$TMP/shrinking.whl"
size=$(stat -c %s "$TMP/shrinking.whl")
[ "$size" -gt 16384 ] || fail "the test wheel is too small to leave a page past its end"
BWBUILD_FAULT=truncate:zip-mapped bounded 1 "$BW" verify "$TMP/shrinking.whl"
contains "$TMP/err" "error: '$TMP/shrinking.whl' changed while being read (it is $((size / 2)) bytes now, was $size); run verify again when it is complete"
# Names from a wheel reach the terminal escaped (issue 31): a member named
# with a newline and escape sequences cannot forge a line of bwbuild's own
# ("verify: OK all good") nor retitle or clear the terminal.
python3 - "$TMP/names.whl" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("t-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("t/x\nverify: OK all good\x1b]0;owned\x07\x1b[2J.py", "x = 1\n")
    z.writestr("t-1.0.dist-info/RECORD", "t-1.0.dist-info/RECORD,,\n")
PY
bounded 1 "$BW" verify "$TMP/names.whl"
contains "$TMP/err" "verify: OK all good\\x1b]0;owned\\x07\\x1b[2J.py"
if grep -q '^verify: OK' "$TMP/err" "$TMP/out"; then fail "a member's name forged a line: $(cat "$TMP/err")"; fi
if grep -q "$(printf '\033')" "$TMP/err" "$TMP/out"; then fail "an escape sequence from a member's name reached the terminal"; fi

# A junk SOURCE_DATE_EPOCH stops a build before it starts, named (issue 40,
# W11): it was taken as 0 by the repack, after the configure and compile.
rm -rf "$TMP/w11src" "$TMP/w11w"
cp -r tests/fixtures/minitorch "$TMP/w11src"
bounded 2 env SOURCE_DATE_EPOCH=junk "$BW" --profile profiles/demo.yaml --source "$TMP/w11src" \
	--work "$TMP/w11w" --out "$TMP/w11o"
contains "$TMP/err" "error: SOURCE_DATE_EPOCH is 'junk', not a number of seconds since 1970 (0 to 253402300799)"
[ ! -e "$TMP/w11w" ] || fail "a build under a junk SOURCE_DATE_EPOCH made its work directory"
pass
