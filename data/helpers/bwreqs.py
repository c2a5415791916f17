"""What a Python source tree asks of the interpreter that builds it.

Run by bwbuild with the build's own interpreter (src/host/pyreqs.c), so
pyproject.toml is read by tomllib (or tomli), requirements by packaging,
and markers are evaluated for this interpreter. Answers one JSON object
on stdout; an error bwbuild words itself is {"missing": MODULE}.

    bwreqs.py tree SRC                 pyproject.toml's [build-system],
                                       requirements-build.txt, requirements.txt
    bwreqs.py match SPEC VERSION ...   whether each VERSION meets its SPEC
                                       (true, false; null: either unreadable)
"""
import json
import re
import sys


def load_packaging():
    """packaging, or the copy setuptools or pip carries; None when none is there."""
    for top in ("packaging", "setuptools._vendor.packaging", "pip._vendor.packaging"):
        try:
            mods = [__import__(top + "." + m, fromlist=["_"])
                    for m in ("requirements", "specifiers", "version", "utils")]
            return top, mods
        except Exception:  # noqa: BLE001 - a broken vendored copy is no copy
            continue
    return None, None


def load_toml():
    try:
        import tomllib
        return tomllib
    except ImportError:
        pass
    try:
        import tomli
        return tomli
    except ImportError:
        return None


WHERE, MODS = load_packaging()
if MODS:
    REQ, SPEC, VER, UTIL = MODS


def spec_text(req, text):
    """The specifiers as written, without blanks or parentheses; packaging's when they differ."""
    if req.url:
        return ""
    head = text.split(";", 1)[0]
    head = re.sub(r"^\s*[A-Za-z0-9._-]+\s*(\[[^\]]*\])?", "", head)
    mine = re.sub(r"[\s()]", "", head)
    try:
        if SPEC.SpecifierSet(mine) == req.specifier:
            return mine
    except Exception:  # noqa: BLE001
        pass
    return str(req.specifier)


def one(text, line):
    """One requirement string as bwbuild keeps it, or raises with packaging's reason."""
    req = REQ.Requirement(text)
    applies = True
    if req.marker is not None:
        applies = bool(req.marker.evaluate({"extra": ""}))
    return {"name": UTIL.canonicalize_name(req.name), "spec": spec_text(req, text),
            "text": text.strip(), "line": line, "marker": str(req.marker or ""),
            "applies": applies, "url": bool(req.url)}


def line_of(raw, s):
    """The first line of raw that holds the string s quoted: where it was asked."""
    for n, ln in enumerate(raw.splitlines(), 1):
        if '"%s"' % s in ln or "'%s'" % s in ln:
            return n
    return 0


def pyproject(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None
    toml = load_toml()
    if toml is None:
        return {"missing": "tomllib"}
    try:
        doc = toml.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return {"error": str(e)}
    text = raw.decode("utf-8")
    bs = doc.get("build-system")
    out = {"table": isinstance(bs, dict), "requires": [], "backend": None, "backend_path": False}
    if not isinstance(bs, dict):
        return out
    reqs = bs.get("requires", [])
    if not isinstance(reqs, list) or not all(isinstance(r, str) for r in reqs):
        return {"error": "[build-system] requires is not an array of strings"}
    for r in reqs:
        ln = line_of(text, r)
        try:
            out["requires"].append(one(r, ln))
        except REQ.InvalidRequirement as e:
            return {"error": "line %d: '%s' is no requirement: %s" % (ln, r, e)}
    be = bs.get("build-backend")
    if be is not None and not isinstance(be, str):
        return {"error": "[build-system] build-backend is not a string"}
    out["backend"] = be
    out["backend_path"] = "backend-path" in bs
    return out


def requirements(path):
    """A requirements file's requirement lines; options, paths and URLs are none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return None
    out, i = [], 0
    while i < len(lines):
        start, text = i + 1, lines[i]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + lines[i]
        i += 1
        text = text[:-1] if text.endswith("\\") else text
        text = re.sub(r"(^|\s)#.*$", "", text).strip()
        if not text or text.startswith("-"):
            continue
        if text.startswith((".", "/")) or re.match(r"^[a-z+]+://", text):
            continue
        try:
            out.append(one(text, start))
        except REQ.InvalidRequirement as e:
            return {"error": "line %d: '%s' is no requirement: %s" % (start, text, e)}
    return {"requires": out}


def tree(src):
    ans = {"python": sys.version.split()[0], "packaging": WHERE}
    ans["pyproject"] = pyproject(src + "/pyproject.toml")
    for name in ("requirements-build.txt", "requirements.txt"):
        ans[name] = requirements(src + "/" + name)
    return ans


def match(args):
    out = []
    for spec, version in zip(args[::2], args[1::2]):
        try:
            out.append(SPEC.SpecifierSet(spec).contains(VER.Version(version), prereleases=True))
        except (SPEC.InvalidSpecifier, VER.InvalidVersion):
            out.append(None)
    return out


def main(argv):
    if not MODS:
        ans = {"missing": "packaging"}
    elif len(argv) == 2 and argv[0] == "tree":
        ans = tree(argv[1])
    elif argv and argv[0] == "match" and len(argv) % 2 == 1:
        ans = {"match": match(argv[1:])}
    else:
        sys.stderr.write(__doc__)
        return 2
    json.dump(ans, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
