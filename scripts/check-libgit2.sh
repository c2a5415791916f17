#!/bin/sh
# Build bwbuild against another libgit2 (an install prefix with lib/pkgconfig,
# e.g. one made from libgit2's v1.7.2 or v1.9.0 tag with cmake) and run the
# tests that use it: the git unit suite and the source and patch CLI suites.
# Distributions ship 1.5 (Debian 12), 1.7 (Ubuntu 24.04), 1.9 (Debian 13).
#   sh scripts/check-libgit2.sh /opt/libgit2-1.9.0
set -eu
prefix=${1:?usage: check-libgit2.sh PREFIX}
cd "$(dirname "$0")/.."
lib=$(ls -d "$prefix"/lib*/pkgconfig | head -1)
tag=$(PKG_CONFIG_PATH="$lib" pkg-config --modversion libgit2)
obj="obj-libgit2-$tag"
echo "check-libgit2: libgit2 $tag from $prefix" >&2
PKG_CONFIG_PATH="$lib" make --no-print-directory OBJ="$obj" BIN="$obj/bin" TBIN="$obj/tests" \
	"$obj/bin/bwbuild" "$obj/tests/unit" >/dev/null
export LD_LIBRARY_PATH="$(dirname "$lib")"
"$obj/bin/bwbuild" --version
"$obj/tests/unit" git
for t in 80-patches 85-sources; do
	BW="$obj/bin/bwbuild" sh "tests/cli/$t.sh" && echo "ok   $t (libgit2 $tag)"
done
