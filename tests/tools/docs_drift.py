#!/usr/bin/env python3
"""The docs drift check behind tests/cli/docs-drift.sh.

usage: docs_drift.py TOP STEPS

TOP is a checkout; STEPS a file with the steps the binary runs, one per line
(`bwbuild plan --json`'s "steps"). Fails (exit 1, one line per finding, as
FILE:LINE: what) when
  - a comment or a doc cites `docs/....md` that does not exist, or a section
    `§N` / `§N.M` / `§N-M` of it that is not a numbered heading there, or a
    markdown link or a `src/LAYER/FILE.c` of README.md or docs/ names a file
    that does not exist;
  - a comment names `src/LAYER/FILE.c` (a glob for a family) that does not
    exist, or a comment of src/ names a `src/FILE.c` with no layer folder;
  - a comment cites a document by a bare name (`foo.md`) that is in no
    folder of the repository (design knowledge kept outside it);
  - README.md's folder list (its Architecture section, lines
    "- `src/NAME/` — ...") differs from the folders of src/;
  - the step table of docs/design/pipeline.md §1, or the `--until` list of
    docs/bwbuild.1, differs from STEPS;
  - an exit code of src/core/diag.h is missing from docs/design/pipeline.md
    §2 or from docs/bwbuild.1's EXIT STATUS, or §2 names a code diag.h
    lacks."""
import glob
import os
import re
import sys

# Where comments live: the code, its tests and tools, profiles.
COMMENT_DIRS = ("src", "tests", "scripts", "probes", "profiles", "patches", ".ci")
COMMENT_FILES = ("Makefile", "Containerfile")
SKIP_DIRS = ("tests/fixtures", "tests/tmp", "tests/bin")
CODE_EXT = (".c", ".h", ".py", ".sh", ".yaml", ".yml", ".cmake", ".txt", "")

# A citation not yet moved, with the reason; printed, not failed.
PENDING = {}

DOC_REF = re.compile(r"docs/[A-Za-z0-9_./-]+\.md")
SECTION = re.compile(r"\s*(?:,\s*)?§\s*([0-9]+(?:\.[0-9]+)*)((?:\s*(?:-|–|,|and)\s*§?\s*[0-9]+(?:\.[0-9]+)*)*)")
BARE_MD = re.compile(r"(?<![A-Za-z0-9_./${}-])([A-Za-z0-9_-]+\.md)\b")
# "pytorch/pytorch RELEASE.md": another repository's document, named with it.
OTHER_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+[ :]$")
# This check and its suite, whose examples and crafted drifts are meant to fail.
SELF = ("tests/tools/docs_drift.py", "tests/cli/docs-drift.sh")
# A source file a doc names ("src/pipeline/step.c"): it must be there.
SRC_PATH = re.compile(r"\bsrc/[a-z_]+/[A-Za-z0-9_-]+\.[ch]\b")
# The same in a comment, where a glob may stand for a family ("src/sources/git*.c"); not a
# path inside another tree ("$w/src/build/CMakeCache.txt", "a/src/x.c").
SRC_CITED = re.compile(r"(?<![\w/.$-])src/[a-z_]+/[A-Za-z0-9_*-]+\.[ch]\b")
# "src/cmd_x.c": a source path from before the layer folders.
SRC_FLAT = re.compile(r"(?<![\w/.$-])src/[A-Za-z0-9_*<>-]+\.[ch]\b")
MD_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")

PIPELINE = "docs/design/pipeline.md"
findings = []
notes = []


def finding(path, line, what):
    findings.append("%s:%d: %s" % (path, line, what))


def files_under(top, rel):
    base = os.path.join(top, rel)
    if os.path.isfile(base):
        yield rel
        return
    for d, dirs, names in os.walk(base):
        reld = os.path.relpath(d, top)
        dirs[:] = sorted(x for x in dirs
                         if not any(os.path.join(reld, x).startswith(s) for s in SKIP_DIRS)
                         and not x.startswith(".git"))
        for n in sorted(names):
            yield os.path.join(reld, n)


def read(top, rel):
    try:
        with open(os.path.join(top, rel), encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def headings(text):
    """The section numbers of a markdown file: "## 7. X" -> 7, "### 7.5 X" -> 7.5."""
    nums = set()
    for m in re.finditer(r"^#{1,6}\s+([0-9]+(?:\.[0-9]+)*)\.?\s", text, re.M):
        nums.add(m.group(1))
    return nums


def check_citation(top, path, lineno, line, m, cache):
    doc = m.group(0)
    target = os.path.join(top, doc)
    if not os.path.isfile(target):
        finding(path, lineno, "cites '%s', which does not exist" % doc)
        return
    sec = SECTION.match(line, m.end())
    if not sec:
        return
    if doc not in cache:
        cache[doc] = headings(read(top, doc) or "")
    wanted = [sec.group(1)] + re.findall(r"[0-9]+(?:\.[0-9]+)*", sec.group(2) or "")
    for n in wanted:
        if n not in cache[doc]:
            finding(path, lineno, "cites '%s §%s', but %s has no section %s"
                    % (doc, n, doc, n))


def all_names(top):
    names = set()
    for rel in files_under(top, "."):
        names.add(os.path.basename(rel))
    return names


def check_src_paths(top, path, i, line):
    for m in SRC_CITED.finditer(line):
        if not glob.glob(os.path.join(top, m.group(0))):
            finding(path, i, "names '%s', which does not exist" % m.group(0))
    # Tests make little trees of their own with src/x.c in them: only bwbuild's code is read here.
    for m in (SRC_FLAT.finditer(line) if path.startswith("src/") else ()):
        finding(path, i, "names '%s', a path with no layer folder (src/README.md)" % m.group(0))


def check_citations(top):
    cache = {}
    known = all_names(top)
    scanned = []
    for d in COMMENT_DIRS + COMMENT_FILES:
        if os.path.exists(os.path.join(top, d)):
            scanned.extend(files_under(top, d))
    for path in scanned:
        if path in SELF or (os.path.splitext(path)[1] not in CODE_EXT
                            and not path.endswith(".md")):
            continue
        text = read(top, path)
        if text is None:
            continue
        for i, line in enumerate(text.split("\n"), 1):
            for m in DOC_REF.finditer(line):
                check_citation(top, path, i, line, m, cache)
            check_src_paths(top, path, i, line)
            for m in BARE_MD.finditer(line):
                name = m.group(1)
                if name in known or OTHER_REPO.search(line[:m.start()]):
                    continue
                if (path, name) in PENDING:
                    notes.append("%s:%d: pending: '%s' (%s)" % (path, i, name, PENDING[(path, name)]))
                    continue
                finding(path, i, "cites '%s', a document that is not in the repository; "
                        "cite the docs/design file that holds it" % name)
    # The docs themselves: "docs/X.md §N" references and relative links.
    docs = ["README.md"] + [p for p in files_under(top, "docs") if p.endswith(".md")]
    for path in docs:
        text = read(top, path) or ""
        for i, line in enumerate(text.split("\n"), 1):
            for m in DOC_REF.finditer(line):
                check_citation(top, path, i, line, m, cache)
            for m in SRC_PATH.finditer(line):
                if not os.path.exists(os.path.join(top, m.group(0))):
                    finding(path, i, "names '%s', which does not exist" % m.group(0))
            for m in MD_LINK.finditer(line):
                link = m.group(1)
                if re.match(r"[a-z]+:", link):
                    continue
                target = os.path.normpath(os.path.join(top, os.path.dirname(path), link))
                if not os.path.exists(target):
                    finding(path, i, "links to '%s', which does not exist" % link)


def section(text, number):
    """The body of "## N. ..." up to the next heading of that level or higher."""
    m = re.search(r"^(#{1,6})\s+%s\.?\s.*$" % re.escape(number), text, re.M)
    if not m:
        return None, 0
    level = len(m.group(1))
    rest = text[m.end():]
    end = re.search(r"^#{1,%d}\s" % level, rest, re.M)
    return rest[:end.start()] if end else rest, text[:m.start()].count("\n") + 1


def table_rows(body):
    rows = []
    for line in body.split("\n"):
        if not line.startswith("|") or re.match(r"^\|[-| :]+\|$", line):
            continue
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows[1:]  # the header row is not data


def check_folders(top):
    text = read(top, "README.md") or ""
    m = re.search(r"^## Architecture\s*$", text, re.M)
    if not m:
        finding("README.md", 1, "has no '## Architecture' section with the folders of src/")
        return
    body = text[m.end():]
    end = re.search(r"^## ", body, re.M)
    body = body[:end.start()] if end else body
    listed = re.findall(r"^- `src/([A-Za-z0-9_]+)/`", body, re.M)
    real = sorted(d for d in os.listdir(os.path.join(top, "src"))
                  if os.path.isdir(os.path.join(top, "src", d)))
    line = text[:m.start()].count("\n") + 1
    for d in real:
        if d not in listed:
            finding("README.md", line, "the folder list lacks src/%s/" % d)
    for d in listed:
        if d not in real:
            finding("README.md", line, "the folder list names src/%s/, which does not exist" % d)
    if len(set(listed)) != len(listed):
        finding("README.md", line, "the folder list names a folder twice")


def pipeline_section(top, number, what):
    """Section `number` of docs/design/pipeline.md and its line; None (reported) when missing."""
    body, line = section(read(top, PIPELINE) or "", number)
    if body is None:
        finding(PIPELINE, 1, "has no section %s with %s" % (number, what))
    return body, line


def check_steps(top, steps):
    doc = PIPELINE
    body, line = pipeline_section(top, "1", "the step table")
    if body is None:
        return
    rows = [r[0].strip("`") for r in table_rows(body)]
    if rows != steps:
        finding(doc, line, "the step table lists %s; the binary runs %s"
                % (" ".join(rows) or "nothing", " ".join(steps)))
    man = read(top, "docs/bwbuild.1") or ""
    m = re.search(r"^\.BI \\-\\-until \" STEP\"\n(.*?);", man, re.M | re.S)
    if m:
        listed = re.findall(r"^\.BR? (\w+)", m.group(1), re.M)
        if listed != steps:
            finding("docs/bwbuild.1", man[:m.start()].count("\n") + 1,
                    "--until lists %s; the binary runs %s" % (" ".join(listed), " ".join(steps)))


def check_exit_codes(top):
    codes = re.findall(r"^\s*(EXIT_[A-Z_]+)\s*=\s*([0-9]+)",
                       read(top, "src/core/diag.h") or "", re.M)
    doc = PIPELINE
    body, line = pipeline_section(top, "2", "the exit codes")
    if not codes or body is None:
        if not codes:
            finding("src/core/diag.h", 1, "defines no EXIT_ codes")
        return
    rows = table_rows(body)
    named = {}
    for r in rows:
        if len(r) >= 2:
            named[r[1].strip("`")] = r[0]
    for name, value in codes:
        if name not in named:
            finding(doc, line, "the exit codes lack %s (%s in src/core/diag.h)" % (name, value))
        elif not re.match(r"^%s\b" % value, named[name]):
            finding(doc, line, "%s is %s in src/core/diag.h, '%s' here" % (name, value, named[name]))
    for name in named:
        if name not in dict(codes):
            finding(doc, line, "names %s, which src/core/diag.h does not define" % name)
    man = read(top, "docs/bwbuild.1") or ""
    m = re.search(r"^\.SH EXIT STATUS\n(.*?)^\.SH ", man, re.M | re.S)
    if not m:
        finding("docs/bwbuild.1", 1, "has no EXIT STATUS section")
        return
    for name, value in codes:
        # The signal base is written as "128 + N" beside 130 and 143.
        if not re.search(r"\b128 \+ N\b" if value == "128" else r"^\.BI? %s$" % value,
                         m.group(1), re.M):
            finding("docs/bwbuild.1", man[:m.start()].count("\n") + 1,
                    "EXIT STATUS lacks %s (%s)" % (value, name))


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    top, steps_file = sys.argv[1], sys.argv[2]
    with open(steps_file) as f:
        steps = [s.strip() for s in f if s.strip()]
    check_citations(top)
    check_folders(top)
    check_steps(top, steps)
    check_exit_codes(top)
    for n in notes:
        print("note: " + n)
    for f in findings:
        print(f)
    print("docs drift: %d finding%s" % (len(findings), "" if len(findings) == 1 else "s"))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
