#!/usr/bin/env python3
"""Reachability fed in from outside: `-D killable_reach=FILE` and KILLABLE_REACH.

Without the file the helper is not on a syscall path (its file has no root);
with it, one helper (a root in another file) is converted and one is refused
as must-not-fail.
"""

from __future__ import annotations

import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE = "tests/inputs/reach_helper.c"
REACH = os.path.join(TOP, "tests", "inputs", "reach_helper.tsv")
sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import Tally  # noqa: E402


def report(extra: list[str], env: dict[str, str] | None = None) -> str:
    cmd = ["spatch", "--very-quiet", "-D", "report", "--no-show-diff", "--no-includes",
           "--sp-file", "cocci/mutex.cocci", CASE] + extra
    return subprocess.run(cmd, cwd=TOP, capture_output=True, text=True,
                          env=dict(os.environ, **(env or {}))).stdout


def main() -> int:
    checks = []
    plain = report([])
    checks.append(("no reach file: not on a syscall path",
                   "xbuf_reset(): not on a syscall path" in plain))
    for how, out in (("-D killable_reach", report(["-D", f"killable_reach={REACH}"])),
                     ("KILLABLE_REACH", report([], {"KILLABLE_REACH": REACH}))):
        checks.append((f"{how}: the ioctl helper is converted",
                       "mutex_lock in xbuf_reset(): converted" in out))
        checks.append((f"{how}: the release helper is refused",
                       "xbuf_teardown(): refused: reachable from must-not-fail root release" in out))
    # What the audit's graph adds (issue 10, classes 4 and 8): a global
    # function that is no root has callers the graph may not see (inline
    # wrappers in headers); a chain through guessed pointers is no proof.
    for cls, want in (("ioctl,xcallers:2:drivers/x/core.c:x_sync",
                       "xbuf_reset(): manual: xbuf_reset() is not static; callers in other "
                       "files are not checked"),
                      ("ioctl,root,ptrhops:3", "xbuf_reset(): manual: a system call reaches "
                       "xbuf_reset() only through calls via function pointers")):
        name = cls.split(",")[-1].split(":")[0]
        extra = os.path.join(TOP, "tests", "out", f"reach-{name}.tsv")
        os.makedirs(os.path.dirname(extra), exist_ok=True)
        with open(extra, "w", encoding="utf-8") as f:
            f.write(f"{CASE}\txbuf_reset\t{cls}\n")
        out = report(["-D", f"killable_reach={extra}"])
        checks.append((f"{name}: {want.split(': ', 1)[1][:60]}", want in out))
    tally = Tally()
    for name, ok in checks:
        tally.check(name, ok)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
