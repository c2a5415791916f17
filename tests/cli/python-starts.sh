# The Pythons a build starts, counted: build.python is a wrapper that
# writes one line per start (the first line of a -c program, else its
# arguments) and runs the system's python3. A build starts each hundreds of
# times across the suites, and a setup.py start costs 0.6 CPU s here:
# none may be asked for what no one reads or what was asked already.
. "$(dirname "$0")/lib.sh"
log="$TMP/starts"
py="$TMP/py/python3"
mkdir -p "$TMP/py"
cat >"$py" <<EOF
#!/bin/sh
if [ "\${1:-}" = -c ]; then
	printf -- '-c %s\n' "\$(printf '%s\n' "\$2" | head -n 1)" >>"$log"
else
	printf '%s\n' "\$*" >>"$log"
fi
exec /usr/bin/python3 "\$@"
EOF
chmod 755 "$py"
example_profile "$TMP" "$TMP/p.yaml" starts "build:" "  python: $py"

# doctor says whether 'python3 -m build' is there (a warning when not); a
# build's preflight stops only at what fails, so it does not ask.
: >"$log"
run 0 "$BW" doctor --profile "$TMP/p.yaml"
contains "$log" "-c import build"
: >"$log"
run 0 "$BW" build --profile "$TMP/p.yaml" --work "$TMP/w" --out "$TMP/o" --until fetch
if grep -q 'import build' "$log"; then
	fail "the build's preflight asked whether 'build' imports: $(cat "$log")"
fi
pass

# A tree that declares its build requirements (pyproject.toml; the 2.7
# shape of lib.sh's era_tree), given by --source.
era_tree 2.7 "$TMP/src27" vendored
printf 'extends: %s/profiles/demo.yaml\nname: starts27\nbuild:\n  python: %s\n' "$TOP" "$py" >"$TMP/p27.yaml"
# count PATTERN: the starts in the log whose line is PATTERN.
count() {
	grep -cxF -- "$1" "$log" || true
}
# doctor asks which modules the interpreter lacks, those the build imports
# and those pyproject.toml declares, of one start; it reads the tree once.
: >"$log"
run 0 "$BW" doctor --profile "$TMP/p27.yaml" --source "$TMP/src27"
[ "$(count "-c import importlib.util, sys")" = 1 ] ||
	fail "doctor asked which modules are missing more than once: $(cat "$log")"
pass
[ "$(count "data/helpers/bwreqs.py tree $TMP/src27")" = 1 ] ||
	fail "doctor read the tree's requirements more than once: $(cat "$log")"
pass
# A build reads the tree and judges the interpreter for its own check and
# for its preflight's: each question asked once.
: >"$log"
run 0 "$BW" --profile "$TMP/p27.yaml" --source "$TMP/src27" --work "$TMP/w27" --out "$TMP/o27" --until fetch
for q in "data/helpers/bwreqs.py tree $TMP/src27" "-c import sys" "data/helpers/bwreqs.py match >=4.10.0 4.4.0"; do
	[ "$(count "$q")" = 1 ] || fail "the build asked '$q' $(count "$q") times: $(cat "$log")"
done
pass
