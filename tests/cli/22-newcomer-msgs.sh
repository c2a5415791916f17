# Messages a newcomer meets first: "did you mean", every problem of a
# profile in one run, and messages that name the cause (issue 24).
. "$(dirname "$0")/lib.sh"

# "Did you mean" for commands, options, profile keys and profile names.
run 2 "$BW" buidl
contains "$TMP/err" "error: 'buidl' is not a bwbuild command; see 'bwbuild --help'"
contains "$TMP/err" "hint: did you mean 'build'?"
run 2 "$BW" help verfy
contains "$TMP/err" "hint: did you mean 'verify'?"
run 2 "$BW" xyzzy
grep -q "hint:" "$TMP/err" && fail "a hint for a word near no command"
run 2 "$BW" plan --profle demo
contains "$TMP/err" "error: unknown option '--profle'; see 'bwbuild plan --help'"
contains "$TMP/err" "hint: did you mean '--profile'?"
run 2 "$BW" --profile demo --stict
contains "$TMP/err" "hint: did you mean '--strict'?"
run 2 "$BW" plan --profile sm12
contains "$TMP/err" "error: no profile named 'sm12'"
contains "$TMP/err" "hint: did you mean 'sm120'?"
mkdir -p "$TMP/keys"
printf 'extends: demo\ncuda:\n  archz: ["12.0"]\n' > "$TMP/keys/x.yaml"
run 2 "$BW" plan --profile "$TMP/keys/x.yaml"
contains "$TMP/err" "$TMP/keys/x.yaml:3:3: error: unknown key 'archz' in 'cuda'"
contains "$TMP/err" "hint: did you mean 'archs'?"
# The hint follows its error, before the next one.
[ "$(sed -n 2p "$TMP/err")" = "hint: did you mean 'archs'?" ] || fail "hint not after its error"

# profiles: an invalid one is named by the command that shows why.
mkdir -p "$TMP/pp"
printf 'name: broken\ncolour: red\n' > "$TMP/pp/broken.yaml"
BWBUILD_PROFILE_PATH="$TMP/pp" run 0 "$BW" profiles
contains "$TMP/out" "broken           (invalid, 4 problems: 'bwbuild plan --profile $TMP/pp/broken.yaml' shows them)"
BWBUILD_PROFILE_PATH="$TMP/pp" run 0 "$BW" profiles --json
python3 - "$TMP/out" <<'PY'
import json, sys
p = [x for x in json.load(open(sys.argv[1])) if x["name"] == "broken"][0]
assert p["valid"] is False and p["problems"] == 4, p
PY
