# Fault injection inside a checkout: bwbuild is SIGKILLed while it makes a
# submodule's repository, at each point it names and then before every
# system call between the first and the last of them (strace); a plain
# re-run must repair the work directory. The fetch fills the mirror first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faults.sh"
# A kill while a submodule's repository is being made (issue 27, H3): the
# next plain run repairs it, whatever point the kill hit. The points
# bwbuild names (checkout-submodule-*) for the nested submodule (cute)...
# The interpreter bwbuild picks, named: a run then skips the search of PATH.
py=$("$BW" --profile "$TMP/f90.yaml" --work "$w" --out "$o" --until fetch 2>&1 | sed -n 's/^bwbuild: profile .*, python //p')
[ -n "$py" ] || fail "no interpreter named by bwbuild"
fetch_only() { "$BW" --profile "$TMP/f90.yaml" --work "$w" --out "$o" --until fetch --set "build.python=$py"; }
# submodule_ok PARENT PATH NAME: what `git submodule status` marks ' ':
# registered (its url in PARENT's config), a repository of its own at
# PATH, at the commit PARENT records. Asked of git's plumbing: the
# porcelain is a shell script, a third of each of the ~90 checks' CPU;
# one rev-parse says both the submodule's top level and its HEAD.
submodule_ok() {
	git -C "$1" config "submodule.$3.url" >/dev/null &&
		[ "$(git -C "$1/$2" rev-parse --show-toplevel HEAD 2>/dev/null)" = "$1/$2
$(git -C "$1" rev-parse "HEAD:$2")" ]
}
checkout_whole() {
	version=
	read -r version 2>/dev/null <"$w/src/third_party/cutlite/VERSION" || :
	{
		[ "$version" = 3.4 ] &&
			[ -f "$w/src/third_party/cutlite/third_party/cute/include/cute/fast_math.h" ] &&
			[ -z "$(git -C "$w/src" status --porcelain --ignore-submodules=none)" ] &&
			submodule_ok "$w/src" third_party/cutlite third_party/cutlite &&
			submodule_ok "$w/src/third_party/cutlite" third_party/cute cute
	} || fail "the checkout is not whole after a kill at $1"
	pass
}
h3=0
for p in create init config renamed workdir linked ready; do
	rm -rf "$w"
	BWBUILD_FAULT="checkout-submodule-$p:2" run 137 fetch_only
	run 0 fetch_only
	checkout_whole "checkout-submodule-$p:2"
	h3=$((h3 + 1))
done
# ...and, for the first (cutlite), every system call between the first and
# the last of them, as strace sees them (BWBUILD_FAULT=list writes each point
# to stderr, so the window shows in the trace). A kill before a call that
# changes nothing on disk leaves what a kill before the next call that does
# leaves, so the kills go before each call that creates, writes (a file, not
# stderr), renames, links or removes.
if command -v strace >/dev/null 2>&1; then
	[ -z "$ASAN_BUILD" ] || skip "ASan build: LeakSanitizer is off in the runs under strace (it cannot work under ptrace)"
	rm -rf "$w"
	BWBUILD_FAULT=list ASAN_OPTIONS="$TRACED_ASAN" strace -qq -o "$TMP/trace90" -s 64 "$BW" --profile "$TMP/f90.yaml" --work "$w" \
		--out "$o" --until fetch --set "build.python=$py" 2>/dev/null ||
		fail "the traced fetch failed"
	awk '{ name = $0; sub(/\(.*/, "", name); count[name]++ }
	/fault point: checkout-submodule-create/ { on = 1 }
	on && name ~ /^(openat|open|creat|mkdir|mkdirat|write|pwrite64|rename|renameat|renameat2|link|linkat|symlink|symlinkat|unlink|unlinkat|rmdir|fsync|fdatasync|ftruncate|chmod|fchmod|fchmodat)$/ &&
		!(name ~ /^open/ && $0 !~ /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC/) &&
		!(name == "write" && $0 ~ /^write\(2,/) { print name, count[name] }
	/fault point: checkout-submodule-ready/ && on { exit }' "$TMP/trace90" > "$TMP/kills90"
	[ "$(wc -l < "$TMP/kills90")" -ge 20 ] || fail "too few system calls in the window: $(cat "$TMP/kills90")"
	while read -r sc k; do
		rm -rf "$w"
		BWBUILD_FAULT=list run 137 strace -qq -o "$TMP/ktrace90" -e trace="$sc" \
			-e inject="$sc:signal=KILL:when=$k" "$BW" --profile "$TMP/f90.yaml" --work "$w" \
			--out "$o" --until fetch --set "build.python=$py"
		run 0 fetch_only
		checkout_whole "$sc #$k"
		h3=$((h3 + 1))
	done < "$TMP/kills90"
else
	skip "strace is not installed: the system-call kills of H3 (every write between two fault points) are not made"
fi
echo "submodule creation: $h3 kills, every plain re-run repaired the work dir"
