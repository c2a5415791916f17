"""bwbuild smoke probe for pytorch/extension-cpp: its documented op
extension_cpp.ops.mymuladd(a, b, c) = a * b + c, on the CPU and on the GPU
(the 'kernel' check), against torch's own arithmetic."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_protocol  # noqa: E402


def c_import():
    import torch
    import extension_cpp
    return "extension_cpp from %s on torch %s" % (os.path.dirname(extension_cpp.__file__), torch.__version__)


def muladd(device):
    import torch
    import extension_cpp
    a = torch.randn(1 << 20, device=device)
    b = torch.randn(1 << 20, device=device)
    r = extension_cpp.ops.mymuladd(a, b, 0.5)
    err = float((r - (a * b + 0.5)).abs().max())
    if err > 1e-5:
        raise RuntimeError("mymuladd on %s differs from a * b + c by %g" % (device, err))
    return "mymuladd on %s matches a * b + c (max error %g)" % (device, err)


if __name__ == "__main__":
    sys.exit(probe_protocol.run([("import", c_import), ("op_cpu", lambda: muladd("cpu")),
                           ("cuda", probe_protocol.torch_cuda), ("kernel", lambda: muladd("cuda"))]))
