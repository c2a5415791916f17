"""bwbuild smoke probe for Dao-AILab/causal-conv1d: its documented op
causal_conv1d_fn(x, weight, bias, activation) against the equivalent its
README gives, F.conv1d(x, weight.unsqueeze(1), bias, padding=width - 1,
groups=dim)[..., :seqlen] (+ SiLU), on the GPU."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_protocol  # noqa: E402


def c_import():
    import torch
    import causal_conv1d
    return "causal_conv1d from %s on torch %s" % (os.path.dirname(causal_conv1d.__file__), torch.__version__)


def c_kernel():
    import torch
    import torch.nn.functional as F
    from causal_conv1d import causal_conv1d_fn
    x = torch.randn(2, 64, 512, device="cuda")
    w = torch.randn(64, 4, device="cuda")
    b = torch.randn(64, device="cuda")
    r = causal_conv1d_fn(x, w, b, activation="silu")
    ref = F.silu(F.conv1d(x, w.unsqueeze(1), b, padding=3, groups=64)[..., :512])
    err = float((r - ref).abs().max())
    if err > 1e-3:
        raise RuntimeError("causal_conv1d_fn differs from the F.conv1d equivalent by %g" % err)
    return "causal_conv1d_fn (width 4, silu) matches F.conv1d (max error %g)" % err


if __name__ == "__main__":
    sys.exit(probe_protocol.run([("import", c_import), ("cuda", probe_protocol.torch_cuda), ("kernel", c_kernel)]))
