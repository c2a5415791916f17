#!/bin/sh
# python-prefix.sh: the pure-Python packages a newer PyTorch tree's build
# asks for and Debian 12 lacks, in a private prefix (nothing is installed
# into the system). PyTorch 2.9 and later import setuptools.command.bdist_wheel
# at load time (setuptools >= 70.1); Debian 12 has setuptools 66.1.1. This
# fetches trixie's python3-setuptools (78.1.1, Architecture: all) and the
# packages beside it with `apt-get download` from a temporary trixie list,
# unpacks them into DIR/site and writes DIR/PACKAGES. bwbuild finds
# <cache>/python-prefix/NAME/site by itself when a tree needs it (and only
# then), or a profile names the directory in build.python_path.
#
# usage: sh scripts/python-prefix.sh [--suite SUITE] [--dir DIR] [--from-debs DIR]
#                                    [--python PY] [PACKAGE...]
#   --suite      the Debian suite to fetch from (default trixie)
#   --dir        the prefix (default <cache>/python-prefix/SUITE, <cache> as
#                bwbuild's: $BWBUILD_CACHE_DIR, else $XDG_CACHE_HOME/bwbuild,
#                else ~/.cache/bwbuild)
#   --from-debs  unpack the .deb files of this directory instead of fetching
#   --python     the interpreter to check the prefix with (default /usr/bin/python3)
#   PACKAGE      what to fetch (default: python3-setuptools python3-pkg-resources
#                python3-packaging python3-typing-extensions)
set -eu

suite=trixie
dir=""
debs=""
python=/usr/bin/python3
die() {
	echo "python-prefix.sh: $*" >&2
	exit 1
}
while [ $# -gt 0 ]; do
	case $1 in
	--suite) [ $# -ge 2 ] || die "--suite needs a value"; suite=$2; shift 2 ;;
	--dir) [ $# -ge 2 ] || die "--dir needs a value"; dir=$2; shift 2 ;;
	--from-debs) [ $# -ge 2 ] || die "--from-debs needs a value"; debs=$2; shift 2 ;;
	--python) [ $# -ge 2 ] || die "--python needs a value"; python=$2; shift 2 ;;
	-h | --help) sed -n '2,24p' "$0"; exit 0 ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
done
case $suite in
*[!a-z0-9-]* | "") die "--suite '$suite': a Debian suite name such as trixie" ;;
esac
pkgs=${*:-python3-setuptools python3-pkg-resources python3-packaging python3-typing-extensions}
for p in $pkgs; do
	case $p in
	*[!a-z0-9.+-]*) die "'$p' is not a Debian package name" ;;
	esac
done

# bwbuild's cache, as src/sources/repourl.c finds it
if [ -n "${BWBUILD_CACHE_DIR:-}" ]; then
	cache=$BWBUILD_CACHE_DIR
elif [ -n "${XDG_CACHE_HOME:-}" ] && [ "${XDG_CACHE_HOME#/}" != "$XDG_CACHE_HOME" ]; then
	cache=$XDG_CACHE_HOME/bwbuild
else
	cache=$HOME/.cache/bwbuild
fi
[ -n "$dir" ] || dir=$cache/python-prefix/$suite
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
# apt's download user (_apt) reads the lists from here
chmod 755 "$work"

if [ -z "$debs" ]; then
	command -v apt-get >/dev/null || die "no apt-get: fetch the .deb files elsewhere and give --from-debs DIR"
	echo "deb http://deb.debian.org/debian $suite main" >"$work/sources.list"
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
	# apt downloads as _apt where it runs as root: _apt writes the .debs
	# (else apt warns "Download is performed unsandboxed as root").
	if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then
		chown -R _apt "$work/debs" "$work/cache/archives/partial"
	fi
	set -- -o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=- \
		-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1
	echo "python-prefix.sh: the $suite package lists (a temporary list; the system's stay as they are)"
	apt-get "$@" -qq update || die "apt-get update of the temporary $suite list failed"
	want=""
	for p in $pkgs; do want="$want $p/$suite"; done
	# shellcheck disable=SC2086 # one word a package
	(cd "$work/debs" && apt-get "$@" -q download $want) || die "apt-get download failed"
	debs=$work/debs
fi
[ -d "$debs" ] || die "'$debs' is not a directory"

new=$dir.new.$$
rm -rf "$new"
mkdir -p "$new/x"
: >"$new/PACKAGES.tmp"
found=0
for deb in "$debs"/*.deb; do
	[ -f "$deb" ] || continue
	arch=$(dpkg-deb -f "$deb" Architecture) || die "'$deb' is not a Debian package"
	[ "$arch" = all ] || die "'$deb' is for $arch, not pure Python (Architecture: all)"
	dpkg-deb -x "$deb" "$new/x"
	printf '%s %s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" \
		"$(sha256sum "$deb" | cut -d' ' -f1)" >>"$new/PACKAGES.tmp"
	found=$((found + 1))
done
[ "$found" -gt 0 ] || die "no .deb files in '$debs'"
[ -d "$new/x/usr/lib/python3/dist-packages" ] || die "the packages hold no usr/lib/python3/dist-packages"
mv "$new/x/usr/lib/python3/dist-packages" "$new/site"
rm -rf "$new/x"
chmod -R go-w "$new"

# What the prefix gives the build interpreter (bwbuild checks again, per tree).
if [ -x "$python" ]; then
	PYTHONPATH=$new/site "$python" - <<'PY' || die "$python cannot import setuptools from the prefix"
import importlib.metadata as m, setuptools
have = []
for d in ("setuptools", "packaging", "typing_extensions", "wheel"):
    try:
        have.append(d + " " + m.version(d))
    except m.PackageNotFoundError:
        pass
try:
    import setuptools.command.bdist_wheel  # noqa: F401  what PyTorch >= 2.9 imports at load time
    have.append("setuptools.command.bdist_wheel")
except ImportError:
    pass
print("python-prefix.sh: with it, the interpreter has " + ", ".join(have))
PY
fi

# PACKAGES last: bwbuild takes a prefix only once it is there.
mv "$new/PACKAGES.tmp" "$new/PACKAGES"
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.old.$$"
if [ -e "$dir" ]; then mv "$dir" "$dir.old.$$"; fi
mv "$new" "$dir"
rm -rf "$dir.old.$$"
sed 's/^/  /' "$dir/PACKAGES"
echo "python-prefix.sh: $dir/site (bwbuild finds it when a tree needs it; or build.python_path: $dir/site)"
