# CUDA's own libraries in a wheel, the three forms (src/wheel/cudalibs.c,
# `bwbuild repair --cuda-libs`, verify): a library linked against CUDA 13's
# libcudart.so.13 and cuDNN's libcudnn.so.9, as libtorch_cuda.so is, with the
# build machine's absolute RUNPATH. The pip form, as PyTorch's own wheels:
# Requires-Dist on the package each comes from (read from its dist-info,
# pinned exactly) and a RUNPATH into site-packages/nvidia/<dir>/lib, so the
# library loads once pip put the packages beside it; verify refuses a wheel
# half in that form, and an installed one whose package is missing. The
# vendor form copies them in under their own sonames, with the cuDNN
# sub-library cuDNN dlopens. The system form leaves them to the machine.
# The stand-in libraries and dist-info trees are made here with gcc.
. "$(dirname "$0")/lib.sh"
command -v patchelf >/dev/null || { skip "patchelf is not installed (scripts/deps.sh installs it)"; exit 0; }
cd "$TMP"
# The build machine: CUDA from NVIDIA's pip packages, in a venv's site-packages.
site=$TMP/venv/lib/python3.11/site-packages
mkdir -p "$site/nvidia/cu13/lib" "$site/nvidia/cudnn/lib" src
printf 'int cudart_v(void) { return 13000; }\n' >src/rt.c
printf 'int cudnn_v(void) { return 91900; }\n' >src/dnn.c
printf 'int ops_v(void) { return 9; }\n' >src/ops.c
printf 'int cudart_v(void);\nint cudnn_v(void);\nint answer(void) { return cudart_v() + cudnn_v(); }\n' >src/m.c
gcc -shared -fPIC -o "$site/nvidia/cu13/lib/libcudart.so.13" -Wl,-soname,libcudart.so.13 src/rt.c
gcc -shared -fPIC -o "$site/nvidia/cudnn/lib/libcudnn.so.9" -Wl,-soname,libcudnn.so.9 src/dnn.c
gcc -shared -fPIC -o "$site/nvidia/cudnn/lib/libcudnn_ops.so.9" -Wl,-soname,libcudnn_ops.so.9 src/ops.c
ln -s libcudnn_ops.so.9 "$site/nvidia/cudnn/lib/libcudnn_ops.so"
# A sibling whose name is no CUDA library's own (NVRTC's libnvrtc-builtins.alt.so.13.0 is one):
# dlopened by that name, so it keeps it.
gcc -shared -fPIC -o "$site/nvidia/cudnn/lib/libcudnn_engines.alt.so.9" -Wl,-soname,libcudnn_engines.alt.so.9 src/ops.c
gcc -shared -fPIC -o src/libm1.so src/m.c -L"$site/nvidia/cu13/lib" -L"$site/nvidia/cudnn/lib" \
	-l:libcudart.so.13 -l:libcudnn.so.9 \
	-Wl,-rpath,"\$ORIGIN:$site/nvidia/cu13/lib:$site/nvidia/cudnn/lib"
# What pip wrote: a RECORD naming each library (one of them with no dist-info: NVIDIA's naming).
distinfo() { # NAME-VERSION FILE...
	d="$site/$1.dist-info"
	shift
	mkdir -p "$d"
	for f in "$@"; do printf '%s,sha256=x,1\n' "$f"; done >"$d/RECORD"
}
distinfo nvidia_cuda_runtime-13.0.96 nvidia/cu13/include/cuda.h nvidia/cu13/lib/libcudart.so.13
distinfo nvidia_cudnn_cu13-9.19.0.56 nvidia/cudnn/lib/libcudnn.so.9 nvidia/cudnn/lib/libcudnn_ops.so.9
python3 - <<'PY'
import base64, hashlib, zipfile
def h(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
def wheel(path, meta, lib):
    files = {
        "pkg/__init__.py": b"",
        "pkg/lib/libm1.so": open(lib, "rb").read(),
        "pkg-1.0.dist-info/METADATA": meta,
        "pkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n",
    }
    rec = "".join("%s,%s,%d\n" % (k, h(v), len(v)) for k, v in files.items()) + "pkg-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in files.items():
            z.writestr(k, v)
        z.writestr("pkg-1.0.dist-info/RECORD", rec)
wheel("pkg-1.0-cp311-cp311-linux_x86_64.whl",
      b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\nRequires-Dist: numpy\n\nA package.\nRequires-Dist: not-a-header\n", "src/libm1.so")
PY
whl=pkg-1.0-cp311-cp311-linux_x86_64.whl

# As built: the build machine's RUNPATH is refused, CUDA's libraries said to come from the machine.
run 1 "$BW" verify "$whl"
contains "$TMP/err" "has RUNPATH entry '$site/nvidia/cu13/lib', a path on the build machine"
contains "$TMP/err" "note: CUDA's libraries come from the machine the wheel is installed on (no Requires-Dist on NVIDIA's packages, no RUNPATH into site-packages/nvidia): libcudart.so.13, libcudnn.so.9"

# The pip form (the default): the packages from their dist-info, pinned exactly.
run 0 env -u LD_LIBRARY_PATH "$BW" repair "$whl" -w pip --require 'triton==3.2.0; platform_system == "Linux"'
contains "$TMP/out" "libcudart.so.13: Requires-Dist nvidia-cuda-runtime==13.0.96; platform_system == \"Linux\", RUNPATH into nvidia/cu13/lib ($site/nvidia_cuda_runtime-13.0.96.dist-info)"
contains "$TMP/out" "libcudnn.so.9: Requires-Dist nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\", RUNPATH into nvidia/cudnn/lib"
contains "$TMP/out" "Requires-Dist triton==3.2.0; platform_system == \"Linux\""
run 0 "$BW" verify "pip/$whl"
rm -rf x && mkdir x && (cd x && python3 -m zipfile -e "../pip/$whl" .)
readelf -d x/pkg/lib/libm1.so >x/m.txt
contains x/m.txt "Library runpath: [\$ORIGIN:\$ORIGIN/../../nvidia/cu13/lib:\$ORIGIN/../../nvidia/cudnn/lib]"
contains x/m.txt "Shared library: [libcudart.so.13]"
contains x/pkg-1.0.dist-info/METADATA "Requires-Dist: numpy"
contains x/pkg-1.0.dist-info/METADATA "Requires-Dist: nvidia-cuda-runtime==13.0.96; platform_system == \"Linux\""
contains x/pkg-1.0.dist-info/METADATA "Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\""
contains x/pkg-1.0.dist-info/METADATA "Requires-Dist: triton==3.2.0; platform_system == \"Linux\""
# The headers end at the blank line: the requirements go there, the description keeps its text.
awk 'NF==0{exit} /^Requires-Dist/{n++} END{exit n!=4}' x/pkg-1.0.dist-info/METADATA || fail "the requirements are not all among METADATA's headers"
tail -n 1 x/pkg-1.0.dist-info/METADATA | grep -qx 'Requires-Dist: not-a-header' || fail "the description changed"
pass

# Installed the pip way: the package beside NVIDIA's, the library loads with
# nothing on LD_LIBRARY_PATH, from the packages' directories; verify of the
# installed package proves each resolves.
inst=$TMP/inst/site-packages
mkdir -p "$inst"
(cd "$inst" && python3 -m zipfile -e "$TMP/pip/$whl" .)
cp -r "$site/nvidia" "$inst/"
mv "$site/nvidia" "$site/nvidia.gone"
got=$(env -u LD_LIBRARY_PATH python3 -c "import ctypes; print(ctypes.CDLL('$inst/pkg/lib/libm1.so').answer())")
[ "$got" = 104900 ] || fail "the installed library returned '$got', not 104900"
pass
run 0 "$BW" verify "$inst/pkg"
rm -rf "$inst/nvidia/cudnn"
run 1 "$BW" verify "$inst/pkg"
contains "$TMP/err" "'pkg/lib/libm1.so' needs 'libcudnn.so.9', which is not installed at $inst/nvidia/cudnn/lib/libcudnn.so.9; pip install nvidia-cudnn-cu13 for it (cuda libs)"
mv "$site/nvidia.gone" "$site/nvidia"

# Half the pip form is refused: a RUNPATH into nvidia/ with nothing that installs it.
python3 - "$TMP" <<'PY'
import sys, zipfile, base64, hashlib
t = sys.argv[1]
src = zipfile.ZipFile(t + "/pip/pkg-1.0-cp311-cp311-linux_x86_64.whl")
def h(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
files = {n: src.read(n) for n in src.namelist() if not n.endswith("RECORD")}
files["pkg-1.0.dist-info/METADATA"] = b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n\n"
rec = "".join("%s,%s,%d\n" % (k, h(v), len(v)) for k, v in files.items()) + "pkg-1.0.dist-info/RECORD,,\n"
import os
os.makedirs(t + "/halfin", exist_ok=True)
with zipfile.ZipFile(t + "/halfin/pkg-1.0-cp311-cp311-linux_x86_64.whl", "w") as z:
    for k, v in files.items():
        z.writestr(k, v)
    z.writestr("pkg-1.0.dist-info/RECORD", rec)
PY
run 1 "$BW" verify "halfin/$whl"
contains "$TMP/err" "'pkg/lib/libm1.so' finds 'libcudart.so.13' in site-packages/nvidia/cu13/lib, but METADATA requires no nvidia-cuda-runtime to put it there; repair it with 'bwbuild repair --cuda-libs pip' (cuda libs)"
# ... and repair mends it.
run 0 "$BW" repair "halfin/$whl" -w half
run 0 "$BW" verify "half/$whl"

# With no dist-info, NVIDIA's naming, pinned to the soname's major.
rm -rf "$site/nvidia_cudnn_cu13-9.19.0.56.dist-info"
run 0 env -u LD_LIBRARY_PATH "$BW" repair "$whl" -w named
contains "$TMP/out" "libcudnn.so.9: Requires-Dist nvidia-cudnn-cu13>=9,<10; platform_system == \"Linux\", RUNPATH into nvidia/cudnn/lib (NVIDIA's naming)"
distinfo nvidia_cudnn_cu13-9.19.0.56 nvidia/cudnn/lib/libcudnn.so.9 nvidia/cudnn/lib/libcudnn_ops.so.9

# The vendor form: copied in under their own sonames, with what cuDNN dlopens.
run 0 env -u LD_LIBRARY_PATH "$BW" repair "$whl" -w vendor --cuda-libs vendor
contains "$TMP/out" "libcudart.so.13: from $site/nvidia/cu13/lib/libcudart.so.13 as pkg.libs/libcudart.so.13"
contains "$TMP/out" "libcudnn_ops.so.9: from $site/nvidia/cudnn/lib/libcudnn_ops.so.9 as pkg.libs/libcudnn_ops.so.9"
contains "$TMP/out" "libcudnn_engines.alt.so.9: from $site/nvidia/cudnn/lib/libcudnn_engines.alt.so.9 as pkg.libs/libcudnn_engines.alt.so.9"
run 0 "$BW" verify "vendor/$whl"
rm -rf v && mkdir v && (cd v && python3 -m zipfile -e "../vendor/$whl" .)
[ ! -e v/pkg.libs/libcudnn_ops.so ] || fail "the development link was vendored"
grep -q nvidia v/pkg-1.0.dist-info/METADATA && fail "the vendor form declared NVIDIA's packages"
mv "$site/nvidia" "$site/nvidia.gone"
got=$(env -u LD_LIBRARY_PATH python3 -c "import ctypes; print(ctypes.CDLL('v/pkg/lib/libm1.so').answer())")
mv "$site/nvidia.gone" "$site/nvidia"
[ "$got" = 104900 ] || fail "the vendored library returned '$got', not 104900"
pass

# The system form: the build machine's RUNPATH goes, nothing is declared.
run 0 env -u LD_LIBRARY_PATH "$BW" repair "$whl" -w system --cuda-libs system
run 0 "$BW" verify "system/$whl"
contains "$TMP/err" "note: CUDA's libraries come from the machine the wheel is installed on"
rm -rf s && mkdir s && (cd s && python3 -m zipfile -e "../system/$whl" .)
readelf -d s/pkg/lib/libm1.so >s/m.txt
contains s/m.txt "Library runpath: [\$ORIGIN]"
run 2 "$BW" repair "$whl" -w bad --cuda-libs copy
contains "$TMP/err" "--cuda-libs is pip, vendor or system, not 'copy'"

# smoke of the pip form: the private install gets the interpreter's nvidia/
# beside the package, as pip would have it, so the library loads.
python3 -m venv --without-pip "$TMP/py" || { skip "python3 -m venv is missing"; exit 0; }
pysite=$("$TMP/py/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cp -r "$site/nvidia" "$pysite/"
mkdir -p probes
cat >probes/smoke-pkg.py <<'PY'
import ctypes, json, os
def say(**kw):
    print("@bwbuild " + json.dumps(kw), flush=True)
say(start="import")
lib = os.path.join(os.environ["BWBUILD_SMOKE_SITE"], "pkg", "lib", "libm1.so")
say(check="import", status="ok", reason="answer %d" % ctypes.CDLL(lib).answer())
PY
mv "$site/nvidia" "$site/nvidia.gone"
mkdir -p "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" BWBUILD_PROBE_PATH="$TMP/probes" run 0 "$BW" smoke "pip/$whl" --python "$TMP/py/bin/python"
contains "$TMP/out" "answer 104900"
contains "$TMP/err" "NVIDIA's packages from $pysite/nvidia beside the private install"
[ -z "$(ls "$TMP/tmpdir")" ] || fail "smoke left its private install behind"
[ -f "$pysite/nvidia/cu13/lib/libcudart.so.13" ] || fail "removing the private install reached into the interpreter's nvidia/"
mv "$site/nvidia.gone" "$site/nvidia"
