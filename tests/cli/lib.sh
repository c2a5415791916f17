# Helpers for CLI tests; each test is a sh script that exits non-zero on failure.
# Sourced as `. "$(dirname "$0")/lib.sh"`. tests/run.sh exports TOP, BW and
# TMP (the suite's own scratch directory) for every suite; a suite run alone
# (`sh tests/cli/plan.sh`, from any directory) gets them here, with
# tests/tmp/plan as its own TMP.
#
# Every check that passes (run, contains, pass) and every skip (skip REASON)
# is a line in $TALLY; at exit the suite prints "N passed, N failed, N
# skipped". A suite that ran no check fails. Cleanup goes through at_exit,
# not `trap ... EXIT`, which would replace the summary.
set -eu
if [ -z "${TOP:-}" ]; then
	TOP=$(cd "$(dirname "$0")/../.." && pwd)
	TMP="$TOP/tests/tmp/$(basename "$0" .sh)"
	# Mirrors go to the test area, never to ~/.cache.
	XDG_CACHE_HOME="$TMP/cache"
	export TOP TMP XDG_CACHE_HOME
	rm -rf "$TMP"
	mkdir -p "$TMP"
fi
TALLY=${TALLY:-$TMP.tally}
: >"$TALLY"
unset BWBUILD_CACHE_DIR
BW=${BW:-$TOP/bin/bwbuild}
case $BW in /*) ;; *) BW="$PWD/$BW" ;; esac
if [ ! -x "$BW" ]; then
	echo "error: '$BW' is not built; run 'make' first" >&2
	exit 1
fi
# As bwbuild names itself (realpath of /proc/self/exe), e.g. in its launcher lines.
BW=$(realpath "$BW")
export BW
# An ASan build (make asan). LeakSanitizer cannot work under ptrace, so
# under ASan a run traced by strace goes with leak detection off (TRACED_ASAN).
ASAN_BUILD=""
TRACED_ASAN=${ASAN_OPTIONS:-}
if grep -q __asan_init "$BW" 2>/dev/null; then
	ASAN_BUILD=1
	TRACED_ASAN="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
export ASAN_BUILD TRACED_ASAN
cd "$TOP"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# A check that passed; run and contains count themselves.
pass() {
	echo ok >>"$TALLY"
}

# skip REASON: a check not made here, and why (a missing tool, no root, ...).
skip() {
	echo "skip $*" >>"$TALLY"
	echo "skip: $*" >&2
}

# at_exit CMD: run CMD when the suite ends, however it ends.
at_exit_cmds=""
at_exit() {
	at_exit_cmds="$at_exit_cmds
$1"
}

summary() {
	rc=$1
	set +e
	eval "$at_exit_cmds"
	n_ok=$(grep -c '^ok$' "$TALLY")
	n_skip=$(grep -c '^skip ' "$TALLY")
	n_fail=0
	[ "$rc" = 0 ] || n_fail=1
	if [ "$rc" = 0 ] && [ "$n_ok" = 0 ]; then
		echo "FAIL: no check ran" >&2
		n_fail=1 rc=1
	fi
	echo "$n_ok passed, $n_fail failed, $n_skip skipped"
	exit "$rc"
}
trap 'summary $?' EXIT
# Killed (a ^C, run.sh stopped): the cleanups still run.
trap 'exit 130' INT
trap 'exit 143' TERM

# run EXPECTED_STATUS CMD...: run, keep stdout/stderr in $TMP/out and $TMP/err
run() {
	want=$1
	shift
	set +e
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"
		fail "'$*' exited $got, expected $want"
	fi
	pass
}

contains() {
	grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "'$1' lacks: $2"; }
	pass
}

# The wheels of tests/fixtures/wheels/make_wheels.py in $TMP/wheels, made
# once a test run (tests/run.sh's TESTTMP/shared-wheels, under a lock, made
# aside and renamed) and copied for each suite, which may change its copy.
need_wheels() {
	[ ! -d "$TMP/wheels/good" ] || return 0
	if [ -z "${TESTTMP:-}" ]; then
		python3 tests/fixtures/wheels/make_wheels.py "$TMP/wheels"
		return
	fi
	# shellcheck disable=SC2016 # the inner shell's $1
	flock "$TESTTMP/.shared-wheels.lock" sh -c '
		[ -d "$1/good" ] && exit 0
		rm -rf "$1.tmp" && python3 tests/fixtures/wheels/make_wheels.py "$1.tmp" && mv "$1.tmp" "$1"' \
		sh "$TESTTMP/shared-wheels" || fail "tests/fixtures/wheels/make_wheels.py failed"
	rm -rf "$TMP/wheels"
	cp -a "$TESTTMP/shared-wheels" "$TMP/wheels"
}

# A pure wheel of minitorch 2.11.0 (a package bwbuild ships a smoke probe for)
# in DIR: minitorch-2.11.0-py3-none-any.whl, its __init__.py the version line
# and then each further argument as a line.
minitorch_wheel() {
	python3 - "$@" <<'PY'
import base64, hashlib, sys, zipfile
init = "__version__ = '2.11.0'\n" + "".join(line + "\n" for line in sys.argv[2:])
files = {
    "minitorch/__init__.py": init.encode(),
    "minitorch-2.11.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: minitorch\nVersion: 2.11.0\n",
    "minitorch-2.11.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
rec = []
with zipfile.ZipFile(sys.argv[1] + "/minitorch-2.11.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in files.items():
        z.writestr(n, d)
        rec.append("%s,sha256=%s,%d" % (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d)))
    rec.append("minitorch-2.11.0.dist-info/RECORD,,")
    z.writestr("minitorch-2.11.0.dist-info/RECORD", "\n".join(rec) + "\n")
PY
}

# The example's repository (tests/fixtures/minitorch at v2.11.0) made in
# DIR/minitorch.git, and a profile YAML over profiles/demo.yaml that builds
# it, named NAME, each further argument a line after source.repo.
example_profile() {
	sh scripts/make-example-repo.sh tests/fixtures/minitorch "$1/minitorch.git" v2.11.0
	{
		printf 'extends: %s/profiles/demo.yaml\nname: %s\nsource:\n  repo: %s/minitorch.git\n' "$TOP" "$3" "$1"
		shift 3
		for line; do printf '%s\n' "$line"; done
	} >"$2"
}

# era_tree SHAPE DIR: the example source (tests/fixtures/minitorch) in DIR
# with the build contract of PyTorch's SHAPE of setup.py, written here from
# what each release's files do (docs/design/pytorch.md §10), not copied:
#   2.7   load time: setuptools.command.build_ext/sdist, setuptools; the
#         wheel package's bdist_wheel only inside a try. Configure-only by
#         the argument --cmake-only alone. pyproject.toml: setuptools, wheel,
#         typing-extensions>=4.10.0, legacy backend.
#   2.9   load time: setuptools.command.bdist_wheel (setuptools >= 70.1).
#         CMAKE_ONLY popped from the environment, or --cmake-only.
#         pyproject.toml: setuptools>=70.1.0,<80.0, cmake>=3.27, ...
#   2.10  as 2.9, its header documenting CMAKE_ONLY=1, the build driven
#         through tools/build_pytorch_libs.py, requirements-build.txt beside
#         pyproject.toml, `setup.py install` handed to pip.
# A third argument "vendored" lays the submodules in as plain files (a
# --source tree); without it, scripts/make-example-repo.sh adds them.
era_tree() {
	rm -rf "$2"
	cp -r tests/fixtures/minitorch "$2"
	rm -rf "$2/build"
	if [ "${3:-}" = vendored ]; then
		mkdir -p "$2/third_party/cutlite/third_party"
		cp -r tests/fixtures/third_party/cutlite/. "$2/third_party/cutlite/"
		cp -r tests/fixtures/third_party/cute "$2/third_party/cutlite/third_party/cute"
	fi
	python3 - "$1" "$2" <<'PY'
import os, sys
shape, d = sys.argv[1], sys.argv[2]
setup = open(os.path.join(d, "setup.py")).read()
imports_old = "from setuptools import Distribution, setup\nfrom setuptools.command.build_py import build_py\n"
only_old = 'CMAKE_ONLY = os.environ.pop("CMAKE_ONLY", "0") == "1"\n'
assert imports_old in setup and only_old in setup
argv_loop = ('filtered_args = []\n'
             'for arg in sys.argv:\n'
             '    if arg == "--cmake-only":\n'
             '        # Stop once cmake terminates.\n'
             '        CMAKE_ONLY = True\n'
             '        continue\n'
             '    filtered_args.append(arg)\n'
             'sys.argv = filtered_args\n')
build = ["setuptools>=70.1.0,<80.0", "cmake>=3.27", "ninja", "numpy", "packaging", "pyyaml",
         "requests", "six", "typing-extensions>=4.10.0"]
if shape == "2.7":
    imports = ("import setuptools.command.build_ext\nimport setuptools.command.sdist\n" + imports_old +
               "\ntry:\n    from wheel.bdist_wheel import bdist_wheel\nexcept ImportError:\n"
               "    bdist_wheel = None\n")
    only = "CMAKE_ONLY = False\n" + argv_loop
    requires, backend = ["setuptools", "wheel", "numpy", "pyyaml", "cmake",
                         "typing-extensions>=4.10.0", "requests"], "setuptools.build_meta:__legacy__"
else:
    imports = ("import setuptools.command.bdist_wheel\nimport setuptools.command.build_ext\n"
               "import setuptools.command.sdist\n" + imports_old)
    only = ('def str2bool(value):\n'
            '    return bool(value) and value.strip().lower() in ("1", "true", "yes", "y", "on")\n\n\n'
            'CMAKE_ONLY = str2bool(os.environ.pop("CMAKE_ONLY", None))\n' + argv_loop)
    requires, backend = build, "setuptools.build_meta"
if shape == "2.10":
    setup = ('# Environment variables you are probably interested in:\n#\n'
             '#   CMAKE_ONLY=1\n#     run cmake and stop; do not build the project\n\n' + setup)
    only += ('for arg in sys.argv:\n'
             '    if arg == "install":\n'
             '        sys.exit(subprocess.run([sys.executable, "-m", "pip", "install", ".", "-v",\n'
             '                                 "--no-build-isolation"]).returncode)\n')
    setup = setup.replace("from tools.setup_helpers.cmake import CMake  # noqa: E402\n",
                          "from tools.build_pytorch_libs import build_pytorch  # noqa: E402\n")
    setup = setup.replace("    cmake = CMake(os.path.join(cwd, \"build\"))\n    env = dict(os.environ)\n"
                          "    cmake.generate(version, sha, os.path.join(cwd, \"minitorch\"), env)\n",
                          "    cmake, env = build_pytorch(version, sha, cwd)\n")
    assert "build_pytorch(version" in setup
    with open(os.path.join(d, "tools", "build_pytorch_libs.py"), "w") as f:
        f.write('import os\n\nfrom tools.setup_helpers.cmake import CMake\n\n\n'
                'def build_pytorch(version, sha, cwd):\n'
                '    cmake = CMake(os.path.join(cwd, "build"))\n'
                '    env = dict(os.environ)\n'
                '    cmake.generate(version, sha, os.path.join(cwd, "minitorch"), env)\n'
                '    return cmake, env\n')
    with open(os.path.join(d, "requirements-build.txt"), "w") as f:
        f.write("# Build System requirements\n" + "\n".join(build) + "\n")
open(os.path.join(d, "version.txt"), "w").write(shape + ".0a0\n")
setup = setup.replace(imports_old, imports).replace(only_old, only)
open(os.path.join(d, "setup.py"), "w").write(setup)
with open(os.path.join(d, "pyproject.toml"), "w") as f:
    f.write("[build-system]\nrequires = [\n" + "".join('    "%s",\n' % r for r in requires) +
            "]\nbuild-backend = \"%s\"\n\n[tool.black]\nline-length = 88\n" % backend)
PY
}

# setuptools_deb DIR: DIR/python3-setuptools_78.1.1-0.1_all.deb, a stand-in for
# trixie's (what scripts/python-prefix.sh fetches) that needs no network:
# Debian 12's setuptools 66 under the version 78.1.1, with the
# setuptools.command.bdist_wheel that setuptools has from 70.1 (the wheel
# package's underneath). Unpacked by python-prefix.sh --from-debs DIR.
setuptools_deb() {
	rm -rf "$1/pkg"
	mkdir -p "$1/pkg/DEBIAN" "$1/pkg/usr/lib/python3/dist-packages/setuptools/command_extra" \
		"$1/pkg/usr/lib/python3/dist-packages/setuptools-78.1.1.dist-info"
	printf 'Package: python3-setuptools\nVersion: 78.1.1-0.1\nArchitecture: all\nMaintainer: bwbuild tests <t@t>\nDescription: stand-in\n' \
		>"$1/pkg/DEBIAN/control"
	sp="$1/pkg/usr/lib/python3/dist-packages"
	printf 'Metadata-Version: 2.1\nName: setuptools\nVersion: 78.1.1\n' >"$sp/setuptools-78.1.1.dist-info/METADATA"
	# Its keywords (exclude_package_data, ...) come from the metadata found first: this one.
	/usr/bin/python3 -c 'import importlib.metadata as m; print(m.distribution("setuptools").read_text("entry_points.txt") or "")' \
		>"$sp/setuptools-78.1.1.dist-info/entry_points.txt"
	cat >"$sp/setuptools/__init__.py" <<'PY'
import os as _os
_here = _os.path.dirname(_os.path.abspath(__file__))
_real = "/usr/lib/python3/dist-packages/setuptools"
__path__ = [_real]
__file__ = _os.path.join(_real, "__init__.py")
with open(__file__) as _f:
    exec(compile(_f.read(), __file__, "exec"))
__version__ = "78.1.1"
import setuptools.command as _command  # noqa: E402
_command.__path__.append(_os.path.join(_here, "command_extra"))
PY
	printf 'from wheel.bdist_wheel import bdist_wheel  # noqa: F401\n' >"$sp/setuptools/command_extra/bdist_wheel.py"
	dpkg-deb --root-owner-group --build "$1/pkg" "$1/python3-setuptools_78.1.1-0.1_all.deb" >/dev/null
	rm -rf "$1/pkg"
}
