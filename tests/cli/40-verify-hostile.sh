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
	# shellcheck disable=SC2046 # args are words written by make_wheels.py
	run 1 "$BW" verify "$d"*.whl $(cat "$d/args")
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
run 1 "$BW" verify "$bad/needed/plat-1.0-cp311-cp311-linux_x86_64.whl"
contains "$TMP/err" "error: 'plat/lib/libneed.so' needs 'libfoo.so', which is neither in the wheel nor on the manylinux or CUDA allow-lists (needed)"
run 1 "$BW" verify "$bad/runpath/plat-1.0-cp311-cp311-linux_x86_64.whl"
contains "$TMP/err" "error: 'plat/lib/librp.so' has RUNPATH entry '/home/builder/pytorch/build/lib', a path on the build machine; use \$ORIGIN-relative entries (runpath)"
run 1 "$BW" verify "$bad/manylinux/plat-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
contains "$TMP/err" "so it satisfies manylinux_2_3"
contains "$TMP/err" "yet the wheel claims 'manylinux_2_17_x86_64'; build it on an older glibc (manylinux)"
run 1 "$BW" verify "$bad/platform/plat-1.0-cp311-cp311-linux_aarch64.whl"
contains "$TMP/err" "'plat/lib/k.so' is built for ELF machine 62, but the platform tag is 'linux_aarch64' (platform)"
run 1 "$BW" verify --deep "$bad/deep/plat-1.0-cp311-cp311-linux_x86_64.whl"
contains "$TMP/err" "entry says sm_120 but its cubin is built for sm_121 (deep)"
run 0 "$BW" verify --deep --threads 1 "$TMP/wheels/good/plat-1.0-cp311-cp311-linux_x86_64.whl"
contains "$TMP/out" "plat/lib/k.so: manylinux_2_17; SASS sm_80 sm_120; PTX compute_120 [5 entries decompressed and checked]"
printf 'not a zip' > "$TMP/junk.whl"
# A file that is no zip failed the check (1); usage errors are 2.
run 1 "$BW" verify "$TMP/junk.whl"
contains "$TMP/err" "is not a valid zip file"
