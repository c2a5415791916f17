"""The peer for `make bench-verify`: what pip and installer do with a wheel's
RECORD, in Python: read every member with zipfile (CRC-checked inflate) and
compare its sha256 and size with RECORD. Exit 1 on a mismatch.

usage: record_check.py WHEEL
"""
import base64
import csv
import hashlib
import io
import sys
import zipfile


def main(path):
    bad = 0
    with zipfile.ZipFile(path) as z:
        record = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")][0]
        rows = list(csv.reader(io.TextIOWrapper(z.open(record), encoding="utf-8")))
        for row in rows:
            name, h, size = row
            if not h:
                continue
            algo, want = h.split("=", 1)
            d = hashlib.new(algo)
            n = 0
            with z.open(name) as f:
                while True:
                    chunk = f.read(1 << 20)
                    if not chunk:
                        break
                    d.update(chunk)
                    n += len(chunk)
            got = base64.urlsafe_b64encode(d.digest()).rstrip(b"=").decode()
            if got != want or n != int(size):
                print("mismatch: %s" % name)
                bad += 1
    print("%d rows, %d bad" % (len(rows), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
