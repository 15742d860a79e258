#!/usr/bin/env python3
"""Real-tree smoke test: patch mode over linux 6.1 drivers/char, drivers/misc, fs/proc.

The diff must apply to the tree (`git apply --check`), no file may time out,
and report mode must give every site a verdict.  Prints the counts.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, os.path.join(TOP, "tests"))
from killable import spatch  # noqa: E402
from harness import Tally  # noqa: E402


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kdir", required=True)
    ap.add_argument("--subdirs", nargs="*", default=["drivers/char", "drivers/misc", "fs/proc"])
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        combined = os.path.join(tmp, "killable-all.cocci")
        subprocess.run(["env", f"PYTHONPATH={os.path.join(TOP, 'scripts')}", sys.executable, "-m",
                        "killable", "rules", "--combined", combined], check=True)
        for sub in args.subdirs:
            counts: collections.Counter[str] = collections.Counter()
            for mode in ("report", "patch"):
                t0 = time.time()
                proc = run(["env", f"PYTHONPATH={os.path.join(TOP, 'scripts')}", sys.executable, "-m",
                            "killable", "coccicheck",
                            "--kdir", args.kdir, "-m", sub, "--mode", mode, "--cocci", combined,
                            "-j", str(args.jobs), "--timeout", "200"])
                dt = time.time() - t0
                problems = []
                if proc.returncode:
                    problems.append(f"coccicheck exited {proc.returncode}")
                if "timeout" in proc.stderr.lower():
                    problems.append("a file timed out: " + next(
                        l for l in proc.stderr.splitlines() if "timeout" in l.lower()))
                if mode == "report":
                    for line in proc.stdout.splitlines():
                        r = spatch.parse_report_line(line)
                        kind = spatch.verdict_class(r.verdict) if r else ""
                        if kind:
                            counts[kind] += 1
                        else:
                            problems.append(f"line without a verdict: {line}")
                    if not counts:
                        problems.append("no sites found")
                else:
                    patch = os.path.join(tmp, sub.replace("/", "_") + ".patch")
                    with open(patch, "w") as f:
                        f.write(proc.stdout)
                    files = len(re.findall(r"^\+\+\+ ", proc.stdout, re.M))
                    chk = run(["git", "apply", "--check", "-p1", patch], cwd=args.kdir) \
                        if proc.stdout.strip() else None
                    if chk is not None and chk.returncode:
                        problems.append("git apply --check failed: " + chk.stderr.strip()[:500])
                    if files == 0:
                        problems.append("patch mode changed nothing")
                    counts["files changed"] = files
                note = "" if mode == "patch" else (
                    f"{sum(v for k, v in counts.items() if k != 'files changed')} sites, " +
                    ", ".join(f"{k} {counts[k]}" for k in
                              ("converted", "refused", "manual", "not on a syscall path")))
                tally.check(f"{sub} {mode}", not problems, "\n".join(problems), dt, note)
            print(f"  {sub}: {counts['files changed']} files changed by patch mode")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
