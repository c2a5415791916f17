# What the fault suites share (faults.sh, faults-checkout.sh,
# faults-damage.sh), sourced after lib.sh: the example as a repository, a
# profile of it, a work and an out directory, build (a whole build that
# does its work), consistent (the outputs agree, nothing left running) and
# touch_src. They are three suites so that they run beside each other.
ex="$TMP/example90"
example_profile "$ex" "$TMP/f90.yaml" f90
export BWBUILD_CACHE_DIR="$TMP/cache90"
rm -rf "$TMP/cache90" "$TMP/work90" "$TMP/out90"
w="$TMP/work90" o="$TMP/out90"
# Every build here must do its work: an up-to-date one (src/pipeline/uptodate.c) would skip the steps.
build() { rm -f "$w/last-build.json"; run "$1" "$BW" --profile "$TMP/f90.yaml" --work "$w" --out "$o"; }

consistent() {
	python3 - "$o" <<'PY' || fail "outputs inconsistent after $1"
import glob, hashlib, json, os, sys
out = sys.argv[1]
left = [f for f in os.listdir(out) if ".tmp." in f]
assert not left, ("temporary files left", left)
for m in glob.glob(out + "/*.manifest.json"):
    j = json.load(open(m))
    whl = m[: -len(".manifest.json")] + ".whl"
    assert os.path.exists(whl), ("manifest without its wheel", m)
    assert hashlib.sha256(open(whl, "rb").read()).hexdigest() == j["wheel"]["sha256"], m
PY
	if pgrep -f "$w/src" >/dev/null; then
		pgrep -af "$w/src"
		fail "a process of the killed build still runs after $1"
	fi
}
# A touched source: the compile, and every step after it, has work to do.
touch_src() { find "$w/src/csrc" -name '*.cpp' -exec touch {} +; }
