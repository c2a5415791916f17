#!/bin/sh
# cuda-prove.sh KIT WORK: the wheel tools/device/cuda-build.sh published in
# WORK-run/dist, proven on this machine's GPUs (from the repository's root):
#  1. installed the pip way into a clean environment (/tmp/env26: a venv
#     with pip's --no-deps --no-index install of the wheel alone), beside
#     the machine's nvidia-* packages (its nvidia/ linked in, as pip would
#     have put them there) and with /opt/torch/.venv's pure-Python
#     dependencies on a .pth line after the venv's own (its torch 2.11 is
#     shadowed by ours); the loader's answer for each CUDA library
#     (ldd of libtorch_cuda.so) and `bwbuild verify` of the installed torch;
#  2. `bwbuild smoke --gpu all` of it (every GPU, then NCCL across them)
#     into the wheel's manifest, and the machine's stock torch on GPU 0
#     the same way, for `bwbuild diff`;
#  3. a slice of v2.6.0's own CUDA tests from the bundle's test/, run as
#     its scripts run them (unittest through run_tests(); no pytest, whose
#     8.x v2.6.0's test/conftest.py does not take).
# Results go to WORK-run/prove/.
set -u
[ $# -ge 2 ] || { echo "usage: $0 KIT WORK" >&2; exit 2; }
work=$2
run="${work%/}-run"
out="$run/prove"
mkdir -p "$out"
KIT=$1
# shellcheck source=tools/device/cuda-env.sh
. "$(dirname "$0")/cuda-env.sh"
whl=
for f in "$work"/dist/torch-*.whl "$run"/dist/torch-*.whl; do [ -f "$f" ] && whl=$f; done
[ -n "$whl" ] || { echo "error: no wheel in $run/dist; run cuda-build.sh first" >&2; exit 1; }
man="$out/$(basename "${whl%.whl}").manifest.json"
"$kit/bin/bwbuild" manifest "$whl" -o "$man" >/dev/null 2>&1
env=/tmp/env26
base=$(python3 -c 'import sys; print(sys._base_executable)')
[ -x "$env/bin/python" ] || "$base" -m venv --without-pip "$env"
envsite=$("$env/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
python3 -m pip --python "$env/bin/python" install --no-index --no-deps "$whl" >"$out/install.txt" 2>&1
echo "pip install --no-deps --no-index: exit $?" >>"$out/install.txt"
[ -e "$envsite/nvidia" ] || ln -s "$site/nvidia" "$envsite/nvidia"
echo "$site" >"$envsite/zz-machine-deps.pth"
{
	echo "== Requires-Dist of the installed torch"
	grep '^Requires-Dist' "$envsite"/torch-*.dist-info/METADATA
	echo "== the loader's answer for libtorch_cuda.so (no LD_LIBRARY_PATH)"
	env -u LD_LIBRARY_PATH ldd "$envsite/torch/lib/libtorch_cuda.so" | grep -E 'cuda|cublas|cudnn|nccl|cufft|curand|cusolver|cusparse|nvrtc|nvJitLink|cupti|not found'
	echo "== import"
	env -u LD_LIBRARY_PATH "$env/bin/python" -c 'import torch; print(torch.__version__, torch.__file__, torch.version.cuda, torch.backends.cudnn.version(), torch.cuda.get_arch_list(), torch.cuda.device_count())'
} >"$out/installed.txt" 2>&1
"$kit/bin/bwbuild" verify "$envsite/torch" >"$out/verify-installed.txt" 2>&1
echo "verify installed: exit $?" >>"$out/verify-installed.txt"
env -u LD_LIBRARY_PATH "$kit/bin/bwbuild" smoke "$envsite/torch" --gpu all --python "$env/bin/python" \
	--profile "$run/sm120-v2.6.0.yaml" --manifest "$man" -o "$out/smoke.json" >"$out/smoke.txt" 2>&1
echo "bwbuild smoke --gpu all: exit $?" >>"$out/smoke.txt"
"$kit/bin/bwbuild" manifest "$site/torch" -o "$out/stock.manifest.json" >/dev/null 2>&1
env -u LD_LIBRARY_PATH "$kit/bin/bwbuild" smoke "$site/torch" --gpu 0 --python python3 \
	--manifest "$out/stock.manifest.json" >"$out/smoke-stock.txt" 2>&1
echo "bwbuild smoke (stock torch, GPU 0): exit $?" >>"$out/smoke-stock.txt"
"$kit/bin/bwbuild" diff "$out/stock.manifest.json" "$man" --format md >"$out/diff.md" 2>&1
if [ -d "$work/src/test" ]; then
	cd "$work/src/test" || exit 1
	env -u LD_LIBRARY_PATH timeout 240 "$env/bin/python" test_cuda.py -v \
		-k test_memory_stats -k test_streams -k test_events -k test_copy -k test_cublas \
		-k test_matmul -k test_record_stream -k test_caching_pinned >"$out/test_cuda.txt" 2>&1
	echo "test_cuda.py slice: exit $?" >>"$out/test_cuda.txt"
	env -u LD_LIBRARY_PATH timeout 200 "$env/bin/python" test_nn.py -v -k cudnn -k conv2d_cuda \
		>"$out/test_nn.txt" 2>&1
	echo "test_nn.py slice: exit $?" >>"$out/test_nn.txt"
	cd "$top" || exit 1
fi
tail -n 3 "$out"/*.txt
