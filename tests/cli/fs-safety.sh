# File-system safety (docs/design/filesystem.md), each case a finding of
# issue 27 that failed before its fix: planted links are never written
# through, cleanup removes only what bwbuild proves it made, "up to date"
# means the pair is in THIS --out, --out is published as a pair, unsafe
# --work/--out/cache values are refused, the cache is trusted at every
# level, a Ctrl-C is honoured at once, an interrupted staging is not reused.
# SECTIONS="h2_lock m2_sigint" runs only those (all by default).
. "$(dirname "$0")/lib.sh"
ex="$TMP/example91"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$ex/minitorch.git" v2.11.0
export BWBUILD_CACHE_DIR="$TMP/cache91"
rm -rf "$TMP/cache91" "$TMP/w91" "$TMP/o91"
cat > "$TMP/f91.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: f91
source:
  repo: $ex/minitorch.git
YAML
w="$TMP/w91" o="$TMP/o91"
# shellcheck disable=SC2120 # also called with arguments, through run
bw() { "$BW" --profile "$TMP/f91.yaml" --work "$w" --out "$o" "$@"; }
# A pid no process has: kill -0 says ESRCH for it.
dead=$(python3 -c 'import os
p = int(open("/proc/sys/kernel/pid_max").read()) - 7
while True:
    try: os.kill(p, 0); p -= 1
    except ProcessLookupError: print(p); break
    except PermissionError: p -= 1')
victim="$TMP/victim91"
new_victim() { printf 'precious\n' > "$victim"; }
victim_intact() { [ "$(cat "$victim")" = precious ] || fail "$1: the victim was changed to '$(cat "$victim")'"; }

# The pair in --out agrees: the manifest's sha256 is the wheel's; nothing temporary left.
pair_ok() {
	python3 - "$1" <<'PY' || fail "the pair in $1 disagrees after $2"
import glob, hashlib, json, os, sys
out = sys.argv[1]
left = [f for f in os.listdir(out) if ".tmp." in f or ".bak." in f]
assert not left, ("temporary files left", left)
ms = glob.glob(out + "/*.manifest.json")
assert ms, "no manifest"
for m in ms:
    j = json.load(open(m))
    whl = m[: -len(".manifest.json")] + ".whl"
    assert hashlib.sha256(open(whl, "rb").read()).hexdigest() == j["wheel"]["sha256"], m
PY
}
sha() { sha256sum "$1" | cut -d' ' -f1; }

run 0 bw
pair_ok "$o" "a first build"
wheel=$(ls "$o"/*.whl)
manifest=$(ls "$o"/*.manifest.json)

want() {
	[ -n "${SECTIONS:-}" ] || return 0
	case " $SECTIONS " in *" $1 "*) return 0 ;; esac
	skip "section $1 is not in SECTIONS ($SECTIONS)"
	return 1
}

# A case that leaves the work dir without its record (last-build.json) and
# removes what it planted ends with `recover NAME`: the next full build must
# succeed with the plant gone. That build is the next one made anyway (a
# later case's `run 0 bw` after its own `rm last-build.json`, then
# `recovered`), or settle's before a case that needs the published pair as
# the last build left it: each full build costs 3 CPU s, and one proves
# every recovery pending before it (each case's plant is removed, the
# build after it exits 0, the pair in --out agrees) as one build each did.
pending=""
recover() {
	pending="$pending $1"
}
# After a `run 0 bw` that rebuilt and published into $o with nothing planted left there.
recovered() {
	[ -n "$pending" ] || return 0
	pair_ok "$o" "the build after:$pending"
	for _ in $pending; do pass; done
	pending=""
}
settle() {
	[ -n "$pending" ] || return 0
	run 0 bw
	# run counted one check: the first pending case's.
	pending=${pending# }
	first=${pending%% *}
	case $pending in *" "*) pending=" ${pending#* }" ;; *) pending="" ;; esac
	pair_ok "$o" "the build after $first"
	recovered
}

# H2: <work>/lock planted as a link to a victim: refused, the victim intact.
if want h2_lock; then
	new_victim
	rm -f "$w/lock"
	ln -s "$victim" "$w/lock"
	run 1 bw
	contains "$TMP/err" "$w/lock' is a symbolic link"
	victim_intact "a link at <work>/lock"
	rm -f "$w/lock"
	: > "$w/lock"
	# The same for a step's log (compile's: the compile step always runs a
	# command, while an up-to-date configure opens no log).
	new_victim
	rm -f "$w/last-build.json" "$w/logs/compile.log"
	ln -s "$victim" "$w/logs/compile.log"
	run 1 bw
	victim_intact "a link at <work>/logs/compile.log"
	rm -f "$w/logs/compile.log"
fi

# Issue 31: a FIFO at a file bwbuild keeps under a fixed name in the work
# dir (a step's log) is refused at once, not waited on for a reader (the
# build hung forever, silently). timeout: a hang fails, not blocks the suite.
if want h31_fifo; then
	rm -f "$w/last-build.json" "$w/logs/compile.log"
	mkfifo "$w/logs/compile.log"
	run 1 timeout 60 "$BW" --profile "$TMP/f91.yaml" --work "$w" --out "$o"
	contains "$TMP/err" "'$w/logs/compile.log' is not a regular file (a FIFO, a device or a directory); bwbuild reads and writes only regular files there: remove it"
	rm -f "$w/logs/compile.log"
	recover h31_fifo
fi

# Issue 31: a FIFO at a state file bwbuild reads back (the publish journal,
# configure.stamp) fails the build; it printed "error: ... is not a regular
# file" and exited 0. The journal's is found before the first step.
if want h31_statefifo; then
	rm -f "$w/last-build.json"
	mkfifo "$w/publish.journal"
	run 2 timeout 60 "$BW" --profile "$TMP/f91.yaml" --work "$w" --out "$o"
	contains "$TMP/err" "error: '$w/publish.journal' is not a regular file (a FIFO, a device, a directory or a link)"
	contains "$TMP/err" "hint: it is bwbuild's record of an unfinished publish; remove it and build again"
	if grep -q '^fetch:' "$TMP/err"; then fail "a step ran before the journal was refused"; fi
	rm -f "$w/publish.journal"
	rm -f "$w/configure.stamp"
	mkfifo "$w/configure.stamp"
	run 1 timeout 60 "$BW" --profile "$TMP/f91.yaml" --work "$w" --out "$o"
	contains "$TMP/err" "error: '$w/configure.stamp' is not a regular file"
	contains "$TMP/err" "hint: it is bwbuild's record of the last configure; remove it and build again"
	rm -f "$w/configure.stamp"
	recover h31_statefifo
fi

# Issue 31: a link planted at <work>/patches.applied is named as what it is;
# read through, it was taken for patches an earlier build applied.
if want h31_applied; then
	new_victim
	rm -f "$w/last-build.json"
	ln -s "$victim" "$w/patches.applied"
	run 1 bw
	contains "$TMP/err" "error: '$w/patches.applied' is a symbolic link, not the record of applied patches bwbuild writes; remove it"
	if grep -q "has patches applied by an earlier build" "$TMP/err"; then fail "a link at patches.applied was taken for a record"; fi
	victim_intact "a link at <work>/patches.applied"
	rm -f "$w/patches.applied"
	recover h31_applied
fi

# Issue 31: a mirror directory's repository that is the work dir's own
# checkout (here through a link named as the repository) is not used: taken
# as its own mirror, its objects/info/alternates pointed at itself and the
# checkout lost every object it borrows ("fatal: bad object HEAD").
if want h31_selfmirror; then
	rm -rf "$TMP/mirrors91"
	mkdir -p "$TMP/mirrors91"
	ln -s "$w/src" "$TMP/mirrors91/minitorch"
	head=$(git -C "$w/src" rev-parse HEAD)
	rm -f "$w/last-build.json"
	BWBUILD_MIRRORS="$TMP/mirrors91" run 0 bw --until fetch --force --set "source.ref=$head"
	contains "$TMP/err" "warning: '$TMP/mirrors91/minitorch/.git' of the mirror directories is the repository of the tree being checked out ('$w/src'), not a mirror of it; not used"
	[ "$(git -C "$w/src" rev-parse HEAD)" = "$head" ] || fail "the checkout lost its objects"
	git -C "$w/src" status --porcelain >/dev/null || fail "the checkout lost the objects of its tree"
	pass
	rm -rf "$TMP/mirrors91"
	recover h31_selfmirror
fi

# Issue 31: a directory bwbuild writes into below the work dir or the cache
# planted as a symbolic link to a victim directory: refused, never followed
# (each let bwbuild truncate or overwrite the victim's files, exit 0).
if want h31_dirlinks; then
	vd="$TMP/victimdir91"
	for d in logs cmake launch; do
		rm -rf "$vd" "$w/$d.away"
		mkdir -p "$vd"
		for f in compile.log bwbuild-effective.cmake ledger lock peaks; do printf 'precious\n' > "$vd/$f"; done
		mv "$w/$d" "$w/$d.away"
		ln -s "$vd" "$w/$d"
		rm -f "$w/last-build.json"
		run 1 bw
		contains "$TMP/err" "'$w/$d' is a symbolic link; bwbuild writes only into directories it made: remove it"
		for f in compile.log bwbuild-effective.cmake ledger lock peaks; do
			[ "$(cat "$vd/$f")" = precious ] || fail "a link at <work>/$d: $vd/$f was changed"
		done
		[ "$(find "$vd" -mindepth 1 | wc -l)" = 5 ] || fail "a link at <work>/$d: files made in its target: $(ls "$vd")"
		rm "$w/$d"
		mv "$w/$d.away" "$w/$d"
	done
	# Issue 40 W9: <work>/repair (made by the repair step) as a link is refused
	# when the build starts, not after configure, compile and wheel.
	rm -rf "$vd" && mkdir -p "$vd" && printf 'precious\n' > "$vd/keep"
	ln -s "$vd" "$w/repair"
	rm -f "$w/last-build.json"
	run 1 bw
	contains "$TMP/err" "'$w/repair' is a symbolic link; bwbuild writes only into directories it made: remove it"
	if grep -q "configure" "$TMP/out" "$TMP/err"; then fail "a link at <work>/repair: the build ran before refusing it"; fi
	if [ "$(cat "$vd/keep")" != precious ] || [ "$(find "$vd" -mindepth 1 | wc -l)" != 1 ]; then
		fail "a link at <work>/repair: its target was changed"
	fi
	rm "$w/repair"
	rm -rf "$vd" "$TMP/cache91/peaks.away"
	mkdir -p "$vd"
	printf 'precious\n' > "$vd/pytorch-2.11.0.peaks"
	mv "$TMP/cache91/peaks" "$TMP/cache91/peaks.away"
	ln -s "$vd" "$TMP/cache91/peaks"
	rm -f "$w/last-build.json"
	run 1 bw
	contains "$TMP/err" "'$TMP/cache91/peaks' in the cache is a symbolic link; bwbuild uses only what it made there: remove it"
	[ "$(cat "$vd/pytorch-2.11.0.peaks")" = precious ] || fail "a link at the cache's peaks/: the victim was changed"
	[ "$(find "$vd" -mindepth 1 | wc -l)" = 1 ] || fail "a link at the cache's peaks/: files made in its target: $(ls "$vd")"
	rm "$TMP/cache91/peaks"
	mv "$TMP/cache91/peaks.away" "$TMP/cache91/peaks"
	recover h31_dirlinks
fi

# Issue 31: <work>/logs and <work>/launch replaced by links to a victim's
# directories during the build, by the build's own command (a setup.py that
# swaps them when its compile starts: an order, no clock). The launcher's
# next compile and the next step refuse them; nothing is written there.
if want h31_swap; then
	ws="$TMP/w91swap" vs="$TMP/victim91swap" src="$TMP/src91swap"
	rm -rf "$ws" "$vs" "$src" "$TMP/o91swap"
	mkdir -p "$vs/logs" "$vs/launch"
	printf 'precious\n' > "$vs/logs/wheel.log"
	printf 'precious\n' > "$vs/launch/ledger"
	cp -a "$w/src" "$src"
	rm -rf "$src/build" "$src/dist"
	{
		cat <<'PY'
import os as _os, sys as _sys
_w = _os.environ.get("SWAP91_WORK")
if _w and "build" in _sys.argv and _os.environ.get("CMAKE_ONLY", "0") != "1" \
        and not _os.path.islink(_w + "/logs"):
    for _d in ("logs", "launch"):
        _os.rename(_w + "/" + _d, _w + "/" + _d + ".away")
        _os.symlink(_os.environ["SWAP91_VICTIM"] + "/" + _d, _w + "/" + _d)
PY
		cat "$w/src/setup.py"
	} > "$src/setup.py"
	# CPU only: the swap needs compiles through the launcher, not nvcc's
	# (a CUDA build here is two nvcc runs the case does not look at).
	SWAP91_WORK="$ws" SWAP91_VICTIM="$vs" run 1 "$BW" --profile "$TMP/f91.yaml" --work "$ws" --out "$TMP/o91swap" --source "$src" \
		--set features.cuda=off --set features.flash_attention=off --set features.mem_eff_attention=off
	[ -L "$ws/logs" ] || fail "the build's setup.py did not swap <work>/logs"
	# The launcher's compile after the swap refused the link at launch/.
	contains "$ws/logs.away/compile.log" "'$ws/launch' is a symbolic link; bwbuild writes only into directories it made: remove it"
	contains "$TMP/err" "'$ws/logs' is a symbolic link; bwbuild writes only into directories it made: remove it"
	[ "$(find "$vs" -type f | wc -l)" = 2 ] || fail "files made in the victim's directories: $(find "$vs" -type f)"
	[ "$(cat "$vs/logs/wheel.log")" = precious ] || fail "the victim's wheel.log was changed"
	[ "$(cat "$vs/launch/ledger")" = precious ] || fail "the victim's ledger was changed"
	[ ! -e "$TMP/o91swap" ] || [ -z "$(ls -A "$TMP/o91swap")" ] || fail "published after the swap"
	pass
fi

# H2 (the --out probe), H2 (cleanup in --out) and Low (temporaries in the
# work dir): each plants what a build must leave alone or remove, then
# builds; the plants of the three are apart (the probe's name, *.tmp.DEAD in
# --out, *.tmp.DEAD in the work dir), so one build, made once, is each
# case's build: its own `run 0` check and, for each case folded into it, a
# check more (3 CPU s a build).
h2p="" h2c="" wtmp=""
! want h2_probe || h2p=1
! want h2_cleanup || h2c=1
! want workdir_tmp || wtmp=1
if [ -n "$h2p$h2c$wtmp" ]; then
	new_victim
	# H2: cleanup in --out removes only what bwbuild proves it made (its journal), nothing planted.
	if [ -n "$h2c" ]; then
		mkdir -p "$o/planted"
		i=0
		while [ $i -lt 200 ]; do
			: > "$o/user-file-$i.tmp.$dead"
			i=$((i + 1))
		done
		: > "$wheel.tmp.$dead"
		ln -s "$victim" "$manifest.tmp.$dead"
	fi
	# Low: temporaries of killed runs in the work dir are removed; planted links and others' files are not.
	if [ -n "$wtmp" ]; then
		: > "$w/last-build.json.tmp.$dead"
		: > "$w/configure.stamp.tmp.$dead.0123456789abcdef"
		ln -s "$victim" "$w/link.tmp.$dead"
		: > "$w/theirs.tmp.$dead"
		# Another user's file needs root to make; without it the case is a file of ours that stays.
		if [ "$(id -u)" = 0 ]; then
			chown nobody "$w/theirs.tmp.$dead"
		else
			rm "$w/theirs.tmp.$dead"
			mkdir "$w/theirs.tmp.$dead"
			skip "not root: another user's temporary in the work dir is stood in for by a directory of ours"
		fi
	fi
	rm -f "$w/last-build.json"
	if [ -n "$h2p" ]; then
		# H2: the --out probe planted as a link at the very name (its pid is bwbuild's, kept by exec).
		# shellcheck disable=SC2016 # expanded by the inner sh, whose pid bwbuild keeps
		run 0 sh -c 'ln -s "$1" "$2/.bwbuild-probe.tmp.$$"; exec "$BW" --profile "$3" --work "$4" --out "$2"' \
			sh "$victim" "$o" "$TMP/f91.yaml" "$w"
		victim_intact "a link at the --out probe's name"
		find "$o" -name '.bwbuild-probe*' -type l -delete
	else
		run 0 bw
	fi
	if [ -n "$h2c" ]; then
		[ -z "$h2p" ] || pass
		n=$(find "$o" -mindepth 1 -maxdepth 1 -name "*.tmp.$dead" | wc -l)
		[ "$n" = 202 ] || fail "cleanup in --out removed $((202 - n)) of 202 planted files"
		victim_intact "a planted link in --out"
		rm -f "$o"/*".tmp.$dead"
		rm -rf "$o/planted"
		pair_ok "$o" "planted temporaries"
	fi
	if [ -n "$wtmp" ]; then
		[ -z "$h2p$h2c" ] || pass
		[ ! -e "$w/last-build.json.tmp.$dead" ] || fail "a stale last-build.json.tmp was left"
		[ ! -e "$w/configure.stamp.tmp.$dead.0123456789abcdef" ] || fail "a stale configure.stamp.tmp was left"
		[ -L "$w/link.tmp.$dead" ] || fail "a planted link in the work dir was removed"
		[ -e "$w/theirs.tmp.$dead" ] || fail "another user's file in the work dir was removed"
		victim_intact "a planted link in the work dir"
		rm -rf "$w/link.tmp.$dead" "$w/theirs.tmp.$dead"
		left=$(find "$w" -mindepth 1 -maxdepth 1 -name '*.tmp.*')
		[ -z "$left" ] || fail "temporaries left in the work dir: $left"
	fi
	recovered
fi

# H4: up to date means the wheel AND its manifest in THIS --out, as recorded.
if want h4_out; then
	settle
	run 0 bw
	contains "$TMP/out" "up to date"
	compile_log=$(stat -c %Y.%s "$w/logs/compile.log")
	o2="$TMP/o91b"
	rm -rf "$o2"
	run 0 "$BW" --profile "$TMP/f91.yaml" --work "$w" --out "$o2"
	contains "$TMP/out" "$o2/"
	pair_ok "$o2" "a rerun with another --out"
	cmp "$wheel" "$o2/$(basename "$wheel")" || fail "another --out got another wheel"
	[ "$(stat -c %Y.%s "$w/logs/compile.log")" = "$compile_log" ] || fail "another --out compiled again"
	# A deleted manifest, a garbage one, another valid one: published again.
	rm "$manifest"
	run 0 bw
	contains "$TMP/err" "is gone"
	pair_ok "$o" "a deleted manifest"
	echo garbage > "$manifest"
	run 0 bw
	contains "$TMP/err" "is not the manifest of the wheel that was built"
	pair_ok "$o" "a garbage manifest"
	# Wheel A beside manifest B (what two unlocked builds left): not up to date as it is.
	python3 - "$manifest" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["wheel"]["sha256"] = "0" * 64
j["build"]["work_dir"] = "/elsewhere"
json.dump(j, open(sys.argv[1], "w"))
PY
	run 0 bw
	pair_ok "$o" "a manifest of another build"
	run 0 bw
	contains "$TMP/out" "up to date (inputs"
	# Issue 31: the wheel and the manifest in --out as links into <work>/dist
	# (the right bytes until the next build empties dist/): published again.
	for f in "$wheel" "$manifest"; do
		rm "$f"
		ln -s "$w/dist/$(basename "$f")" "$f"
		run 0 bw
		contains "$TMP/err" "publishing the last build again into '$o': '$f' is a symbolic link, not a published file"
		if [ -L "$f" ] || [ ! -f "$f" ]; then fail "'$f' is still a link into the work dir"; fi
		pair_ok "$o" "a link into <work>/dist"
	done
fi

# M1: --out is published as a pair: a failed rename leaves the old pair; a held lock is waited for.
if want m1_pair; then
	settle
	before_w=$(sha "$wheel") before_m=$(sha "$manifest")
	for point in publish-rename-wheel publish-rename-manifest; do
		rm -f "$w/last-build.json"
		BWBUILD_FAULT=fail:$point run 1 bw
		contains "$TMP/err" "cannot rename"
		[ "$(sha "$wheel")" = "$before_w" ] || fail "$point failed but the wheel changed"
		[ "$(sha "$manifest")" = "$before_m" ] || fail "$point failed but a new manifest is beside the old wheel"
		pair_ok "$o" "a failed $point"
	done
	# Another bwbuild holds --out: this one waits for it, then publishes.
	rm -f "$w/last-build.json" "$TMP/released91" "$TMP/go91" "$TMP/held91"
	# The holder notes the manifest's inode when it takes the lock and again just before it lets
	# go: a publish renames a new file over it, so equal inodes say nothing was published while
	# the lock was held (an order, not a clock: mtimes are coarser than time.time()).
	flock "$o" sh -c "stat -c %i '$manifest' > '$TMP/held91.tmp' && mv '$TMP/held91.tmp' '$TMP/held91'
		while [ ! -e '$TMP/go91' ]; do sleep 0.1; done
		stat -c %i '$manifest' > '$TMP/released91'" &
	holder=$!
	# The build starts once the holder says it holds the lock, not before.
	while [ ! -e "$TMP/held91" ]; do
		kill -0 "$holder" 2>/dev/null || fail "flock on '$o' failed"
		sleep 0.1
	done
	# shellcheck disable=SC2119 # the build with the profile's own settings
	bw >"$TMP/out" 2>"$TMP/err" &
	builder=$!
	while kill -0 "$builder" 2>/dev/null && ! grep -q "waiting for another bwbuild" "$TMP/err"; do
		sleep 0.1
	done
	: > "$TMP/go91"
	wait "$holder"
	wait "$builder" || { cat "$TMP/err"; fail "a build waiting for the --out lock failed"; }
	contains "$TMP/err" "waiting for another bwbuild publishing into '$o'"
	[ "$(cat "$TMP/held91")" = "$(cat "$TMP/released91")" ] || fail "published while another held --out"
	[ "$(stat -c %i "$manifest")" != "$(cat "$TMP/released91")" ] || fail "nothing published after the --out lock was let go"
	pair_ok "$o" "a wait for the --out lock"
fi

# H8: empty and unsafe --work/--out are refused before anything is written.
if want h8_dirs; then
	cwd="$TMP/cwd91"
	rm -rf "$cwd"
	mkdir -p "$cwd/dist"
	echo mine > "$cwd/dist/keep"
	(cd "$cwd" && run 2 "$BW" --profile "$TMP/f91.yaml" --work '' --out "$o")
	contains "$TMP/err" "--work is empty"
	[ -f "$cwd/dist/keep" ] || fail "--work '' deleted ./dist"
	(cd "$cwd" && run 2 "$BW" --profile "$TMP/f91.yaml" --work "$w" --out '')
	contains "$TMP/err" "--out is empty"
	(cd "$cwd" && run 2 "$BW" --profile "$TMP/f91.yaml" --work . --out "$o")
	contains "$TMP/err" "--work '$cwd' is not empty and was not made by bwbuild"
	[ -f "$cwd/dist/keep" ] || fail "--work . deleted ./dist"
	mkdir -p "$TMP/home91"
	HOME="$TMP/home91" run 2 "$BW" --profile "$TMP/f91.yaml" --work "$TMP/home91" --out "$o"
	contains "$TMP/err" "--work '$TMP/home91' is your home directory"
	HOME="$TMP/home91" run 2 "$BW" --profile "$TMP/f91.yaml" --work "$w" --out "$TMP/home91/"
	contains "$TMP/err" "--out '$TMP/home91' is your home directory"
	HOME="$TMP/home91" run 2 "$BW" --profile "$TMP/f91.yaml" --work "$w" --out "$TMP"
	contains "$TMP/err" "holds your home directory"
	run 2 bw --out "$w/dist"
	contains "$TMP/err" "--out '$w/dist' is inside the work directory"
	run 2 "$BW" --profile "$TMP/f91.yaml" --work "$TMP" --out "$o" --source "$w/src"
	contains "$TMP/err" "holds the source tree"
	# Issue 31: --work inside the --source tree (its logs and wheels the tree's untracked files).
	run 2 "$BW" --profile "$TMP/f91.yaml" --work "$w/src/build/w" --out "$o" --source "$w/src"
	contains "$TMP/err" "--work '$w/src/build/w' is inside the source tree '$w/src', which is built as it is; give a --work outside it"
	[ ! -e "$w/src/build/w" ] || fail "--work inside --source was made"
	run 2 "$BW" --profile "$TMP/f91.yaml" --work / --out "$o"
	contains "$TMP/err" "--work '/' is the root directory"
	[ ! -e /lock ] || fail "--work / wrote /lock"
fi

# Low: the cache is trusted at every level; a HOME that does not exist is not made.
if want cache_levels; then
	c="$TMP/cache91c" wc="$TMP/w91c"
	rm -rf "$c" "$wc"
	BWBUILD_CACHE_DIR="$c" run 0 "$BW" --profile "$TMP/f91.yaml" --work "$wc" --out "$o" --until fetch
	chmod 777 "$c/git"
	BWBUILD_CACHE_DIR="$c" run 1 "$BW" --profile "$TMP/f91.yaml" --work "$wc" --out "$o" --until fetch
	contains "$TMP/err" "'$c/git' in the cache is writable by others"
	chmod 755 "$c/git"
	m=$(ls -d "$c"/git/minitorch-*.git)
	# A mirror of another user needs root to make.
	if [ "$(id -u)" = 0 ]; then
		chown nobody "$m"
		BWBUILD_CACHE_DIR="$c" run 1 "$BW" --profile "$TMP/f91.yaml" --work "$wc" --out "$o" --until fetch
		contains "$TMP/err" "'$m' in the cache belongs to uid"
		chown -R "$(id -u)" "$m"
	else
		skip "not root: a mirror of another user (chown) in the cache is not checked"
	fi
	chmod 777 "$m"
	BWBUILD_CACHE_DIR="$c" run 1 "$BW" --profile "$TMP/f91.yaml" --work "$wc" --out "$o" --until fetch
	contains "$TMP/err" "'$m' in the cache is writable by others"
	chmod 755 "$m"
	BWBUILD_CACHE_DIR="$c" run 0 "$BW" --profile "$TMP/f91.yaml" --work "$wc" --out "$o" --until fetch
	# The cache (BWBUILD_CACHE_DIR, bwbuild's --cache) may not be the home directory either.
	mkdir -p "$TMP/home91"
	HOME="$TMP/home91" BWBUILD_CACHE_DIR="$TMP/home91" run 1 "$BW" --profile "$TMP/f91.yaml" --work "$wc" --out "$o" --until fetch
	contains "$TMP/err" "the cache directory '$TMP/home91' is your home directory"
	[ ! -e "$TMP/home91/git" ] || fail "a cache in the home directory was used"
	rm -rf "$TMP/nohome91" "$wc"
	env -u BWBUILD_CACHE_DIR -u XDG_CACHE_HOME HOME="$TMP/nohome91/x" \
		"$BW" --profile "$TMP/f91.yaml" --work "$wc" --out "$o" --until fetch >"$TMP/out" 2>"$TMP/err" &&
		fail "a HOME that does not exist was accepted"
	contains "$TMP/err" "HOME is '$TMP/nohome91/x', which does not exist"
	[ ! -e "$TMP/nohome91" ] || fail "bwbuild created the HOME that did not exist"
fi

# M2: a Ctrl-C during a python probe stops the build at once: configure never starts.
if want m2_sigint; then
	# The first python3 on PATH, in its setuptools probe, says it runs
	# ($TMP/probing91) and waits for the Ctrl-C (60 s at most), which is sent
	# then: not after a sleep, since a job started with & ignores SIGINT
	# until bwbuild installs its handlers as it starts a command.
	real=$(command -v python3)
	mkdir -p "$TMP/slowbin91"
	cat > "$TMP/slowbin91/python3" <<SH
#!/bin/sh
case "\$*" in *setuptools*)
	: > "$TMP/probing91"
	i=0
	while [ "\$i" -lt 600 ]; do i=\$((i + 1)); sleep 0.1; done ;;
esac
exec "$real" "\$@"
SH
	chmod +x "$TMP/slowbin91/python3"
	wi="$TMP/w91i"
	rm -rf "$wi" "$TMP/probing91"
	set +e
	env -u VIRTUAL_ENV -u CONDA_PREFIX PATH="$TMP/slowbin91:$PATH" \
		"$BW" --profile "$TMP/f91.yaml" --work "$wi" --out "$o" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	i=0
	while [ ! -e "$TMP/probing91" ]; do
		i=$((i + 1))
		if ! kill -0 "$pid" 2>/dev/null || [ "$i" -ge 3000 ]; then fail "the python probe never ran: $(cat "$TMP/err")"; fi
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid"
	st=$?
	set -e
	[ "$st" = 130 ] || { cat "$TMP/err"; fail "a Ctrl-C during the python probe exited $st, not 130"; }
	[ ! -e "$wi/logs/configure.log" ] || fail "configure ran after a Ctrl-C during the python probe"
	rm -rf "$wi"
fi

# M8: a staging copy cut short by an interrupted compile is not taken into the next wheel.
if want m8_staging; then
	settle
	find "$w/src/csrc" -name '*.cpp' -exec touch {} +
	rm -f "$w/last-build.json"
	BWBUILD_FAULT=compile:1 run 137 bw
	k=0
	while pgrep -f "$w/src" >/dev/null; do
		k=$((k + 1))
		[ "$k" -lt 150 ] || fail "the compile outlived bwbuild"
		sleep 0.1
	done
	for so in "$w"/src/build/lib.*/minitorch/lib/libminitorch_cuda.so; do
		head -c 3000 "$so" > "$TMP/half91"
		cat "$TMP/half91" > "$so"
		touch "$so"
	done
	run 0 bw
	contains "$TMP/err" "is made afresh"
	pair_ok "$o" "an interrupted compile"
	run 0 "$BW" verify "$wheel"
fi
settle
echo "fs safety: every case held"
