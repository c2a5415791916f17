#!/usr/bin/env python3
"""Run a job's steps of .github/workflows/wheels.yml in a Debian chroot.

usage: tools/runner-chroot.py ROOT JOB [--profile P]... [--until STEP] [--env K=V]...

ROOT is a chroot made with `debootstrap bookworm ROOT MIRROR` holding the
checkout at ROOT/runner/work (a clone of this repository: what
actions/checkout leaves) and whatever the job's comments say a build machine
has (CUDA at ROOT/usr/local/cuda, bound read-only from the host). Each `run:`
step of JOB is run as GitHub runs it: `bash --noprofile --norc -eo pipefail`
in the checkout, with the workflow's and the job's env:, the matrix's
profile, and GITHUB_ENV / GITHUB_PATH / GITHUB_OUTPUT / GITHUB_STEP_SUMMARY
files read back between steps. `uses:` steps are skipped (said so), as is a
step whose `if:` is a startsWith(matrix.profile, ...) that does not match.
It stops at the first failing step, or after the step named by --until.
Prints the transcript: each step's name, its output and its exit status.
Needs root (chroot) and python3-yaml on the host.
"""
import os
import re
import subprocess
import sys

import yaml


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    root, job = args[0], args[1]
    profiles, until, extra = [], None, {}
    rest = args[2:]
    while rest:
        opt = rest.pop(0)
        if opt == "--profile" and rest:
            profiles.append(rest.pop(0))
        elif opt == "--until" and rest:
            until = rest.pop(0)
        elif opt == "--env" and rest and "=" in rest[0]:
            k, v = rest.pop(0).split("=", 1)
            extra[k] = v
        else:
            sys.exit("runner-chroot: unknown argument '%s'\n%s" % (opt, __doc__))
    here = os.path.dirname(os.path.abspath(__file__))
    wf = yaml.safe_load(open(os.path.join(here, "..", ".github", "workflows", "wheels.yml")))
    steps = wf["jobs"][job]["steps"]
    rc = 0
    for profile in profiles or [None]:
        rc = run_job(root, wf, job, steps, profile, until, extra) or rc
    sys.exit(rc)


def expr(value, profile):
    """An env: value with its ${{ }}: the matrix's profile; anything else
    (an input, a token) empty, as on a tag push outside GitHub."""
    return re.sub(r"\$\{\{\s*([^}]*?)\s*\}\}",
                  lambda m: profile or "" if m.group(1) == "matrix.profile" else "", str(value))


def run_job(root, wf, job, steps, profile, until, extra):
    work = "/runner/work"
    temp = "/runner/temp"
    os.makedirs(root + temp, exist_ok=True)
    files = {n: temp + "/" + n for n in ("env", "path", "output", "summary")}
    for f in files.values():
        open(root + f, "w").close()
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "HOME": "/root", "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
           "RUNNER_TEMP": temp, "GITHUB_WORKSPACE": work,
           "GITHUB_REF_NAME": "v0.0.0-chroot", "GITHUB_ENV": files["env"],
           "GITHUB_PATH": files["path"], "GITHUB_OUTPUT": files["output"],
           "GITHUB_STEP_SUMMARY": files["summary"]}
    env.update({k: str(v) for k, v in (wf.get("env") or {}).items()})
    for k, v in (wf["jobs"][job].get("env") or {}).items():
        env[k] = expr(v, profile)
    env.update(extra)
    added_path = []
    print("== job %s%s" % (job, " (profile %s)" % profile if profile else ""), flush=True)
    for step in steps:
        name = step.get("name") or step.get("uses")
        if "run" not in step:
            print("-- %s: skipped (uses: %s)" % (name, step.get("uses")), flush=True)
            continue
        cond = step.get("if", "")
        m = re.match(r"startsWith\(matrix\.profile, '([^']*)'\)$", cond)
        if m and not (profile or "").startswith(m.group(1)):
            print("-- %s: skipped (if: %s)" % (name, cond), flush=True)
            continue
        senv = dict(env)
        for k, v in (step.get("env") or {}).items():
            senv[k] = expr(v, profile)
        senv["PATH"] = ":".join(added_path[::-1] + [env["PATH"]])
        print("-- %s\n$ %s" % (name, step["run"].rstrip().replace("\n", "\n$ ")), flush=True)
        with open(root + temp + "/step.sh", "w") as f:
            f.write(step["run"])
        r = subprocess.run(["chroot", root, "/usr/bin/env", "-i"] +
                           ["%s=%s" % kv for kv in senv.items()] +
                           ["/bin/sh", "-c", 'cd "$GITHUB_WORKSPACE" && exec /bin/bash '
                            '--noprofile --norc -eo pipefail "$RUNNER_TEMP/step.sh"'],
                           stdin=subprocess.DEVNULL, stdout=sys.stdout, stderr=subprocess.STDOUT)
        print("-- %s: exit %d" % (name, r.returncode), flush=True)
        for line in open(root + files["path"]).read().splitlines():
            if line and line not in added_path:
                added_path.append(line)
        open(root + files["path"], "w").close()
        for line in open(root + files["env"]).read().splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
        open(root + files["env"], "w").close()
        if r.returncode:
            return r.returncode
        if until and name == until:
            break
    return 0


if __name__ == "__main__":
    main()
