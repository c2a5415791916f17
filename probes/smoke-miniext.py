"""bwbuild smoke probe for the example's extension (tests/fixtures/miniext):
import it with the torch it was built on and call its C++ op, which calls
into that torch's c10:: (a CPU op: no GPU needed)."""
import ctypes
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_protocol  # noqa: E402


def c_import():
    import minitorch
    import miniext
    return "miniext from %s on minitorch %s" % (os.path.dirname(miniext.__file__), minitorch.__version__)


def c_op():
    import minitorch
    import miniext
    minitorch.load_library("minitorch_cpu")  # as `import torch` loads libc10.so first
    lib = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(miniext.__file__), "_C*.so"))[0])
    sizes = (ctypes.c_long * 3)(2, 3, 4)
    n = lib.miniext_numel(sizes, 3)
    if n != 24:
        raise RuntimeError("miniext_numel([2, 3, 4]) = %d, expected 24" % n)
    return "miniext_numel([2, 3, 4]) = 24 through minitorch's c10::numel"


if __name__ == "__main__":
    sys.exit(probe_protocol.run([("import", c_import), ("op", c_op)]))
