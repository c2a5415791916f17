"""bwbuild smoke probe for torch: import the package, run one kernel family per
compiled-in feature on the GPU, then micro-benchmarks. A torch built without
CUDA (--cpu, as bwbuild reads the wheel) gets the CPU checks instead: matmul,
autograd, a training step, conv2d, attention, NumPy, TorchScript; no
benchmarks.

Run by `bwbuild smoke` (src/wheel/smoke.c), which owns the process: it sets the
environment (PYTHONPATH to the private install, the profile's runtime.env,
CUDA_VISIBLE_DEVICES for --gpu), kills the probe when a check stays silent
longer than its timeout and runs it again with that check skipped. The
protocol (one JSON object per line after "@bwbuild ") and the loop that runs
the checks are probes/probe_protocol.py's.

usage: torch.py [--skip A,B] [--quick] [--cpu] [--features F,G] [--archs sm_90,...]
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_protocol  # noqa: E402
from probe_protocol import Skip, Warn, emit, reason_of  # noqa: E402,F401


CHECKS = []
CPU_CHECKS = []


def check(name, where=(CHECKS,)):
    def wrap(fn):
        for checks in where:
            checks.append((name, fn))
        return fn
    return wrap


def cpu_check(name):
    return check(name, (CPU_CHECKS,))


torch = None
ARGS = None


def close(a, b, rtol, atol):
    return torch.allclose(a.float().cpu(), b.float().cpu(), rtol=rtol, atol=atol)


@check("import", (CHECKS, CPU_CHECKS))
def c_import():
    global torch
    import torch as t
    torch = t
    emit(info={"torch": t.__version__, "torch_file": t.__file__, "cuda_build": t.version.cuda,
               "git_version": getattr(t.version, "git_version", None),
               "python": sys.version.split()[0]})
    return "torch %s from %s" % (t.__version__, os.path.dirname(t.__file__))


@check("cuda")
def c_cuda():
    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is False (no GPU or no driver visible)")
    i = torch.cuda.current_device()
    p = torch.cuda.get_device_properties(i)
    cap = torch.cuda.get_device_capability(i)
    drv = None
    try:
        drv = torch._C._cuda_getDriverVersion()
    except Exception:
        pass
    info = {"gpu": {"name": p.name, "capability": "sm_%d%d" % cap, "memory_bytes": p.total_memory,
                    "multiprocessors": p.multi_processor_count, "count": torch.cuda.device_count()},
            "cuda_runtime": torch.version.cuda, "driver_cuda": drv,
            "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None}
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit",
                              "--format=csv,noheader,nounits", "-i", str(i)],
                             capture_output=True, text=True, timeout=20).stdout.strip().split(",")
        info["gpu"].update(driver=out[0].strip(), max_sm_clock_mhz=float(out[1]),
                           power_limit_w=float(out[2]))
    except Exception:
        pass
    emit(info=info)
    return "%s (sm_%d%d), CUDA runtime %s" % (p.name, cap[0], cap[1], torch.version.cuda)


@check("arch_list")
def c_arch_list():
    got = torch.cuda.get_arch_list()
    if ARGS.archs is None:
        return "get_arch_list() = %s" % " ".join(got)
    want = [a for a in ARGS.archs.split(",") if a]
    if sorted(got) != sorted(want):
        raise RuntimeError("get_arch_list() = %s, the wheel's fatbins say %s"
                           % (" ".join(got), " ".join(want)))
    return "get_arch_list() = %s, as the wheel's fatbins say" % " ".join(got)


@check("kernel")
def c_kernel():
    x = torch.arange(1 << 20, device="cuda", dtype=torch.float32)
    s = float((x * 2 + 1).sum())
    want = float((1 << 20) * ((1 << 20) - 1) + (1 << 20))
    if abs(s - want) > want * 1e-6:
        raise RuntimeError("elementwise kernel gave %r, expected %r" % (s, want))
    return "elementwise kernel on the GPU"


def matmul_check(dtype, tf32=False):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    g = torch.Generator().manual_seed(0)
    a = torch.randn(512, 512, generator=g)
    b = torch.randn(512, 512, generator=g)
    ref = a.double() @ b.double()
    got = (a.to("cuda", dtype) @ b.to("cuda", dtype)).double().cpu()
    err = float((got - ref).abs().max() / ref.abs().max())
    tol = {torch.float32: 1e-5 if not tf32 else 5e-3, torch.float16: 5e-3, torch.bfloat16: 3e-2}[dtype]
    torch.backends.cuda.matmul.allow_tf32 = False
    if err > tol:
        raise RuntimeError("max relative error %.2e > %.0e against a CPU float64 reference" % (err, tol))
    return "512x512, max relative error %.1e (tolerance %.0e)" % (err, tol)


@check("matmul_fp32")
def c_mm32():
    return matmul_check(torch.float32)


@check("matmul_tf32")
def c_mm_tf32():
    return matmul_check(torch.float32, tf32=True)


@check("matmul_fp16")
def c_mm16():
    return matmul_check(torch.float16)


@check("matmul_bf16")
def c_mm_bf16():
    return matmul_check(torch.bfloat16)


def capability():
    return torch.cuda.get_device_capability()


@check("fp8")
def c_fp8():
    if capability() < (8, 9):
        raise Skip("FP8 needs sm_89 or newer")
    g = torch.Generator().manual_seed(0)
    a = torch.randn(256, 256, generator=g)
    b = torch.randn(256, 256, generator=g)
    out = []
    for dt in (torch.float8_e4m3fn, torch.float8_e5m2):
        x = a.cuda().to(dt)
        back = x.float().cpu()
        if not close(back, a, rtol=0.15, atol=0.05):
            raise RuntimeError("%s round trip is off" % dt)
        out.append(str(dt).split(".")[-1])
    one = torch.tensor(1.0, device="cuda")
    y = torch._scaled_mm(a.cuda().to(torch.float8_e4m3fn), b.cuda().to(torch.float8_e4m3fn).t().contiguous().t(),
                         scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    ref = a.to(torch.float8_e4m3fn).float() @ b.to(torch.float8_e4m3fn).float()
    err = float((y.float().cpu() - ref).abs().max() / ref.abs().max())
    if err > 2e-2:
        raise RuntimeError("_scaled_mm e4m3: relative error %.2e" % err)
    return "%s casts; _scaled_mm e4m3 relative error %.1e" % (", ".join(out), err)


@check("mx_formats")
def c_mx():
    if capability() < (10, 0):
        raise Skip("MX formats need sm_100 or newer")
    if not hasattr(torch, "float8_e8m0fnu"):
        raise Skip("this torch has no float8_e8m0fnu")
    x = torch.ones(32, device="cuda").to(torch.float8_e8m0fnu)
    return "float8_e8m0fnu tensors on the GPU (%d)" % x.numel()


def feature(name):
    return ARGS.features is None or name in ARGS.features.split(",")


def sdpa(backend_name):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    b = getattr(SDPBackend, backend_name)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 4, 128, 64, generator=g) for _ in range(3))
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double())
    with sdpa_kernel([b]):
        out = F.scaled_dot_product_attention(q.cuda().half(), k.cuda().half(), v.cuda().half())
    err = float((out.double().cpu() - ref).abs().max())
    if err > 2e-2:
        raise RuntimeError("%s: max abs error %.2e" % (backend_name, err))
    return "fp16 (2,4,128,64), max abs error %.1e" % err


@check("sdpa_flash")
def c_sdpa_flash():
    if not feature("flash_attention"):
        raise Skip("flash attention is not compiled in")
    return sdpa("FLASH_ATTENTION")


@check("sdpa_mem_efficient")
def c_sdpa_eff():
    if not feature("mem_eff_attention"):
        raise Skip("memory-efficient attention is not compiled in")
    return sdpa("EFFICIENT_ATTENTION")


@check("sdpa_cudnn")
def c_sdpa_cudnn():
    if not feature("cudnn") or not torch.backends.cudnn.is_available():
        raise Skip("cuDNN is not compiled in")
    return sdpa("CUDNN_ATTENTION")


@check("sdpa_math")
def c_sdpa_math():
    return sdpa("MATH")


@check("cudnn_conv")
def c_conv():
    if not feature("cudnn") or not torch.backends.cudnn.is_available():
        raise Skip("cuDNN is not compiled in")
    import torch.nn.functional as F
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 16, 32, 32, generator=g)
    w = torch.randn(32, 16, 3, 3, generator=g)
    ref = F.conv2d(x, w, padding=1)
    torch.backends.cudnn.allow_tf32 = False
    got = F.conv2d(x.cuda(), w.cuda(), padding=1).cpu()
    if not close(got, ref, rtol=1e-3, atol=1e-3):
        raise RuntimeError("cuDNN conv2d differs from the CPU's")
    return "conv2d fp32 against the CPU, cuDNN %s" % torch.backends.cudnn.version()


@check("nccl")
def c_nccl():
    if not feature("nccl"):
        raise Skip("NCCL is not compiled in")
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_nccl_available():
        raise RuntimeError("torch.distributed has no NCCL backend")
    store = dist.HashStore()
    dist.init_process_group("nccl", store=store, rank=0, world_size=1,
                            device_id=torch.device("cuda", torch.cuda.current_device()))
    try:
        t = torch.ones(1024, device="cuda")
        dist.all_reduce(t)
        torch.cuda.synchronize()
        if float(t.sum()) != 1024.0:
            raise RuntimeError("all_reduce gave %r" % float(t.sum()))
    finally:
        dist.destroy_process_group()
    return "one-process group, all_reduce (NCCL %s)" % ".".join(map(str, torch.cuda.nccl.version()))


@check("cuda_graph")
def c_graph():
    x = torch.zeros(1024, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        x.add_(1)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        x.add_(1)
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    # 1 from the warm-up on the side stream; capture runs nothing; 3 replays add 3.
    if float(x[0]) != 4.0:
        raise RuntimeError("after a warm-up, capture and 3 replays x = %r, expected 4" % float(x[0]))
    return "capture and 3 replays"


CUDA_LIB_STEMS = ("libcudart", "libcublas", "libcublasLt", "libcudnn", "libnccl", "libcufft",
                  "libcurand", "libcusolver", "libcusparse", "libcusparseLt", "libnvrtc",
                  "libnvJitLink", "libcupti", "libnvshmem_host", "libnvToolsExt")


@check("cuda_libs")
def c_cuda_libs():
    """Where the CUDA libraries this process loaded came from (the wheel's
    RUNPATH into site-packages/nvidia, its own copies, or the machine's),
    and that no library is loaded twice from two places."""
    torch.backends.cudnn.is_available()
    seen = {}
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split(None, 5)[-1].strip() if line.count(" ") >= 5 else ""
            base = os.path.basename(path)
            stem = base.split(".so")[0]
            if path.startswith("/") and ".so" in base and stem in CUDA_LIB_STEMS:
                seen.setdefault(stem, set()).add(os.path.realpath(path))
    twice = {k: sorted(v) for k, v in seen.items() if len(v) > 1}
    if twice:
        raise RuntimeError("loaded twice from different files: %s" % twice)
    where = {k: next(iter(v)) for k, v in sorted(seen.items())}
    emit(info={"cuda_libs": where})
    site = os.path.dirname(os.path.dirname(torch.__file__))

    def place(p):
        if p.startswith(os.path.join(site, "nvidia") + os.sep):
            return "site-packages/" + os.path.relpath(os.path.dirname(p), site)
        if p.startswith(site + os.sep):
            return "the wheel (" + os.path.relpath(os.path.dirname(p), site) + ")"
        return os.path.dirname(p)
    groups = {}
    for k, p in where.items():
        groups.setdefault(place(p), []).append(k)
    return "; ".join("%s from %s" % (" ".join(v), g) for g, v in sorted(groups.items()))


def declared_triton():
    """The Triton version the installed torch's METADATA pins (triton==X), or None."""
    try:
        import importlib.metadata as md
        for r in md.requires("torch") or []:
            spec = r.split(";")[0].replace(" ", "")
            if spec.startswith("triton=="):
                return spec[len("triton=="):]
    except Exception:
        pass
    return None


def have_triton():
    try:
        import triton  # noqa: F401
        return True
    except Exception:
        return False


@check("torch_compile")
def c_compile():
    if not have_triton():
        raise Warn("Triton is not importable: torch.compile's Inductor cannot make GPU kernels")
    try:
        import triton
        version = triton.__version__
    except Exception:
        version = "?"
    emit(info={"triton": version})
    pin = declared_triton()
    if pin and pin != version.split("+")[0]:
        raise Warn("Triton %s is installed, but the wheel declares triton==%s: torch.compile "
                   "is not judged with another Triton" % (version, pin))
    m = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.GELU(), torch.nn.Linear(64, 8)).cuda()
    x = torch.randn(16, 64, device="cuda")
    ref = m(x)
    try:
        got = torch.compile(m)(x)
    except Exception as e:
        raise RuntimeError("with Triton %s: %s" % (version, reason_of(e)))
    if not close(got, ref, rtol=1e-3, atol=1e-3):
        raise RuntimeError("compiled model differs from eager (Triton %s)" % version)
    return "Inductor on a 2-layer MLP matches eager (Triton %s)" % version


@check("flex_attention")
def c_flex():
    if not have_triton():
        raise Warn("Triton is not importable: FlexAttention needs it")
    from torch.nn.attention.flex_attention import flex_attention
    import torch.nn.functional as F
    q, k, v = (torch.randn(1, 2, 128, 64, device="cuda", dtype=torch.float16) for _ in range(3))
    got = torch.compile(flex_attention)(q, k, v)
    ref = F.scaled_dot_product_attention(q, k, v)
    if not close(got, ref, rtol=1e-2, atol=1e-2):
        raise RuntimeError("flex_attention differs from SDPA")
    return "compiled flex_attention matches SDPA"


@check("fused_adamw")
def c_adamw():
    p = torch.nn.Parameter(torch.ones(1024, device="cuda"))
    opt = torch.optim.AdamW([p], lr=0.1, fused=True)
    p.grad = torch.ones_like(p)
    opt.step()
    torch.cuda.synchronize()
    if not float(p[0]) < 1.0:
        raise RuntimeError("a fused AdamW step left the parameter at %r" % float(p[0]))
    return "one fused AdamW step"


@check("forward_compat")
def c_forward():
    """The same minimal kernel with the driver forced to JIT from PTX."""
    code = ("import torch; x = torch.arange(1024, device='cuda', dtype=torch.float32);"
            "print(float((x + 1).sum()))")
    env = dict(os.environ, CUDA_FORCE_PTX_JIT="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    if r.returncode == 0 and r.stdout.strip() == "524800.0":
        return "runs with CUDA_FORCE_PTX_JIT=1: the wheel's PTX JIT-compiles for this GPU"
    lines = r.stderr.strip().splitlines()
    said = ([l for l in lines if "CUDA error" in l] or [l for l in lines if "Error:" in l] or
            lines or ["exit %d" % r.returncode])
    tail = said[-1][:300]
    raise RuntimeError("no PTX for this GPU: this wheel will not run on newer architectures (%s)" % tail)


@cpu_check("cpu_build")
def c_cpu_build():
    """What bwbuild read from the wheel, as the torch it installed says it."""
    if torch.version.cuda is not None:
        raise RuntimeError("torch.version.cuda is %s: this torch was built with CUDA" % torch.version.cuda)
    blas = [l.split("=", 1)[1].split(",")[0] for l in torch.__config__.show().split()
            if l.startswith("BLAS_INFO=")]
    info = {"threads": torch.get_num_threads(), "blas": blas[0] if blas else None}
    emit(info={"cpu": info})
    return "torch.version.cuda is None; %d thread%s, BLAS %s" % (
        info["threads"], "" if info["threads"] == 1 else "s", info["blas"] or "?")


@cpu_check("matmul_cpu")
def c_mm_cpu():
    g = torch.Generator().manual_seed(0)
    a = torch.randn(512, 512, generator=g)
    b = torch.randn(512, 512, generator=g)
    ref = a.double() @ b.double()
    out = []
    for dtype, tol in ((torch.float32, 1e-5), (torch.bfloat16, 3e-2)):
        got = (a.to(dtype) @ b.to(dtype)).double()
        err = float((got - ref).abs().max() / ref.abs().max())
        if err > tol:
            raise RuntimeError("%s: max relative error %.2e > %.0e against float64" % (dtype, err, tol))
        out.append("%s %.1e" % (str(dtype).split(".")[-1], err))
    return "512x512 against float64, max relative error %s" % ", ".join(out)


@cpu_check("backward")
def c_backward():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, 16, generator=g, dtype=torch.float64)
    w = torch.randn(16, 4, generator=g, dtype=torch.float64, requires_grad=True)
    # gradcheck raises when autograd's gradient and finite differences disagree.
    torch.autograd.gradcheck(lambda w: torch.tanh(x @ w).pow(2).sum(), (w,))
    return "autograd's gradient of sum(tanh(x @ w)^2) matches finite differences"


@cpu_check("train_step")
def c_train():
    import torch.nn.functional as F
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
    x = torch.randn(256, 16)
    y = x.sum(1, keepdim=True)
    losses = []
    for _ in range(100):
        loss = F.mse_loss(m(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    if not losses[-1] < losses[0] / 4:
        raise RuntimeError("100 AdamW steps took the loss from %.3f to %.3f only" % (losses[0], losses[-1]))
    return "100 AdamW steps of a 2-layer MLP: loss %.3f -> %.3f" % (losses[0], losses[-1])


@cpu_check("conv2d_cpu")
def c_conv_cpu():
    import torch.nn.functional as F
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 16, 16, 16, generator=g)
    w = torch.randn(8, 16, 3, 3, generator=g)
    got = F.conv2d(x, w, padding=1)
    # The same convolution as a matmul over unfolded patches, in float64.
    ref = (w.double().view(8, -1) @ F.unfold(x.double(), 3, padding=1)).view(2, 8, 16, 16)
    if not close(got, ref, rtol=1e-4, atol=1e-4):
        raise RuntimeError("conv2d differs from a matmul over unfolded patches")
    return "conv2d fp32 against a matmul over unfolded patches"


@cpu_check("sdpa_cpu")
def c_sdpa_cpu():
    import torch.nn.functional as F
    if not hasattr(F, "scaled_dot_product_attention"):
        raise Skip("torch %s has no scaled_dot_product_attention" % torch.__version__)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 4, 64, 32, generator=g) for _ in range(3))
    got = F.scaled_dot_product_attention(q, k, v)
    qd, kd, vd = q.double(), k.double(), v.double()
    ref = torch.softmax(qd @ kd.transpose(-2, -1) / 32 ** 0.5, dim=-1) @ vd
    err = float((got.double() - ref).abs().max())
    if err > 1e-4:
        raise RuntimeError("max abs error %.2e against softmax(q k^T / sqrt(d)) v" % err)
    return "fp32 (2,4,64,32) against softmax(q k^T / sqrt(d)) v, max abs error %.1e" % err


@cpu_check("numpy")
def c_numpy():
    try:
        import numpy
    except Exception:
        raise Skip("NumPy is not importable here")
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    try:
        t = torch.from_numpy(a)
    except RuntimeError as e:
        raise Warn("this torch was built without NumPy (%s)" % reason_of(e))
    t += 1
    if float(a.sum()) != 21.0 or (t.numpy() != a).any():
        raise RuntimeError("torch.from_numpy does not share the array's memory")
    return "torch.from_numpy and .numpy() share memory (NumPy %s)" % numpy.__version__


def scripted(x):
    return torch.relu(x) * 2 + 1


@cpu_check("torchscript")
def c_script():
    f = torch.jit.script(scripted)
    x = torch.linspace(-1, 1, 9)
    if not torch.equal(f(x), scripted(x)):
        raise RuntimeError("the scripted function differs from eager")
    return "torch.jit.script of relu(x) * 2 + 1 matches eager"


def timeit(fn, reps):
    """Seconds per call under sustained load, once the clocks have settled
    (probe_protocol.settle: ~0.25 s blocks of back-to-back calls between CUDA
    events until three in a row agree within 1 %, at most 20 s: under the
    power limit an 8192^3 fp16 GEMM keeps slowing for seconds, and 1 s of
    warm-up left 6-8 % between repetitions on an H100), then `reps` such
    blocks, the median block. tools/device/bench-spread.py measured both
    ways: on an H100 the repetitions of GEMM, SDPA and conv agree within 2 %."""
    calls = probe_protocol.settle(fn, block=0.25, tolerance=0.01, window=3, least=0.0, most=20.0)
    return probe_protocol.median_block(fn, calls, reps)


def bench_gemm(dtype, tf32=False, n=8192):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    t = timeit(lambda: a @ b, 7)
    torch.backends.cuda.matmul.allow_tf32 = False
    return 2 * n ** 3 / t / 1e12


BENCHES = []


def bench(name, unit, dtype, shape):
    def wrap(fn):
        BENCHES.append((name, unit, dtype, shape, fn))
        return fn
    return wrap


@bench("gemm_fp16", "TFLOPS", "fp16", "8192x8192x8192")
def b_fp16():
    return bench_gemm(torch.float16)


@bench("gemm_bf16", "TFLOPS", "bf16", "8192x8192x8192")
def b_bf16():
    return bench_gemm(torch.bfloat16)


@bench("gemm_tf32", "TFLOPS", "tf32", "8192x8192x8192")
def b_tf32():
    return bench_gemm(torch.float32, tf32=True)


@bench("gemm_fp32", "TFLOPS", "fp32", "8192x8192x8192")
def b_fp32():
    return bench_gemm(torch.float32)


@bench("gemm_fp8", "TFLOPS", "fp8", "8192x8192x8192")
def b_fp8():
    if capability() < (8, 9):
        raise Skip("FP8 needs sm_89 or newer")
    n = 8192
    a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t().contiguous().t()
    one = torch.tensor(1.0, device="cuda")
    t = timeit(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), 7)
    return 2 * n ** 3 / t / 1e12


@bench("bmm_fp16", "TFLOPS", "fp16", "64x(1024x1024x1024)")
def b_bmm():
    a = torch.randn(64, 1024, 1024, device="cuda", dtype=torch.float16)
    b = torch.randn(64, 1024, 1024, device="cuda", dtype=torch.float16)
    t = timeit(lambda: torch.bmm(a, b), 7)
    return 64 * 2 * 1024 ** 3 / t / 1e12


def bench_sdpa(backend):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    B, H, S, D = 4, 32, 4096, 128
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
    with sdpa_kernel([getattr(SDPBackend, backend)]):
        t = timeit(lambda: F.scaled_dot_product_attention(q, k, v), 7)
    return 4 * B * H * S * S * D / t / 1e12


@bench("sdpa_flash", "TFLOPS", "fp16", "B4 H32 S4096 D128")
def b_sdpa_flash():
    if not feature("flash_attention"):
        raise Skip("flash attention is not compiled in")
    return bench_sdpa("FLASH_ATTENTION")


@bench("sdpa_mem_efficient", "TFLOPS", "fp16", "B4 H32 S4096 D128")
def b_sdpa_eff():
    if not feature("mem_eff_attention"):
        raise Skip("memory-efficient attention is not compiled in")
    return bench_sdpa("EFFICIENT_ATTENTION")


@bench("sdpa_cudnn", "TFLOPS", "fp16", "B4 H32 S4096 D128")
def b_sdpa_cudnn():
    if not feature("cudnn"):
        raise Skip("cuDNN is not compiled in")
    return bench_sdpa("CUDNN_ATTENTION")


@bench("conv2d_fp16", "TFLOPS", "fp16", "N64 C256 H56 W56 K256 3x3")
def b_conv():
    import torch.nn.functional as F
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    x = torch.randn(64, 256, 56, 56, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    w = torch.randn(256, 256, 3, 3, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    t = timeit(lambda: F.conv2d(x, w, padding=1), 7)
    return 2 * 64 * 256 * 56 * 56 * 256 * 9 / t / 1e12


@bench("copy_bandwidth", "GB/s", "bytes", "1 GiB device-to-device")
def b_copy():
    a = torch.empty(1 << 30, device="cuda", dtype=torch.uint8)
    b = torch.empty_like(a)
    t = timeit(lambda: b.copy_(a), 7)
    return 2 * (1 << 30) / t / 1e9


def main():
    global ARGS
    ARGS = probe_protocol.parse_args()
    # The benchmarks are the GPU's: a CPU run is its checks alone.
    if ARGS.cpu:
        probe_protocol.run_checks(CPU_CHECKS, ARGS)
        return 0
    if not probe_protocol.run_checks(CHECKS, ARGS) or ARGS.quick:
        return 0
    skip = probe_protocol.skipped(ARGS)
    for name, unit, dtype, shape, fn in BENCHES:
        key = "bench:" + name
        if key in skip:
            continue
        emit(start=key)
        try:
            # Repeated whole (tensors, warm-up, timing): the median is the value and
            # the spread of the repetitions is this benchmark's own noise, which
            # `bwbuild diff` judges a change against. The same data each time
            # (fixed seeds): a GEMM's power, so its clocks, depend on its values.
            vs = sorted(fn() for _ in range(max(1, ARGS.reps)))
            v = vs[len(vs) // 2]
            spread = (vs[-1] - vs[0]) / v * 100 if v > 0 else 0.0
            emit(bench=name, value=round(v, 3), unit=unit, dtype=dtype, shape=shape,
                 reps=len(vs), spread_percent=round(spread, 2), samples=[round(x, 3) for x in vs])
        except Skip as e:
            emit(check=key, status="skip", reason=str(e))
        except Exception as e:
            emit(check=key, status="fail", reason=reason_of(e))
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
