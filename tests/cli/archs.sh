# bwbuild archs: per library SASS and PTX with entry counts, relocatable code
# apart, from files, directories and wheels alike. Libraries are made here
# with nvcc, so the counts are known.
. "$(dirname "$0")/lib.sh"
NVCC=/usr/local/cuda/bin/nvcc
d="$TMP/pkg/lib"
mkdir -p "$d" "$TMP/src"
for n in 1 2; do
	printf '__global__ void k%s(float *p) { p[threadIdx.x] *= %s.0f; }\nvoid launch%s(float *p) { k%s<<<1, 32>>>(p); }\n' \
		"$n" "$n" "$n" "$n" > "$TMP/src/k$n.cu"
done
# Two translation units, each with sm_80, sm_120 and compute_120: two containers.
for n in 1 2; do
	"$NVCC" -c -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 \
		-gencode 'arch=compute_120,code=[sm_120,compute_120]' "$TMP/src/k$n.cu" -o "$TMP/src/k$n.o"
done
cc -shared "$TMP/src/k1.o" "$TMP/src/k2.o" -o "$d/libtwo.so"
# Relocatable device code: __nv_relfatbin beside the linked .nv_fatbin.
"$NVCC" -rdc=true -shared -Xcompiler -fPIC -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_120,code=compute_120 "$TMP/src/k1.cu" -o "$d/librdc.so.1"
printf 'int f(void) { return 1; }\n' > "$TMP/src/c.c"
cc -shared -fPIC "$TMP/src/c.c" -o "$d/libcpu.so"
"$NVCC" -fatbin -gencode arch=compute_100,code=sm_100a "$TMP/src/k1.cu" -o "$TMP/k.fatbin"
ln -s .. "$d/loop"
echo "not a library" > "$d/libnotes.so"

run 0 "$BW" archs "$d/libtwo.so"
contains "$TMP/out" "$d/libtwo.so: 2 containers"
contains "$TMP/out" "  SASS sm_80 (2)  sm_120 (2)"
contains "$TMP/out" "  PTX  compute_120 (2)"
run 0 "$BW" archs "$TMP/pkg" --all
contains "$TMP/out" "$d/librdc.so.1: 1 container"
contains "$TMP/out" "  relocatable (1 container): SASS sm_90 (1); PTX compute_120 (1)"
contains "$TMP/out" "$d/libcpu.so: no CUDA code"
contains "$TMP/out" "2 of 3 ELF files carry CUDA code; SASS sm_80 sm_90 sm_120; PTX compute_120"
run 0 "$BW" archs "$TMP/k.fatbin"
contains "$TMP/out" "  SASS sm_100a (1)"

# The same libraries inside a wheel: the same sets and counts.
(cd "$TMP" && python3 -m zipfile -c "$TMP/pkg-1.0-py3-none-linux_x86_64.whl" pkg)
run 0 "$BW" archs --json "$TMP/pkg-1.0-py3-none-linux_x86_64.whl"
cp "$TMP/out" "$TMP/wheel.json"
run 0 "$BW" archs "$TMP/pkg" --json --threads 1
python3 - "$TMP/wheel.json" "$TMP/out" <<'PY'
import json, sys
w, d = (json.load(open(p)) for p in sys.argv[1:])
strip = lambda libs: {l["path"].split("/")[-1]: (l["containers"], l["sass"], l["ptx"], l["relocatable"]) for l in libs}
assert strip(w["libraries"]) == strip(d["libraries"]), (w, d)
two = strip(d["libraries"])["libtwo.so"]
assert two == (2, {"sm_80": 2, "sm_120": 2}, {"compute_120": 2}, {"containers": 0, "sass": {}, "ptx": {}}), two
rdc = strip(d["libraries"])["librdc.so.1"]
assert rdc[3] == {"containers": 1, "sass": {"sm_90": 1}, "ptx": {"compute_120": 1}}, rdc
assert d["sass"] == ["sm_80", "sm_90", "sm_120"] and d["ptx"] == ["compute_120"], d
assert d["elf_files"] == 3, d
PY

# A file named on the command line that is no library fails; no path is usage.
run 1 "$BW" archs "$d/libnotes.so"
contains "$TMP/err" "error: '$d/libnotes.so': not an ELF file or a fatbin"
run 2 "$BW" archs "$TMP/nothing-here"
contains "$TMP/err" "error: cannot read '$TMP/nothing-here': No such file or directory"
run 2 "$BW" archs
contains "$TMP/err" "no path given"
