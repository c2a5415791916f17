#!/bin/sh
# Issue 43's extension figure on a GPU machine with torch installed (no
# network): Dao-AILab/causal-conv1d built by bwbuild for one arch (9.0)
# against the installed torch, three ways, each measured by
# scripts/measure_tree.py (wall time, peak memory of the process tree):
#   pole   upstream's four units (patch 0001 only), build.split_compile on:
#          the backward unit runs alone with nvcc --split-compile over the
#          idle cores (the way of docs/scale-out.md, 239.4 s on 32 cores);
#   split  the shipped series (0001 + 0002: the backward unit's
#          instantiations as 12 units), the launcher's defaults;
#   both   the shipped series with build.split_compile on.
# Then the split wheel verified --against the torch, its archs listed, and
# its op run on the GPU against the README's F.conv1d equivalent (smoke
# --against).
#
#   sh tools/device/causal-conv1d.sh SRCDIR RESULTDIR [VARIANT...]
# SRCDIR holds causal-conv1d.git (a bare clone); KIT (default
# .device/ext) holds bin/bwbuild with DT_RPATH $ORIGIN/../lib and lib/, as
# scripts/offline-kit.sh makes them. Run from the top of the tree; writes
# only under RESULTDIR. About 8 minutes of a 16-core machine.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
kit=$(cd "${KIT:-$top/.device/ext}" && pwd) || exit 2
BW="$kit/bin/bwbuild"
usage="usage: tools/device/causal-conv1d.sh SRCDIR RESULTDIR [pole|split|both...]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
src=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" || exit 2
res=$(cd "$2" && pwd)
shift 2
[ $# -gt 0 ] || set -- split pole both
work=$res/work
torch=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))') || exit 1
export PATH="$kit/bin:$PATH"
export BWBUILD_PROFILE_PATH="$top/profiles" BWBUILD_PEAKS_PATH="$top/data/peaks"
export BWBUILD_SCRIPTS_PATH="$top/scripts" BWBUILD_PROBE_PATH="$top/probes"
# 'causal-conv1d-upstream': the shipped index with its first patch only.
pp=$work/pp
export BWBUILD_PATCH_PATH="$top/patches:$pp"
log() { echo "== $*" | tee -a "$res/steps.txt"; }

rm -rf "$work" && mkdir -p "$work" "$pp/causal-conv1d-upstream" && cd "$work" || exit 1
cp "$top/patches/causal-conv1d/0001-"*.patch "$pp/causal-conv1d-upstream/"
sed '/0002-/,$d' "$top/patches/causal-conv1d/index.yaml" >"$pp/causal-conv1d-upstream/index.yaml"
log "torch $torch, $(nproc) CPUs, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
nvcc --version | tail -n 2 >>"$res/steps.txt"

# variant NAME PATCHES SPLIT_COMPILE: the profile, the build measured, its
# compile log (each unit's time) and wheel kept as NAME.* in $res.
variant() {
	printf 'extends: %s/profiles/causal-conv1d.yaml\nname: ccd-%s\ntorch: %s\nsource:\n  repo: %s/causal-conv1d.git\n  patches: %s\ncuda:\n  archs: "9.0"\nbuild:\n  split_compile: %s\n' \
		"$top" "$1" "$torch" "$src" "$2" "$3" >"$1.yaml"
	log "$1: patches $2, split_compile $3"
	python3 "$top/scripts/measure_tree.py" "ccd-$1" "$res/measure.jsonl" -- \
		"$BW" --profile "$1.yaml" >"$res/$1.out" 2>"$res/$1.err"
	echo "rc=$? $(tail -n 1 "$res/measure.jsonl")" | tee -a "$res/steps.txt"
	cp "work/ccd-$1/logs/compile.log" "$res/$1.compile.log" 2>/dev/null
	grep -E '^(fetch|configure|compile|wheel|verify|publish|[a-z]+):.* s$|took|wall' "$res/$1.out" >>"$res/steps.txt" 2>/dev/null
	sed -n 's/^wheel: *//p' "$res/$1.out" >"$1.wheel"
}
for v in "$@"; do
	case $v in
	pole) variant pole causal-conv1d-upstream on ;;
	split) variant split causal-conv1d off ;;
	both) variant both causal-conv1d on ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done

w=$(cat split.wheel 2>/dev/null)
[ -n "$w" ] || w=$(cat both.wheel 2>/dev/null)
[ -n "$w" ] || { log "no wheel of the shipped series was made"; exit 1; }
cp "$w" "$res/"
"$BW" verify "$w" --against "$torch" >"$res/verify.txt" 2>&1
log "verify --against rc=$?"
"$BW" archs "$w" >"$res/archs.txt" 2>&1
log "archs rc=$?"
"$BW" smoke "$w" --against "$torch" >"$res/smoke.txt" 2>&1
log "smoke --against rc=$?"
exit 0
