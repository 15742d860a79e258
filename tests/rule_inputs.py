#!/usr/bin/env python3
"""Reachability fed in from outside: `-D killable_reach=FILE` and KILLABLE_REACH.

Without the file the helper is not on a syscall path (its file has no root);
with it, one helper is converted and one is refused as must-not-fail.
"""

from __future__ import annotations

import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE = "tests/inputs/reach_helper.c"
REACH = os.path.join(TOP, "tests", "inputs", "reach_helper.tsv")


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
    for name, ok in checks:
        print(("ok: " if ok else "FAIL: ") + name)
    failed = sum(not ok for _, ok in checks)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
