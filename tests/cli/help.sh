. "$(dirname "$0")/lib.sh"
run 0 "$BW" --version
contains "$TMP/out" "bwbuild "
run 0 "$BW" --help
for c in build plan verify manifest diff; do
	run 0 "$BW" $c --help
	contains "$TMP/out" "usage: bwbuild $c"
done
run 2 "$BW"
run 2 "$BW" frobnicate
contains "$TMP/err" "error: 'frobnicate' is not a bwbuild command"
run 2 "$BW" plan
contains "$TMP/err" "error: no profile given"
run 2 "$BW" plan --profile demo --bogus
contains "$TMP/err" "error: unknown option '--bogus'"
run 2 "$BW" build --profile demo --until link
contains "$TMP/err" "error: unknown step 'link' for --until"
run 2 "$BW" plan --profile no-such-profile
contains "$TMP/err" "error: no profile named 'no-such-profile'"
run 2 "$BW" build
contains "$TMP/err" "error: no profile given; use --profile NAME (see 'bwbuild build --help')"
run 2 "$BW" --strict
contains "$TMP/err" "error: no profile given; use --profile NAME (see 'bwbuild build --help')"
run 2 "$BW" plan --profile demo --mem-budget 5x
contains "$TMP/err" "error: '5x' is not a memory size for --mem-budget (e.g. 16G, 512M)"
run 2 "$BW" plan --profile demo --mem-budget
contains "$TMP/err" "error: option '--mem-budget' needs a value"
run 2 "$BW" verify x.whl --threads 0
contains "$TMP/err" "error: --threads wants a number from 1 to 1024, not '0'"
run 2 "$BW" manifest x.whl --format xml
contains "$TMP/err" "error: --format is json or md, not 'xml'"
run 2 "$BW" diff a.json
contains "$TMP/err" "error: no new build given (see 'bwbuild diff --help')"

# 'bwbuild help' lists the commands; 'bwbuild help CMD' is 'bwbuild CMD --help'.
run 0 "$BW" help
sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\)  .*/\1/p' "$TMP/out" > "$TMP/commands"
[ "$(wc -l < "$TMP/commands")" -ge 8 ] || fail "'bwbuild help' lists $(wc -l < "$TMP/commands") commands"
run 0 "$BW" help verify
contains "$TMP/out" "usage: bwbuild verify WHEEL [--profile NAME]"
run 2 "$BW" help frobnicate
contains "$TMP/err" "error: 'frobnicate' is not a bwbuild command"

# The help is generated from each command's option table, so every option it
# lists must be accepted: each is given with a value of its kind, then stray
# arguments, which only the parser refuses once it has taken the option.
while read -r c; do
	run 0 "$BW" "$c" --help
	contains "$TMP/out" "usage: bwbuild $c"
	cp "$TMP/out" "$TMP/help-$c"
	run 0 "$BW" help "$c"
	cmp -s "$TMP/out" "$TMP/help-$c" || fail "'bwbuild help $c' differs from 'bwbuild $c --help'"
	{
		sed -n 's/^  \(-[a-z], \)\{0,1\}\(--[a-z-]*\)\( [^ ]*\)\{0,1\}\(  .*\)\{0,1\}$/\2\3/p' "$TMP/help-$c"
		sed -n 's/^  \(-[a-z]\), --[a-z-]*\( [^ ]*\)\{0,1\}\(  .*\)\{0,1\}$/\1\2/p' "$TMP/help-$c"
	} > "$TMP/options-$c"
	while read -r opt arg; do
		case "$arg" in
		'') v= ;;
		SIZE) v=16G ;;
		N) v=2 ;;
		STEP) v=fetch ;;
		sm_XY) v=sm_120 ;;
		*'|'*) v=${arg##*|} ;;
		SECONDS) v=30 ;;
		PERCENT) v=10% ;;
		*) v=x ;;
		esac
		run 2 "$BW" "$c" "$opt" ${v:+"$v"} stray1 stray2 stray3 </dev/null
		if grep -q "^usage: bwbuild $c [A-Z|]*\.\.\." "$TMP/help-$c"; then
			# PATH... takes them all: the option was taken, the paths are refused.
			contains "$TMP/err" "error: cannot read 'stray1'"
		else
			contains "$TMP/err" "error: unexpected argument 'stray"
		fi
	done < "$TMP/options-$c"
done < "$TMP/commands"
grep -q -- '--strict' "$TMP/options-doctor" || fail "doctor --strict is not documented"
grep -q -- '--output FILE' "$TMP/options-manifest" || fail "manifest --output is not documented"
