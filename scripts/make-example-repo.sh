#!/bin/sh
# make-example-repo.sh SRC DEST [TAG]
# Turn a copy of the example source SRC into a git repository DEST with a
# release tag (default v2.11.0), so bwbuild fetches it like any upstream.
# When SRC-next exists (tests/fixtures/minitorch-next), a second commit moves
# the tree to the newest build era (setup.py and tools/setup_helpers removed,
# the -next files laid over) and is tagged v<its version.txt>.
# Rebuilt only when the sources changed since the last run.
set -eu
src=$1
dest=$2
tag=${3:-v2.11.0}

stamp="$dest.stamp"
next=""
[ ! -d "$src-next" ] || next=$(cd "$src-next" && pwd)
tree_sum() {
	(cd "$1" && find . -type f ! -path './build/*' ! -path './dist/*' ! -name '*.pyc' \
		| LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
}
sum=$(tree_sum "$src")
[ -z "$next" ] || sum="$sum $(tree_sum "$next")"
if [ -d "$dest/.git" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum $tag" ]; then
	exit 0
fi

rm -rf "$dest" "$stamp"
mkdir -p "$dest"
stamp="$(cd "$dest/.." && pwd)/$(basename "$dest").stamp"
(cd "$src" && tar cf - --exclude=./build --exclude=./dist --exclude='*.pyc' --exclude='__pycache__' .) \
	| (cd "$dest" && tar xf -)
cd "$dest"
git init -q -b main
git -c user.name=bwbuild -c user.email=bwbuild@localhost add -A
GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
	git -c user.name=bwbuild -c user.email=bwbuild@localhost commit -q -m "minitorch $tag"
git -c user.name=bwbuild -c user.email=bwbuild@localhost tag -a "$tag" -m "release $tag"
if [ -n "$next" ]; then
	next_tag="v$(head -n1 "$next/version.txt")"
	git rm -q -r setup.py tools/setup_helpers
	(cd "$next" && tar cf - --exclude=README.md --exclude='__pycache__' .) | tar xmf -
	# Re-hash everything: a replaced file of the same size and mtime (version.txt)
	# would otherwise look unchanged to git's index.
	git rm -r -q --cached .
	git -c user.name=bwbuild -c user.email=bwbuild@localhost add -A
	GIT_AUTHOR_DATE="2026-07-20T00:00:00Z" GIT_COMMITTER_DATE="2026-07-20T00:00:00Z" \
		git -c user.name=bwbuild -c user.email=bwbuild@localhost commit -q \
		-m "minitorch $next_tag: build with scikit-build-core, no setup.py"
	git -c user.name=bwbuild -c user.email=bwbuild@localhost tag -a "$next_tag" -m "release $next_tag"
fi
echo "$sum $tag" > "$stamp"
