#!/bin/sh
# env-report.sh: what the GPU machine's own torch says about CUDA libraries
# at install time (the pip way): its Requires-Dist, the nvidia-* packages
# and where their libraries live, and the RUNPATH and NEEDED entries of
# its CUDA libraries. Read by hand when the repair step's pip-way table is
# written (issue 39, deliverable 4).
set -u
py=/opt/torch/.venv/bin/python3
site=$($py -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
nvidia-smi -L
$py -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
echo "== Requires-Dist of torch"
grep '^Requires-Dist' "$site"/torch-*.dist-info/METADATA
echo "== nvidia-* distributions"
find "$site" -maxdepth 1 -name 'nvidia*.dist-info' | sed 's#.*/##' | sort
echo "== libraries under nvidia/"
find "$site/nvidia" -name '*.so*' | sed "s#$site/##" | sort
for l in libtorch_cuda.so libtorch_python.so libc10_cuda.so libtorch_cpu.so; do
	echo "== $l"
	readelf -d "$site/torch/lib/$l" | grep -E 'RUNPATH|RPATH|NEEDED'
done
echo "== triton"
ls -d "$site"/triton-*.dist-info 2>/dev/null
