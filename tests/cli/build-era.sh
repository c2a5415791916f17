# Both build eras of the example: v2.11.0 (setup.py) and v2.12.0
# (pyproject.toml with scikit-build-core, no setup.py), and trees bwbuild
# cannot drive.
. "$(dirname "$0")/lib.sh"
example_profile "$TMP/example5" "$TMP/next.yaml" next '  ref: v2.12.0'
run 0 "$BW" --profile "$TMP/next.yaml" --work "$TMP/work5" --out "$TMP/out5"
contains "$TMP/err" "fetch: build era: scikit-build-core (pyproject.toml, no setup.py)"
contains "$TMP/err" "compile: /usr/bin/python3 -m build --wheel --no-isolation --outdir $TMP/work5/dist"
contains "$TMP/out" "wheel:    $TMP/out5/minitorch-2.12.0+git"
manifest=$(sed -n 's/^manifest: //p' "$TMP/out")
jobs=$(sed -n "s/^bwbuild: profile 'next', .*MAX_JOBS=\([0-9]*\),.*/\1/p" "$TMP/err")
[ -n "$jobs" ] || fail "no MAX_JOBS in the build's first line: $(head -n 3 "$TMP/err")"
python3 - "$manifest" "$TMP/work5/logs/compile.log" "$jobs" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["build"]["era"].startswith("scikit-build-core"), m["build"]
assert m["verify"]["ok"], m["verify"]
libs = {l["path"]: l for l in m["libraries"]}
for lib in ("minitorch/lib/libminitorch_cuda.so", "minitorch/lib/libminitorch_flash.so"):
    assert libs[lib]["sass"] == ["sm_80", "sm_120"] and libs[lib]["ptx"] == ["compute_120"], libs[lib]
e = m["features_effective"]
assert e["flash_attention"]["effective"] is True and e["nccl"]["effective"] is False, e
assert m["version_py"]["version"].startswith("2.12.0"), m["version_py"]
log = open(sys.argv[2]).read()
assert "# env CMAKE_BUILD_PARALLEL_LEVEL=%s" % sys.argv[3] in log, "MAX_JOBS does not reach the newest era"
PY
grep -q "^TORCH_CUDA_ARCH_LIST:STRING=8.0;12.0+PTX$" "$TMP/work5/src/build/CMakeCache.txt" ||
	fail "EnvVarForwarding lost part of TORCH_CUDA_ARCH_LIST: $(grep TORCH_CUDA_ARCH_LIST "$TMP/work5/src/build/CMakeCache.txt")"
# The same work directory goes back to the setup.py era and builds again.
run 0 "$BW" --profile "$TMP/next.yaml" --set source.ref=v2.11.0 --work "$TMP/work5" --out "$TMP/out5a"
contains "$TMP/err" "fetch: build era: setup.py (tools/setup_helpers/cmake.py)"
contains "$TMP/out" "wheel:    $TMP/out5a/minitorch-2.11.0+cu130.next.h"

# Trees bwbuild cannot drive are named with what was found.
rm -rf "$TMP/flit" "$TMP/work-flit"
mkdir -p "$TMP/flit/src"
(cd "$TMP/flit/src" && git init -q -b main && printf '[build-system]\nbuild-backend = "flit_core.buildapi"\n' > pyproject.toml &&
	git add pyproject.toml && git -c user.name=t -c user.email=t@t commit -q -m x && git tag v2.13.0)
printf 'extends: %s/profiles/demo.yaml\nname: flit\nsource:\n  repo: %s/flit/src\n  ref: v2.13.0\n' "$TOP" "$TMP" > "$TMP/flit.yaml"
run 1 "$BW" --profile "$TMP/flit.yaml" --work "$TMP/work-flit" --out "$TMP/out-flit" --until configure
contains "$TMP/err" "has no setup.py and its pyproject.toml names build-backend 'flit_core.buildapi'; bwbuild drives setup.py trees and scikit-build-core ones"

# The build environment each shape of PyTorch's setup.py asks for (issue 34;
# the shapes: era_tree in lib.sh). The 2.9 and 2.10 trees import
# setuptools.command.bdist_wheel at load time and require setuptools>=70.1.0:
# found before setup.py runs, refused with the package, the version asked and
# how to get it, or provided from a private prefix (scripts/python-prefix.sh,
# here from a stand-in .deb: tests need no network).
for s in 2.7 2.9 2.10; do
	printf 'extends: %s/profiles/demo.yaml\nname: era%s\nsource:\n  repo: %s/era%s/minitorch.git\n  ref: v%s.0\n' \
		"$TOP" "$s" "$TMP" "$s" "$s" >"$TMP/era$s.yaml"
	# The 2.10 tree is built only through --source (src210 below): no repository.
	[ "$s" = 2.10 ] && continue
	era_tree "$s" "$TMP/era$s-src"
	sh scripts/make-example-repo.sh "$TMP/era$s-src" "$TMP/era$s/minitorch.git" "v$s.0"
done
# The 2.10-cycle driver given by --source, made once for doctor, plan and its build.
era_tree 2.10 "$TMP/src210" vendored
prefix="$XDG_CACHE_HOME/bwbuild/python-prefix/trixie"
# The 2.7 tree needs no newer setuptools: nothing is put on PYTHONPATH.
run 0 "$BW" --profile "$TMP/era2.7.yaml" --work "$TMP/w27" --out "$TMP/o27" --until configure
if grep -q "PYTHONPATH" "$TMP/w27/logs/configure.log"; then fail "the 2.7 tree got a PYTHONPATH"; fi
if /usr/bin/python3 -c 'import setuptools.command.bdist_wheel' 2>/dev/null; then
	skip "/usr/bin/python3 has setuptools.command.bdist_wheel: the refusals need Debian 12's setuptools 66"
else
	# 2.9, no prefix: stopped after the fetch, before setup.py ran.
	run 1 "$BW" --profile "$TMP/era2.9.yaml" --work "$TMP/w29" --out "$TMP/o29" --until configure
	contains "$TMP/err" "error: the build needs setuptools>=70.1.0,<80.0, and /usr/bin/python3 has setuptools"
	contains "$TMP/err" "pyproject.toml:3 asks 'setuptools>=70.1.0,<80.0'"
	contains "$TMP/err" "imports setuptools.command.bdist_wheel at load time, which setuptools has from 70.1.0"
	contains "$TMP/err" "Get setuptools>=70.1.0,<80.0: on Debian 12, 'sh $TOP/scripts/python-prefix.sh'"
	[ ! -e "$TMP/w29/logs/configure.log" ] || fail "setup.py ran without the setuptools it imports"
	# doctor says the same, from the tree (--source) or from the table (a real PyTorch release).
	run 1 "$BW" doctor --profile "$TMP/era2.10.yaml" --source "$TMP/src210"
	grep -q "build env .*the build needs setuptools>=70.1.0,<80.0" "$TMP/out" || fail "doctor: $(cat "$TMP/out")"
	printf 'extends: %s/profiles/sm120.yaml\nname: real211\n' "$TOP" >"$TMP/real211.yaml"
	run 0 "$BW" plan --profile "$TMP/real211.yaml"
	contains "$TMP/out" "build env    not met: the build needs setuptools>=70.1, and /usr/bin/python3 has setuptools"
	contains "$TMP/out" "bwbuild's table for torch 2.11: its setup.py imports setuptools.command.bdist_wheel"
	# ... and the build of a real release refuses before its fetch.
	run 1 "$BW" --profile "$TMP/real211.yaml" --work "$TMP/wreal" --out "$TMP/oreal" --until fetch
	contains "$TMP/err" "the build needs setuptools>=70.1"
	if grep -q "^fetch:" "$TMP/err"; then fail "a build that cannot start fetched"; fi
	# A build.python_path that lacks it is named at its key.
	mkdir -p "$TMP/empty-site"
	printf 'build:\n  python_path: empty-site\n' | cat "$TMP/era2.9.yaml" - >"$TMP/era2.9-pp.yaml"
	# Named there by the preflight, before anything is fetched ...
	run 1 "$BW" --profile "$TMP/era2.9-pp.yaml" --work "$TMP/w29" --out "$TMP/o29" --until configure
	contains "$TMP/err" "$TMP/era2.9-pp.yaml:7:16: error: preflight: build env: the build needs setuptools>=70.1.0,<80.0, and /usr/bin/python3 with build.python_path '$TMP/empty-site' has setuptools"
	# ... and by the build's own check past it.
	run 1 "$BW" --profile "$TMP/era2.9-pp.yaml" --work "$TMP/w29" --out "$TMP/o29" --until configure --no-preflight
	contains "$TMP/err" "$TMP/era2.9-pp.yaml:7:16: error: the build needs setuptools>=70.1.0,<80.0, and /usr/bin/python3 with build.python_path '$TMP/empty-site' has setuptools"
fi
# The prefix, made as users make it (from the .deb files instead of trixie's mirror).
setuptools_deb "$TMP/debs"
run 0 sh scripts/python-prefix.sh --from-debs "$TMP/debs"
contains "$TMP/out" "with it, the interpreter has setuptools 78.1.1"
contains "$TMP/out" "python-prefix.sh: $prefix/site (bwbuild finds it"
grep -q "^python3-setuptools 78.1.1-0.1 [0-9a-f]\{64\}$" "$prefix/PACKAGES" || fail "PACKAGES: $(cat "$prefix/PACKAGES")"
# 2.9 from its repository: the prefix taken, CMAKE_ONLY as the tree reads it.
run 0 "$BW" --profile "$TMP/era2.9.yaml" --work "$TMP/w29" --out "$TMP/o29" --until configure
if ! /usr/bin/python3 -c 'import setuptools.command.bdist_wheel' 2>/dev/null; then
	contains "$TMP/err" "note: python: /usr/bin/python3 with PYTHONPATH=$prefix/site (setuptools 78.1.1), for pyproject.toml:3 asks 'setuptools>=70.1.0,<80.0'"
	contains "$TMP/w29/logs/configure.log" "# env PYTHONPATH=$prefix/site"
fi
contains "$TMP/w29/logs/configure.log" "# env CMAKE_ONLY=1"
if grep -q -- "--cmake-only" "$TMP/w29/logs/configure.log"; then fail "--cmake-only given to a tree that reads CMAKE_ONLY"; fi
# The done-when of issue 34: a 2.10-cycle driver through --source configures,
# plan and doctor say which environment, and the whole build makes a wheel
# that records it.
(cd "$TMP/src210" && git init -q -b main && git add -A && git -c user.name=t -c user.email=t@t commit -q -m "2.10 driver")
run 0 "$BW" plan --profile "$TMP/era2.10.yaml" --source "$TMP/src210"
grep -q "^build env    " "$TMP/out" || /usr/bin/python3 -c 'import setuptools.command.bdist_wheel' ||
	fail "plan says nothing of the build environment"
run 0 "$BW" doctor --profile "$TMP/era2.10.yaml" --source "$TMP/src210"
run 0 "$BW" --profile "$TMP/era2.10.yaml" --source "$TMP/src210" --work "$TMP/w210" --out "$TMP/o210"
contains "$TMP/err" "configure: done in"
contains "$TMP/w210/logs/configure.log" "# env CMAKE_ONLY=1"
python3 - "$(sed -n 's/^manifest: //p' "$TMP/out")" "$prefix/site" <<'PY'
import json, subprocess, sys
m = json.load(open(sys.argv[1]))
native = subprocess.run(["/usr/bin/python3", "-c", "import setuptools.command.bdist_wheel"],
                        stderr=subprocess.DEVNULL).returncode == 0
want = None if native else sys.argv[2]
assert m["build"]["pythonpath"] == want, m["build"]["pythonpath"]
if not native:
    assert m["build"]["toolchain"]["setuptools"]["version"] == "78.1.1", m["build"]["toolchain"]
PY
# Nothing changed: up to date, the prefix recalled without starting python.
run 0 "$BW" --profile "$TMP/era2.10.yaml" --source "$TMP/src210" --work "$TMP/w210" --out "$TMP/o210"
contains "$TMP/out" "bwbuild: up to date"
