#!/bin/sh
# make-example-repo.sh SRC DEST [TAG]
# Turn a copy of the example source SRC into a git repository DEST with a
# release tag (default v2.11.0), so bwbuild fetches it like any upstream.
# Like PyTorch it has submodules: third_party/cutlite (the repository
# cutlite.git beside DEST, from tests/fixtures/third_party/cutlite), which
# has its own submodule third_party/cute (cute.git), both with relative
# URLs as .gitmodules allows.
# When SRC-next exists (tests/fixtures/minitorch-next), a second commit moves
# the tree to the newest build era (setup.py and tools/setup_helpers removed,
# the -next files laid over), moves cutlite to its second commit, and is
# tagged v<its version.txt>.
# Rebuilt only when the sources changed since the last run; a rebuild also
# removes the mirrors cached beside it (DEST/../cache), whose tags it moved.
set -eu
src=$(cd "$1" && pwd)
dest=$2
tag=${3:-v2.11.0}

here=$(cd "$(dirname "$0")/.." && pwd)
tp="$here/tests/fixtures/third_party"
stamp="$dest.stamp"
next=""
[ ! -d "$src-next" ] || next=$(cd "$src-next" && pwd)
tree_sum() {
	(cd "$1" && find . -type f ! -path './build/*' ! -path './dist/*' ! -name '*.pyc' \
		| LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
}
sum="$(tree_sum "$src") $(tree_sum "$tp") $(sha256sum < "$0" | cut -d' ' -f1)"
[ -z "$next" ] || sum="$sum $(tree_sum "$next")"
if [ -d "$dest/.git" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum $tag" ]; then
	exit 0
fi

g() { git -c user.name=bwbuild -c user.email=bwbuild@localhost "$@"; }
commit() { # commit DATE MESSAGE
	GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" g commit -q -m "$2"
}

mkdir -p "$dest"
top=$(cd "$dest/.." && pwd)
dest="$top/$(basename "$dest")"
rm -rf "$dest" "$stamp" "$top/cutlite.git" "$top/cute.git" "$top/cache"
stamp="$dest.stamp"

# cute: one commit
mkdir -p "$top/cute.git"
(cd "$tp/cute" && tar cf - .) | (cd "$top/cute.git" && tar xf -)
cd "$top/cute.git"
git init -q -b main
g add -A
commit "2025-11-01T00:00:00Z" "cute 1.0"
cute=$(git rev-parse HEAD)

# cutlite: 3.4, then 3.5; cute as a submodule at third_party/cute
mkdir -p "$top/cutlite.git"
(cd "$tp/cutlite" && tar cf - .) | (cd "$top/cutlite.git" && tar xf -)
cd "$top/cutlite.git"
git init -q -b main
printf '[submodule "cute"]\n\tpath = third_party/cute\n\turl = ../cute.git\n' > .gitmodules
echo 3.4 > VERSION
g add -A
g update-index --add --cacheinfo "160000,$cute,third_party/cute"
commit "2025-12-01T00:00:00Z" "cutlite 3.4"
g tag v3.4
cutlite1=$(git rev-parse HEAD)
echo 3.5 > VERSION
g add VERSION
commit "2026-06-01T00:00:00Z" "cutlite 3.5"
g tag v3.5
cutlite2=$(git rev-parse HEAD)

mkdir -p "$dest"
(cd "$src" && tar cf - --exclude=./build --exclude=./dist --exclude='*.pyc' --exclude='__pycache__' .) \
	| (cd "$dest" && tar xf -)
cd "$dest"
git init -q -b main
printf '[submodule "third_party/cutlite"]\n\tpath = third_party/cutlite\n\turl = ../cutlite.git\n' > .gitmodules
g add -A
g update-index --add --cacheinfo "160000,$cutlite1,third_party/cutlite"
commit "2026-01-01T00:00:00Z" "minitorch $tag"
g tag -a "$tag" -m "release $tag"
if [ -n "$next" ]; then
	next_tag="v$(head -n1 "$next/version.txt")"
	g rm -q -r setup.py tools/setup_helpers
	(cd "$next" && tar cf - --exclude=README.md --exclude='__pycache__' .) | tar xmf -
	# Re-hash everything: a replaced file of the same size and mtime (version.txt)
	# would otherwise look unchanged to git's index.
	g rm -r -q --cached .
	g add -A
	g update-index --add --cacheinfo "160000,$cutlite2,third_party/cutlite"
	commit "2026-07-20T00:00:00Z" "minitorch $next_tag: build with scikit-build-core, no setup.py; cutlite 3.5"
	g tag -a "$next_tag" -m "release $next_tag"
fi
echo "$sum $tag" > "$stamp"
