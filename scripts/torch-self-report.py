#!/usr/bin/env python3
"""What an installed torch says of itself, against a bwbuild manifest.

usage: python3 scripts/torch-self-report.py [MANIFEST]

Imports torch from the interpreter's path (run it with the venv's python)
and prints, one line a feature, what torch reports (torch.version,
torch.backends.*, torch.__config__.show(), torch.distributed,
torch.autograd.kineto_available, torch.backends.quantized) beside what the
manifest's "features" says; exits 1 when any feature or the version differs.
Without a manifest it prints torch's own report as JSON.
"""
import json
import sys

import torch


def config_value(text, key):
    """KEY=VALUE from the 'Build settings' line of torch.__config__.show()."""
    for part in text.replace("\n", ",").split(","):
        part = part.strip()
        if part.startswith("Build settings:"):
            part = part[len("Build settings:"):].strip()
        if part.startswith(key + "="):
            return part.split("=", 1)[1]
    return None


def numpy_works():
    try:
        import numpy

        return bool(torch.from_numpy(numpy.arange(3)).sum().item() == 3)
    except Exception:  # noqa: BLE001 - the built torch may lack NumPy support
        return False


def report():
    show = torch.__config__.show()
    engines = torch.backends.quantized.supported_engines
    cuda = torch.backends.cuda.is_built()
    feats = {
        "cuda": cuda,
        "cudnn": torch.backends.cudnn.is_available() if cuda else False,
        "nccl": bool(cuda and torch.distributed.is_available() and torch.distributed.is_nccl_available()),
        "distributed": torch.distributed.is_available(),
        "fbgemm": "fbgemm" in engines,
        "flash_attention": bool(cuda and config_value(show, "USE_FLASH_ATTENTION") not in (None, "OFF", "0")),
        "mem_eff_attention": bool(cuda and config_value(show, "USE_MEM_EFF_ATTENTION") not in (None, "OFF", "0")),
        "kineto": torch.autograd.kineto_available(),
        "mkldnn": torch.backends.mkldnn.is_available(),
        "numpy": numpy_works(),
    }
    return {
        "version": torch.__version__,
        "cuda": torch.version.cuda,
        "git_version": torch.version.git_version,
        "blas": config_value(show, "BLAS_INFO"),
        "lapack": config_value(show, "LAPACK_INFO"),
        "openmp": "OpenMP" in torch.__config__.parallel_info(),
        "cxx11_abi": torch.compiled_with_cxx11_abi(),
        "features": feats,
        "file": torch.__file__,
    }


def main():
    r = report()
    if len(sys.argv) < 2:
        print(json.dumps(r, indent=2))
        return 0
    m = json.load(open(sys.argv[1]))
    bad = 0
    want = m["wheel"]["version"]
    ok = want == r["version"]
    bad += not ok
    print(f"{'version':18} torch {r['version']:24} manifest {want:24} {'ok' if ok else 'DIFFERS'}")
    for name, have in r["features"].items():
        said = m["features"].get(name)
        if said is None:
            eff = m.get("features_effective", {}).get(name, {})
            said = eff.get("effective") if isinstance(eff, dict) else None
        ok = said is None or bool(said) == have
        bad += not ok
        print(f"{name:18} torch {str(have):24} manifest {str(said):24} {'ok' if ok else 'DIFFERS'}")
    print(f"{'blas':18} torch {str(r['blas']):24} (BLAS_INFO of torch.__config__.show())")
    print(f"{'openmp':18} torch {str(r['openmp']):24} (parallel_info)")
    print(f"{'from':18} {r['file']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
