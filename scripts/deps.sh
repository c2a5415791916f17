#!/bin/sh
# Install the packages bwbuild needs to build, test and run its demo, and
# .ci/run's linter (shellcheck) and man-page check (groff).
# Idempotent: installs only what is missing. Needs root (or sudo) to install.
#
# Distributions (from /etc/os-release: ID, ID_LIKE, VERSION_ID):
#   Debian 12 and 13, Ubuntu 24.04 (universe enabled): apt-get, Debian's names.
#     Other Debian-likes get the same names, with a note that they are untested.
#   RHEL 8 family (AlmaLinux, Rocky, RHEL, CentOS Stream, Oracle Linux 8; the
#     manylinux_2_28 image): dnf, with EPEL and PowerTools / CodeReady Builder
#     enabled first. EL 9 is handled the same way (CRB, EPEL 9), untested.
#   Anything else: the list of what is needed is printed, exit 1.
# CMake: real PyTorch trees need >= 3.27 and Debian 12 ships 3.25, so on
# Debian 12 a cmake older than 3.27 (or none) is installed from Debian's
# bookworm-backports suite (3.31), whose source line is added to
# /etc/apt/sources.list.d/bwbuild-backports.list when no apt source names it.
# BWBUILD_DEPS_ETC replaces /etc (tests run this with fakes).
set -eu
ETC=${BWBUILD_DEPS_ETC:-/etc}
CMAKE_MIN=3.27
BACKPORTS_LINE="deb http://deb.debian.org/debian bookworm-backports main"

# Debian 12/13, Ubuntu 24.04.
PKGS="gcc make pkg-config git cmake ninja-build
libgit2-dev libyaml-dev libcjson-dev libssl-dev zlib1g-dev libzstd-dev liblz4-dev libisal-dev
python3 python3-setuptools python3-wheel python3-build python3-packaging ccache redis-server redis-tools
python3-jsonschema strace python3-yaml python3-typing-extensions distcc shellcheck groff-base patchelf zstd"

# RHEL 8 family. Where each comes from on AlmaLinux/Rocky 8:
#   BaseOS/AppStream: gcc gcc-c++ make pkgconf-pkg-config git cmake openssl-devel
#     zlib-devel libzstd-devel lz4-devel python3 (python36) python3-setuptools
#     python3-wheel redis (the redis module's default stream)
#   PowerTools: ninja-build libyaml-devel
#   EPEL 8: ShellCheck, libgit2_1.7-devel (EPEL 8 has no libgit2-devel; this is libgit2
#     1.7.2, the version Ubuntu 24.04 ships), cjson-devel (1.7.17),
#     isa-l-devel (2.31), ccache (3.7: no remote storage, so no
#     build.cache_remote: redis://... on EL8)
#   EPEL: distcc distcc-server (build.remote; tests/cli/remote-compile.sh), patchelf
#     (the repair step's ELF editor; also in EPEL 9)
#   Not in EL8 at all: python3-build (only needed for pyproject-era trees; use
#     'python3 -m pip install build' with the Python that builds).
# gcc-c++ is listed because the example and PyTorch compile C++ (Debian's
# images usually have g++ already).
RPMS_EL8="gcc gcc-c++ make pkgconf-pkg-config git cmake ninja-build
libgit2_1.7-devel libyaml-devel cjson-devel openssl-devel zlib-devel libzstd-devel lz4-devel isa-l-devel
python3 python3-setuptools python3-wheel ccache redis python3-jsonschema strace distcc distcc-server ShellCheck groff-base patchelf"
# EL 9: EPEL 9 has libgit2-devel (1.7).
RPMS_EL9="gcc gcc-c++ make pkgconf-pkg-config git cmake ninja-build
libgit2-devel libyaml-devel cjson-devel openssl-devel zlib-devel libzstd-devel lz4-devel isa-l-devel
python3 python3-setuptools python3-wheel ccache redis python3-jsonschema strace distcc distcc-server ShellCheck groff-base patchelf"

os_field() {
	[ -r "$ETC/os-release" ] || return 0
	sed -n "s/^$1=//p" "$ETC/os-release" | head -n 1 | tr -d "\"'"
}

# "3.25" from the cmake on PATH; empty when there is none.
cmake_version() {
	cmake --version 2>/dev/null | sed -n '1s/^cmake version \([0-9]*\.[0-9]*\).*/\1/p'
}

# version_ge 3.31 3.27: true when the first major.minor is at least the second.
version_ge() {
	[ -n "$1" ] || return 1
	a_major=${1%%.*} a_minor=${1#*.} b_major=${2%%.*} b_minor=${2#*.}
	[ "$a_major" -gt "$b_major" ] || { [ "$a_major" -eq "$b_major" ] && [ "$a_minor" -ge "$b_minor" ]; }
}

# Whether an apt source already names bookworm-backports (one-line or deb822 format).
have_backports() {
	grep -qs '^[^#]*bookworm-backports' "$ETC/apt/sources.list" "$ETC"/apt/sources.list.d/* 2>/dev/null
}
os_id=$(os_field ID)
os_like=$(os_field ID_LIKE)
os_version=$(os_field VERSION_ID)

family=""
case " $os_id $os_like " in
*" debian "* | *" ubuntu "*) family=debian ;;
*" rhel "* | *" centos "* | *" almalinux "* | *" rocky "* | *" ol "*) family=rhel ;;
esac
# No os-release at all, but dpkg: as before, a Debian system.
if [ -z "$family" ] && [ ! -e "$ETC/os-release" ] && command -v dpkg-query >/dev/null 2>&1; then
	family=debian
fi

root_or_sudo() {
	if [ "$(id -u)" = 0 ]; then
		SUDO=""
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO="sudo"
	else
		return 1
	fi
}

case "$family" in
debian)
	case "$os_id $os_version" in
	"debian 12" | "debian 13" | "ubuntu 24.04" | " ") ;;
	*) echo "deps: ${os_id:-this system} ${os_version:-(no VERSION_ID)} is untested; using Debian's package names" >&2 ;;
	esac

	# Debian 12's own cmake (3.25) is too old for real PyTorch: backports has 3.31.
	backports_cmake=""
	if [ "$os_id $os_version" = "debian 12" ] && ! version_ge "$(cmake_version)" "$CMAKE_MIN"; then
		backports_cmake=1
	fi

	missing=""
	for p in $PKGS; do
		[ "$p" = cmake ] && [ -n "$backports_cmake" ] && continue
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			missing="$missing $p"
		fi
	done
	if [ -z "$missing" ] && [ -z "$backports_cmake" ]; then
		exit 0
	fi

	[ -z "$missing" ] || echo "deps: installing:$missing" >&2
	if [ -n "$backports_cmake" ]; then
		found=$(cmake_version)
		echo "deps: cmake ${found:-(none)} is older than $CMAKE_MIN, which real PyTorch trees need;" \
			"installing cmake from bookworm-backports (Debian 12's own is 3.25)" >&2
	fi
	if ! root_or_sudo; then
		echo "deps: not root; run this, then try again:" >&2
		if [ -n "$backports_cmake" ] && ! have_backports; then
			echo "  echo '$BACKPORTS_LINE' | sudo tee $ETC/apt/sources.list.d/bwbuild-backports.list" >&2
		fi
		echo "  sudo apt-get update" >&2
		[ -z "$missing" ] || echo "  sudo apt-get install -y$missing" >&2
		[ -z "$backports_cmake" ] || echo "  sudo apt-get install -y -t bookworm-backports cmake" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	if [ -n "$backports_cmake" ] && ! have_backports; then
		echo "deps: no apt source names bookworm-backports; adding" \
			"$ETC/apt/sources.list.d/bwbuild-backports.list: $BACKPORTS_LINE" >&2
		$SUDO mkdir -p "$ETC/apt/sources.list.d"
		echo "$BACKPORTS_LINE" | $SUDO tee "$ETC/apt/sources.list.d/bwbuild-backports.list.tmp" >/dev/null
		$SUDO mv "$ETC/apt/sources.list.d/bwbuild-backports.list.tmp" \
			"$ETC/apt/sources.list.d/bwbuild-backports.list"
	fi
	$SUDO apt-get update -qq
	if [ -n "$missing" ]; then
		# shellcheck disable=SC2086
		$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
	if [ -n "$backports_cmake" ]; then
		$SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports cmake >/dev/null
		echo "deps: cmake $(cmake_version) installed from bookworm-backports" >&2
	fi
	;;

rhel)
	major=${os_version%%.*}
	case "$major" in
	8) RPMS=$RPMS_EL8 extra_repo=powertools ;;
	9) RPMS=$RPMS_EL9 extra_repo=crb ;;
	*)
		echo "deps: $os_id $os_version: only the RHEL 8 (and 9) family is known; it needs (EPEL and CRB names):" >&2
		echo "  $(printf '%s' "$RPMS_EL9" | tr '\n' ' ')" >&2
		exit 1
		;;
	esac

	# rpm -q --whatprovides: a name or what a package provides, so "python3"
	# is found in python36 on EL8.
	missing=""
	for p in $RPMS; do
		if ! rpm -q --whatprovides "$p" >/dev/null 2>&1; then
			missing="$missing $p"
		fi
	done
	if [ -z "$missing" ]; then
		exit 0
	fi

	# The repositories: EPEL for libgit2, cJSON, ISA-L and ccache; PowerTools
	# (EL8) or CRB (EL9) for ninja-build and libyaml-devel, and for EPEL's own
	# dependencies. RHEL proper enables CodeReady Builder through
	# subscription-manager and installs EPEL from Fedora's URL; Oracle Linux
	# has its own EPEL mirror package and CodeReady Builder repository.
	arch=$(uname -m)
	case "$os_id" in
	rhel)
		epel_pkg="epel-release"
		epel="https://dl.fedoraproject.org/pub/epel/epel-release-latest-$major.noarch.rpm"
		enable_extra="subscription-manager repos --enable codeready-builder-for-rhel-$major-$arch-rpms"
		;;
	ol)
		epel_pkg="oracle-epel-release-el$major"
		epel=$epel_pkg
		enable_extra="dnf config-manager --set-enabled ol${major}_codeready_builder"
		;;
	*)
		epel_pkg="epel-release"
		epel=$epel_pkg
		enable_extra="dnf config-manager --set-enabled $extra_repo"
		;;
	esac

	echo "deps: installing:$missing" >&2
	if ! root_or_sudo; then
		echo "deps: not root; run this, then try again:" >&2
		echo "  sudo dnf install -y dnf-plugins-core $epel" >&2
		echo "  sudo $enable_extra" >&2
		echo "  sudo dnf install -y$missing" >&2
		exit 1
	fi
	if ! rpm -q "$epel_pkg" >/dev/null 2>&1; then
		$SUDO dnf install -y -q "$epel"
	fi
	rpm -q dnf-plugins-core >/dev/null 2>&1 || $SUDO dnf install -y -q dnf-plugins-core
	# shellcheck disable=SC2086
	$SUDO $enable_extra
	# shellcheck disable=SC2086
	if ! $SUDO dnf install -y -q $missing; then
		echo "deps: dnf could not install everything. EPEL 8 names used: libgit2_1.7-devel," >&2
		echo "  cjson-devel, isa-l-devel, ccache; PowerTools: ninja-build, libyaml-devel." >&2
		echo "  Check 'dnf repolist' shows epel and $extra_repo (or CodeReady Builder)." >&2
		exit 1
	fi
	;;

*)
	echo "deps: unknown distribution '${os_id:-?}' (ID_LIKE '${os_like}', VERSION_ID '${os_version}')." >&2
	echo "deps: install these (Debian names; on the RHEL family see scripts/deps.sh), then try again:" >&2
	echo "  C compiler and C++ compiler, make, pkg-config, git, cmake, ninja;" >&2
	echo "  development files of libgit2 (1.5, 1.7 and 1.9 are tested), libyaml, cJSON, OpenSSL (libcrypto), zlib, zstd, lz4, ISA-L" >&2
	echo "    (pkg-config: libgit2 yaml-0.1 libcjson libcrypto zlib libzstd liblz4 libisal);" >&2
	echo "  python3 with setuptools, wheel and build; ccache; redis (server and redis-cli); distcc (client and distccd)." >&2
	echo "  Debian names: $(printf '%s' "$PKGS" | tr '\n' ' ')" >&2
	exit 1
	;;
esac
