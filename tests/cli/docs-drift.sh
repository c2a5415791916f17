# Docs drift (issue 23): the design docs, the README and the code say the
# same thing. tests/tools/docs_drift.py fails when a comment cites a docs/
# file or section that does not exist (or a document kept outside the
# repository), when README's folder list differs from the folders of src/,
# when the step table of docs/design/pipeline.md differs from the steps the
# binary runs, or when an exit code of src/core/diag.h is not documented.
# The tree as it is must pass; a copy with each kind of drift must fail,
# naming it.
. "$(dirname "$0")/lib.sh"

# The steps as the binary runs them (the step table in the code).
run 0 "$BW" plan --profile demo --json
python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["steps"]))' \
	"$TMP/out" > "$TMP/steps"
grep -qx smoke "$TMP/steps" || fail "plan --json lists no smoke step"

run 0 python3 tests/tools/docs_drift.py "$TOP" "$TMP/steps"
contains "$TMP/out" "docs drift: 0 findings"

# A copy of what the check reads, then one drift of each kind.
t="$TMP/tree"
rm -rf "$t"
mkdir -p "$t"
cp -R src docs README.md .github "$t/"
run 0 python3 tests/tools/docs_drift.py "$t" "$TMP/steps"

printf '/* (docs/design/formats.md §99) */\n' >> "$t/src/core/buf.c"
printf '/* (docs/design/no-such.md §1) */\n' >> "$t/src/core/buf.h"
printf '/* (binary-formats.md §9) */\n' >> "$t/src/formats/zip.h"
printf '/* (docs/design/scheduling.md §2, §77) */\n' >> "$t/src/pipeline/plan.h"
printf '/* see src/pipeline/no-such.c and src/cmd_old.c; src/sources/git*.c is fine */\n' >> "$t/src/core/buf.c"
sed -i "s|src/pipeline/step.c|src/pipeline/no-such.c|" "$t/docs/design/filesystem.md"
mkdir "$t/src/extra"
# shellcheck disable=SC2016 # the backquotes are Markdown, not a command
sed -i '/^- `src\/host\/`/d' "$t/README.md"
sed -i '/^| smoke |/d' "$t/docs/design/pipeline.md"
sed -i 's/^\(\tEXIT_NO_GPU = 3,.*\)$/\1\n\tEXIT_LATER = 4,/' "$t/src/core/diag.h"
run 1 python3 tests/tools/docs_drift.py "$t" "$TMP/steps"
contains "$TMP/out" "src/core/buf.c:"
contains "$TMP/out" "cites 'docs/design/formats.md §99', but docs/design/formats.md has no section 99"
contains "$TMP/out" "cites 'docs/design/no-such.md', which does not exist"
contains "$TMP/out" "src/formats/zip.h:"
contains "$TMP/out" "cites 'binary-formats.md', a document that is not in the repository"
contains "$TMP/out" "has no section 77"
contains "$TMP/out" "docs/design/filesystem.md:"
contains "$TMP/out" "names 'src/pipeline/no-such.c', which does not exist"
contains "$TMP/out" "the folder list lacks src/extra/"
contains "$TMP/out" "the folder list lacks src/host/"
contains "$TMP/out" "the step table lists fetch configure compile wheel repair verify publish; the binary runs fetch configure compile wheel repair verify smoke publish"
contains "$TMP/out" "the exit codes lack EXIT_LATER (4 in src/core/diag.h)"
contains "$TMP/out" "EXIT STATUS lacks 4 (EXIT_LATER)"
grep "^src/core/buf.c:" "$TMP/out" > "$TMP/buf-findings"
contains "$TMP/buf-findings" "names 'src/pipeline/no-such.c', which does not exist"
contains "$TMP/out" "names 'src/cmd_old.c', a path with no layer folder"
contains "$TMP/out" "docs drift: 13 findings"
echo "ok docs-drift"
