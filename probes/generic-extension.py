"""bwbuild's runtime check for an extension it ships no probe for
(probes/smoke-<package>.py wins where one exists): run by `bwbuild smoke`
and by the build's smoke step alike (src/wheel/smoke.c), with the protocol
of probe_protocol.py.

  import     the torch it was built against, then each of the package's
             top-level modules (top_level.txt, else its directories)
  libraries  every shared library of the package loaded (RTLD_NOW: an
             undefined symbol fails here, not at the first call)
  ops        the torch.ops namespaces and operators it registers: the
             schemas torch knows after the import that it did not before
  calls      each registered operator that takes no arguments, called
  cuda       the GPU through that torch, when the package carries CUDA
             code (smoke passes --archs then)

Environment from smoke.c: BWBUILD_SMOKE_SITE (where the package is
installed), BWBUILD_SMOKE_TORCH (the torch's import name, "torch").
"""
import ctypes
import glob
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_protocol  # noqa: E402

SITE = os.environ.get("BWBUILD_SMOKE_SITE", "")
TORCH = os.environ.get("BWBUILD_SMOKE_TORCH", "torch") or "torch"
STATE = {"torch": None, "before": set(), "modules": [], "libs": [], "new": []}


Skip = probe_protocol.Skip


def top_level():
    """The package's import names: its top_level.txt, else what sits in SITE."""
    names = []
    for t in glob.glob(os.path.join(SITE, "*.dist-info", "top_level.txt")):
        names += [n.strip() for n in open(t).read().split() if n.strip()]
    if not names:
        for e in sorted(os.listdir(SITE)) if SITE and os.path.isdir(SITE) else []:
            p = os.path.join(SITE, e)
            if e.endswith((".dist-info", ".data")) or e.startswith((".", "_")) or e == TORCH:
                continue
            if os.path.isdir(p):
                names.append(e)
            elif e.endswith(".so") or ".so." in e:
                names.append(e.split(".")[0])
    return [n for n in dict.fromkeys(names) if n != TORCH]


def package_libs():
    out = []
    for n in top_level():
        d = os.path.join(SITE, n)
        if os.path.isdir(d):
            for root, _, files in os.walk(d):
                out += [os.path.join(root, f) for f in files if f.endswith(".so") or ".so." in f]
        out += glob.glob(os.path.join(SITE, n + "*.so"))
    return sorted(set(out))


def schemas(t):
    get = getattr(getattr(t, "_C", None), "_jit_get_all_schemas", None)
    if get is None:
        return None
    return set(str(s) for s in get())


def torch_libs_loaded(t):
    """As `import torch` does: torch's own libraries are in the process before an
    extension's are loaded (a torch-shaped package that loads them lazily gets them here)."""
    d = os.path.join(os.path.dirname(t.__file__), "lib")
    try:
        maps = open("/proc/self/maps").read()
    except OSError:
        maps = ""
    if not os.path.isdir(d) or d in maps:
        return
    for so in sorted(glob.glob(os.path.join(d, "*.so*"))):
        try:
            ctypes.CDLL(so, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            pass


def ready():
    """After a restart past a check that hung, the import is done again, quietly."""
    if STATE["torch"] is None:
        c_import()


def c_import():
    t = importlib.import_module(TORCH)
    STATE["torch"] = t
    STATE["before"] = schemas(t) or set()
    torch_libs_loaded(t)
    names = top_level()
    if not names:
        raise RuntimeError("no importable module in %s (no top_level.txt, no package directory)" % SITE)
    for n in names:
        importlib.import_module(n)
        STATE["modules"].append(n)
    return "%s on %s %s" % (", ".join(names), TORCH, getattr(t, "__version__", "?"))


def c_libraries():
    ready()
    libs = package_libs()
    if not libs:
        raise Skip("no shared library in the package")
    for so in libs:
        try:
            ctypes.CDLL(so, mode=os.RTLD_NOW)
        except OSError as e:
            raise RuntimeError("%s: %s" % (os.path.relpath(so, SITE), e))
        STATE["libs"].append(so)
    return "%d loaded: %s" % (len(libs), " ".join(os.path.relpath(s, SITE) for s in libs))


def c_ops():
    ready()
    after = schemas(STATE["torch"])
    if after is None:
        raise Skip("%s has no operator registry (torch._C._jit_get_all_schemas)" % TORCH)
    new = sorted(after - STATE["before"])
    STATE["new"] = new
    if not new:
        return "registers no torch.ops operator (a pybind11-only module?)"
    spaces = sorted(set(s.split("::")[0] for s in new))
    return "torch.ops %s: %d operators (%s)" % (", ".join(spaces), len(new),
                                                ", ".join(s.split("(")[0] for s in new[:6]))


def c_calls():
    ready()
    nullary = [s for s in STATE["new"] if "::" in s and s.split("(", 1)[1].startswith(")")]
    if not nullary:
        raise Skip("no registered operator takes no arguments; its own test suite calls the others")
    done = []
    for s in nullary:
        qual = s.split("(")[0]
        ns, name = qual.split("::", 1)
        name, _, overload = name.partition(".")
        op = getattr(getattr(STATE["torch"].ops, ns), name)
        (getattr(op, overload) if overload else op)()
        done.append(qual)
    return "called %s" % ", ".join(done)


def c_cuda():
    ready()
    if not getattr(probe_protocol, "ARGS_ARCHS", None):
        raise Skip("the package carries no CUDA code")
    if not hasattr(STATE["torch"], "cuda"):
        raise Skip("%s has no torch.cuda" % TORCH)
    return probe_protocol.torch_cuda()


if __name__ == "__main__":
    probe_protocol.ARGS_ARCHS = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--archs=")), None)
    sys.exit(probe_protocol.run([("import", c_import), ("libraries", c_libraries), ("ops", c_ops),
                                 ("calls", c_calls), ("cuda", c_cuda)]))
