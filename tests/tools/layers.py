#!/usr/bin/env python3
"""The layer check behind `make layers`: src/ is one folder per layer and
includes go one way, from a layer to itself or to a lower one:

    core  <-  formats, host  <-  profile, sources  <-  pipeline, wheel  <-  cli

A lower layer including a higher one fails, and so does a circle of modules
(a module is NAME.c with NAME.h) outside core, and so does a library's
header included outside its wrapper (LIBRARY): libgit2 is used only by
src/sources/git*.c (the wrapper family, whose private git_priv.h brings
<git2.h> and is theirs alone); nothing else includes <git2.h>, only
profile.c includes <yaml.h>, only json.c <cjson/cJSON.h>. Prints each
violation as FILE:LINE: what, and exits 1 when there is one."""
import fnmatch
import os
import re
import sys

RANK = {"core": 0, "formats": 1, "host": 1, "profile": 2, "sources": 2,
        "pipeline": 3, "wheel": 3, "cli": 4}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SYSINCLUDE = re.compile(r'^\s*#\s*include\s*<([^>]+)>')
# One wrapper per library: the files (patterns from the top) that may
# include each header; anything else includes it through the wrapper's API.
GIT_FAMILY = ("src/sources/git*.c",)
LIBRARY = {
    "git2.h": GIT_FAMILY + ("src/sources/git_priv.h",),
    "yaml.h": ("src/profile/profile.c",),
    "cjson/cJSON.h": ("src/core/json.c",),
    "sources/git_priv.h": GIT_FAMILY,
}


def wrapper_only(rel, n, inc, bad):
    """A library header (or the git family's private one) outside its wrapper."""
    allowed = LIBRARY.get(inc)
    if allowed and not any(fnmatch.fnmatchcase(rel, p) for p in allowed):
        bad.append("%s:%d: includes %s, which only %s may include"
                   % (rel, n, inc, " and ".join(allowed)))


def sources(top):
    for layer in sorted(RANK):
        d = os.path.join(top, "src", layer)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                yield layer, os.path.join(d, f)


def module(path):
    return os.path.splitext(os.path.basename(path))[0]


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = []
    graph = {}
    layer_of = {}
    stray = [f for f in os.listdir(os.path.join(top, "src"))
             if f.endswith((".c", ".h"))]
    for f in stray:
        bad.append("src/%s: not in a layer folder (%s)" % (f, ", ".join(RANK)))
    for layer, path in sources(top):
        rel = os.path.relpath(path, top)
        layer_of[module(path)] = layer
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
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
                    bad.append("%s:%d: include \"%s\" names no layer "
                               "(write \"LAYER/NAME.h\")" % (rel, n, inc))
                    continue
                if RANK[parts[0]] > RANK[layer]:
                    bad.append("%s:%d: %s includes %s, a higher layer (%s)"
                               % (rel, n, layer, inc, parts[0]))
                to = module(inc)
                if to != module(path):
                    graph.setdefault(module(path), set()).add(to)
    for cycle in cycles(graph, layer_of):
        bad.append("circle of modules: %s" % " -> ".join(cycle + cycle[:1]))
    for b in bad:
        print(b)
    print("layers: %d violation%s" % (len(bad), "" if len(bad) == 1 else "s"))
    return 1 if bad else 0


def cycles(graph, layer_of):
    """Tarjan's strongly connected components over the modules outside core;
    each component of more than one module is a circle."""
    nodes = sorted(m for m in layer_of if layer_of[m] != "core")
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in layer_of or layer_of[w] == "core":
                continue
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


if __name__ == "__main__":
    sys.exit(main())
