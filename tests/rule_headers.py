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
sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import Tally  # noqa: E402


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
    tally = Tally()
    for path in sorted(glob.glob(os.path.join(TOP, "cocci", "*.cocci"))):
        bad = problems(path)
        tally.check(os.path.relpath(path, TOP), not bad, "; ".join(bad))
    gen = subprocess.run(["env", f"PYTHONPATH={os.path.join(TOP, 'scripts')}", sys.executable, "-m", "killable",
                          "rules", "--check"], capture_output=True, text=True)
    tally.check("generated rules are up to date", gen.returncode == 0, gen.stderr)
    for path in sorted(glob.glob(os.path.join(TOP, "cocci", "*.cocci"))):
        proc = subprocess.run(["spatch", "--parse-cocci", path], capture_output=True, text=True,
                              env=dict(os.environ, KILLABLE_SCRIPTS=os.path.join(TOP, "scripts")))
        tally.check(f"spatch parses {os.path.basename(path)}", proc.returncode == 0,
                    proc.stderr.strip()[-500:])
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
