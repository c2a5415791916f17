#!/bin/sh
# cuda-hunt.sh KIT WORK [SECONDS]: on the GPU machine (no network), from the
# repository's root (profiles/ and patches/ are read from there), with KIT
# made by scripts/offline-kit.sh:
#  1. the bundle in KIT built by bwbuild up to configure: v2.6.0, CUDA 13.0,
#     archs 9.0 and 12.0, cuDNN and NCCL from the machine's nvidia-* packages
#     (their libraries under the names CMake looks for, in /tmp), Eigen and
#     opentelemetry's headers from KIT/debs (unpacked into /tmp);
#  2. every unit that includes CUDA (torch_cuda's, c10_cuda's, torch_python's
#     cuda/ and distributed NCCL parts), the attention kernels last, compiled
#     with `ninja -k 0` until SECONDS (default 520) have passed since this
#     script began (a device command has 600 s). A second run goes on
#     where the first stopped (the build directory is kept while the machine is).
# What failed goes to WORK-hunt/ (beside the work directory bwbuild owns): failed.txt (one object a line), errors.txt
# (each failure's compiler errors), summary.txt (units done, failed, left).
set -u
[ $# -ge 2 ] || { echo "usage: $0 KIT WORK [SECONDS]" >&2; exit 2; }
work=$2
secs=${3:-520}
hunt="${work%/}-hunt"
start=$(date +%s)
mkdir -p "$hunt"
# shellcheck source=tools/device/cuda-env.sh
KIT=$1
. "$(dirname "$0")/cuda-env.sh"
prof="$hunt/sm120-v2.6.0.yaml"
write_profile "$prof" on
if [ ! -f "$work/configure.stamp" ]; then
	t0=$(date +%s)
	"$kit/bin/bwbuild" build --profile "$prof" --bundle "$kit/bundle.tar.zst" --work "$work" \
		--until configure --no-preflight --mem-budget 200G >"$hunt/configure.log" 2>&1
	echo "bwbuild build --bundle --until configure: exit $? in $(($(date +%s) - t0)) s" >>"$hunt/summary.txt"
fi
b="$work/src/build"
[ -f "$b/build.ninja" ] || { tail -n 40 "$hunt/configure.log"; exit 1; }
cd "$b" || exit 1
if [ ! -f "$top/.hunt-targets" ] && [ ! -f "$hunt/targets.txt" ]; then
	ninja -t targets all | sed -n 's/^\([^:]*\.o\): .*/\1/p' |
		grep -E 'torch_cuda\.dir|c10_cuda\.dir|torch_python\.dir/.*/(cuda|distributed)/|\.cu\.o$' | sort -u >"$hunt/all.txt"
	{ grep -vE 'flash_attn|mem_eff_attention' "$hunt/all.txt"; grep -E 'flash_attn|mem_eff_attention' "$hunt/all.txt"; } >"$hunt/targets.txt"
fi
t0=$(date +%s)
left_s=$((secs - (t0 - start)))
[ "$left_s" -gt 30 ] || left_s=30
# shellcheck disable=SC2046
timeout "$left_s" ninja -k 0 -j "$(nproc)" $(cat "$hunt/targets.txt") >>"$hunt/ninja.log" 2>&1
rc=$?
grep '^FAILED: ' "$hunt/ninja.log" | sed 's/^FAILED: //' | sort -u >"$hunt/failed.txt"
grep -E 'error|Error' "$hunt/ninja.log" | grep -v '^FAILED' | sort | uniq -c | sort -rn >"$hunt/errors.txt"
# shellcheck disable=SC2046
left=$(ninja -n $(cat "$hunt/targets.txt") 2>/dev/null | grep -c '^\[')
{
	echo "ninja -k 0 over $(wc -l <"$hunt/targets.txt") CUDA units: exit $rc after $(($(date +%s) - t0)) s"
	echo "objects present: $(while read -r o; do [ -f "$o" ] && echo; done <"$hunt/targets.txt" | wc -l)"
	echo "failed: $(wc -l <"$hunt/failed.txt"); left to build: $left"
} >>"$hunt/summary.txt"
cat "$hunt/summary.txt"
