"""bwbuild smoke's cross-GPU probe for torch (`bwbuild smoke --gpu all`):
what only shows with several GPUs of one node.

Run by `bwbuild smoke` (src/wheel/smoke_multi.c) with CUDA_VISIBLE_DEVICES
naming two or more GPUs, after the per-GPU probe (smoke-torch.py) ran on
each. The protocol is probes/probe_protocol.py's (one JSON object per line
after "@bwbuild "); bench lines add "algbw" (GB/s) and "link" (nvlink, pcie: the
interconnect whose datasheet figure bwbuild compares busbw with).

Checks: import · p2p (the peer-access matrix) · link (how every pair is
connected: nvidia-smi topo -m) · nccl_init, nccl_all_reduce,
nccl_all_gather, nccl_broadcast (a group of one process per GPU, values
checked on every rank). Benchmarks (not with --quick): all-reduce bus
bandwidth for a few sizes, as nccl-tests defines it
(github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md): algbw = bytes / time,
busbw = algbw * 2(n-1)/n, time the average over ranks of each rank's time
per call.

This process owns the group: it starts one worker per GPU (this script
again with --worker; no torchrun), each in a session of its own, reads
their lines, and when a rank stays silent past the phase timeout
(--timeout, less a margin so bwbuild's own watchdog stays the last resort)
or exits early, kills every worker and fails the phase it was in; the
phases after it are skipped with that reason. The inherited environment
(NCCL_*, and bwbuild's) passes to the workers unchanged.

usage: multi-torch.py [--skip A,B] [--quick] [--timeout S] [--features F] [--archs A]
       multi-torch.py --worker RANK WORLD STOREFILE [--quick]   (internal)
"""
import argparse
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_protocol import emit, median_block, reason_of  # noqa: E402

RANK_MARK = "@rank "
PHASES = ["nccl_init", "nccl_all_reduce", "nccl_all_gather", "nccl_broadcast"]
# (label, bytes): from latency-bound to past the size where a ring saturates the link.
SIZES = [("1MiB", 1 << 20), ("16MiB", 16 << 20), ("256MiB", 256 << 20), ("1GiB", 1 << 30),
         ("4GiB", 4 << 30)]
WARMUP, ITERS, REPS = 5, 20, 5


def bench_names():
    return ["bench:allreduce_busbw_" + label for label, _ in SIZES]


# ---- a worker: one rank of the group ----

def worker(rank, world, store_file, quick):
    def say(**kw):
        sys.stdout.write(RANK_MARK + json.dumps(kw) + "\n")
        sys.stdout.flush()

    import torch
    import torch.distributed as dist

    dev = torch.device("cuda", rank)
    torch.cuda.set_device(dev)

    def phase(name, fn):
        t = time.monotonic()
        try:
            res = fn()
        except Exception as e:
            say(phase=name, status="fail", reason=reason_of(e), seconds=time.monotonic() - t)
            # A rank that left mid-collective would hang its peers: stop here.
            sys.exit(1)
        say(phase=name, seconds=time.monotonic() - t, **res)

    def init():
        store = dist.FileStore(store_file, world)
        dist.init_process_group("nccl", store=store, rank=rank, world_size=world, device_id=dev)
        dist.barrier()
        return {"status": "ok", "reason": "NCCL %s" % ".".join(map(str, torch.cuda.nccl.version()))}

    def verdict(bad, what):
        return {"status": "fail", "reason": bad} if bad else {"status": "ok", "reason": what}

    def all_reduce():
        tri = world * (world + 1) // 2
        # Exact in fp32: every sum stays below 2**24.
        x = torch.arange(1 << 16, device=dev, dtype=torch.float32) * (rank + 1)
        dist.all_reduce(x)
        want = torch.arange(1 << 16, device=dev, dtype=torch.float32) * tri
        bad = None if torch.equal(x, want) else "arange sum wrong at %d elements" % int((x != want).sum())
        # Large enough to be split into chunks across channels.
        y = torch.full((16 << 20,), float(rank + 1), device=dev, dtype=torch.float32)
        dist.all_reduce(y)
        if not bad and not bool((y == tri).all()):
            bad = "64 MiB constant: %d of %d elements are not %d" % (int((y != tri).sum()), y.numel(), tri)
        z = torch.full((1 << 20,), rank + 1, device=dev, dtype=torch.int64)
        dist.all_reduce(z, op=dist.ReduceOp.MAX)
        if not bad and not bool((z == world).all()):
            bad = "int64 MAX is not %d" % world
        torch.cuda.synchronize()
        return verdict(bad, "sum of fp32 (256 KiB, 64 MiB) and max of int64 correct on rank %d" % rank)

    def all_gather():
        k = 1 << 20
        x = torch.full((k,), float(rank), device=dev, dtype=torch.float32) + \
            torch.arange(k, device=dev, dtype=torch.float32) / k
        out = torch.empty(world * k, device=dev, dtype=torch.float32)
        dist.all_gather_into_tensor(out, x)
        bad = None
        for r in range(world):
            want = torch.full((k,), float(r), device=dev) + torch.arange(k, device=dev, dtype=torch.float32) / k
            if not torch.equal(out[r * k:(r + 1) * k], want):
                bad = "rank %d's 4 MiB slice came back wrong on rank %d" % (r, rank)
                break
        return verdict(bad, "%d x 4 MiB gathered and compared on rank %d" % (world, rank))

    def broadcast():
        src = world - 1   # not rank 0: a root-0-only path would hide a bug
        k = 4 << 20
        x = (torch.arange(k, device=dev, dtype=torch.int32) * 7 + src if rank == src
             else torch.zeros(k, device=dev, dtype=torch.int32))
        dist.broadcast(x, src=src)
        want = torch.arange(k, device=dev, dtype=torch.int32) * 7 + src
        return verdict(None if torch.equal(x, want) else "rank %d received other values" % rank,
                       "16 MiB from rank %d arrived intact on rank %d" % (src, rank))

    def busbw(nbytes):
        x = torch.zeros(nbytes // 4, device=dev, dtype=torch.float32)
        for _ in range(WARMUP):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        t = median_block(lambda: dist.all_reduce(x), ITERS, REPS)
        del x
        torch.cuda.empty_cache()
        return {"status": "ok", "time": t}

    phase("nccl_init", init)
    phase("nccl_all_reduce", all_reduce)
    phase("nccl_all_gather", all_gather)
    phase("nccl_broadcast", broadcast)
    if not quick:
        for (label, nbytes), key in zip(SIZES, bench_names()):
            phase(key, lambda n=nbytes: busbw(n))
    dist.destroy_process_group()
    return 0


# ---- the parent: checks of its own, and the group it owns ----

class Group:
    """The worker processes and the lines they print, read without blocking."""

    def __init__(self, world, store_file, quick):
        self.procs, self.buf, self.tail, self.sel = [], {}, {}, selectors.DefaultSelector()
        for r in range(world):
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(r), str(world), store_file]
            if quick:
                cmd.append("--quick")
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
            self.procs.append(p)
            self.buf[r], self.tail[r] = b"", b""
            os.set_blocking(p.stdout.fileno(), False)
            self.sel.register(p.stdout, selectors.EVENT_READ, r)
        self.open = set(range(world))

    def read(self, until):
        """(rank, message) for each rank line before `until`; (rank, None) at a rank's EOF."""
        out = []
        while not out and self.open:
            left = until - time.monotonic()
            if left <= 0:
                break
            for key, _ in self.sel.select(min(left, 1.0)):
                r = key.data
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    self.sel.unregister(key.fileobj)
                    self.open.discard(r)
                    out.append((r, None))
                    continue
                self.buf[r] += chunk
                self.tail[r] = (self.tail[r] + chunk)[-2000:]
                *lines, self.buf[r] = self.buf[r].split(b"\n")
                for line in lines:
                    text = line.decode("utf-8", "replace")
                    if text.startswith(RANK_MARK):
                        try:
                            out.append((r, json.loads(text[len(RANK_MARK):])))
                        except ValueError:
                            pass
        return out

    def why_exit(self, r):
        p = self.procs[r]
        try:
            code = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        lines = [l for l in self.tail[r].decode("utf-8", "replace").splitlines()
                 if l.strip() and not l.startswith(RANK_MARK)]
        said = ([l for l in lines if "Error" in l or "error" in l] or lines or [""])[-1].strip()[:300]
        how = ("was killed by signal %d" % -code if code is not None and code < 0
               else "exited with %s" % code)
        return "rank %d %s%s" % (r, how, ": " + said if said else "")

    def kill(self):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            p.stdout.close()
        self.sel.close()


def run_group(world, args, skip, info):
    names = PHASES + ([] if args.quick else bench_names())
    if any(n in skip for n in names):
        for n in names:
            if n not in skip:
                emit(check=n, status="skip",
                     reason="not run again: the NCCL group was stopped in an earlier run of this probe")
        return
    limit = max(1.0, args.timeout * 0.8)
    tmp = tempfile.mkdtemp(prefix="bwbuild-nccl-")
    group = Group(world, os.path.join(tmp, "store"), args.quick)
    stopped, seen, gone = None, {}, {}
    try:
        for name in names:
            if stopped:
                emit(check=name, status="skip", reason="not run: %s" % stopped)
                continue
            emit(start=name)
            t0 = time.monotonic()
            got = seen.setdefault(name, {})
            while len(got) < world and not stopped:
                waiting = sorted(set(range(world)) - set(got))
                if any(r in gone for r in waiting):
                    # A rank gone before its part: its peers would wait for it in vain.
                    stopped = gone[min(r for r in waiting if r in gone)] + " in " + name
                    break
                msgs = group.read(time.monotonic() + limit)
                if not msgs:
                    stopped = ("rank%s %s silent for %.0f s in %s; the group was killed"
                               % ("s" if len(waiting) > 1 else "", ",".join(map(str, waiting)), limit, name))
                for r, m in msgs:
                    if m is None:
                        gone[r] = group.why_exit(r)
                    elif m.get("phase") in names:
                        # A rank may be a phase ahead of the others: kept for its turn.
                        seen.setdefault(m["phase"], {})[r] = m
            secs = round(time.monotonic() - t0, 3)
            fails = sorted((r, m) for r, m in got.items() if m.get("status") != "ok")
            if name.startswith("bench:"):
                if fails or stopped:
                    emit(check=name, status="fail", reason=(fails[0][1].get("reason") if fails else stopped))
                    continue
                n, t = world, sum(m["time"] for m in got.values()) / world
                nbytes = dict(SIZES)[name[len("bench:allreduce_busbw_"):]]
                algbw = nbytes / t / 1e9
                emit(bench=name[len("bench:"):], value=round(algbw * 2 * (n - 1) / n, 2), unit="GB/s",
                     dtype="fp32", shape="%s all-reduce, %d GPUs" % (name.split("_")[-1], n),
                     algbw=round(algbw, 2), link=info.get("link"), seconds=round(t, 6))
            elif fails:
                emit(check=name, status="fail", seconds=secs,
                     reason="; ".join("%s" % m.get("reason") for _, m in fails)[:400])
            elif stopped:
                emit(check=name, status="fail", reason=stopped, seconds=secs)
            else:
                reason = got[0].get("reason", "")
                if name != "nccl_init":
                    reason = "%s; all %d ranks agree" % (reason.replace(" on rank 0", ""), world)
                else:
                    info["nccl"] = reason.split()[-1]
                    emit(info={"cross": {"nccl": info["nccl"]}})
                    reason = "%d processes, one per GPU, %s" % (world, reason)
                emit(check=name, status="ok", reason=reason, seconds=secs)
    finally:
        group.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def nvidia_smi(*args):
    return subprocess.run(["nvidia-smi"] + list(args), capture_output=True, text=True, timeout=30).stdout


def link_matrix(uuids):
    """nvidia-smi topo -m's word for each pair of our GPUs (NV18, PIX, SYS...), by UUID."""
    index = {}
    for line in nvidia_smi("--query-gpu=index,uuid", "--format=csv,noheader").splitlines():
        i, _, u = line.partition(",")
        index[u.strip()] = int(i)
    rows = {}
    for line in nvidia_smi("topo", "-m").splitlines():
        cols = line.split()
        if cols and cols[0].startswith("GPU") and cols[0][3:].isdigit():
            rows[int(cols[0][3:])] = cols[1:]
    phys = [index.get(u if u.startswith("GPU-") else "GPU-" + u) for u in uuids]
    return [[None if a == b or pa is None or pb is None or pa not in rows or pb >= len(rows[pa])
             else rows[pa][pb] for b, pb in enumerate(phys)] for a, pa in enumerate(phys)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip", default="")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--features", default=None)
    ap.add_argument("--archs", default=None)
    ap.add_argument("--worker", nargs=3, default=None)
    args = ap.parse_args()
    if args.worker:
        return worker(int(args.worker[0]), int(args.worker[1]), args.worker[2], args.quick)
    skip = set(s for s in args.skip.split(",") if s)
    info = {}

    def check(name, fn, needed=False):
        if name in skip:
            # Run again after a restart: what it learns, the later checks need.
            if needed:
                try:
                    return fn()[0]
                except Exception:
                    return "fail"
            return None
        emit(start=name)
        t = time.monotonic()
        try:
            status, reason = fn()
        except Exception as e:
            status, reason = "fail", reason_of(e)
        emit(check=name, status=status, reason=reason, seconds=round(time.monotonic() - t, 3))
        return status

    torch = None

    def c_import():
        nonlocal torch
        import torch as t
        torch = t
        return "ok", "torch %s" % t.__version__

    def c_count():
        n = torch.cuda.device_count()
        info["n"] = n
        gpus = []
        for i in range(n):
            p = torch.cuda.get_device_properties(i)
            gpus.append({"name": p.name, "capability": "sm_%d%d" % (p.major, p.minor),
                         "uuid": str(getattr(p, "uuid", ""))})
        info["gpus"] = gpus
        emit(info={"cross": {"count": n, "gpus": gpus,
                             "visible": os.environ.get("CUDA_VISIBLE_DEVICES")}})
        if n < 2:
            return "skip", "%d GPU visible: nothing to do across GPUs" % n
        return "ok", "%d GPUs: %s" % (n, ", ".join(sorted(set(g["name"] for g in gpus))))

    def c_p2p():
        n = info["n"]
        m = [[None if a == b else bool(torch.cuda.can_device_access_peer(a, b)) for b in range(n)]
             for a in range(n)]
        emit(info={"cross": {"p2p": m}})
        no = ["%d->%d" % (a, b) for a in range(n) for b in range(n) if a != b and not m[a][b]]
        if no:
            return "warn", ("no peer access %s: NCCL goes through host memory there (slower)"
                            % " ".join(no))
        return "ok", "every pair of the %d GPUs can access the other's memory" % n

    def c_link():
        info["link"] = None
        try:
            m = link_matrix([g["uuid"] for g in info["gpus"]])
        except (OSError, subprocess.SubprocessError) as e:
            return "warn", "nvidia-smi topo -m: %s: the link is unknown" % reason_of(e)
        words = set(w for row in m for w in row if w)
        if not words:
            emit(info={"cross": {"topology": m, "link": None}})
            return "warn", "nvidia-smi topo -m does not list these GPUs: the link is unknown"
        kind = "nvlink" if all(w.startswith("NV") for w in words) else "pcie"
        info["link"] = kind
        emit(info={"cross": {"topology": m, "link": kind}})
        return "ok", "%s between every pair (nvidia-smi topo -m: %s)" % (
            "NVLink" if kind == "nvlink" else "PCIe or the host bridge", " ".join(sorted(words)))

    if check("import", c_import, True) == "fail":
        return 0
    st = check("gpus", c_count, True)
    if st in ("fail", "skip") or "n" not in info:
        return 0
    check("p2p", c_p2p)
    check("link", c_link, True)
    info.setdefault("link", None)
    run_group(info["n"], args, skip, info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
