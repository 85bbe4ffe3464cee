#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel's checkpatch.pl over every .c and .h under kernel/.

  checkpatch.py [--checkpatch PATH] [--kernel DIR] [--exceptions FILE]

Runs checkpatch.pl --no-tree --strict --terse --show-types -f on every .c
and .h under DIR (default kernel; every depth, tests/ and hw/ too; not the
generated *.mod.c), with the paths it sees kernel/...  A finding is a
file and a checkpatch type (not a line: lines move).  FILE (default
tools/testbed/checkpatch-exceptions.txt) keeps the deliberate ones, one a
line:

  <glob relative to kernel/>  <TYPE>  <reason>

where '*' matches within a folder, '**/' any folders (none too) and '?'
one character; '#' starts a comment line.  Every finding no exception
covers is a failure, and so is every exception that covers no finding
(stale: remove it).  Exit 1 on any, 2 when checkpatch.pl cannot run.

checkpatch.pl: --checkpatch, else $CHECKPATCH, else the newest
$VRNIC_CACHE/linux-source-*/scripts/checkpatch.pl (the source the debug
kernel is built from, tools/testbed/build-debug-kernel.sh).
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

FINDING_RE = re.compile(r"^(.+?):(\d+): (ERROR|WARNING|CHECK):([A-Z0-9_]+): (.*)$")


def glob_re(pat):
    """A path glob with ** as a regex."""
    out, i = [], 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif pat[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pat[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pat[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def read_exceptions(path):
    exc = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                raise ValueError(f"{path}:{n}: want <glob> <TYPE> <reason>: {line}")
            g, t, why = parts
            if not re.fullmatch(r"[A-Z0-9_]+", t):
                raise ValueError(f"{path}:{n}: {t} is not a checkpatch type")
            exc.append({"line": n, "glob": g, "type": t, "why": why, "re": glob_re(g),
                        "used": 0})
    return exc


def default_checkpatch():
    if os.environ.get("CHECKPATCH"):
        return os.environ["CHECKPATCH"]
    cache = os.environ.get("VRNIC_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "vrnic")
    found = sorted(glob.glob(os.path.join(cache, "linux-source-*/scripts/checkpatch.pl")),
                   key=os.path.getmtime)
    return found[-1] if found else None


def sources(kdir):
    out = []
    for root, dirs, files in os.walk(kdir):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for fn in sorted(files):
            if fn.endswith((".c", ".h")) and not fn.endswith(".mod.c"):
                out.append(os.path.relpath(os.path.join(root, fn), kdir))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkpatch", help="scripts/checkpatch.pl of a kernel source tree")
    ap.add_argument("--kernel", default="kernel")
    ap.add_argument("--exceptions",
                    default=os.path.join(here, "..", "..", "checkpatch-exceptions.txt"))
    a = ap.parse_args()

    cp = a.checkpatch or default_checkpatch()
    if not cp or not os.path.isfile(cp):
        print(f"checkpatch: no checkpatch.pl ({cp or 'none in the cache'}): the debug "
              "kernel's source (tools/testbed/build-debug-kernel.sh) has it")
        return 2
    try:
        exc = read_exceptions(a.exceptions)
    except (OSError, ValueError) as e:
        print(f"checkpatch: {e}")
        return 2
    kdir = os.path.abspath(a.kernel)
    kname = os.path.basename(kdir)
    files = sources(kdir)
    if not files:
        print(f"checkpatch: no .c or .h under {a.kernel}")
        return 2
    # From a folder of its own holding only a link to kdir: checkpatch
    # sees kernel/... paths, and finding no .git there, writes no
    # .checkpatch-camelcase.git.* cache into the checkout.
    with tempfile.TemporaryDirectory() as cwd:
        os.symlink(kdir, os.path.join(cwd, kname))
        res = subprocess.run(["perl", cp, "--no-tree", "--strict", "--terse", "--show-types",
                              "--color=never", "-f"] + [f"{kname}/{f}" for f in files],
                             cwd=cwd, capture_output=True, text=True)
    # findings[(file, type)] = [(line, level, message)]
    findings = {}
    for line in res.stdout.splitlines():
        m = FINDING_RE.match(line)
        if not m:
            continue
        path, ln, level, typ, msg = m.groups()
        rel = path[len(kname) + 1:] if path.startswith(kname + "/") else path
        findings.setdefault((rel, typ), []).append((int(ln), level, msg))
    if res.returncode not in (0, 1) or (res.returncode == 1 and not findings):
        print(f"checkpatch: {cp} failed (exit {res.returncode}):")
        print("\n".join((res.stderr or res.stdout).splitlines()[-10:]))
        return 2

    bad = 0
    covered = 0
    for (rel, typ), hits in sorted(findings.items()):
        match = [e for e in exc if e["type"] == typ and e["re"].match(rel)]
        for e in match:
            e["used"] += len(hits)
        if match:
            covered += len(hits)
            continue
        bad += 1
        lines = ", ".join(str(h[0]) for h in hits[:8]) + (", ..." if len(hits) > 8 else "")
        print(f"{kname}/{rel}: {hits[0][1]}:{typ} (line{'s' if len(hits) > 1 else ''} "
              f"{lines}): {hits[0][2]}")
    stale = [e for e in exc if not e["used"]]
    for e in stale:
        print(f"{os.path.relpath(a.exceptions)}:{e['line']}: stale exception "
              f"{e['glob']} {e['type']}: no finding left (remove it)")
    nf = sum(len(h) for h in findings.values())
    print(f"checkpatch: {len(files)} files, {nf} findings ({covered} kept by "
          f"{len(exc) - len(stale)} exceptions); {bad} file/type pairs not excepted, "
          f"{len(stale)} stale exceptions")
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
