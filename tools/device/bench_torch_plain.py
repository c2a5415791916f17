"""The peer of `bwbuild smoke`'s micro-benchmarks: the same shapes timed by a
plain PyTorch script with torch.utils.benchmark (its own timing loop,
blocks of back-to-back calls with a synchronize around each block, and its
statistics; not smoke's per-call CUDA events), printed as one JSON object
{name: value}. usage: python3 bench_torch_plain.py"""
import json

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.benchmark import Timer


def median(stmt, **g):
    return Timer(stmt=stmt, globals=g).blocked_autorange(min_run_time=2.0).median


def gemm(dtype, tf32=False, n=8192):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    t = median("a @ b", a=a, b=b, torch=torch)
    torch.backends.cuda.matmul.allow_tf32 = False
    return 2 * n ** 3 / t / 1e12


def sdpa(backend):
    q, k, v = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
    with sdpa_kernel([getattr(SDPBackend, backend)]):
        t = median("F.scaled_dot_product_attention(q, k, v)",
                   F=F, q=q, k=k, v=v, torch=torch)
    return 4 * 4 * 32 * 4096 * 4096 * 128 / t / 1e12


out = {"gemm_fp16": gemm(torch.float16), "gemm_bf16": gemm(torch.bfloat16),
       "gemm_tf32": gemm(torch.float32, tf32=True), "gemm_fp32": gemm(torch.float32)}
a = torch.randn(64, 1024, 1024, device="cuda", dtype=torch.float16)
out["bmm_fp16"] = 64 * 2 * 1024 ** 3 / median("torch.bmm(a, a)", a=a, torch=torch) / 1e12
for name, b in (("sdpa_flash", "FLASH_ATTENTION"), ("sdpa_mem_efficient", "EFFICIENT_ATTENTION"),
                ("sdpa_cudnn", "CUDNN_ATTENTION")):
    try:
        out[name] = sdpa(b)
    except Exception as e:
        out[name] = None
torch.backends.cudnn.benchmark = True
x = torch.randn(64, 256, 56, 56, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
w = torch.randn(256, 256, 3, 3, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
out["conv2d_fp16"] = 2 * 64 * 256 * 56 * 56 * 256 * 9 / median(
    "F.conv2d(x, w, padding=1)", F=F, x=x, w=w, torch=torch) / 1e12
s = torch.empty(1 << 30, device="cuda", dtype=torch.uint8)
d = torch.empty_like(s)
out["copy_bandwidth"] = 2 * (1 << 30) / median("d.copy_(s)", d=d, s=s, torch=torch) / 1e9
print(json.dumps({k: (round(v, 2) if v is not None else None) for k, v in out.items()}))
