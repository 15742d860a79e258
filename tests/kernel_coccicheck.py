#!/usr/bin/env python3
"""The rule files run unchanged under the kernel's own `make coccicheck`.

Every family in report mode, and one family in all four modes, over a small
subtree of the 6.1 tree; the tree must be left as it was.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, os.path.join(TOP, "tests"))
from killable import spatch  # noqa: E402
from harness import Tally  # noqa: E402

EXPECT = {
    "report": lambda out: any(spatch.is_site_line(l) for l in out.splitlines()) and
    all(spatch.is_site_line(l) for l in out.splitlines() if re.match(r"^\S+\.c:\d+:", l)),
    "org": lambda out: "* TODO [[view:" in out,
    "context": lambda out: re.search(r"^-\t.*mutex_lock\(", out, re.M) is not None,
    "patch": lambda out: re.search(r"^\+\t.*mutex_lock_killable\(", out, re.M) is not None,
}


def coccicheck(kdir: str, cocci: str, mode: str, sub: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-s", "coccicheck", f"COCCI={cocci}", f"MODE={mode}", f"M={sub}"],
                          cwd=kdir, capture_output=True, text=True, env=dict(os.environ, J="2"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kdir", required=True)
    ap.add_argument("--subdir", default="drivers/misc/mei")
    args = ap.parse_args()
    tally = Tally()
    before = subprocess.run(["git", "status", "--porcelain"], cwd=args.kdir,
                            capture_output=True, text=True).stdout

    mutex = os.path.join(TOP, "cocci", "mutex.cocci")
    for mode, check in EXPECT.items():
        proc = coccicheck(args.kdir, mutex, mode, args.subdir)
        tally.check(f"kernel coccicheck MODE={mode} COCCI=mutex.cocci M={args.subdir}",
                    proc.returncode == 0 and check(proc.stdout),
                    proc.stderr[-1500:] + proc.stdout[-500:])
    for cocci in sorted(glob.glob(os.path.join(TOP, "cocci", "*.cocci"))):
        proc = coccicheck(args.kdir, cocci, "report", args.subdir)
        bad = [l for l in proc.stdout.splitlines() if re.match(r"^\S+\.c:\d+:", l) and not spatch.is_site_line(l)]
        tally.check(f"kernel coccicheck MODE=report COCCI={os.path.basename(cocci)}",
                    proc.returncode == 0 and not bad and "Error" not in proc.stderr,
                    proc.stderr[-1500:] + "\n".join(bad))
    after = subprocess.run(["git", "status", "--porcelain"], cwd=args.kdir,
                           capture_output=True, text=True).stdout
    tally.check("the tree is unchanged", before == after, after)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
