#!/bin/sh
# Build bwbuild against another libgit2 (an install prefix with lib/pkgconfig,
# e.g. one made from libgit2's v1.7.2 or v1.9.0 tag with cmake) and run the
# tests that use it: the git unit suite and the source and patch CLI suites.
# Distributions ship 1.5 (Debian 12), 1.7 (Ubuntu 24.04), 1.9 (Debian 13).
#   sh scripts/check-libgit2.sh /opt/libgit2-1.9.0
# Exits non-zero when the build or any of those tests fails.
set -eu
prefix=${1:?usage: check-libgit2.sh PREFIX}
cd "$(dirname "$0")/.."
lib=""
for d in "$prefix"/lib*/pkgconfig; do
	if [ -f "$d/libgit2.pc" ]; then
		lib=$d
		break
	fi
done
[ -n "$lib" ] || { echo "error: no lib*/pkgconfig/libgit2.pc under '$prefix'" >&2; exit 2; }
tag=$(PKG_CONFIG_PATH="$lib" pkg-config --modversion libgit2)
obj="obj-libgit2-$tag"
echo "check-libgit2: libgit2 $tag from $prefix" >&2
PKG_CONFIG_PATH="$lib" make --no-print-directory OBJ="$obj" BIN="$obj/bin" TBIN="$obj/tests" \
	"$obj/bin/bwbuild" "$obj/tests/unit" >/dev/null
LD_LIBRARY_PATH="$(dirname "$lib")"
export LD_LIBRARY_PATH
"$obj/bin/bwbuild" --version
# tests/run.sh exits non-zero when any suite fails; its scratch goes to $obj/tmp.
BW="$obj/bin/bwbuild" TESTBIN="$obj/tests" TESTTMP="$obj/tmp" \
	sh tests/run.sh unit cli git patches sources
echo "check-libgit2: libgit2 $tag passed" >&2
