# The docs made from the tables that define behaviour cannot drift from them:
# - the option tables: docs/bwbuild.md's command reference, the man page's
#   COMMANDS, EXIT STATUS and SEE ALSO, the bash completion's option lists
#   are what scripts/gen-docs.sh (make docs) makes now;
# - profile_keys[]: every key has a row in docs/profile-format.md, every row
#   is a key;
# - the manifest writer: every field it sets is named in docs/manifest-format.md,
#   every top-level one with its own row;
# - examples: the profile examples of the docs load and validate; the sm120
#   one is profiles/sm120.yaml; README names every shipped profile.
. "$(dirname "$0")/lib.sh"

# 1. Generated parts: made again on a copy, compared with what is committed.
root="$TMP/root"
mkdir -p "$root/scripts" "$root/profiles"
cp -R docs "$root/"
cp scripts/bwbuild.bash-completion "$root/scripts/"
cp profiles/sm120.yaml "$root/profiles/"
sh scripts/gen-docs.sh "$BW" "$root" 2>"$TMP/gen.err" || { cat "$TMP/gen.err"; fail "gen-docs.sh failed"; }
for f in docs/bwbuild.md docs/bwbuild.1 docs/profile-format.md scripts/bwbuild.bash-completion; do
	diff -u "$f" "$root/$f" > "$TMP/drift" ||
		{ cat "$TMP/drift"; fail "$f differs from the tables that define it; run 'make docs'"; }
done
# Each command's reference is its --help, option for option.
"$BW" help | sed -n 's/^  \([a-z]\{1,\}\) .*/\1/p' > "$TMP/commands"
while read -r c; do
	"$BW" "$c" --help > "$TMP/help"
	grep -q "^### bwbuild $c\$" docs/bwbuild.md || fail "docs/bwbuild.md has no section for '$c'"
	while IFS= read -r line; do
		grep -qxF -- "$line" docs/bwbuild.md || fail "docs/bwbuild.md lacks '$line' of 'bwbuild $c --help'"
	done < "$TMP/help"
	sed -n 's/^  \(-[a-z], \)\{0,1\}--\([a-z-]*\).*/\2/p' "$TMP/help" | while read -r o; do
		grep -q "_bwbuild_opts_$c=\".*--$o " scripts/bwbuild.bash-completion ||
			fail "the completion does not offer --$o for '$c'"
		grep -qF "\\-\\-$(echo "$o" | sed 's/-/\\-/g')\"" docs/bwbuild.1 ||
			fail "bwbuild.1 does not describe --$o"
	done
done < "$TMP/commands"
# SEE ALSO names every document.
for f in docs/*.md; do
	grep -qF ".I $(echo "$f" | sed 's/-/\\-/g')" docs/bwbuild.1 || fail "bwbuild.1's SEE ALSO lacks $f"
done
# The exit statuses: the man page's are the contract's.
"$BW" help exit-codes | awk 'NR > 1 { print $1 }' | while read -r n; do
	grep -qx "\.B $n" docs/bwbuild.1 || fail "bwbuild.1's EXIT STATUS lacks $n"
done

# 2. Profile keys, both ways. A map key's row is written KEY.NAME (cmake.NAME).
run 0 "$BW" help --doc=keys
sort -u "$TMP/out" > "$TMP/keys"
[ "$(wc -l < "$TMP/keys")" -ge 20 ] || fail "'help --doc=keys' lists $(wc -l < "$TMP/keys") keys"
# shellcheck disable=SC2016 # the backquotes are Markdown, not a command
sed -n '/^## Keys/,/^## /s/^| `\([a-z_.A-Z0-9]*\)` |.*/\1/p' docs/profile-format.md |
	sed 's/\.NAME$//' | sort -u > "$TMP/doc-keys"
comm -23 "$TMP/keys" "$TMP/doc-keys" > "$TMP/undocumented"
comm -13 "$TMP/keys" "$TMP/doc-keys" > "$TMP/unknown"
[ ! -s "$TMP/undocumented" ] || fail "profile keys without a row in docs/profile-format.md: $(cat "$TMP/undocumented")"
[ ! -s "$TMP/unknown" ] || fail "docs/profile-format.md documents keys profile_keys[] lacks: $(cat "$TMP/unknown")"

# The completion offers every key --set takes (issue 32), and on/off for a switch.
if command -v bash >/dev/null 2>&1; then
	comp() {
		bash -c '. scripts/bwbuild.bash-completion; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
			_bwbuild; printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
	}
	comp bwbuild plan --set "" > "$TMP/set-keys"
	while read -r k; do
		grep -qx "$k=\|$k\." "$TMP/set-keys" || [ "$k" = extends ] ||
			fail "the completion of --set lacks '$k'"
	done < "$TMP/keys"
	comp bwbuild --profile sm120 --set features.flash > "$TMP/comp"
	contains "$TMP/comp" "features.flash_attention="
	comp bwbuild plan --set features.flash_attention = "" > "$TMP/comp"
	[ "$(tr '\n' ' ' < "$TMP/comp")" = "on off " ] || fail "--set features.flash_attention= completes to: $(cat "$TMP/comp")"
	comp bwbuild diff a.json b.json --ignore "" > "$TMP/comp"
	contains "$TMP/comp" "gains"
	# help takes a command or a topic.
	comp bwbuild help "" > "$TMP/comp"
	grep -qx "exit-codes" "$TMP/comp" || fail "'bwbuild help ' does not complete to exit-codes: $(cat "$TMP/comp")"
	grep -qx "diff" "$TMP/comp" || fail "'bwbuild help ' does not complete to diff: $(cat "$TMP/comp")"
else
	skip "no bash: the completion is not run"
fi

# 3. Manifest fields. Every name the writers set (json_set with a literal) is
# named in docs/manifest-format.md: in a `field.path` or a {a, b} list.
set -- src/wheel/manifest.c src/pipeline/publish.c src/pipeline/inputs.c src/wheel/smoke*.c
for w; do
	[ -f "$w" ] || fail "$w is gone: name the manifest writer's new file in this test"
done
cat "$@" | grep -o 'json_set([a-z_>.-]*, "[a-z_0-9+]*"' | sed 's/.*"\(.*\)"/\1/' | sort -u > "$TMP/fields"
python3 - "$TMP/fields" docs/manifest-format.md <<'PY'
import re, sys
fields = open(sys.argv[1]).read().split()
doc = open(sys.argv[2]).read()
named = set()
for span in re.findall(r"`([^`\n]+)`", doc):
    if re.fullmatch(r"[A-Za-z0-9_.+\[\]{},]+", span):
        named.update(re.findall(r"[A-Za-z0-9_+]+", span))
# {a, b [{c, d}]}: the innermost groups first, then those around them.
text = doc
while True:
    groups = re.findall(r"\{([^{}\n]*)\}", text)
    if not groups:
        break
    for group in groups:
        named.update(re.findall(r"[A-Za-z0-9_+]+", re.sub(r"`[^`]*`|\([^()]*\)", " ", group)))
    text = re.sub(r"\{[^{}\n]*\}", " ", text)
missing = [f for f in fields if f not in named]
if missing:
    sys.exit("manifest fields the writers set but docs/manifest-format.md never names: %s" % ", ".join(missing))
PY
# Top level: each field of a manifest, and each the build and smoke add, has its row.
need_wheels
run 0 "$BW" manifest "$TMP/wheels/good/plat-1.0-cp311-cp311-linux_x86_64.whl" -o "$TMP/m.json"
{
	python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))))' "$TMP/m.json"
	grep -ho 'json_set(m, "[a-z_]*"' src/pipeline/publish.c src/wheel/smoke*.c | sed 's/.*"\(.*\)"/\1/'
} | sort -u > "$TMP/top"
# shellcheck disable=SC2016 # the backquotes are Markdown, not a command
sed -n 's/^| `\([a-z_]*\)[`.[].*/\1/p' docs/manifest-format.md | sort -u > "$TMP/doc-top"
comm -23 "$TMP/top" "$TMP/doc-top" > "$TMP/undocumented"
[ ! -s "$TMP/undocumented" ] || fail "top-level manifest fields without a row in docs/manifest-format.md: $(cat "$TMP/undocumented")"
for f in env inherited_env toolchain; do
	grep -q "^| \`build\.$f\`" docs/manifest-format.md || fail "docs/manifest-format.md has no row for build.$f"
done

# 4. Examples. The profile examples of the docs are profiles that validate (a
# fragment without a name: on top of sm120); the sm120 one is the shipped file.
mkdir -p "$TMP/examples"
python3 - "$TMP/examples" "$TOP/profiles/sm120.yaml" docs/profile-format.md docs/extensions.md <<'PY'
import re, sys
out, base, docs = sys.argv[1], sys.argv[2], sys.argv[3:]
n = 0
for f in docs:
    for m in re.finditer(r"```yaml\n(.*?)```", open(f).read(), re.S):
        b = m.group(1)
        if not re.search(r"^source:", b, re.M):
            continue
        n += 1
        if not re.search(r"^(name|extends):", b, re.M):
            b = "extends: %s\n" % base + b
        open("%s/doc-example-%d.yaml" % (out, n), "w").write(b)
if n < 2:
    sys.exit("only %d profile examples found in the docs" % n)
PY
BWBUILD_PROFILE_PATH="$TMP/examples" "$BW" profiles --json > "$TMP/profiles.json"
python3 - "$TMP/profiles.json" <<'PY'
import json, sys
bad = [p["path"] for p in json.load(open(sys.argv[1])) if "doc-example" in p["path"] and not p["valid"]]
if bad:
    sys.exit("doc examples that do not validate: %s" % ", ".join(bad))
PY
sed -n '/BEGIN generated: profiles\/sm120.yaml/,/END generated/p' docs/profile-format.md | sed '1,2d;$d' | sed '$d' > "$TMP/sm120"
cmp -s "$TMP/sm120" profiles/sm120.yaml || { diff -u profiles/sm120.yaml "$TMP/sm120"; fail "the sm120 example differs from profiles/sm120.yaml"; }
# README: every shipped profile named, builds write out/, not dist/.
for p in profiles/*.yaml; do
	n=$(basename "$p" .yaml)
	sed -n '/^## Profiles/,/^## /p' README.md | grep -q "\`$n\`" || fail "README.md's profile list lacks '$n'"
done
grep -n 'dist/' README.md && fail "README.md says dist/ where builds write out/"
true

# 5. Every `bwbuild ...` line of the docs' code blocks names a command and
# options that command has (as its --help lists them).
"$BW" help | sed -n 's/^  \([a-z]\{1,\}\) .*/\1/p' | while read -r c; do
	"$BW" "$c" --help > "$TMP/help-$c"
done
python3 - "$TMP" README.md docs/*.md <<'PY'
import re, sys
tmp, files = sys.argv[1], sys.argv[2:]
bad = []
for f in files:
    inblock = False
    for n, line in enumerate(open(f), 1):
        if line.startswith("```"):
            inblock = not inblock
            continue
        m = re.match(r"\s*(?:[A-Z_]+=\S+\s+)*bwbuild\s+(.*)", line) if inblock else None
        if not m:
            continue
        words = m.group(1).split("#")[0].split()
        if not words:
            continue
        cmd = words[0] if not words[0].startswith("-") else "build"
        if cmd in ("help",) or words[0] in ("--version", "--help"):
            continue
        try:
            help_text = open("%s/help-%s" % (tmp, cmd)).read()
        except OSError:
            bad.append("%s:%d: '%s' is not a bwbuild command" % (f, n, cmd))
            continue
        for w in words:
            if w == "--":
                break
            o = re.match(r"\[?(--[a-z][a-z-]*)", w)
            if o and not re.search(r"(^|[ ,\[])%s\b" % re.escape(o.group(1)), help_text, re.M):
                bad.append("%s:%d: 'bwbuild %s' has no option %s" % (f, n, cmd, o.group(1)))
if bad:
    sys.exit("\n".join(bad))
PY
