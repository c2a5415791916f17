#!/bin/sh
# A git repository of a companion's release from its upstream tarball (Debian's
# pytorch-vision / pytorch-audio .orig tarballs, /work/shared/real-tree/README.md
# section 5), with the release tag, so an extension profile can fetch it from a
# mirror directory like any repository:
#
#   sh scripts/companion-repo.sh TARBALL DEST TAG
#   sh scripts/companion-repo.sh pytorch-vision_0.21.0.orig.tar.gz mirrors/pytorch+vision v0.21.0
#
# DEST becomes a bare repository (tag TAG, one commit of the tarball's files,
# dated by TAG's date from the tarball's newest file, so two runs give the same
# commit). Offline: nothing here touches the network.
set -eu
[ $# -eq 3 ] || { echo "usage: $0 TARBALL DEST TAG" >&2; exit 2; }
tb=$1 dest=$2 tag=$3
[ -f "$tb" ] || { echo "error: '$tb' is not a file" >&2; exit 2; }
[ ! -e "$dest" ] || { echo "error: '$dest' exists; remove it first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tree"
# A tarball is outside input: its own .git (hooks, core.fsmonitor) would run
# during the commit below, so one that ships git metadata is refused.
if tar -tf "$tb" | grep -qE '(^|/)\.git(/|$)'; then
	echo "error: '$tb' holds git metadata (a .git entry); a release tarball has none" >&2
	exit 2
fi
tar -xf "$tb" -C "$work/tree" --strip-components=1 --no-same-owner
date=$(find "$work/tree" -type f -printf '%T@\n' | sort -n | tail -n 1 | cut -d. -f1)
export GIT_AUTHOR_NAME=bwbuild GIT_AUTHOR_EMAIL=bwbuild@localhost
export GIT_COMMITTER_NAME=bwbuild GIT_COMMITTER_EMAIL=bwbuild@localhost
export GIT_AUTHOR_DATE="@$date +0000" GIT_COMMITTER_DATE="@$date +0000"
# The repository lives beside the tree, no hook or fsmonitor runs, and the
# tarball's own .gitignore drops none of its files (add -f).
g() { git --git-dir="$work/git" --work-tree="$work/tree" -c core.hooksPath=/dev/null \
	-c core.fsmonitor=false "$@"; }
g init -q -b main
g add -A -f
g commit -q --no-verify -m "$(basename "$tb") as released ($tag)"
g tag "$tag"
git clone -q --bare "$work/git" "$dest"
echo "$dest: $tag at $(git --git-dir="$dest" rev-parse "$tag^{commit}")"
