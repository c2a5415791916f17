#!/usr/bin/env python3
"""The layer check behind `make layers` (and tests/cli/layers.sh, so it
runs in `make test`): src/ is one folder per layer, ranked strictly in
ORDER, lowest first:

    core < formats < host < profile < sources < wheel < launch < pipeline < cli

Every folder of src/ has a rank (ORDER here, LAYERS in the Makefile, the
same list), and an include goes from a layer to itself or to a lower one.

Circles of calls fail too, seen through any header: a family is
FOLDER/STEM cut at the first "_" (wheel/verify_record.c is of wheel/verify,
sources/git_mirror.c of sources/git), FAMILY names the few aliases. A
family uses another when one of its .c files names a function or a global
variable that a .c file of the other defines (not static, the name at
column 0 as the code writes definitions: "name(" for a function, "TYPE
name[...] =" or "TYPE name;" for a global), itself or through a macro of
a header (step_note names step_names: issue 42's circle went through
that global, and a check of calls alone passed it). C names are global,
so hub headers such as pipeline/step.h hide nothing; core/ is left out.

A library's header included outside its wrapper (LIBRARY) fails: libgit2
is used only by src/sources/git*.c (the wrapper family, whose private
git_priv.h brings <git2.h> and is theirs alone); nothing else includes
<git2.h>, only profile/ydoc.c includes <yaml.h>, only json.c <cjson/cJSON.h>.
The launcher's admit.h, remote.h, peaks.h and pole.h are src/launch/'s alone;
pipeline/step.h (struct build) is src/pipeline/'s alone.

A file whose opening comment says "May include: core/, sources/patch.h."
keeps to it: an include beyond those folders and headers (a bare name is
of the file's own folder; its own header always passes) fails, so the
promise cannot drift from the code.

PENDING lists known violations with the reason each is left for now: they
print as "pending" and pass; an entry that no longer occurs fails, so the
list only shrinks. Prints each violation as FILE:LINE: what, and exits 1
when there is one. --list prints ORDER."""
import fnmatch
import os
import re
import sys

ORDER = ["core", "formats", "host", "profile", "sources", "wheel", "launch", "pipeline", "cli"]
RANK = {n: i for i, n in enumerate(ORDER)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SYSINCLUDE = re.compile(r'^\s*#\s*include\s*<([^>]+)>')
# One wrapper per library: the files (patterns from the top) that may
# include each header; anything else includes it through the wrapper's API.
GIT_FAMILY = ("src/sources/git*.c",)
LIBRARY = {
    "git2.h": GIT_FAMILY + ("src/sources/git_priv.h",),
    "yaml.h": ("src/profile/ydoc.c",),
    "cjson/cJSON.h": ("src/core/json.c",),
    "sources/git_priv.h": GIT_FAMILY,
    # The repair's insides, shared by its CUDA forms (repair_cuda.c).
    "wheel/repair_priv.h": ("src/wheel/repair*.c",),
    # The knowledge base's insides, shared by its checks of a tree (knowledge_tree.c).
    "profile/knowledge_priv.h": ("src/profile/knowledge*.c",),
    # The launcher's insides: the pipeline reaches it through launch.h and its other public headers.
    "launch/admit.h": ("src/launch/*",),
    "launch/remote.h": ("src/launch/*",),
    "launch/peaks.h": ("src/launch/*",),
    "launch/pole.h": ("src/launch/*",),
    # struct build, the steps' shared context: the pipeline's own (cli reaches it through build.h).
    "pipeline/step.h": ("src/pipeline/*",),
}
# The profile loader is one family split in two files over pnode.h.
FAMILY = {"profile/profcheck": "profile/profload"}
# Known violations and why they wait: (file, header) for an include,
# the sorted families for a circle.
PENDING = {
}
DEF = re.compile(r"^([A-Za-z_]\w*)\(")
# A global a .c file defines: a type and a name at column 0, then "[...]",
# "=" or ";" (`const char *const step_names[STEP__COUNT] = {`, `struct x
# foo;`); static and extern ones, typedefs and type definitions are not.
GLOBAL = re.compile(r"^(?!(?:static|extern|typedef|return|goto|case)\b)"
                    r"(?:[A-Za-z_]\w*[\s*]+)+?([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*[=;]")
# A header's function-like or object-like macro: its body's names are what
# a file naming the macro uses (step_note names step_names).
MACRO = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)((?:.*\\\n)*.*)$", re.M)
WORD = re.compile(r"[A-Za-z_]\w*")
# Comments, then string and character literals.
STRIP = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def wrapper_only(rel, n, inc, bad):
    """A library header (or the git family's private one) outside its wrapper."""
    allowed = LIBRARY.get(inc)
    if allowed and not any(fnmatch.fnmatchcase(rel, p) for p in allowed):
        bad.append(("%s:%d: includes %s, which only %s may include"
                    % (rel, n, inc, " and ".join(allowed)), None))


def sources(top):
    for layer in ORDER:
        d = os.path.join(top, "src", layer)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                yield layer, os.path.join(d, f)


def family(layer, path):
    stem = os.path.splitext(os.path.basename(path))[0].split("_")[0]
    name = "%s/%s" % (layer, stem)
    return FAMILY.get(name, name)


def folders(top, bad):
    src = os.path.join(top, "src")
    for f in sorted(os.listdir(src)):
        if f.endswith((".c", ".h")):
            bad.append(("src/%s: not in a layer folder (%s)" % (f, ", ".join(ORDER)), None))
        elif os.path.isdir(os.path.join(src, f)) and f not in RANK:
            bad.append(("src/%s/: a folder with no rank (ORDER in tests/tools/layers.py, "
                        "LAYERS in the Makefile)" % f, None))
    for layer in ORDER:
        if not os.path.isdir(os.path.join(src, layer)):
            bad.append(("src/%s/: in ORDER, but there is no such folder" % layer, None))
    try:
        with open(os.path.join(top, "Makefile"), encoding="utf-8") as fh:
            m = re.search(r"^LAYERS = (.*)$", fh.read(), re.M)
    except OSError:
        m = None
    if not m or m.group(1).split() != ORDER:
        bad.append(("Makefile: LAYERS is %s, layers.py's ORDER is %s"
                    % (m.group(1) if m else "missing", " ".join(ORDER)), None))


# A file's own promise, "May include: core/, sources/patch.h, and repowork.h."
MAY = re.compile(r"May include:((?:.|\n)*?)\.(?=\s*\n|\s*\*/|\s+[A-Z])")


def may_include(layer, text):
    """What the file's "May include:" comment allows (a folder "x/", a header, a
    bare name in its own folder) and that comment's words; None without one."""
    m = MAY.search(text)
    if not m:
        return None
    body = re.sub(r"\n\s*\*", " ", m.group(1))
    words = [w.strip() for w in re.split(r",|\band\b", body) if w.strip()]
    return [w if "/" in w else "%s/%s" % (layer, w) for w in words], ", ".join(words)


def includes(top, bad):
    for layer, path in sources(top):
        rel = os.path.relpath(path, top)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        may = may_include(layer, text)
        own = "%s/%s.h" % (layer, os.path.splitext(os.path.basename(path))[0])
        for n, line in enumerate(text.split("\n"), 1):
            m = SYSINCLUDE.match(line)
            if m:
                wrapper_only(rel, n, m.group(1), bad)
                continue
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            wrapper_only(rel, n, inc, bad)
            parts = inc.split("/")
            if len(parts) != 2 or parts[0] not in RANK:
                bad.append(("%s:%d: include \"%s\" names no layer "
                            "(write \"LAYER/NAME.h\")" % (rel, n, inc), None))
                continue
            if RANK[parts[0]] > RANK[layer]:
                bad.append(("%s:%d: %s includes %s, a higher layer (%s)"
                            % (rel, n, layer, inc, parts[0]), (rel, inc)))
            elif may and inc != own and not any(
                    inc == a or (a.endswith("/") and inc.startswith(a)) for a in may[0]):
                bad.append(("%s:%d: includes %s, but its comment says \"May include: %s\"; "
                            "change one of them" % (rel, n, inc, may[1]), None))


def macros(top):
    """Macro name -> the names its body uses, through other macros too, from
    every header of src/ (core/ too: a core macro may name a global above)."""
    body = {}
    for _, path in sources(top):
        if path.endswith(".h"):
            with open(path, encoding="utf-8") as fh:
                for m in MACRO.finditer(STRIP.sub(" ", fh.read())):
                    body.setdefault(m.group(1), set(WORD.findall(m.group(2))) - {m.group(1)})
    out = {}
    for name in body:
        seen, todo = set(), [name]
        while todo:
            for w in body.get(todo.pop(), ()):
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        out[name] = seen
    return out


def calls(top):
    """family -> {family it uses: (file, function or global, file defining it)}."""
    defs, text = {}, {}
    for layer, path in sources(top):
        if layer == "core" or not path.endswith(".c"):
            continue
        rel = os.path.relpath(path, top)
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        for i, line in enumerate(lines):
            m = DEF.match(line) or GLOBAL.match(line)
            if m and not (m.re is DEF and (i == 0 or lines[i - 1].startswith("static"))):
                defs[m.group(1)] = (family(layer, path), rel)
        text[rel] = (family(layer, path), STRIP.sub(" ", "\n".join(lines)))
    expand = macros(top)
    graph = {}
    for rel in sorted(text):
        fam, body = text[rel]
        named = set(WORD.findall(body))
        for w in sorted(named):
            for u in [w] + sorted(expand.get(w, ())):
                d = defs.get(u)
                if d and d[0] != fam:
                    graph.setdefault(fam, {}).setdefault(
                        d[0], (rel, u if u == w else "%s (in %s)" % (u, w), d[1]))
    return graph


def components(graph):
    """Tarjan's strongly connected components; those of more than one family."""
    nodes = sorted(set(graph) | {w for v in graph for w in graph[v]})
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def shortest_cycle(graph, comp):
    """The shortest circle through the component's first family."""
    start, inside = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1]
            if w in inside and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def circles(top, bad):
    graph = calls(top)
    for comp in components(graph):
        cyc = shortest_cycle(graph, comp)
        hops = ["%s uses %s (%s)" % (graph[a][b][0], graph[a][b][1], graph[a][b][2])
                for a, b in zip(cyc, cyc[1:] + cyc[:1])]
        rest = [f for f in comp if f not in cyc]
        bad.append(("circle: %s (%s)%s" % (" -> ".join(cyc + cyc[:1]), "; ".join(hops),
                                           ", and through it %s" % ", ".join(rest) if rest else ""),
                    tuple(comp)))


def main():
    if sys.argv[1:] == ["--list"]:
        print(" ".join(ORDER))
        return 0
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    found = []
    folders(top, found)
    includes(top, found)
    circles(top, found)
    bad, seen = [], set()
    for text, key in found:
        if key in PENDING:
            seen.add(key)
            print("pending: %s (%s)" % (text, PENDING[key]))
        else:
            bad.append(text)
    for key in PENDING:
        if key not in seen:
            bad.append("stale pending entry %s: it no longer occurs; delete it from PENDING"
                       % (key,))
    for b in bad:
        print(b)
    print("layers: %d violation%s, %d pending" % (len(bad), "" if len(bad) == 1 else "s",
                                                 len(seen)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
