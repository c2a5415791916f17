#!/bin/sh
# offline-kit.sh BUNDLE KIT: what an offline x86-64 host (the GPU machine)
# needs to build a source bundle with bwbuild, in the directory KIT:
#   bin/bwbuild    this checkout's, RUNPATH $ORIGIN/../lib, so the libraries
#                  beside it never shadow the host's for cmake, Python or gcc;
#                  bin/bwbuild-launch (static) and patchelf beside it
#   lib/           what `ldd bin/bwbuild` lists, glibc's own left out
#   BUNDLE         copied in as bundle.tar.zst
#   debs/          headers real v2.6.0 trees need and such a host lacks, as
#                  Debian's packages (1.3 MB; unpacked there with dpkg -x):
#                  Eigen 3.4 and the opentelemetry-cpp API (the superproject
#                  strips third_party/eigen and leaves opentelemetry-cpp out)
# Run it where bwbuild was built (needs patchelf and apt-get download); then
# take KIT and this checkout's profiles/ and patches/ to the host and run
# tools/device/cuda-hunt.sh there (docs/real-pytorch.md).
set -eu
[ $# = 2 ] || { echo "usage: $0 BUNDLE KIT" >&2; exit 2; }
bundle=$1 kit=$2
[ -f "$bundle" ] || { echo "error: no bundle '$bundle'" >&2; exit 2; }
[ -x bin/bwbuild ] || { echo "error: bin/bwbuild is not built; run make" >&2; exit 2; }
rm -rf "$kit"
mkdir -p "$kit/bin" "$kit/lib" "$kit/debs"
cp bin/bwbuild "$kit/bin/"
# The launcher CMake runs in front of every compile, static: it needs nothing beside it.
[ ! -x bin/bwbuild-launch ] || cp bin/bwbuild-launch "$kit/bin/"
# The repair step's ELF editor; the GPU machine has none (glibc and libstdc++ are the host's).
pe=$(command -v patchelf) || { echo "error: patchelf is not installed (scripts/deps.sh installs it)" >&2; exit 2; }
cp "$pe" "$kit/bin/"
# DT_RPATH, not RUNPATH: it also serves the libraries' own needs (libgit2's mbedtls)
# shellcheck disable=SC2016 # $ORIGIN is the loader's, literal here
patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$kit/bin/bwbuild"
ldd bin/bwbuild | awk '$3 ~ /^\// { print $3 }' | while read -r l; do
	case $(basename "$l") in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
	*) cp -L "$l" "$kit/lib/" ;;
	esac
done
cp "$bundle" "$kit/bundle.tar.zst"
(cd "$kit/debs" && apt-get download libeigen3-dev >/dev/null 2>&1 &&
	apt-get download -t bookworm-backports opentelemetry-cpp-dev >/dev/null 2>&1) ||
	{ echo "error: apt-get download of libeigen3-dev and opentelemetry-cpp-dev failed (apt-get update first)" >&2; exit 1; }
du -sh "$kit"
