"""bwbuild smoke probe for the bundled example (tests/fixtures/minitorch):
import it, launch its CUDA library's kernels through minitorch_selftest()
and check the result, then the same under CUDA_FORCE_PTX_JIT=1. A build
without CUDA (--cpu): import it and call its CPU library.

The protocol is torch.py's (one JSON object per line after "@bwbuild ").
usage: minitorch.py [--skip A,B] [--quick] [--cpu] [--features F] [--archs A]
"""
import ctypes
import glob
import os
import subprocess
import sys

CHECKSUM = 536346624.0   # sum over i < 2^20 of (i % 1024) * 2 * 0.5


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_protocol  # noqa: E402
from probe_protocol import emit  # noqa: E402


def preload_cudart():
    """libminitorch_cuda.so needs libcudart.so.13: from the system, or a pip nvidia package."""
    try:
        ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
        return "system"
    except OSError:
        pass
    for d in sys.path:
        for lib in sorted(glob.glob(os.path.join(d, "nvidia", "*", "lib", "libcudart.so.13*")) +
                          glob.glob(os.path.join(d, "nvidia", "cuda_runtime", "lib", "libcudart.so.13*"))):
            ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
            return lib
    raise OSError("libcudart.so.13 is neither on the library path nor in an nvidia-* package")


def selftest():
    import minitorch
    preload_cudart()
    lib = minitorch.load_library("minitorch_cuda")
    lib.minitorch_selftest.argtypes = [ctypes.POINTER(ctypes.c_double)]
    out = ctypes.c_double(0)
    err = lib.minitorch_selftest(ctypes.byref(out))
    return err, out.value


def c_import():
    import minitorch
    emit(info={"minitorch": minitorch.__version__, "python": sys.version.split()[0]})
    return "minitorch %s from %s" % (minitorch.__version__, os.path.dirname(minitorch.__file__))


def c_cuda():
    preload_cudart()
    rt = ctypes.CDLL("libcudart.so.13")
    n = ctypes.c_int(0)
    err = rt.cudaGetDeviceCount(ctypes.byref(n))
    if err or n.value < 1:
        raise RuntimeError("no GPU visible (cudaGetDeviceCount: error %d, %d devices)" % (err, n.value))
    major, minor = ctypes.c_int(0), ctypes.c_int(0)
    rt.cudaDeviceGetAttribute(ctypes.byref(major), 75, 0)   # cudaDevAttrComputeCapabilityMajor
    rt.cudaDeviceGetAttribute(ctypes.byref(minor), 76, 0)
    name = ctypes.create_string_buffer(256)
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader",
                              "-i", "0"], capture_output=True, text=True, timeout=20).stdout.strip()
        name.value = out.split(",")[0].encode()
        driver = out.split(",")[1].strip()
    except Exception:
        driver = None
    cap = "sm_%d%d" % (major.value, minor.value)
    emit(info={"gpu": {"name": name.value.decode(), "capability": cap, "count": n.value,
                       "driver": driver}})
    return "%d GPU(s), the first %s" % (n.value, cap)


def c_kernel():
    err, value = selftest()
    if err:
        raise RuntimeError("minitorch_selftest: CUDA error %d%s" % (
            err, " (no kernel image is available for this GPU)" if err == 209 else ""))
    if value != CHECKSUM:
        raise RuntimeError("checksum %r, expected %r" % (value, CHECKSUM))
    return "the CUDA library's kernels ran; checksum %.0f" % value


def c_forward():
    code = ("import sys; sys.path[:0] = %r; import importlib.util;"
            "spec = importlib.util.spec_from_file_location('p', %r); p = importlib.util.module_from_spec(spec);"
            "spec.loader.exec_module(p); err, v = p.selftest(); print(err, v)" % (sys.path, __file__))
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, CUDA_FORCE_PTX_JIT="1"),
                       capture_output=True, text=True, timeout=300)
    words = r.stdout.split()
    if r.returncode == 0 and words[:1] == ["0"] and float(words[1]) == CHECKSUM:
        return "runs with CUDA_FORCE_PTX_JIT=1: the wheel's PTX JIT-compiles for this GPU"
    why = "CUDA error %s" % words[0] if words else (r.stderr.strip().splitlines() or ["?"])[-1]
    raise RuntimeError("no PTX for this GPU: this wheel will not run on newer architectures (%s)" % why)


def c_cpu_ops():
    import minitorch
    lib = minitorch.load_library("minitorch_cpu")
    lib.minitorch_version.restype = ctypes.c_char_p
    got = lib.minitorch_version().decode()
    # The library says the release (2.11.0); __version__ may add a local part (+cpu...).
    if got != minitorch.__version__.split("+")[0]:
        raise RuntimeError("minitorch_version() = %r, but the package is %s" % (got, minitorch.__version__))
    return "minitorch_version() = %s from libminitorch_cpu.so" % got


CHECKS = [("import", c_import), ("cuda", c_cuda), ("kernel", c_kernel), ("forward_compat", c_forward)]
CPU_CHECKS = [("import", c_import), ("cpu_ops", c_cpu_ops)]


if __name__ == "__main__":
    sys.exit(probe_protocol.run(CHECKS, CPU_CHECKS))
