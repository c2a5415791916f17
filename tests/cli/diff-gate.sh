# diff as a release's gate (issue 41, F7 and F8): --ignore adds to the
# default (version), so --ignore gains still leaves a new release's version
# out; gains left out make "nothing lost", never "builds agree", in the text
# and in the Markdown heading, with the words as --ignore takes them.
. "$(dirname "$0")/lib.sh"

# The old release; the new one: a new version and commit, sm_120 gained.
cat >"$TMP/old.json" <<'JSON'
{"schema": "bwbuild-manifest/1", "profile": {"name": "demo"},
 "wheel": {"file": "t-2.11.0-x.whl", "version": "2.11.0+cu130.demo"},
 "source": {"commit": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
 "features": {"cuda": true}, "archs": {"sass": ["sm_100"], "ptx": []}}
JSON
sed -e 's/2\.11\.0/2.11.1/g' -e 's/a\{40\}/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/' \
	-e 's/"sass": \["sm_100"\]/"sass": ["sm_100", "sm_120"]/' "$TMP/old.json" >"$TMP/new.json"
sed -e 's/2\.11\.0/2.11.1/g' "$TMP/old.json" >"$TMP/next.json"

# --ignore gains: the version is still left out, as by default.
run 0 "$BW" diff "$TMP/old.json" "$TMP/new.json" --ignore gains
contains "$TMP/out" "archs (all libraries): +sm_120"
contains "$TMP/out" "nothing lost (3 differences not counted: --ignore version,gains)"
if grep -q "builds agree" "$TMP/out"; then fail "diff says the builds agree though sm_120 was gained: $(cat "$TMP/out")"; fi
run 0 "$BW" diff "$TMP/old.json" "$TMP/new.json" --ignore version,gains
contains "$TMP/out" "nothing lost (3 differences not counted: --ignore version,gains)"
run 0 "$BW" diff "$TMP/old.json" "$TMP/new.json" --ignore gains --format md
contains "$TMP/out" "## demo: nothing lost"
contains "$TMP/out" "0 differences counted, 3 not counted (\`--ignore version,gains\`)."
# The gain counts by default; none counts the version too; none then gains: the gains alone.
run 1 "$BW" diff "$TMP/old.json" "$TMP/new.json"
contains "$TMP/out" "builds differ (2 differences not counted: --ignore version)"
run 1 "$BW" diff "$TMP/old.json" "$TMP/next.json" --ignore none
contains "$TMP/out" "builds differ"
run 1 "$BW" diff "$TMP/old.json" "$TMP/new.json" --ignore none,gains
contains "$TMP/out" "builds differ (1 difference not counted: --ignore gains)"
# Only a new version: the same build.
run 0 "$BW" diff "$TMP/old.json" "$TMP/next.json" --ignore gains
contains "$TMP/out" "builds agree (1 difference not counted: --ignore version,gains)"

# A library whose SASS alone or PTX alone changed: no label left dangling
# for the other ("; ptx" with nothing after it).
printf '{"schema": "bwbuild-manifest/1", "libraries": [{"path": "t/lib/k.so", "sass": %s, "ptx": %s}]}\n' \
	'["sm_100"]' '["compute_100"]' >"$TMP/lib-a.json"
printf '{"schema": "bwbuild-manifest/1", "libraries": [{"path": "t/lib/k.so", "sass": %s, "ptx": %s}]}\n' \
	'["sm_100", "sm_120"]' '["compute_100"]' >"$TMP/lib-sass.json"
printf '{"schema": "bwbuild-manifest/1", "libraries": [{"path": "t/lib/k.so", "sass": %s, "ptx": %s}]}\n' \
	'["sm_100"]' '[]' >"$TMP/lib-ptx.json"
run 1 "$BW" diff "$TMP/lib-a.json" "$TMP/lib-sass.json"
grep -qx "library t/lib/k.so: sass +sm_120" "$TMP/out" || fail "diff's line for a SASS change: $(cat "$TMP/out")"
run 1 "$BW" diff "$TMP/lib-a.json" "$TMP/lib-ptx.json"
grep -qx "library t/lib/k.so: ptx -compute_100" "$TMP/out" || fail "diff's line for a PTX change: $(cat "$TMP/out")"
pass
