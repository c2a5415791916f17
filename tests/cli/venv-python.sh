# build.python a virtual environment without setuptools (python3 -m venv
# --without-pip): doctor, plan and the build name the venv's own remedy
# (pip into it, or the prefix scripts/python-prefix.sh makes), never
# apt-get; and once such a prefix is under the cache, the venv builds
# wheels with it first on PYTHONPATH, as doctor, plan and the build say
# (issue 41, polish).
. "$(dirname "$0")/lib.sh"
export BWBUILD_CACHE_DIR="$TMP/cache"
python3 -m venv --without-pip "$TMP/venv" >"$TMP/venv.out" 2>&1 || {
	skip "python3 -m venv is not available here (apt-get install python3-venv): $(head -n 1 "$TMP/venv.out")"
	exit 0
}
vpy="$TMP/venv/bin/python3"
"$vpy" -c 'import setuptools' 2>/dev/null && fail "the venv imports setuptools: it cannot stand for one without"
example_profile "$TMP" "$TMP/venv.yaml" venvtest "build:" "  python: $vpy"

run 1 "$BW" doctor --profile "$TMP/venv.yaml"
contains "$TMP/out" "it is a virtual environment: install them into it ('$vpy -m pip install setuptools wheel'), or make the prefix bwbuild puts first on its PYTHONPATH ("
grep -q "apt-get install python3-setuptools" "$TMP/out" && fail "doctor gave a venv apt-get's hint: $(grep python "$TMP/out")"
pass
run 1 "$BW" build --profile "$TMP/venv.yaml" --work "$TMP/w" --out "$TMP/o" --until fetch
contains "$TMP/err" "'$vpy' cannot build wheels:"
contains "$TMP/err" "it is a virtual environment: install them into it ("

# The prefix the script makes (NAME/PACKAGES written last, NAME/site), here
# the system's setuptools and wheel linked in.
site="$BWBUILD_CACHE_DIR/python-prefix/test/site"
mkdir -p "$site"
chmod 755 "$BWBUILD_CACHE_DIR" "$BWBUILD_CACHE_DIR/python-prefix" "$BWBUILD_CACHE_DIR/python-prefix/test" "$site"
for m in setuptools pkg_resources _distutils_hack wheel; do
	d=$(/usr/bin/python3 -c "import os, $m; print(os.path.dirname($m.__file__))")
	ln -s "$d" "$site/$m"
done
for info in /usr/lib/python3/dist-packages/setuptools-*info /usr/lib/python3/dist-packages/wheel-*info; do
	[ -e "$info" ] && ln -s "$info" "$site/"
done
echo "setuptools wheel" >"$BWBUILD_CACHE_DIR/python-prefix/test/PACKAGES"
PYTHONPATH="$site" "$vpy" -c 'import setuptools, wheel' || fail "the stand-in prefix does not serve the venv"

run 0 "$BW" doctor --profile "$TMP/venv.yaml" --json
python3 - "$TMP/out" "$vpy" "$site" <<'PY' || fail "doctor's python check with the prefix: $(grep -A3 '"python"' "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
checks = d["checks"] if isinstance(d, dict) else d
py = [c for c in checks if c.get("name") == "python"]
assert py and py[0]["status"] == "ok", py
assert f"{sys.argv[2]} can build wheels with PYTHONPATH={sys.argv[3]}" in py[0]["detail"], py
PY
pass
run 0 "$BW" plan --profile "$TMP/venv.yaml"
contains "$TMP/out" "PYTHONPATH=$site"
run 0 "$BW" build --profile "$TMP/venv.yaml" --work "$TMP/w" --out "$TMP/o" --until fetch
contains "$TMP/err" "python: $vpy builds wheels with PYTHONPATH=$site (scripts/python-prefix.sh's)"
