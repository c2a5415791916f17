"""Pack an installed distribution back into a wheel, for benchmarks on a real
torch (`scripts/bench-device.sh`).

usage: repack_installed.py PKGDIR OUTDIR   (prints the wheel's path)

PKGDIR is site-packages/<package>; its .dist-info beside it names every file
(RECORD). Members in RECORD order, deflated, RECORD itself rewritten with the
hashes of what is packed; byte-compiled files (no hash in RECORD) left out.
"""
import base64
import glob
import hashlib
import os
import sys
import zipfile


def main(pkgdir, outdir):
    site = os.path.dirname(os.path.abspath(pkgdir))
    name = os.path.basename(os.path.abspath(pkgdir))
    infos = [d for d in glob.glob(os.path.join(site, name + "-*.dist-info")) if os.path.isdir(d)]
    if len(infos) != 1:
        sys.exit("no single %s-*.dist-info in %s" % (name, site))
    info = os.path.basename(infos[0])
    tag = "py3-none-any"
    for line in open(os.path.join(infos[0], "WHEEL")):
        if line.startswith("Tag:"):
            tag = line.split(":", 1)[1].strip()
    out = os.path.join(outdir, info[: -len(".dist-info")] + "-" + tag + ".whl")
    rows = []
    with open(os.path.join(infos[0], "RECORD")) as f:
        for line in f:
            path = line.rstrip("\n").split(",")[0]
            # "../../../bin/torchrun": scripts installed outside site-packages, not the package's.
            if (path and not path.endswith(".pyc") and not path.startswith("../") and
                    os.path.isfile(os.path.join(site, path))):
                rows.append(path)
    record = info + "/RECORD"
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        lines = []
        for path in rows:
            if path == record:
                continue
            data = open(os.path.join(site, path), "rb").read()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            z.writestr(path, data)
            lines.append("%s,sha256=%s,%d" % (path, digest, len(data)))
        lines.append(record + ",,")
        z.writestr(record, "\n".join(lines) + "\n")
    os.replace(tmp, out)
    sys.stderr.write("%d members, %.0f MiB\n" % (len(rows), os.path.getsize(out) / 2**20))
    print(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
