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
tar -xf "$tb" -C "$work/tree" --strip-components=1
date=$(find "$work/tree" -type f -printf '%T@\n' | sort -n | tail -n 1 | cut -d. -f1)
export GIT_AUTHOR_NAME=bwbuild GIT_AUTHOR_EMAIL=bwbuild@localhost
export GIT_COMMITTER_NAME=bwbuild GIT_COMMITTER_EMAIL=bwbuild@localhost
export GIT_AUTHOR_DATE="@$date +0000" GIT_COMMITTER_DATE="@$date +0000"
git -C "$work/tree" init -q -b main
git -C "$work/tree" add -A
git -C "$work/tree" commit -q -m "$(basename "$tb") as released ($tag)"
git -C "$work/tree" tag "$tag"
git clone -q --bare "$work/tree" "$dest"
echo "$dest: $tag at $(git --git-dir="$dest" rev-parse "$tag^{commit}")"
