#!/usr/bin/env python3
"""Every cocci/*.cocci carries the kernel's header fields and all four virtuals,
and the committed files are what the generator writes."""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def problems(path: str) -> list[str]:
    text = open(path, encoding="utf-8").read()
    out = []
    if not text.startswith("// SPDX-License-Identifier:"):
        out.append("no SPDX line first")
    for field in ("///", "// Confidence:", "// Options:", "// Keywords:", "// Copyright:"):
        if not re.search(r"^" + re.escape(field), text, re.M):
            out.append(f"no {field!r} header")
    for mode in ("patch", "context", "org", "report"):
        if not re.search(r"^virtual %s$" % mode, text, re.M):
            out.append(f"no `virtual {mode}`")
    return out


def main() -> int:
    passed = failed = 0
    for path in sorted(glob.glob(os.path.join(TOP, "cocci", "*.cocci"))):
        bad = problems(path)
        print(("ok: " if not bad else "FAIL: ") + os.path.relpath(path, TOP) +
              ("" if not bad else ": " + "; ".join(bad)))
        passed, failed = passed + (not bad), failed + bool(bad)
    gen = subprocess.run(["env", f"PYTHONPATH={os.path.join(TOP, 'scripts')}", sys.executable, "-m", "killable",
                          "rules", "--check"], capture_output=True, text=True)
    print(("ok: " if gen.returncode == 0 else "FAIL: ") + "generated rules are up to date" +
          ("" if gen.returncode == 0 else ": " + gen.stderr.strip()))
    passed, failed = passed + (gen.returncode == 0), failed + (gen.returncode != 0)
    for path in sorted(glob.glob(os.path.join(TOP, "cocci", "*.cocci"))):
        proc = subprocess.run(["spatch", "--parse-cocci", path], capture_output=True, text=True,
                              env=dict(os.environ, KILLABLE_SCRIPTS=os.path.join(TOP, "scripts")))
        ok = proc.returncode == 0
        print(("ok: " if ok else "FAIL: ") + f"spatch parses {os.path.basename(path)}" +
              ("" if ok else ": " + proc.stderr.strip()[-500:]))
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
