# Extension wheels against the torch they were built for (verify --against):
# the example wheel stands in for torch (its libminitorch_cpu.so exports
# c10:: symbols as libc10 does); extension libraries are linked against it
# with g++ and packed into wheels, good and hostile.
. "$(dirname "$0")/lib.sh"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$TMP/example/minitorch.git" v2.11.0
cat > "$TMP/t.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: ext-torch
source:
  repo: $TMP/example/minitorch.git
YAML
run 0 "$BW" --profile "$TMP/t.yaml" --work "$TMP/tw" --out "$TMP/tout"
torch=$(sed -n 's/^wheel: *//p' "$TMP/out")
tv=$(basename "$torch" | cut -d- -f2)
mkdir -p "$TMP/torch" "$TMP/ext"
(cd "$TMP/torch" && python3 -m zipfile -e "$torch" .)
lib="$TMP/torch/minitorch/lib"

# The extension's sources: one call into c10::, one symbol this torch does not export.
cat > "$TMP/ext/ext.cc" <<'CC'
#include <string>
namespace c10 { std::string version_tag(); long numel(const long *sizes, int ndim); }
extern "C" long ext_numel(const long *s, int n) { return c10::numel(s, n); }
extern "C" int ext_tag_len() { return (int)c10::version_tag().size(); }
CC
cat > "$TMP/ext/missing.cc" <<'CC'
namespace c10 { long numel(const long *sizes, int ndim); long numel_v2(const long *sizes); }
extern "C" long ext_numel(const long *s, int n) { return c10::numel(s, n) + c10::numel_v2(s); }
CC
printf 'int cudaRuntimeGetVersion(int *v) { *v = 12080; return 0; }\n' > "$TMP/ext/cudart.c"
cc -shared -fPIC -Wl,-soname,libcudart.so.12 -o "$TMP/ext/libcudart.so.12" "$TMP/ext/cudart.c"
ln -sf libcudart.so.12 "$TMP/ext/libcudart.so"
gpp() { g++ -shared -fPIC -o "$@" -L"$lib" -lminitorch_cpu -Wl,--allow-shlib-undefined; }
gpp "$TMP/ext/good.so" "$TMP/ext/ext.cc"
gpp "$TMP/ext/missing.so" "$TMP/ext/missing.cc" -Wl,--unresolved-symbols=ignore-all
gpp "$TMP/ext/oldabi.so" -D_GLIBCXX_USE_CXX11_ABI=0 "$TMP/ext/ext.cc"
gpp "$TMP/ext/cuda12.so" "$TMP/ext/ext.cc" -L"$TMP/ext" -Wl,--no-as-needed -lcudart

# pack NAME LIBRARY REQUIRES [EXTRA_MEMBER]: ext_NAME-1.0 with ext_NAME/_C.so
pack() {
	python3 - "$TMP/ext" "$1" "$2" "$3" "${4:-}" <<'PY'
import base64, hashlib, sys, zipfile
d, name, lib, req, extra = sys.argv[1:]
di = f"ext_{name}-1.0.dist-info"
meta = f"Metadata-Version: 2.1\nName: ext_{name}\nVersion: 1.0\n" + (f"Requires-Dist: {req}\n" if req else "")
files = {f"ext_{name}/_C.so": open(lib, "rb").read(),
         f"{di}/METADATA": meta.encode(),
         f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n"}
if extra:
    files[f"ext_{name}/" + extra.rsplit("/", 1)[1]] = open(extra, "rb").read()
rec = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()},{len(b)}\n"
              for n, b in files.items()) + f"{di}/RECORD,,\n"
with zipfile.ZipFile(f"{d}/ext_{name}-1.0-cp311-cp311-linux_x86_64.whl", "w", zipfile.ZIP_DEFLATED) as z:
    for n, b in files.items():
        z.writestr(n, b)
    z.writestr(f"{di}/RECORD", rec)
PY
	echo "$TMP/ext/ext_$1-1.0-cp311-cp311-linux_x86_64.whl"
}

# Without --against torch's library is unknown: refused as before.
good=$(pack good "$TMP/ext/good.so" "minitorch==$tv")
run 1 "$BW" verify "$good"
contains "$TMP/err" "needs 'libminitorch_cpu.so', which is neither in the wheel nor on the manylinux"
# Against the torch wheel, and against the same torch installed (a directory).
run 0 "$BW" verify "$good" --against "$torch"
mkdir -p "$TMP/site"
(cd "$TMP/site" && python3 -m zipfile -e "$torch" .)
run 0 "$BW" verify "$good" --against "$TMP/site/minitorch"
# ... named with a trailing slash, or through a link: the same torch.
ln -sfn "$TMP/site/minitorch" "$TMP/torch-link"
run 0 "$BW" verify "$good" --against "$TMP/site/minitorch/"
run 0 "$BW" verify "$good" --against "$TMP/torch-link"
# An installed extension directory has no wheel METADATA to hold the pin: refused.
mkdir -p "$TMP/ext-installed" && (cd "$TMP/ext-installed" && python3 -m zipfile -e "$good" .)
run 1 "$BW" verify "$TMP/ext-installed/ext_good" --against "$torch"
contains "$TMP/err" "is a directory: pass the .whl"
# ... and the wheel alone says how to check it.
run 1 "$BW" verify "$good"
contains "$TMP/err" "check it with --against TORCH_WHEEL|site-packages/torch"
# manifest --against: the same verdict, and the torch recorded.
run 0 "$BW" manifest "$good" --against "$torch" -o "$TMP/good.json"
python3 - "$TMP/good.json" "$tv" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["verify"]["ok"], m["verify"]
assert m["torch"]["name"] == "minitorch" and m["torch"]["version"] == sys.argv[2], m["torch"]
PY
run 0 "$BW" manifest "$good" -o "$TMP/alone.json"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert not m["verify"]["ok"] and "torch" not in m' "$TMP/alone.json"
run 2 "$BW" manifest "$good" --against "$TMP/no-such-torch"
contains "$TMP/err" "no-such-torch"

# A loose pin, no pin: the line to add.
loose=$(pack loose "$TMP/ext/good.so" "minitorch>=2.0")
run 1 "$BW" verify "$loose" --against "$torch"
contains "$TMP/err" "METADATA requires 'minitorch>=2.0', not the exact torch its libraries link against; make it 'Requires-Dist: minitorch==$tv'"
nopin=$(pack nopin "$TMP/ext/good.so" "")
run 1 "$BW" verify "$nopin" --against "$torch"
contains "$TMP/err" "METADATA does not require torch; add 'Requires-Dist: minitorch==$tv'"

# A c10:: symbol this torch does not export: the import failure, caught here.
missing=$(pack missing "$TMP/ext/missing.so" "minitorch==$tv")
run 1 "$BW" verify "$missing" --against "$torch"
contains "$TMP/err" "'ext_missing/_C.so' needs '_ZN3c108numel_v2EPKl', which minitorch $tv does not export"

# The old C++ ABI against a CXX11-ABI torch.
old=$(pack oldabi "$TMP/ext/oldabi.so" "minitorch==$tv")
run 1 "$BW" verify "$old" --against "$torch"
contains "$TMP/err" "'ext_oldabi/_C.so' uses the pre-C++11 std::string ABI"

# Another CUDA major than torch's.
c12=$(pack cuda12 "$TMP/ext/cuda12.so" "minitorch==$tv")
run 1 "$BW" verify "$c12" --against "$torch"
contains "$TMP/err" "'ext_cuda12/_C.so' needs 'libcudart.so.12' (CUDA 12), but minitorch $tv is built with CUDA 13.0"

# torch's own library bundled into the extension.
bundled=$(pack bundled "$TMP/ext/good.so" "minitorch==$tv" "$lib/libminitorch_cpu.so")
run 1 "$BW" verify "$bundled" --against "$torch"
contains "$TMP/err" "'ext_bundled/libminitorch_cpu.so' bundles torch's own 'libminitorch_cpu.so'"

# --against something that is no package at all.
run 2 "$BW" verify "$good" --against "$TMP/nothing.whl"
