"""Write a synthetic platform wheel for `make bench-verify`.

usage: bench_wheel.py OUT.whl MIB

One large ELF library (the k.so fixture padded with MIB MiB of data that
deflates about 3:1, so inflation and hashing both cost something) plus 2,000
small Python files, as a torch wheel has a few huge libraries and many small
files. Deterministic: the same arguments give the same wheel.
"""
import base64
import hashlib
import os
import random
import sys
import zipfile


def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main(out, mib):
    here = os.path.dirname(os.path.abspath(__file__))
    elf = open(os.path.join(here, "..", "tests", "fixtures", "bin", "k.so"), "rb").read()
    rng = random.Random(1)
    block = bytes(rng.getrandbits(8) for _ in range(1 << 16)) + bytes(1 << 17)
    pad = block * (mib * (1 << 20) // len(block))
    files = {"bench/lib/libbench.so": elf + pad}
    for i in range(2000):
        files["bench/mod%04d.py" % i] = ("x = %d\n" % i * 40).encode()
    di = "bench-1.0.dist-info"
    tag = "cp311-cp311-linux_x86_64"
    files[di + "/METADATA"] = b"Metadata-Version: 2.1\nName: bench\nVersion: 1.0\n"
    files[di + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\nTag: %s\n"
                            % tag).encode()
    rows = ["%s,%s,%d" % (n, digest(d), len(d)) for n, d in files.items()]
    rows.append(di + "/RECORD,,")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for n, d in files.items():
            z.writestr(n, d)
        z.writestr(di + "/RECORD", "\n".join(rows) + "\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
