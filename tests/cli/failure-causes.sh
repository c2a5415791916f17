# Late or hidden causes (issue 12): the line of a failed step's log that
# says why is shown, not only the last lines.
. "$(dirname "$0")/lib.sh"
ex="$TMP/example93"
sh scripts/make-example-repo.sh tests/fixtures/minitorch "$ex/minitorch.git" v2.11.0
export BWBUILD_CACHE_DIR="$TMP/cache93"
mkdir -p "$TMP/fullcuda/bin"
# A compiler that fails like gcc on a full disk, early, then lots of noise.
cat > "$TMP/fullcuda/bin/nvcc" <<SH
#!/bin/sh
for a in "\$@"; do
	case "\$a" in
	*flash_fwd.cu)
		echo "/tmp/tmpxft_0001/flash_fwd.ptx: fatal error: error writing to /tmp/ccA1.s: No space left on device" >&2
		i=0; while [ \$i -lt 60 ]; do echo "noise line \$i" >&2; i=\$((i + 1)); done
		exit 1 ;;
	esac
done
exec /usr/local/cuda/bin/nvcc "\$@"
SH
chmod +x "$TMP/fullcuda/bin/nvcc"
cat > "$TMP/full.yaml" <<YAML
extends: $TOP/profiles/demo.yaml
name: full93
source:
  repo: $ex/minitorch.git
cuda:
  home: $TMP/fullcuda
YAML
run 1 "$BW" --profile "$TMP/full.yaml" --work "$TMP/work93" --out "$TMP/out93"
contains "$TMP/err" "error: cause: /tmp/tmpxft_0001/flash_fwd.ptx: fatal error: error writing to /tmp/ccA1.s: No space left on device"
contains "$TMP/err" "the disk is full"
# doctor names a missing TMPDIR instead of blaming nvcc's targets.
TMPDIR="$TMP/no-such-dir" run 1 "$BW" doctor --profile demo
contains "$TMP/out" "❌ tmpdir         TMPDIR '$TMP/no-such-dir' is not a directory you can write"
if grep -q "nvcc targets" "$TMP/out"; then fail "doctor blamed nvcc's targets for a missing TMPDIR"; fi
# A toolkit without one of the archs (CUDA 13.0 by its version, but no sm_120
# in --list-gpu-code): build stops at the arch's key before fetching anything.
mkdir -p "$TMP/oldcuda/bin"
cat > "$TMP/oldcuda/bin/nvcc" <<'SH'
#!/bin/sh
case "$1" in
--version) echo "Cuda compilation tools, release 13.0, V13.0.88" ;;
--list-gpu-code) printf 'sm_75\nsm_80\nsm_86\nsm_90\nsm_100\n' ;;
*) exit 1 ;;
esac
SH
chmod +x "$TMP/oldcuda/bin/nvcc"
# (The suite's own repository: the shipped demo's build/example may not exist yet
# while suites run in parallel, and a missing repository is a usage error, 2.)
printf 'extends: %s/profiles/demo.yaml\nname: demo\nsource:\n  repo: %s/minitorch.git\n' "$TOP" "$ex" >"$TMP/demo93.yaml"
run 1 "$BW" --profile "$TMP/demo93.yaml" --set "cuda.home=$TMP/oldcuda" --work "$TMP/work93b" --out "$TMP/out93b"
contains "$TMP/err" "profiles/demo.yaml:10:18: error: $TMP/oldcuda/bin/nvcc cannot build sm_120 (it is not in its --list-gpu-code)"
[ ! -e "$TMP/work93b/demo/src" ] || fail "the build fetched before finding that nvcc has no sm_120"

# A real full disk (a 6 MiB tmpfs as the work directory): CMake's CUDA check
# fails for want of space, which it logs only in CMakeFiles/CMakeError.log;
# the cause is named instead of "no CUDA compiler". After room is made the
# same work directory builds. Skipped where mounting is not allowed.
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=6m tmpfs "$TMP/small" 2>/dev/null; then
	at_exit "umount '$TMP/small' 2>/dev/null"
	# The preflight sees the disk too small before anything is fetched
	# (doctor's estimate); the build past it meets the full disk itself.
	run 1 "$BW" --profile "$TMP/full.yaml" --set "cuda.home=/usr/local/cuda" --work "$TMP/small/w" --out "$TMP/out93f"
	contains "$TMP/err" "error: preflight: disk: "
	[ ! -e "$TMP/small/w/src" ] || fail "the build fetched before its preflight failed"
	# CMake's own checks, not their kept results (tests/run.sh), meet the full disk.
	MINITORCH_PLATFORM_CACHE='' run 1 "$BW" --profile "$TMP/full.yaml" --set "cuda.home=/usr/local/cuda" --work "$TMP/small/w" --out "$TMP/out93f" --no-preflight
	contains "$TMP/err" "error: cause: "
	contains "$TMP/err" "No space left on device"
	contains "$TMP/err" "the disk is full: free space there"
	mount -o remount,size=96m "$TMP/small"
	run 0 "$BW" --profile "$TMP/full.yaml" --set "cuda.home=/usr/local/cuda" --work "$TMP/small/w" --out "$TMP/out93f" --no-preflight
	python3 - "$TMP/out93f" <<'PY'
import glob, hashlib, json, sys
(m,) = glob.glob(sys.argv[1] + "/*.manifest.json")
whl = m[: -len(".manifest.json")] + ".whl"
assert hashlib.sha256(open(whl, "rb").read()).hexdigest() == json.load(open(m))["wheel"]["sha256"]
PY
	umount "$TMP/small"
else
	skip "cannot mount a tmpfs here (needs root, or a container that allows it): the full-disk case is not run"
fi
