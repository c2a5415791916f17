#!/bin/sh
# cross-arm64.sh: bwbuild built for aarch64 (Grace, DGX Spark) on an x86-64
# Debian machine, and its unit tests and fuzz corpora run under qemu-user.
# `make cross-test` runs it; .ci/run runs it as one of its parts.
#
# usage: sh scripts/cross-arm64.sh [deps | build | test]
#   deps   the cross compiler and qemu (Debian's gcc-aarch64-linux-gnu,
#          libc6-dev-arm64-cross, qemu-user-static: apt-get install, root or
#          sudo), and the arm64 libraries bwbuild links (libgit2, libyaml,
#          cJSON, OpenSSL, zlib, zstd, lz4, ISA-L) in a private sysroot
#   build  deps, then bwbuild, bwbuild-launch, the unit binary and the fuzz
#          drivers for aarch64 (objects and binaries under build/cross-arm64/)
#   test   (default) build, then `tests/run.sh unit fuzz` with each binary
#          under qemu-aarch64
#
# The sysroot is `apt-get download PKG` + `dpkg-deb -x` with apt lists,
# caches and architecture (arm64) of its own under build/cross-arm64/apt:
# the machine's dpkg never learns of arm64. A multiarch install
# (dpkg --add-architecture arm64; apt-get install libgit2-dev:arm64) would
# remove amd64's libgit2-dev, libisal-dev and libhttp-parser-dev, which are
# not Multi-Arch: same. The sysroot is made again only when this script
# changes (build/cross-arm64/sysroot/.stamp holds its hash and the packages);
# a rerun needs no network.
#
# The tests run in build/cross-arm64/tree, links to the checkout's files
# with a tests/tmp of its own (TESTTMP, where the unit binary writes too),
# so this can run beside `make test`.
set -eu
cd "$(dirname "$0")/.."
TOP=$PWD
X=$TOP/build/cross-arm64
SYSROOT=$X/sysroot
TRIPLET=aarch64-linux-gnu
CC_CROSS=$TRIPLET-gcc

# What bwbuild links (the Makefile's PKGS), and libpcre2-dev for the
# libpcre2-8.pc that libgit2.pc requires. Their libraries and what those
# need at run time (libc6 included: qemu runs the sysroot's ld.so) are
# found by apt-cache.
DEV_PKGS="libgit2-dev libyaml-dev libcjson-dev libssl-dev zlib1g-dev libzstd-dev liblz4-dev libisal-dev libpcre2-dev"

die() {
	echo "cross: $*" >&2
	exit 1
}

# The qemu-user binary: qemu-user-static's, or qemu-user's.
qemu_bin() {
	for q in qemu-aarch64-static qemu-aarch64; do
		if command -v "$q" >/dev/null 2>&1; then
			echo "$q"
			return 0
		fi
	done
	return 1
}

# missing: the Debian packages of the cross tools that are not there.
missing() {
	m=""
	command -v "$CC_CROSS" >/dev/null 2>&1 || m="$m gcc-aarch64-linux-gnu"
	[ -e /usr/$TRIPLET/include/stdio.h ] || m="$m libc6-dev-arm64-cross"
	qemu_bin >/dev/null || m="$m qemu-user-static"
	echo "$m"
}

host_tools() {
	missing=$(missing)
	[ -n "$missing" ] || return 0
	command -v apt-get >/dev/null 2>&1 ||
		die "missing:$missing (Debian's names); this script needs Debian's apt-get to install them and to fetch the arm64 libraries"
	echo "cross: installing:$missing" >&2
	if [ "$(id -u)" = 0 ]; then
		SUDO=""
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO=sudo
	else
		echo "cross: not root; run this, then try again:" >&2
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq || die "apt-get update failed (the cross tools come from Debian's registry)"
	# shellcheck disable=SC2086 # one word a package
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		die "apt-get install$missing failed"
	[ -z "$(missing)" ] || die "installed$missing, but$(missing) still missing"
}

# apt NAME ARGS: apt-get or apt-cache with the private arm64 state.
apt_private() {
	tool=$1
	shift
	sandbox=""
	# As root apt drops to _apt to download, which cannot write into the work tree.
	[ "$(id -u)" != 0 ] || sandbox="-o APT::Sandbox::User=root"
	# shellcheck disable=SC2086 # $sandbox is one option or none
	"$tool" -o APT::Architecture=arm64 -o APT::Architectures::=arm64 \
		-o "Dir::State=$X/apt/state" -o "Dir::State::status=$X/apt/state/status" \
		-o "Dir::Cache=$X/apt/cache" -o Debug::NoLocking=1 $sandbox "$@"
}

# The runtime libraries of the -dev packages and what they need, recursively.
closure() {
	# shellcheck disable=SC2086
	roots=$(apt_private apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances $DEV_PKGS | sed -n 's/^ *\(Pre\)\{0,1\}Depends: \([a-z0-9][a-z0-9.+-]*\)$/\2/p' |
		grep -v -e '-dev$' | sort -u)
	# shellcheck disable=SC2086
	apt_private apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances $roots | grep '^[a-z0-9]' | sort -u
}

sysroot() {
	command -v apt-get >/dev/null 2>&1 || die "no apt-get: the arm64 libraries are fetched from Debian's registry"
	command -v dpkg-deb >/dev/null 2>&1 || die "no dpkg-deb (Debian's dpkg package)"
	hash=$(sha256sum "$TOP/scripts/cross-arm64.sh" | cut -d' ' -f1)
	if [ -f "$SYSROOT/.stamp" ] && [ "$(head -n 1 "$SYSROOT/.stamp")" = "$hash" ]; then
		return 0
	fi
	echo "cross: the arm64 libraries into $SYSROOT (apt lists of its own in $X/apt)" >&2
	mkdir -p "$X/apt/state/lists/partial" "$X/apt/cache/archives/partial"
	: >"$X/apt/state/status"
	apt_private apt-get -qq update || die "apt-get update of the private arm64 lists failed (Debian's registry unreachable?)"
	pkgs="$DEV_PKGS $(closure | tr '\n' ' ')"
	[ -n "$pkgs" ] || die "apt-cache found none of the arm64 packages"
	rm -rf "$X/debs"
	mkdir -p "$X/debs"
	# shellcheck disable=SC2086 # one word a package
	(cd "$X/debs" && apt_private apt-get -qq download $pkgs) ||
		die "apt-get download of the arm64 packages failed:$(printf ' %s' $pkgs)"
	new=$SYSROOT.new.$$
	rm -rf "$new"
	mkdir -p "$new"
	echo "$hash" >"$new/.stamp.tmp"
	for deb in "$X"/debs/*.deb; do
		dpkg-deb -x "$deb" "$new"
		printf '%s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" >>"$new/.stamp.tmp"
	done
	[ -e "$new/lib/ld-linux-aarch64.so.1" ] || die "the sysroot has no lib/ld-linux-aarch64.so.1 (libc6:arm64 missing)"
	mv "$new/.stamp.tmp" "$new/.stamp"
	rm -rf "$SYSROOT"
	mv "$new" "$SYSROOT"
	echo "cross: $(($(wc -l <"$SYSROOT/.stamp") - 1)) arm64 packages in $SYSROOT" >&2
}

deps() {
	host_tools
	sysroot
}

build() {
	deps
	lib=$SYSROOT/usr/lib/$TRIPLET
	# pkg-config reads only the sysroot's .pc files and prefixes their paths
	# with it; their -I/usr/include is dropped, hence C_INCLUDE_PATH (which
	# gcc searches after -I, before its own directories). The cross gcc
	# ignores LIBRARY_PATH: -L and -rpath-link (the libraries' own
	# dependencies) go in LDFLAGS.
	export PKG_CONFIG_LIBDIR="$lib/pkgconfig:$SYSROOT/usr/share/pkgconfig"
	export PKG_CONFIG_SYSROOT_DIR="$SYSROOT"
	export C_INCLUDE_PATH="$SYSROOT/usr/include/$TRIPLET:$SYSROOT/usr/include"
	jobs=""
	case ${MAKEFLAGS:-} in *jobserver*) ;; *) jobs=-j$(nproc 2>/dev/null || echo 1) ;; esac
	# shellcheck disable=SC2086 # $jobs is one option or none
	make --no-print-directory $jobs OBJ="$X/obj" BIN="$X/bin" TBIN="$X/bin" CC="$CC_CROSS" \
		LDFLAGS="-L$lib -Wl,-rpath-link,$lib:$SYSROOT/lib/$TRIPLET" all test-bins >"$X/build.log" 2>&1 ||
		{
			tail -n 40 "$X/build.log" >&2
			die "the aarch64 build failed (all of it: $X/build.log)"
		}
	file_machine=$(od -An -j18 -N2 -tu2 "$X/bin/bwbuild" | tr -d ' ')
	[ "$file_machine" = 183 ] || die "$X/bin/bwbuild is not an aarch64 ELF (e_machine $file_machine)"
	echo "cross: built $X/bin/bwbuild and the unit and fuzz binaries for aarch64" >&2
}

# A tree of links to the checkout, with tests/tmp its own.
tree() {
	t=$X/tree
	rm -rf "$t"
	mkdir -p "$t/tests"
	for f in "$TOP"/* "$TOP"/.[!.]*; do
		[ -e "$f" ] || continue
		case ${f##*/} in build | tests) continue ;; esac
		ln -s "$f" "$t/${f##*/}"
	done
	for f in "$TOP"/tests/*; do
		case ${f##*/} in tmp) continue ;; esac
		ln -s "$f" "$t/tests/${f##*/}"
	done
}

run_tests() {
	build
	tree
	q=$(qemu_bin)
	echo "cross: unit tests and fuzz corpora under $q ($($q --version | head -n 1)), sysroot $SYSROOT" >&2
	# tests/run.sh cds to the directory above its own: the tree of links.
	QEMU_LD_PREFIX=$SYSROOT TESTEXEC=$q TESTBIN=$X/bin BW=$X/bin/bwbuild TESTTMP=$X/tree/tests/tmp \
		sh "$X/tree/tests/run.sh" unit fuzz
}

case ${1:-test} in
deps) deps ;;
build) build ;;
test) run_tests ;;
-h | --help) sed -n '2,27p' "$0" ;;
*) die "unknown step '$1' (deps, build or test)" ;;
esac
