#!/bin/sh
# pipway-stock.sh RESULTDIR: issue 39's pip-way checks against the one real
# pip-form torch there is before ours, the GPU machine's own torch
# 2.11.0+cu130 in /opt/torch/.venv (from the repository's root, with
# bin/bwbuild runnable there): `bwbuild verify` of it installed (each CUDA
# library where its RUNPATH looks, its Requires-Dist judged) and repacked
# into a wheel (scripts/repack_installed.py: the form read from METADATA and
# RUNPATH alone), the vendor form's size (`bwbuild repair --cuda-libs
# vendor` of that wheel), and `bwbuild smoke --gpu 0 --quick` of it: where
# each CUDA library was loaded from, which Triton torch.compile ran with.
set -u
res=$1
mkdir -p "$res"
py=/opt/torch/.venv/bin/python3
site=$($py -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
bin/bwbuild verify "$site/torch" >"$res/verify-installed.txt" 2>&1
echo "exit $?" >>"$res/verify-installed.txt"
whl=$(python3 scripts/repack_installed.py "$site/torch" "$res")
bin/bwbuild verify "$whl" >"$res/verify-wheel.txt" 2>&1
echo "exit $?" >>"$res/verify-wheel.txt"
mkdir -p /tmp/vendored
LD_LIBRARY_PATH="$site/nvidia/cu13/lib:$site/nvidia/cudnn/lib:$site/nvidia/nccl/lib:$site/nvidia/cusparselt/lib:$site/nvidia/nvshmem/lib" \
	bin/bwbuild repair "$whl" --cuda-libs vendor -w /tmp/vendored >"$res/repair-vendor.txt" 2>&1
echo "exit $?" >>"$res/repair-vendor.txt"
ls -l "$whl" /tmp/vendored/*.whl >>"$res/repair-vendor.txt" 2>&1
bin/bwbuild verify /tmp/vendored/*.whl >"$res/verify-vendored.txt" 2>&1
echo "exit $?" >>"$res/verify-vendored.txt"
rm -f "$whl"
rm -rf /tmp/vendored
bin/bwbuild smoke "$site/torch" --gpu 0 --quick --python "$py" >"$res/smoke.txt" 2>&1
echo "exit $?" >>"$res/smoke.txt"
tail -n 4 "$res"/*.txt
