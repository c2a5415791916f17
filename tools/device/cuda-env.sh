# cuda-env.sh: with KIT set (the directory scripts/offline-kit.sh made), sourced by cuda-hunt.sh and cuda-build.sh on the GPU
# machine (no network), from the repository's root. It sets what a real
# v2.6.0 CUDA build needs there and the profile both use:
#   PATH          the kit's bin/ (bwbuild, patchelf: the machine has none),
#                 /opt/torch/.venv's Python 3.12 (setuptools, PyYAML) and nvcc
#   libs          /tmp/bwbuild-cudalibs: libcudnn.so and libnccl.so, the
#                 names CMake looks for, linked to the machine's nvidia-*
#                 packages' libcudnn.so.9 and libnccl.so.2
#   sysroot       /tmp/bwbuild-sysroot: KIT/debs unpacked (Eigen, the
#                 opentelemetry-cpp API: the superproject has neither)
#   write_profile FILE [FLASH]  the sm120 profile at v2.6.0 for sm_90 (H200)
#                 and sm_120, with XNNPACK and NNPACK off (mobile CPU kernels
#                 a CUDA wheel for servers does not use; XNNPACK's 147 MB of
#                 sources are what keeps the bundle over 56 MiB), flash and
#                 memory-efficient attention FLASH (on or off)
# shellcheck shell=sh
kit=$(cd "$KIT" && pwd)
top=$(pwd)
export PATH="$kit/bin:/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH"
site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
libs=/tmp/bwbuild-cudalibs
sysroot=/tmp/bwbuild-sysroot
mkdir -p "$libs"
[ -d "$sysroot/usr/include" ] || for d in "$kit"/debs/*.deb; do dpkg -x "$d" "$sysroot"; done
[ -e "$site/nvidia/cudnn/lib/libcudnn.so.9" ] && ln -sf "$site/nvidia/cudnn/lib/libcudnn.so.9" "$libs/libcudnn.so"
[ -e "$site/nvidia/nccl/lib/libnccl.so.2" ] && ln -sf "$site/nvidia/nccl/lib/libnccl.so.2" "$libs/libnccl.so"
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

write_profile() {
	flash=${2:-on}
	cat >"$1" <<YAML
extends: $top/profiles/sm120.yaml
name: sm120
description: PyTorch v2.6.0 for sm_90 (H200) and sm_120 (Blackwell), CUDA 13.0, from a bundle
source:
  ref: v2.6.0
cuda:
  archs: ["9.0", "12.0"]
features:
  flash_attention: $flash
  mem_eff_attention: $flash
cmake:
  USE_NNPACK: "0"
  USE_SYSTEM_EIGEN_INSTALL: "1"
  USE_XNNPACK: "0"
  CMAKE_PREFIX_PATH: $sysroot/usr
  CMAKE_INCLUDE_PATH: $sysroot/usr/include
  CMAKE_LIBRARY_PATH: $libs
YAML
}
