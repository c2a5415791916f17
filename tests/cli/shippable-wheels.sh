# Wheels people can ship: the same inputs in two work directories give the
# same bytes; the platform tag is what the libraries earn (a demanded one
# they do not earn is refused by name); the manifest's inputs; a second
# build is "up to date" without starting any process; the provenance
# statement validates against the in-toto schema; the CXX11 ABI check.
. "$(dirname "$0")/lib.sh"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$TMP/example/minitorch.git" v2.11.0
cat > "$TMP/ship.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: ship
source:
  repo: $TMP/example/minitorch.git
YAML

# 1. Two work directories (different path lengths, different umask): one sha256.
# The first fills a ccache of its own (as the test run's, tests/run.sh),
# which serves a third below.
rm -rf "$TMP/cc"
MINITORCH_COMPILE_CACHE="$TMP/cc" run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out"
wa=$(sed -n 's/^wheel: *//p' "$TMP/out")
ma=$(sed -n 's/^manifest: //p' "$TMP/out")
# The second compiles for real: the test run's ccache (tests/run.sh) keys
# units without their paths, so a hit would hide a path in the objects.
(umask 077; MINITORCH_COMPILE_CACHE='' run 0 "$BW" --profile "$TMP/ship.yaml" \
	--work "$TMP/second-work-directory/w" --out "$TMP/b-out")
wb=$(sed -n 's/^wheel: *//p' "$TMP/out")
mb=$(sed -n 's/^manifest: //p' "$TMP/out")
# What the example's CMakeLists.txt decided is what its build reads back
# (compile_cache.py): the cache where it put ccache in the chain, else nothing.
[ "$(cat "$TMP/a/src/build/minitorch-compile-cache")" = "$TMP/cc" ] ||
	fail "the first build's configure did not name its ccache"
[ ! -e "$TMP/second-work-directory/w/src/build/minitorch-compile-cache" ] ||
	fail "a configure without the test run's ccache named one"
# A configure that CMake reruns on its own (inside `cmake --build`; here
# asked for directly) under the test run's environment decides as the
# build directory's first one did: no ccache, so the mark compile_cache.py
# read before the build stays true.
MINITORCH_COMPILE_CACHE="$TMP/cc" run 0 cmake "$TMP/second-work-directory/w/src/build"
[ ! -e "$TMP/second-work-directory/w/src/build/minitorch-compile-cache" ] ||
	fail "a rerun configure under the test run's ccache named one"
if grep -q 'LAUNCHER = .*ccache' "$TMP/second-work-directory/w/src/build/build.ninja"; then
	fail "a rerun configure put ccache in a chain whose build gets no ccache settings"
fi
sa=$(sha256sum "$wa" | cut -d' ' -f1)
sb=$(sha256sum "$wb" | cut -d' ' -f1)
[ "$sa" = "$sb" ] || fail "two work directories gave two wheels: $wa $sa, $wb $sb"
# The test run's ccache serves every unit of a third and changes no byte.
MINITORCH_COMPILE_CACHE="$TMP/cc" run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/c" --out "$TMP/c-out"
sc=$(sha256sum "$(sed -n 's/^wheel: *//p' "$TMP/out")" | cut -d' ' -f1)
[ "$sc" = "$sa" ] || fail "the wheel built through the test run's ccache differs: $sc, not $sa"
hits=$(CCACHE_DIR="$TMP/cc" ccache --print-stats | awk '$1 == "direct_cache_hit" { print $2 }')
[ "$hits" = 3 ] || fail "the test run's ccache served $hits of the 3 units, not 3: $(CCACHE_DIR="$TMP/cc" ccache --print-stats)"
rm -rf "$TMP/c" "$TMP/c-out"
case $wa in *-manylinux_2_*_x86_64.whl) ;; *) fail "not tagged by what it earns: $wa" ;; esac
python3 - "$wa" "$ma" "$mb" <<'PY'
import json, sys, zipfile
whl, ma, mb = sys.argv[1:]
z = zipfile.ZipFile(whl)
names = z.namelist()
assert names[-1].endswith(".dist-info/RECORD"), names
assert names == sorted(n for n in names if ".dist-info/" not in n) + \
    sorted(n for n in names if ".dist-info/" in n and not n.endswith("RECORD")) + [names[-1]], names
tag = whl.rsplit("-", 1)[1][:-4]
wheel = z.read([n for n in names if n.endswith(".dist-info/WHEEL")][0]).decode()
assert f"Tag: cp311-cp311-{tag}" in wheel.splitlines(), wheel
for i in z.infolist():
    assert i.date_time == z.infolist()[0].date_time, i
    assert (i.external_attr >> 16) & 0o777 in (0o644, 0o755), (i.filename, oct(i.external_attr >> 16))
a, b = json.load(open(ma)), json.load(open(mb))
assert a["inputs_hash"] == b["inputs_hash"] and len(a["inputs_hash"]) == 64, (a["inputs_hash"], b["inputs_hash"])
i = a["inputs"]
assert i["env"]["CMAKE_PROJECT_INCLUDE"] == "${WORK}/cmake/bwbuild-effective.cmake", i["env"]
assert "MAX_JOBS" not in i["env"] and not any(k.startswith("BWBUILD_") for k in i["env"]), i["env"]
assert i["env"]["SOURCE_DATE_EPOCH"].isdigit(), i["env"]
assert i["source"]["commit"] == a["source"]["commit"], i["source"]
assert len(i["source"]["submodules"]) == 2, i["source"]
for tool in ("cc", "c++", "nvcc", "cmake", "ninja", "python", "setuptools"):
    assert tool in i["toolchain"] and i["toolchain"][tool]["version"], (tool, i["toolchain"])
assert len(i["profile"]["sha256"]) == 64
assert a["wheel"]["tags"] == ["cp311-cp311-" + tag], a["wheel"]
PY
run 0 "$BW" verify "$wa" --profile "$TMP/ship.yaml"

# 2. Up to date: no process started (strace sees one execve, bwbuild's own).
if command -v strace >/dev/null 2>&1; then
	[ -z "$ASAN_BUILD" ] || skip "ASan build: LeakSanitizer is off in the run under strace (it cannot work under ptrace)"
	ASAN_OPTIONS="$TRACED_ASAN" run 0 strace -f -qq -e trace=execve -o "$TMP/trace" \
		"$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out"
	n=$(grep -c 'execve(' "$TMP/trace")
	[ "$n" = 1 ] || { cat "$TMP/trace"; fail "the up-to-date check started $((n - 1)) process(es)"; }
else
	skip "strace is not installed: the up-to-date run is not checked to start no process"
	run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out"
fi
contains "$TMP/out" "bwbuild: up to date (inputs "
contains "$TMP/out" "wheel:    $wa"
# compile-only settings change no byte
run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out" --set build.jobs=1 \
	--mem-budget 3G
contains "$TMP/out" "bwbuild: up to date"
# a published wheel that changed is not trusted: the verified pair kept in <work>/dist is
# published again (docs/design/filesystem.md); when that changed too, it is rebuilt
cp "$wa" "$TMP/keep.whl"
printf 'x' >> "$wa"
run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out"
contains "$TMP/err" "bwbuild: publishing the last build again into '$TMP/a-out'"
cmp -s "$wa" "$TMP/keep.whl" || fail "the wheel published again differs from the first build"
# a new --out had no copy to lose: said so, not "is gone" (issue 41)
run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/new-out"
contains "$TMP/err" "bwbuild: publishing the last build again into '$TMP/new-out': it was published into '$TMP/a-out', and '$TMP/new-out' has no copy yet"
rm -rf "$TMP/new-out"
printf 'x' >> "$wa"
printf 'x' >> "$TMP/a/dist/$(basename "$wa")"
run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out"
contains "$TMP/err" "bwbuild: not up to date:"
cmp -s "$wa" "$TMP/keep.whl" || fail "the rebuilt wheel differs from the first build"

# 3. Values derived from memory never force a configure (FLASH_ATTENTION_MAX_JOBS among them).
# Before 5: a wheel.platform changes the version, so the build after it configures afresh.
# --until configure: the configure step is where "settings changed" is
# decided and said; the compile after it (a no-op, 1 CPU s) proves nothing more.
run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out" --until configure \
	--mem-budget 1G
run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out" --until configure \
	--mem-budget 200G
if grep -q "settings changed since the last configure" "$TMP/err"; then
	cat "$TMP/err"
	fail "a memory budget forced a configure"
fi

# 4. Provenance: an in-toto Statement v1 that validates against the schema.
run 0 "$BW" provenance "$wa" -o "$TMP/prov.json"
python3 - "$TMP/prov.json" "$sa" "$TOP/tests/fixtures/schema/in-toto-statement-v1.schema.json" <<'PY'
import json, sys
import jsonschema
st, sha, schema = json.load(open(sys.argv[1])), sys.argv[2], json.load(open(sys.argv[3]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.Draft202012Validator(schema).validate(st)
assert st["subject"][0]["digest"]["sha256"] == sha, st["subject"]
assert st["predicateType"] == "https://slsa.dev/provenance/v1"
deps = st["predicate"]["buildDefinition"]["resolvedDependencies"]
assert deps[0]["uri"].startswith("git+file://") and len(deps[0]["digest"]["gitCommit"]) == 40, deps
bad = dict(st, subject=[{"name": "x.whl", "digest": {"sha256": "not-hex"}}])
try:
    jsonschema.Draft202012Validator(schema).validate(bad)
    raise SystemExit("the schema accepted a bad digest")
except jsonschema.ValidationError:
    pass
PY
run 2 "$BW" provenance "$TMP/nothing.whl"
contains "$TMP/err" "a wheel's provenance comes from the manifest"
"$BW" manifest "$wa" -o "$TMP/plain.manifest.json"
run 2 "$BW" provenance "$TMP/plain.manifest.json"
contains "$TMP/err" "has no 'inputs'"

# 5. A tag the libraries do not earn is refused, naming the library and symbol version.
run 1 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out" \
	--set wheel.platform=manylinux_2_17
contains "$TMP/err" "cannot be tagged manylinux_2_17: 'minitorch/lib/libminitorch_"
contains "$TMP/err" "needs GLIBC 2."
run 0 "$BW" --profile "$TMP/ship.yaml" --work "$TMP/a" --out "$TMP/a-out" \
	--set wheel.platform=manylinux_2_39
contains "$TMP/out" "-manylinux_2_39_x86_64.whl"

# 6. CXX11 ABI: a library built with _GLIBCXX_USE_CXX11_ABI=0 in a wheel that claims 1.
mkdir -p "$TMP/abi"
printf '#include <string>\nint take(const std::string &s) { return (int)s.size(); }\n' > "$TMP/abi/a.cc"
g++ -shared -fPIC -D_GLIBCXX_USE_CXX11_ABI=0 -o "$TMP/abi/libold.so" "$TMP/abi/a.cc"
g++ -shared -fPIC -o "$TMP/abi/libnew.so" "$TMP/abi/a.cc"
python3 - "$TMP/abi" <<'PY'
import base64, hashlib, sys, zipfile
d = sys.argv[1]
for lib in ("old", "new"):
    di = f"pkg_{lib}-1.0.dist-info"
    files = {f"pkg/lib{lib}.so": open(f"{d}/lib{lib}.so", "rb").read(),
             f"{di}/METADATA": f"Metadata-Version: 2.1\nName: pkg_{lib}\nVersion: 1.0\n".encode(),
             f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: py3-none-linux_x86_64\n"}
    rec = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()},{len(b)}\n"
                  for n, b in files.items()) + f"{di}/RECORD,,\n"
    with zipfile.ZipFile(f"{d}/pkg_{lib}-1.0-py3-none-linux_x86_64.whl", "w") as z:
        for n, b in files.items():
            z.writestr(n, b)
        z.writestr(f"{di}/RECORD", rec)
PY
run 1 "$BW" verify "$TMP/abi/pkg_old-1.0-py3-none-linux_x86_64.whl" --profile "$TMP/ship.yaml"
contains "$TMP/err" "'pkg/libold.so' uses the pre-C++11 std::string ABI (_Z4takeRKSs)"
run 0 "$BW" verify "$TMP/abi/pkg_new-1.0-py3-none-linux_x86_64.whl"
printf 'extends: %s\nname: old-abi\nbuild:\n  cxx11_abi: off\n' "$TMP/ship.yaml" > "$TMP/old-abi.yaml"
run 1 "$BW" verify "$TMP/abi/pkg_new-1.0-py3-none-linux_x86_64.whl" --profile "$TMP/old-abi.yaml"
contains "$TMP/err" "'pkg/libnew.so' uses the C++11 std::string ABI"
