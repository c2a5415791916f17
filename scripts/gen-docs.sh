#!/bin/sh
# gen-docs.sh [BWBUILD [ROOT]]: rewrite the parts of the docs that are made
# from the tables that define behaviour (`make docs`):
#   docs/bwbuild.md          the command reference   bwbuild help --doc=md
#   docs/bwbuild.1           COMMANDS, EXIT STATUS   bwbuild help --doc=man, --doc=man-exit
#                            SEE ALSO's documents     docs/*.md
#   scripts/bwbuild.bash-completion  option lists   bwbuild help --doc=bash
#   docs/profile-format.md   the example             profiles/sm120.yaml
# Each part sits between a "BEGIN generated: ..." line and the next "END
# generated" line, which stay. tests/cli/docs-tables.sh runs this on a
# copy and fails when the result differs from what is committed.
set -eu
bw=${1:-bin/bwbuild}
root=${2:-.}
case $bw in /*) ;; *) bw="$PWD/$bw" ;; esac
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# replace FILE BEGIN-LINE-PREFIX CONTENT-FILE
replace() {
	grep -q "^$(printf '%s' "$2" | sed 's/[][\\.*^$]/\\&/g')" "$1" ||
		{ echo "gen-docs: '$1' has no line '$2'" >&2; exit 1; }
	# Through the environment: awk -v would take the backslash of '.\"' as an escape.
	B="$2" F="$3" awk '
		BEGIN { b = ENVIRON["B"]; f = ENVIRON["F"] }
		index($0, b) == 1 { print; while ((getline l < f) > 0) print l; close(f); skip = 1; next }
		skip && index($0, "END generated") > 0 { skip = 0 }
		!skip { print }
		END { if (skip) { print "gen-docs: no END generated after " b > "/dev/stderr"; exit 1 } }' \
		"$1" > "$tmp/out"
	if ! cmp -s "$tmp/out" "$1"; then
		cat "$tmp/out" > "$1"
		echo "gen-docs: rewrote $1 ($2)" >&2
	fi
}

"$bw" help --doc=md > "$tmp/md"
replace docs/bwbuild.md '<!-- BEGIN generated: bwbuild help --doc=md' "$tmp/md"
"$bw" help --doc=man > "$tmp/man"
replace docs/bwbuild.1 '.\" BEGIN generated: bwbuild help --doc=man ' "$tmp/man"
"$bw" help --doc=man-exit > "$tmp/man-exit"
replace docs/bwbuild.1 '.\" BEGIN generated: bwbuild help --doc=man-exit' "$tmp/man-exit"
# The documents make install installs (docs/*.md), as SEE ALSO names them.
for f in docs/*.md; do
	[ -f "$f" ] || continue
	printf '.I %s\n.br\n' "$(printf '%s' "$f" | sed 's/-/\\-/g')"
done > "$tmp/seealso"
replace docs/bwbuild.1 '.\" BEGIN generated: docs/*.md' "$tmp/seealso"
"$bw" help --doc=bash > "$tmp/bash"
replace scripts/bwbuild.bash-completion '# BEGIN generated: bwbuild help --doc=bash' "$tmp/bash"
{ echo '```yaml'; cat profiles/sm120.yaml; echo '```'; } > "$tmp/sm120"
replace docs/profile-format.md '<!-- BEGIN generated: profiles/sm120.yaml' "$tmp/sm120"
