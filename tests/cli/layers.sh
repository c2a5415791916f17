# The layer check (issue 33): tests/tools/layers.py ranks every folder of
# src/ strictly and fails on an include that goes up, a folder with no
# rank, a circle of calls or of globals, a private header of the launcher included
# outside src/launch/, struct build's step.h included outside the
# pipeline, an include a file's "May include:" comment does not allow and
# a Makefile whose LAYERS differ from its ORDER. The tree as it is must
# pass; a copy with one of each must fail, naming each.
. "$(dirname "$0")/lib.sh"

run 0 python3 tests/tools/layers.py "$TOP"
contains "$TMP/out" "layers: 0 violations"

t="$TMP/tree"
rm -rf "$t"
mkdir -p "$t"
cp -R src Makefile "$t/"
run 0 python3 tests/tools/layers.py "$t"

printf '#include "pipeline/plan.h"\n' >> "$t/src/profile/arch.c"
mkdir "$t/src/extra"
printf 'int extra;\n' > "$t/src/extra/x.c"
# smoke_setup.c already uses archs_scan: archs.c calling back into the smoke
# family (smoke.c) closes a circle.
printf 'static int p(void) { return smoke_status_mark(0) != 0; }\n' >> "$t/src/wheel/archs.c"
sed -i 's/^LAYERS = core /LAYERS = /' "$t/Makefile"
printf '#include "launch/admit.h"\n' >> "$t/src/pipeline/plan.c"
printf '#include "pipeline/step.h"\n' >> "$t/src/cli/cmd_plan.c"
# readback.c's comment says "May include: core/, formats/, profile/, pipeline/configure.h."
printf '#include "wheel/verify.h"\n' >> "$t/src/pipeline/readback.c"
# The circle of issue 42, planted again: step_names back in build.c, the
# orchestrator, which calls every step, while every step names it (through
# step_note, a macro of build.h). It is a global, not a function.
sed -n '/^const char \*const step_names/,/^};/p' "$t/src/pipeline/step.c" >> "$t/src/pipeline/build.c"
sed -i '/^const char \*const step_names/,/^};/d' "$t/src/pipeline/step.c"
run 1 python3 tests/tools/layers.py "$t"
contains "$TMP/out" "profile includes pipeline/plan.h, a higher layer (pipeline)"
contains "$TMP/out" "src/extra/: a folder with no rank"
contains "$TMP/out" "circle: wheel/archs -> wheel/smoke -> wheel/archs"
contains "$TMP/out" "Makefile: LAYERS is"
contains "$TMP/out" "src/pipeline/plan.c:"
contains "$TMP/out" "includes launch/admit.h, which only src/launch/* may include"
contains "$TMP/out" "includes pipeline/step.h, which only src/pipeline/* may include"
contains "$TMP/out" "includes wheel/verify.h, but its comment says \"May include: core/, formats/, profile/, pipeline/configure.h\""
# plan.c says what it may include too: its planted include breaks that list as well.
contains "$TMP/out" "src/pipeline/plan.c:$(wc -l <"$t/src/pipeline/plan.c"): includes launch/admit.h, but its comment says \"May include:"
contains "$TMP/out" "circle: pipeline/build -> pipeline/compile -> pipeline/build (src/pipeline/build.c uses compile_check (src/pipeline/compile.c); src/pipeline/compile.c uses step_names (in step_note) (src/pipeline/build.c))"
contains "$TMP/out" "layers: 9 violations"
echo "ok layers"
