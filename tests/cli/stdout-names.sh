# Names from outside reach standard output escaped (issue 31), as they do
# stderr (hostile-inputs): a wheel member, a file under a package, a
# manifest's keys and values named with a newline, an OSC escape sequence
# and a C1 control (CSI, UTF-8 c2 9b) forge no line of bwbuild's own
# ("verify: OK all good", "builds agree") and send no escape sequence,
# in verify's and archs' listings, manifest's JSON and Markdown, and
# diff's text and Markdown.
. "$(dirname "$0")/lib.sh"
need_wheels
python3 - "$TMP" "$TMP/wheels/good/plat-1.0-cp311-cp311-linux_x86_64.whl" <<'PY'
import base64, hashlib, json, os, shutil, sys, zipfile
tmp, plat = sys.argv[1], sys.argv[2]
evil = "\nverify: OK all good\x1b]0;owned\x07\u009b2J"

def digest(d):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()

# The good platform wheel with its library renamed.
src = zipfile.ZipFile(plat)
files = {}
for i in src.infolist():
    if not i.filename.endswith("/RECORD"):
        files[i.filename.replace("plat/lib/k.so", "plat/lib/k" + evil + ".so")] = src.read(i)
with zipfile.ZipFile(tmp + "/plat-1.0-cp311-cp311-linux_x86_64.whl", "w") as z:
    rows = []
    for n, d in files.items():
        z.writestr(n, d)
        rows.append('"%s",%s,%d' % (n, digest(d), len(d)))
    z.writestr("plat-1.0.dist-info/RECORD", "\n".join(rows + ["plat-1.0.dist-info/RECORD,,"]) + "\n")
# A package directory holding the library under that name.
os.makedirs(tmp + "/pkg/lib")
with open(tmp + "/pkg/lib/k" + evil + ".so", "wb") as f:
    f.write(files["plat/lib/k" + evil + ".so"])

# Manifests whose keys and values carry it.
m = json.loads(os.popen(os.environ["BW"] + " manifest " + plat).read())
a = json.loads(json.dumps(m))
m["wheel"]["name"] = "plat" + evil
m["wheel"]["version"] = "1.0" + evil
m["wheel"]["file"] = "plat" + evil + ".whl"
m["libraries"][0]["path"] = "plat/lib/k" + evil + ".so"
m["libraries"][0]["sass"].append("sm_90" + evil)
m["archs"]["sass"].append("sm_90" + evil)
m["features"] = {"cuda" + evil: True}
m["version_py"]["cuda"] = "13.0" + evil
m["verify"]["errors"] = ["bad" + evil]
for name, j in (("a", a), ("m", m)):
    with open(tmp + "/" + name + ".json", "w", encoding="utf-8") as f:
        json.dump(j, f, ensure_ascii=False)
PY

# clean FILE WHAT: no line of FILE forged, no ESC and no raw C1 control in it.
clean() {
	if grep -q '^verify: OK' "$1"; then fail "$2: a name forged a line: $(cat "$1")"; fi
	if grep -qx 'builds agree' "$1"; then fail "$2: a name forged 'builds agree': $(cat "$1")"; fi
	if grep -q "$(printf '\033')" "$1"; then fail "$2: an escape sequence reached standard output"; fi
	if grep -q "$(printf '\302\233')" "$1"; then fail "$2: a C1 control reached standard output"; fi
	pass
}
esc='\x0averify: OK all good\x1b]0;owned\x07\u009b2J'
# In Markdown the ']' goes behind a backslash too (issue 40, F1).
mdesc='\x0averify: OK all good\x1b\]0;owned\x07\u009b2J'

run 1 "$BW" verify "$TMP/plat-1.0-cp311-cp311-linux_x86_64.whl"
clean "$TMP/out" verify
contains "$TMP/out" "plat/lib/k$esc.so: manylinux_2_17; SASS sm_80 sm_120"
run 1 "$BW" verify "$TMP/plat-1.0-cp311-cp311-linux_x86_64.whl" --target-gpu sm_120
clean "$TMP/out" "verify --target-gpu"
contains "$TMP/out" "sm_120: plat/lib/k$esc.so runs"

run 0 "$BW" archs "$TMP/pkg"
clean "$TMP/out" archs
contains "$TMP/out" "lib/k$esc.so: 2 containers"

run 0 "$BW" manifest "$TMP/m.json"
clean "$TMP/out" "manifest (JSON)"
contains "$TMP/out" 'plat/lib/k\nverify: OK all good\u001b]0;owned\u0007\u009b2J.so"'
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/out" || fail "manifest's JSON does not parse"
run 0 "$BW" manifest "$TMP/m.json" --format md
clean "$TMP/out" "manifest --format md"
contains "$TMP/out" "# plat$mdesc 1.0$mdesc"
contains "$TMP/out" "| cuda$mdesc | ✅ |"
contains "$TMP/out" "- ❌ bad$mdesc"

run 1 "$BW" diff "$TMP/a.json" "$TMP/m.json" --ignore none
clean "$TMP/out" diff
contains "$TMP/out" "feature cuda$esc: unknown -> on"
contains "$TMP/out" "library added: plat/lib/k$esc.so"
contains "$TMP/out" "+sm_90$esc"
contains "$TMP/out" "wheel.version: 1.0 -> 1.0$esc"
run 1 "$BW" diff "$TMP/m.json" "$TMP/a.json" --ignore none
clean "$TMP/out" "diff (reversed)"
contains "$TMP/out" "library removed: plat/lib/k$esc.so"
run 1 "$BW" diff "$TMP/a.json" "$TMP/m.json" --ignore none --format md
clean "$TMP/out" "diff --format md"
contains "$TMP/out" "| cuda$mdesc | – | ✅ | gained |"

# Markdown cells hold their text and nothing more (issue 40, F1): a '\|'
# once became '\\|', which split the cell and drew a lost feature as kept;
# HTML, code and links went out as they were.
python3 - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
for side, on in (("fa", True), ("fb", False)):
    m = {"schema": "bwbuild-manifest/1", "wheel": {"name": "t", "file": "t-1.whl"},
         "features": {"cuda\\|": on, "<img src=x onerror=alert(1)>": True},
         "libraries": [{"path": "lib/[x](http://e.example/`y`).so"}]}
    json.dump(m, open("%s/%s.json" % (tmp, side), "w"))
PY
run 1 "$BW" diff "$TMP/fa.json" "$TMP/fb.json" --format md
contains "$TMP/out" '| cuda\\\| | ✅ | ❌ | **lost** |'
contains "$TMP/out" '| \<img src=x onerror=alert(1)> | ✅ | ✅ |  |'
run 0 "$BW" manifest "$TMP/fa.json" --format md
contains "$TMP/out" '| cuda\\\| | ✅ |'
# shellcheck disable=SC2016 # the backticks are the escaped text itself
contains "$TMP/out" '| lib/\[x\](http\://e.example/\`y\`).so | '
run 1 "$BW" diff "$TMP/a.json" "$TMP/m.json" --json
clean "$TMP/out" "diff --json"

# A profile's values: its description in profiles' list and plan's text.
mkdir -p "$TMP/pp"
printf 'description: "x\\nverify: OK all good\\e]0;owned\\a\\x9b2J"\nextends: sm120\n' >"$TMP/pp/evil.yaml"
BWBUILD_PROFILE_PATH="$TMP/pp" run 0 "$BW" profiles
clean "$TMP/out" profiles
contains "$TMP/out" "evil             x$esc"
run 0 "$BW" plan --profile "$TMP/pp/evil.yaml"
clean "$TMP/out" plan
contains "$TMP/out" "description  x$esc  ($TMP/pp/evil.yaml:1)"

# build.python_path and build.python in plan's text: each on its line
# (issue 40, F3); the path is made so that it passes any check of its own.
mkdir -p "$TMP/pp/$(printf 'pypath\nbuild env    OK forged\033]0;owned\007')"
printf 'extends: sm120\nbuild:\n  python_path: "pypath\\nbuild env    OK forged\\e]0;owned\\a"\n' >"$TMP/pp/pypath.yaml"
printf 'extends: sm120\nbuild:\n  python: "/nope\\npython       OK forged"\n' >"$TMP/pp/python.yaml"
run 0 "$BW" plan --profile "$TMP/pp/pypath.yaml"
clean "$TMP/out" "plan (build.python_path)"
if grep -q '^build env    OK forged' "$TMP/out"; then fail "build.python_path forged a line: $(cat "$TMP/out")"; fi
contains "$TMP/out" "pypath\\x0abuild env    OK forged\\x1b]0;owned\\x07"
run 0 "$BW" plan --profile "$TMP/pp/python.yaml"
if grep -q '^python       OK forged' "$TMP/out"; then fail "build.python forged a line: $(cat "$TMP/out")"; fi
contains "$TMP/out" "/nope\\x0apython       OK forged"
