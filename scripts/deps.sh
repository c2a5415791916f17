#!/bin/sh
# Install the Debian packages bwbuild needs to build, test and run its demo.
# Idempotent: installs only what is missing. Needs root (or sudo) to install.
set -eu

PKGS="gcc make pkg-config git cmake ninja-build
libgit2-dev libyaml-dev libcjson-dev libssl-dev zlib1g-dev libzstd-dev liblz4-dev libisal-dev
python3 python3-setuptools python3-wheel python3-build ccache redis-server redis-tools"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	exit 0
fi

echo "deps: installing:$missing" >&2
if [ "$(id -u)" = 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo"
else
	echo "deps: not root; run this, then try again:" >&2
	echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
