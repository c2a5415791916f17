#!/bin/sh
# The proof on the real PyTorch tree (issue 22; transcript: docs/real-pytorch.md).
#
#   sh scripts/real-tree.sh MIRRORS SUPERPROJECT [WORK]
#
# MIRRORS: a directory of bare repositories, one per submodule URL, laid out
#   <owner>+<name>[/repo] (as the search tool's fetch brings them) or
#   <owner>/<name>.git; SUPERPROJECT: the bare clone made by
#   shared/real-tree/superproject.sh (tag v2.6.0). Both are offline copies;
#   nothing here touches the network. When either is absent the script says
#   "skipped:" with the reason and exits 0: it is a proof to run by hand, never
#   a test (the tests reproduce each contract with fixtures of their own).
# WORK (default build/real-tree) gets the mirror directory bwbuild is given,
#   the profile, the work trees and a log per step.
#
# Environment: BW (default bin/bwbuild); COMPILE_SECONDS (default 240) bounds
#   the first compile, which is then stopped with SIGTERM; NVML_INCLUDE, a
#   directory with nvml.h, for a CUDA toolkit installed without its NVML
#   header (v2.6.0's c10_cuda includes it; Debian's libnvidia-ml-dev has one);
#   STEPS, a subset of "fetch configure cpu compile resume c10" (default all),
#   or of the whole-wheel proof (issue 35), named only when wanted:
#     wheel       the shipped cpu profile built from fetch to published wheel
#                 (hours on 2 cores; run it again to resume: nothing rebuilt)
#     prove       verify, the manifest against what the installed torch says
#                 of itself (scripts/torch-self-report.py), a fresh venv, a
#                 slice of PyTorch's own tests from the tree (TEST_SLICE)
#     companions  torchvision 0.21.0 and torchaudio 2.6.0 from Debian's .orig
#                 tarballs (VISION_TARBALL, AUDIO_TARBALL) built on that
#                 wheel, verified --against it, imported, their tests run
#     warm        the cpu profile again in another work directory through the
#                 first build's ccache: wall time and wheel sha256 compared
#   PYDEPS, a directory of unpacked pure-Python packages for the venv (trixie's
#   sympy 1.13, mpmath, typing_extensions >= 4.5, expecttest; README section 6).
#
# What it needs on Debian 12: cmake >= 3.27 (bookworm-backports), the Python
# build deps (scripts/deps.sh installs them), libeigen3-dev, and
# opentelemetry-cpp-dev from bookworm-backports: the superproject leaves out
# the opentelemetry-cpp submodule, and v2.6.0 then finds the system headers.
set -u
mirrors=${1:-}
super=${2:-}
work=${3:-build/real-tree}
BW=${BW:-bin/bwbuild}
STEPS=${STEPS:-fetch configure cpu compile resume c10}
COMPILE_SECONDS=${COMPILE_SECONDS:-240}

skip() {
	echo "skipped: $*"
	exit 0
}
{ [ -n "$mirrors" ] && [ -d "$mirrors" ]; } || skip "no mirror directory '${mirrors}' (usage: $0 MIRRORS SUPERPROJECT [WORK])"
{ [ -n "$super" ] && [ -d "$super" ]; } || skip "no superproject '${super}' (made by shared/real-tree/superproject.sh)"
git --git-dir="$super" rev-parse -q --verify v2.6.0 >/dev/null || skip "'$super' has no tag v2.6.0"
[ -x "$BW" ] || { echo "error: '$BW' is not built; run 'make' first" >&2; exit 2; }
BW=$(realpath "$BW")
mkdir -p "$work"
work=$(realpath "$work")
mirrors=$(realpath "$mirrors")
super=$(realpath "$super")

want() {
	case " $STEPS " in *" $1 "*) return 0 ;; esac
	return 1
}
say() {
	printf '\n== %s\n' "$*"
}
# timed LABEL CMD...: runs CMD, its output into $work/LABEL.log, and prints
# the wall time and exit status (the transcript's numbers).
timed() {
	label=$1
	shift
	t0=$(date +%s.%N)
	"$@" >"$work/$label.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	printf '%s: exit %d in %.1f s (log: %s)\n' "$label" "$rc" "$(echo "$t1 - $t0" | bc)" "$work/$label.log"
	return $rc
}

# The mirror directory bwbuild reads: the superproject as pytorch+pytorch and
# each mirror by its own name; intel/mkl-dnn moved to oneapi-src/oneDNN on
# GitHub (v2.6.0's ideep still names the old URL), so both names lead there.
m="$work/mirrors"
rm -rf "$m"
mkdir -p "$m"
ln -s "$super" "$m/pytorch+pytorch"
for d in "$mirrors"/*; do
	[ -d "$d" ] && ln -sfn "$d" "$m/$(basename "$d")"
done
[ -e "$m/oneapi-src+oneDNN" ] && ln -sfn "$m/oneapi-src+oneDNN" "$m/intel+mkl-dnn"
export BWBUILD_MIRRORS="$m"
export BWBUILD_CACHE_DIR="$work/cache"

# The profile: the shipped sm120 at v2.6.0, with what the Debian-based
# superproject lacks turned off (NNPACK; eigen comes from libeigen3-dev).
prof="$work/real-v2.6.0.yaml"
{
	echo "extends: sm120"
	echo "name: real-v2.6.0"
	echo "description: PyTorch v2.6.0 for sm_120 from local mirrors (scripts/real-tree.sh)"
	echo "source:"
	echo "  ref: v2.6.0"
	echo "cmake:"
	echo '  USE_NNPACK: "0"'
	echo '  USE_SYSTEM_EIGEN_INSTALL: "1"'
	if [ -n "${NVML_INCLUDE:-}" ]; then
		echo "build:"
		echo "  env:"
		echo "    CXXFLAGS: -isystem $NVML_INCLUDE"
	fi
} >"$prof"

say "versions"
cmake --version | head -n 1
/usr/local/cuda/bin/nvcc --version | tail -n 1
gcc --version | head -n 1
"$BW" --version
nproc
free -g | sed -n 2p

say "doctor"
"$BW" doctor --profile "$prof" 2>&1 | tail -n 25

W="$work/w"
if want fetch; then
	say "fetch from the mirrors, with submodules and the patch series"
	timed fetch "$BW" build --profile "$prof" --work "$W" --out "$work/out" --until fetch
	grep -E "warning|note|patch|submodule|absent|left out" "$work/fetch.log" | head -n 30
	printf 'checkout: %s files, %s\n' "$(find "$W/src" -type f -not -path '*/.git/*' | wc -l)" \
		"$(du -sh "$W/src" | cut -f1)"
fi

if want configure; then
	say "configure, CUDA 13.0, 12.0+PTX"
	timed configure "$BW" build --profile "$prof" --work "$W" --out "$work/out" --until configure
	sed -n '/requested vs effective/,/^[a-z]/p' "$work/configure.log" | head -n 40
	[ -f "$W/configure.stamp" ] && echo "configure.stamp written" || echo "NO configure.stamp"
	cache="$W/src/build/CMakeCache.txt"
	for k in USE_CUDA USE_CUDNN USE_FLASH_ATTENTION USE_MEM_EFF_ATTENTION USE_NCCL USE_DISTRIBUTED \
		USE_FBGEMM USE_KINETO BUILD_TEST TORCH_CUDA_ARCH_LIST; do
		printf '  CMakeCache.txt %s\n' "$(grep -E "^$k:" "$cache" | head -n 1)"
	done
	printf 'build.ninja steps: %s\n' "$(grep -c '^build ' "$W/src/build/build.ninja")"
	timed configure-again "$BW" build --profile "$prof" --work "$W" --out "$work/out" --until configure
	grep -iE "configure|up to date|settings" "$work/configure-again.log" | head -n 5
fi

if want cpu; then
	say "configure, CPU-only variant"
	timed configure-cpu "$BW" build --profile "$prof" --work "$work/cpu" --out "$work/out-cpu" \
		--set features.cuda=off --set features.cudnn=off --set features.nccl=off \
		--set features.flash_attention=off --set features.mem_eff_attention=off --until configure
	sed -n '/requested/,$p' "$work/configure-cpu.log" | head -n 30
fi

if want compile; then
	say "compile for ${COMPILE_SECONDS} s, then SIGTERM"
	# In a session of its own (a background job is no group leader, so setsid
	# execs bwbuild itself): what is left of it afterwards is what that
	# session still holds, never another user's process that names the path.
	setsid "$BW" build --profile "$prof" --work "$W" --out "$work/out" --until compile >"$work/compile.log" 2>&1 &
	pid=$!
	sleep "$COMPILE_SECONDS"
	kill -TERM "$pid"
	wait "$pid"
	echo "bwbuild exit status after SIGTERM: $?"
	sleep 5
	left=$(ps -o pid= -s "$pid" | wc -l)
	echo "processes left in bwbuild's session 5 s later: $left"
	grep -E "^\[|admit|peak|ETA|compile" "$work/compile.log" | tail -n 15
	echo "objects built: $(find "$W/src/build" -name '*.o' | wc -l)"
fi

if want resume; then
	say "resume: a second bounded run continues where the first stopped"
	before=$(find "$W/src/build" -name '*.o' | wc -l)
	"$BW" build --profile "$prof" --work "$W" --out "$work/out" --until compile >"$work/resume.log" 2>&1 &
	pid=$!
	sleep 120
	kill -TERM "$pid"
	wait "$pid"
	echo "exit status: $?"
	grep -iE "configure|settings changed|resum" "$work/resume.log" | head -n 5
	echo "objects before: $before, after: $(find "$W/src/build" -name '*.o' | wc -l)"
fi

if want c10; then
	say "c10 and c10_cuda built completely under the launcher"
	timed c10 "$BW" build --profile "$prof" --work "$W" --out "$work/out" --until compile \
		--targets c10,c10_cuda
	tail -n 8 "$work/c10.log"
	ls -la "$W/src/build/lib/libc10.so" "$W/src/build/lib/libc10_cuda.so"
fi

# ---- The whole wheel (issue 35): the shipped cpu profile, from fetch to publish.
WW="$work/cpu-w1"
# The first path of a glob that exists (a wheel bwbuild published), else nothing.
first() {
	for f in "$@"; do
		[ -e "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}
OUT="$work/cpu-out"
wheel_of() {
	sed -n 's/^wheel: *//p' "$1" | tail -n 1
}
if want wheel; then
	say "the cpu profile, whole: fetch, configure, compile, wheel, repair, verify, publish"
	"$BW" plan --profile cpu | grep -E "^(profile|ref|archs|expected|wheel version)"
	timed wheel "$BW" build --profile cpu --work "$WW" --out "$OUT"
	grep -E "^(bwbuild|fetch|configure|repair|verify|publish):|up to date|done in" "$work/wheel.log" | tail -n 30
fi
venv="$work/venv"
if want prove; then
	say "verify, manifest, a fresh venv, PyTorch's own tests"
	whl=$(first "$OUT"/torch-*.whl)
	ls -la "$whl"
	sha256sum "$whl"
	"$BW" verify "$whl" 2>&1 | tail -n 14
	rm -rf "$venv"
	python3 -m venv --system-site-packages "$venv"
	"$venv/bin/python" -m pip install -q --no-index --no-deps "$whl"
	site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	[ -n "${PYDEPS:-}" ] && cp -R "$PYDEPS"/. "$site/"
	"$venv/bin/python" "$(dirname "$0")/torch-self-report.py" "${whl%.whl}.manifest.json"
	"$venv/bin/python" -c 'import torch; x = torch.randn(64, 64, requires_grad=True); (x @ x).sum().backward(); print("import, matmul, backward:", torch.__version__, x.grad.shape)'
	cd "$WW/src/test" || exit 1
	for t in ${TEST_SLICE:-test_torch.py test_nn.py test_autograd.py}; do
		timeout 1800 "$venv/bin/python" -m pytest -q -p no:cacheprovider -x --timeout=0 "$t" 2>&1 | tail -n 3 ||
			timeout 1800 "$venv/bin/python" -m pytest -q -p no:cacheprovider "$t" 2>&1 | tail -n 3
	done
	cd - >/dev/null || exit 1
fi


# ---- The companions, version-locked to that wheel: Debian's .orig tarballs as tagged repositories.
if want companions; then
	say "torchvision 0.21.0 and torchaudio 2.6.0 on the wheel, verified --against it"
	whl=$(first "$OUT"/torch-*.whl)
	here=$(cd "$(dirname "$0")" && pwd)
	for c in "vision:${VISION_TARBALL:-}:v0.21.0:torchvision" "audio:${AUDIO_TARBALL:-}:v2.6.0:torchaudio"; do
		repo=${c%%:*} rest=${c#*:}
		tb=${rest%%:*} rest=${rest#*:}
		tag=${rest%%:*} prof=${rest#*:}
		if [ ! -d "$m/pytorch+$repo" ]; then
			[ -f "$tb" ] || { echo "skipped $prof: no tarball (set ${repo}_TARBALL)"; continue; }
			sh "$here/companion-repo.sh" "$tb" "$m/pytorch+$repo" "$tag"
		fi
		timed "$prof" "$BW" build --profile "$prof" --set "torch=$whl" --work "$work/$prof-w" \
			--out "$work/$prof-out"
		grep -E "goes with|repair:|verify:|publish:|done in" "$work/$prof.log" | tail -n 8
		cw=$(first "$work/$prof-out"/"$prof"-*.whl)
		ls -la "$cw"
		sha256sum "$cw"
		"$BW" verify "$cw" --against "$whl" 2>&1 | tail -n 3
		[ -x "$venv/bin/python" ] && "$venv/bin/python" -m pip install -q --no-index --no-deps "$cw"
	done
	# The wrong series is refused before anything compiles, naming the right one.
	"$BW" plan --profile torchvision --set "torch=$whl" --set source.ref=v0.22.0 2>&1 | tail -n 2
fi

# ---- The warm rebuild: the same profile in another work directory, through the first one's ccache.
if want warm; then
	say "warm rebuild: the cpu profile in another work directory, through the first build's ccache"
	timed warm "$BW" build --profile cpu --work "$work/cpu-w2" --out "$work/cpu-out2"
	grep -E "cache|done in" "$work/warm.log" | tail -n 4
	a=$(first "$OUT"/torch-*.whl)
	b=$(first "$work/cpu-out2"/torch-*.whl)
	sha256sum "$a" "$b"
	if cmp -s "$a" "$b"; then
		echo "the same bytes"
	else
		"$BW" diff "${a%.whl}.manifest.json" "$b" 2>&1 | tail -n 20
	fi
fi
