# Profile input the trial of issue 27 found mishandled: a NUL cutting a value
# short (M3), a --set value with '..' (M4), extends chains and their bound
# (M7), a second YAML document, a large map called an alias bomb, a huge
# value echoed whole, and shell characters in flags that ninja's /bin/sh
# would run; then issue 31's: a build.remote of 80,000 hosts, --targets
# names ninja would take for options. Each ends with a clear error at
# file:line:col, or works.
. "$(dirname "$0")/lib.sh"
# A 2 GB address-space limit, except under ASan (which reserves terabytes of shadow).
vlimit="ulimit -v 2000000;"
if [ -n "$ASAN_BUILD" ]; then
	vlimit=""
	skip "ASan build: no 2 GB address-space limit (ulimit -v) on the hostile profiles; ASan reserves terabytes of shadow"
fi
bounded() { want=$1; shift; run "$want" sh -c "$vlimit"' exec timeout 60 "$@"' sh "$@"; }
d="$TMP/p"
mkdir -p "$d"
head() { printf 'extends: %s/profiles/demo.yaml\n' "$TOP"; }

# M3: a NUL escape is refused where it is, not read as the part before it.
{ head; printf 'name: nul\ncuda:\n  archs: "8.0\\0;9.0;junk"\n'; } > "$d/nul-archs.yaml"
run 2 "$BW" plan --profile "$d/nul-archs.yaml"
contains "$TMP/err" "nul-archs.yaml:4:10: error: a NUL character ('\\0') in '8.0...'; bwbuild would read only the part before it, so remove it"
{ head; printf 'name: "ok\\0/../../x"\n'; } > "$d/nul-name.yaml"
run 2 "$BW" plan --profile "$d/nul-name.yaml"
contains "$TMP/err" "nul-name.yaml:2:7: error: a NUL character ('\\0') in 'ok...'"
{ head; printf 'name: nulkey\nruntime:\n  env:\n    "A\\0B": x\n'; } > "$d/nul-key.yaml"
run 2 "$BW" plan --profile "$d/nul-key.yaml"
contains "$TMP/err" "nul-key.yaml:5:5: error: a NUL character ('\\0') in 'A...'"

# M4: only the key of --set is checked; the value may hold '..', '=' or anything.
run 0 "$BW" plan --profile demo --set build.env.CXXFLAGS=-I../inc --set 'build.env.CFLAGS=-DX=a..b'
contains "$TMP/out" "CXXFLAGS=-I../inc  (--set build.env.CXXFLAGS=-I../inc:1)"
contains "$TMP/out" "CFLAGS=-DX=a..b"
run 2 "$BW" plan --profile demo --set build..env=x
contains "$TMP/err" "error: --set 'build..env=x' is not KEY=VALUE with a dotted key"
run 2 "$BW" plan --profile demo --set .name=x
contains "$TMP/err" "error: --set '.name=x' is not KEY=VALUE with a dotted key"

# M7: a chain of 64 profiles loads (the leaf's name wins, the root's keys
# arrive); 65 is refused naming the chain's ends.
i=1
while [ $i -le 64 ]; do
	if [ $i = 64 ]; then head; else printf 'extends: c%d.yaml\n' $((i + 1)); fi > "$d/c$i.yaml"
	printf 'name: c%d\n' $i >> "$d/c$i.yaml"
	i=$((i + 1))
done
{ head; printf 'name: c63\n'; } > "$d/c63.yaml"
run 0 "$BW" plan --profile "$d/c1.yaml"
contains "$TMP/out" "profile      c1  ($d/c1.yaml)"
contains "$TMP/out" "8.0;12.0+PTX"
printf 'extends: c64.yaml\nname: c63\n' > "$d/c63.yaml"
run 2 "$BW" plan --profile "$d/c1.yaml"
contains "$TMP/err" "c64.yaml:1:10: error: 'extends' chain is deeper than 64 profiles: $d/c1.yaml -> $d/c2.yaml -> $d/c3.yaml -> (58 more) -> $d/c62.yaml -> $d/c63.yaml -> $d/c64.yaml -> $TOP/profiles/demo.yaml; flatten it"

# A second document is refused, not ignored.
{ head; printf 'name: two\n---\nname: three\ncuda: {archs: ["9.0"]}\n'; } > "$d/two.yaml"
run 2 "$BW" plan --profile "$d/two.yaml"
contains "$TMP/err" "two.yaml:3:1: error: a second YAML document ('---'); a profile is one document"
{ head; printf 'name: ended\n...\n'; } > "$d/ended.yaml"
run 0 "$BW" plan --profile "$d/ended.yaml"

# 200,000 runtime.env keys are a large map, not an alias bomb: planned, in bounded memory.
python3 - "$d/bigmap.yaml" "$TOP" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("extends: %s/profiles/demo.yaml\nname: bigmap\nruntime:\n  env:\n" % sys.argv[2])
    for i in range(200000):
        f.write("    K%d: v\n" % i)
    f.write("    K199999: again\n")
PY
bounded 2 "$BW" plan --profile "$d/bigmap.yaml"
contains "$TMP/err" "bigmap.yaml:200005:5: error: duplicate key 'K199999'"
contains "$TMP/err" "bigmap.yaml:200004:5: note: first set here"
sed -i '$d' "$d/bigmap.yaml"
bounded 0 "$BW" plan --profile "$d/bigmap.yaml"
if grep -q "alias" "$TMP/err"; then fail "a large map was called an alias bomb"; fi

# A 10 MB name is quoted as its first 80 bytes and its size.
{ head; printf 'name: '; python3 -c 'print("x" * 10000000)'; } > "$d/longname.yaml"
run 2 "$BW" plan --profile "$d/longname.yaml"
contains "$TMP/err" "longname.yaml:2:7: error: name 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…(10000000 bytes)' is not a profile name"
[ "$(wc -c < "$TMP/err")" -lt 1000 ] || fail "the name was echoed whole: $(wc -c < "$TMP/err") bytes"

# Flags go to compiler command lines ninja runs through /bin/sh: shell characters refused.
# shellcheck disable=SC2016 # the backquotes are the hostile input, never run here
{ head; printf 'name: flags\nbuild:\n  env:\n    CXXFLAGS: "-O2 `touch /tmp/pwned`"\n'; } > "$d/flags.yaml"
run 2 "$BW" plan --profile "$d/flags.yaml"
contains "$TMP/err" "flags.yaml:5:5: error: 'build.env.CXXFLAGS' has '\`' at byte 5: flags and compilers go into the command lines ninja runs through /bin/sh"
# shellcheck disable=SC2016 # a literal $ORIGIN is the input under test
run 2 "$BW" plan --profile demo --set 'build.env.LDFLAGS=-Wl,-rpath,$ORIGIN'
contains "$TMP/err" "error: 'build.env.LDFLAGS' has '\$' at byte 12"
run 2 "$BW" plan --profile demo --set 'cmake.CMAKE_CXX_FLAGS=-O2; id'
contains "$TMP/err" "error: 'cmake.CMAKE_CXX_FLAGS' has ';' at byte 4"
run 0 "$BW" plan --profile demo --set 'build.env.CXXFLAGS=-O2 -DNAME="a b"' --set 'cmake.USE_SYSTEM_NCCL=a;b'
contains "$TMP/out" 'CXXFLAGS=-O2 -DNAME="a b"'

# build.remote is bounded (issue 31): 80,000 hosts took 13 s to parse (twice,
# quadratic), planned MAX_JOBS=320004 and failed at the first compile with
# "Argument list too long"; refused at the profile's line, with the bound.
python3 - "$d/farm.yaml" "$TOP" <<'PY'
import sys
hosts = " ".join("10.%d.%d.%d/4" % (i >> 16, (i >> 8) & 255, i & 255) for i in range(80000))
open(sys.argv[1], "w").write("extends: %s/profiles/demo.yaml\nname: farm\nbuild:\n  remote: \"%s\"\n" % (sys.argv[2], hosts))
PY
bounded 2 "$BW" plan --profile "$d/farm.yaml"
contains "$TMP/err" "farm.yaml:4:11: error: 'build.remote' must be distccd hosts"
contains "$TMP/err" "more than 1024 hosts; a build sends compiles to at most 1024"
run 2 "$BW" plan --profile demo --set 'build.remote=a/1024 b/1024 c/1024 d/1024 e/1'
contains "$TMP/err" "more than 4096 slots on the first 5 hosts"

# --targets names CMake targets for ninja (issue 31): an empty name, an
# option for ninja and a target that builds nothing each reached it.
run 2 "$BW" build --profile demo --work "$d/wt" --out "$d/ot" --targets ',,,'
contains "$TMP/err" "error: --targets ',,,': an empty name (two commas, or one at an end)"
run 2 "$BW" build --profile demo --work "$d/wt" --out "$d/ot" --targets minitorch_cpu,-t
contains "$TMP/err" "error: --targets 'minitorch_cpu,-t': '-t' begins with '-', so ninja would take it for an option, not a target"
run 2 "$BW" build --profile demo --work "$d/wt" --out "$d/ot" --targets clean
contains "$TMP/err" "error: --targets 'clean': CMake's 'clean' builds nothing"
[ ! -e "$d/wt" ] || fail "a refused --targets made the work directory"

# build.python_path goes first on the build's PYTHONPATH (issue 40 W7): /tmp,
# a file and a missing path were taken, and a relative --set value was
# resolved against the text "--set KEY=VALUE" as if it were a file.
run 2 "$BW" plan --profile demo --set build.python_path=/tmp
contains "$TMP/err" "--set build.python_path=/tmp:1:19: error: 'build.python_path' is '/tmp', which others can write (mode 1777, owner uid 0), and what it holds runs in the build; name a directory only you or root can write, such as the site directory scripts/python-prefix.sh makes"
run 2 "$BW" plan --profile demo --set build.python_path=/etc/passwd
contains "$TMP/err" "--set build.python_path=/etc/passwd:1:19: error: 'build.python_path' is '/etc/passwd', which is not a directory; name the site directory of a prefix, such as one scripts/python-prefix.sh makes"
{ head; printf 'name: pp\nbuild:\n  python_path: no-such-site\n'; } > "$d/pp.yaml"
run 2 "$BW" plan --profile "$d/pp.yaml"
contains "$TMP/err" "pp.yaml:4:16: error: 'build.python_path' is '$d/no-such-site', which does not exist; name the site directory of a prefix, such as one scripts/python-prefix.sh makes"
mkdir -p "$d/cwd/site" && chmod 755 "$d/cwd/site"
# shellcheck disable=SC2016 # $1 and $@ are the inner shell's
run 0 sh -c 'cd "$1" && shift && exec "$@"' sh "$d/cwd" "$BW" plan --profile demo --set build.python_path=site/
contains "$TMP/out" "PYTHONPATH=$d/cwd/site"
