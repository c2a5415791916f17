# make install PREFIX=... DESTDIR=...: the installed binary, run from another
# directory, finds its profiles, patches and probes under share/bwbuild.
. "$(dirname "$0")/lib.sh"
make -s install DESTDIR="$TMP/dest" PREFIX=/opt/bw >/dev/null
ib="$TMP/dest/opt/bw/bin/bwbuild"
[ -x "$ib" ] || fail "no installed binary"
for f in profiles/sm120.yaml profiles/base/pytorch.yaml patches/pytorch/index.yaml probes/smoke-torch.py; do
	[ -f "$TMP/dest/opt/bw/share/bwbuild/$f" ] || fail "share/bwbuild/$f was not installed"
done
[ -f "$TMP/dest/opt/bw/share/doc/bwbuild/smoke.md" ] || fail "the docs were not installed"
mkdir -p "$TMP/elsewhere"
cd "$TMP/elsewhere"
"$ib" profiles > "$TMP/out"
contains "$TMP/out" "$TMP/dest/opt/bw/share/bwbuild/profiles/sm120.yaml"
"$ib" plan --profile sm120 > "$TMP/out"
contains "$TMP/out" "profile      sm120"
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

# The installed binary, from another directory, builds the demo.
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$TMP/example/minitorch.git" v2.11.0
cd "$TMP/elsewhere"
printf 'extends: %s\nname: installed-demo\nsource:\n  repo: %s\n' "$TMP/dest/opt/bw/share/bwbuild/profiles/demo.yaml" "$TMP/example/minitorch.git" \
	> "$TMP/elsewhere/installed-demo.yaml"
run 0 "$ib" --profile "$TMP/elsewhere/installed-demo.yaml" --work "$TMP/iw" --out "$TMP/iout"
contains "$TMP/out" "wheel:    $TMP/iout/minitorch-2.11.0+git"
