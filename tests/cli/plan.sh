# plan is clean on every shipped profile and prints the exact environment.
. "$(dirname "$0")/lib.sh"
# An extension profile's torch (its torch profile's last build) is not there:
# plan refuses it as the build does, exit 2 (tests/cli/97 plans one that has it).
for p in profiles/*.yaml; do
	if grep -q '^kind: extension' "$p"; then
		run 2 "$BW" plan --profile "$(basename "$p" .yaml)" --mem-budget 8G
		contains "$TMP/err" "error: the torch profile '$(sed -n 's/^torch: //p' "$p")' has no published build"
		continue
	fi
	run 0 "$BW" plan --profile "$(basename "$p" .yaml)" --mem-budget 8G
	contains "$TMP/out" "MAX_JOBS"
	run 0 "$BW" plan --profile "$p" --json
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/out"
done
run 0 "$BW" plan --profile sm120 --mem-budget 5G
contains "$TMP/out" "TORCH_CUDA_ARCH_LIST=12.0"
contains "$TMP/out" "USE_SYSTEM_NCCL=1"
contains "$TMP/out" "-DUSE_FLASH_ATTENTION=1"
contains "$TMP/out" " + waiting room "
contains "$TMP/out" "CMAKE_CUDA_COMPILER_LAUNCHER=$BW-launch;--"
run 0 "$BW" plan --profile sm120 --mem-budget 5G --set build.launcher=off
contains "$TMP/out" "MAX_JOBS        min(cpus"
if grep -q "COMPILER_LAUNCHER" "$TMP/out"; then fail "launcher set though build.launcher is off"; fi
contains "$TMP/out" "budget          5.0 GiB (given)"
run 0 "$BW" plan --profile sm100 --json
python3 - "$TMP/out" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["env"]["TORCH_CUDA_ARCH_LIST"] == "10.0+PTX", p["env"]
assert p["env"]["USE_MSLK"] == "1" and "USE_FBGEMM_GENAI" not in p["env"]
assert p["expected"] == {"cuda": True, "sass": ["sm_100"], "ptx": ["compute_100"]}
assert p["steps"] == ["fetch", "configure", "compile", "wheel", "repair", "verify", "smoke", "publish"]
assert p["profile"]["source"]["repo"] == "https://github.com/pytorch/pytorch.git"
PY
# A CPU-only profile expects no CUDA code (it said "expected SASS; PTX none
# (in every CUDA library)"), nor do the archs a profile inherits when it turns CUDA off.
run 0 "$BW" plan --profile cpu
contains "$TMP/out" "archs        none: features.cuda is off  (profiles/cpu.yaml:"
contains "$TMP/out" "expected     no CUDA code: no CUDA library, no SASS, no PTX"
grep -q "SASS;" "$TMP/out" && fail "a CPU-only plan expects CUDA code"
run 0 "$BW" plan --profile cpu --json
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["expected"]; assert e == {"cuda": False, "sass": [], "ptx": []}, e' "$TMP/out"
run 0 "$BW" plan --profile sm120 --set features.cuda=off --set features.cudnn=off --set features.nccl=off \
	--set features.flash_attention=off --set features.mem_eff_attention=off --json
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["expected"]; assert e == {"cuda": False, "sass": [], "ptx": []}, e' "$TMP/out"
# The search path: $BWBUILD_PROFILE_PATH after profiles/.
mkdir -p "$TMP/ppath"
printf 'extends: %s/profiles/sm120.yaml\nname: mine\n' "$TOP" > "$TMP/ppath/mine.yaml"
BWBUILD_PROFILE_PATH="$TMP/ppath" run 0 "$BW" plan --profile mine
contains "$TMP/out" "profile      mine"
# Shipped profiles plan without a warning.
for p in profiles/*.yaml; do
	grep -q '^kind: extension' "$p" && continue
	run 0 "$BW" plan --profile "$p" --strict
	[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "warnings for $p"; }
done
# The aarch64 profiles (issue 44) plan anywhere and say plainly where they build.
if [ "$(uname -m)" = x86_64 ]; then
	for p in gb10 gb200; do
		run 0 "$BW" plan --profile $p
		contains "$TMP/out" "host         aarch64  (profiles/$p.yaml:"
		contains "$TMP/out" "  note: this profile builds on an aarch64 host (Grace, DGX Spark), and this machine is x86_64: run doctor and the build there"
		contains "$TMP/out" "BLAS=OpenBLAS"
		run 0 "$BW" plan --profile $p --json
		python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["host"]; assert h["arch"] == "aarch64" and h["machine"] == "x86_64" and h["builds_here"] is False, h' "$TMP/out"
	done
	run 0 "$BW" plan --profile gb10 --json
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["expected"] == {"cuda": True, "sass": ["sm_121"], "ptx": ["compute_121"]}, p["expected"]' "$TMP/out"
	run 0 "$BW" plan --profile sm120
	grep -q "^host " "$TMP/out" && fail "a profile without build.host_arch shows a host line"
	run 2 "$BW" plan --profile sm120 --set build.host_arch=arm64
	contains "$TMP/err" "error: 'build.host_arch' must be x86_64 or aarch64, not 'arm64'"
else
	skip "not an x86_64 machine: the aarch64 profiles' note is for x86_64 ones"
fi
# --set overrides, applied last, dotted; its mistakes point at the option.
run 0 "$BW" plan --profile sm120 --set features.flash_attention=off --set 'cuda.archs=10.0;12.0+PTX' --json
python3 - "$TMP/out" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["env"]["USE_FLASH_ATTENTION"] == "0", p["env"]
assert p["env"]["TORCH_CUDA_ARCH_LIST"] == "10.0;12.0+PTX", p["env"]
PY
run 0 "$BW" plan --profile sm120 --set 'cuda.archs=10.0;12.0'
contains "$TMP/err" "--set cuda.archs=10.0;12.0:1:17: warning: the newest arch '12.0' has no +PTX, so the wheel will not run on newer GPUs; write '12.0+PTX' for forward compatibility"
# An 'a' entry newest (issue 32): compute_120 PTX already runs on every later
# GPU, so no warning, not even under --strict; without it the advice is the
# plain arch's +PTX, never '12.1a+PTX' (compute_121a runs on sm_121 alone).
run 0 "$BW" plan --profile sm120 --strict --set 'cuda.archs=10.0;12.0+PTX;12.1a'
if grep -q "PTX" "$TMP/err"; then cat "$TMP/err"; fail "a PTX warning for 10.0;12.0+PTX;12.1a"; fi
run 0 "$BW" plan --profile sm120 --set 'cuda.archs=10.0;12.0;12.1a'
contains "$TMP/err" "warning: no entry's PTX runs on GPUs newer than '12.1a' ('a' code, PTX too, stays on its own GPU), so the wheel will not run on them; write '12.0+PTX' for forward compatibility"
if grep -q "12.1a+PTX" "$TMP/err"; then fail "advice to write 12.1a+PTX"; fi
run 0 "$BW" plan --profile sm120 --set 'cuda.archs=12.0f+PTX'
contains "$TMP/err" "stays on its family), so the wheel will not run on them; write '12.0+PTX'"
run 2 "$BW" plan --profile sm120 --set 'cuda.archs=10.0;12.0' --strict
contains "$TMP/err" "(an error with --strict)"
# A wheel without PTX on purpose (the official cu130 wheels): cuda.ptx: none,
# and then no entry may ask for PTX.
run 0 "$BW" plan --profile sm120 --set 'cuda.archs=10.0;12.0' --set cuda.ptx=none --strict
contains "$TMP/out" "expected     SASS sm_100 sm_120; PTX none (in every CUDA library)"
run 2 "$BW" plan --profile sm120 --set cuda.ptx=none
contains "$TMP/err" "error: '12.0+PTX' asks for PTX, but cuda.ptx is none (--set cuda.ptx=none:1)"
run 2 "$BW" plan --profile sm120 --set cuda.ptx=some
contains "$TMP/err" "--set cuda.ptx=some:1:10: error: 'cuda.ptx' is newest or none, not 'some'"
# build.env: the variables PyTorch's build reads that no other key sets;
# the ones bwbuild derives are refused with the key to use instead.
run 0 "$BW" plan --profile demo --set build.env.TORCH_NVCC_FLAGS=-compress-mode=size --set build.env.CXX=g++-12 --json
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["env"]["TORCH_NVCC_FLAGS"] == "-compress-mode=size" and p["env"]["CXX"] == "g++-12", p["env"]; assert p["profile"]["build"]["env"] == {"TORCH_NVCC_FLAGS": "-compress-mode=size", "CXX": "g++-12"}' "$TMP/out"
run 2 "$BW" plan --profile demo --set build.env.USE_CUDA=0 --set build.env.MAX_JOBS=3 --set build.env.LD_PRELOAD=x.so
contains "$TMP/err" "--set build.env.USE_CUDA=0:1:11: error: 'USE_CUDA' cannot be set under build.env: bwbuild sets the USE_* switches from features: (or cmake: for others)"
contains "$TMP/err" "error: 'MAX_JOBS' cannot be set under build.env: bwbuild sets it from build.jobs and the memory budget"
contains "$TMP/err" "error: 'LD_PRELOAD' cannot be set under build.env: not a variable bwbuild passes to the build (allowed: TORCH_NVCC_FLAGS"
# What the shell leaves set reaches the build: shown, and in --json.
USE_ROCM=1 CC=gcc-12 CUDA_VISIBLE_DEVICES=0 run 0 "$BW" plan --profile demo
contains "$TMP/out" "inherited from this shell (they change the build; set them in the profile or unset them)"
contains "$TMP/out" "  CC=gcc-12"
contains "$TMP/out" "  USE_ROCM=1"
if grep -q "CUDA_VISIBLE_DEVICES" "$TMP/out"; then fail "a run-time variable was listed as changing the build"; fi
USE_CUDA=0 run 0 "$BW" plan --profile demo --json
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert "USE_CUDA" not in p["inherited_env"], p["inherited_env"]' "$TMP/out"
run 2 "$BW" plan --profile sm120 --set features.flash=on
contains "$TMP/err" "--set features.flash=on:1:10: error: unknown key 'flash' in 'features'"
run 2 "$BW" plan --profile sm120 --set nodots
contains "$TMP/err" "error: --set 'nodots' is not KEY=VALUE with a dotted key"
run 2 "$BW" plan --profile sm120 --set cuda.archs=sm_120
contains "$TMP/err" "--set cuda.archs=sm_120:1:12: error: 'sm_120' is not a TORCH_CUDA_ARCH_LIST entry; did you mean '12.0'?"
# The column is the value's in KEY=VALUE, and a list's entry's own (issue 32: it was always 1).
run 2 "$BW" plan --profile sm120 --set 'cuda.archs=10.0;sm_120'
contains "$TMP/err" "--set cuda.archs=10.0;sm_120:1:17: error: 'sm_120' is not a TORCH_CUDA_ARCH_LIST entry"
# ... and in a file: the entry inside a quoted string, not the string's quote.
printf 'extends: sm120\nname: cols\ncuda:\n  archs: "10.0;12.0+PTX;sm_121"\n' > "$TMP/cols.yaml"
run 2 "$BW" plan --profile "$TMP/cols.yaml"
contains "$TMP/err" "cols.yaml:4:25: error: 'sm_121' is not a TORCH_CUDA_ARCH_LIST entry"

# A build of a release tag plans as that release (no a0, no git part): the
# shipped cpu profile at v2.6.0, and sm120 at another tag through --set.
run 0 "$BW" plan --profile cpu
contains "$TMP/out" "wheel version 2.6.0+cpu.cpu.h<inputs> (the release of tag v2.6.0; h<inputs>: a hash of the build's inputs, known at fetch)"
run 0 "$BW" plan --profile sm120 --set source.ref=v2.6.0 --set cuda.version=13.0 --json
python3 - "$TMP/out" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["wheel_version"].startswith("2.6.0+cu130.sm120.h<inputs> (the release of tag v2.6.0;"), p["wheel_version"]
PY
pass
run 0 "$BW" plan --profile sm120 --set source.ref=main
contains "$TMP/out" "wheel version version.txt+git<commit>.cu130.sm120.h<inputs> (read at fetch; h<inputs>: a hash of the build's inputs)"
