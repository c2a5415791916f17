#!/bin/sh
# Issue 26's proof on a machine with two or more GPUs and torch installed
# (the device's nvidia-h100-x2): the probes' raw output, recorded as
# tests/fixtures/smoke-multi/ holds it (what tests/cli/smoke-multi-gpu.sh
# replays), then `bwbuild smoke --gpu all` end to end on the installed torch
# when bin/bwbuild runs here (LD_LIBRARY_PATH set by the caller; see
# tools/device/extensions.sh for carrying it with its libraries).
#
#   sh tools/device/smoke-multi.sh RESULTDIR
#
# The per-GPU probes run at once, one per GPU (about 45 s on two H100s),
# the cross-GPU probe alone (about 20 s); bwbuild runs the GPUs one after
# the other (about 45 s a GPU).
set -u
res=$1
mkdir -p "$res"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=index,name,compute_cap --format=csv,noheader >"$res/nvidia-smi.txt"
n=$(wc -l <"$res/nvidia-smi.txt")
all=$(cut -d, -f1 "$res/nvidia-smi.txt" | paste -sd, -)
CUDA_VISIBLE_DEVICES=$all timeout 300 python3 probes/multi-torch.py --timeout 200 \
	>"$res/multi.txt" 2>"$res/multi.err"
echo "multi-torch.py on $all: exit $?"
# shellcheck disable=SC2013 # GPU indices, one word each; a pipe would hide the jobs from wait
for i in $(cut -d, -f1 "$res/nvidia-smi.txt"); do
	CUDA_VISIBLE_DEVICES=$i timeout 400 python3 probes/smoke-torch.py \
		>"$res/gpu$i.txt" 2>"$res/gpu$i.err" &
done
wait
echo "smoke-torch.py on each of the $n GPUs: $(cat "$res"/gpu*.txt | grep -c '"check"') checks"
if [ -x bin/bwbuild ] && bin/bwbuild --version >/dev/null 2>&1; then
	torch=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')
	bin/bwbuild smoke "$torch" --gpu all -o "$res/smoke-all.json" >"$res/smoke-all.txt" 2>&1
	echo "bwbuild smoke --gpu all: exit $? (1 is expected with the official wheel: no PTX)"
fi
