#!/usr/bin/env python3
"""Real-tree smoke test: `make coccicheck` as the README writes it, on 6.1.

Through the Makefile, so its arguments are tested too: the default rules
(every family) over drivers/char (which has files spatch cannot parse), in
each of the four modes, and report and patch mode over fs/proc (the whole
tree's report and patch agreement is the audit's: make audit).  Each run must exit 0 with output; patch mode's diff must apply
to the tree (`git apply --check`), no file may time out, report mode must
give every site a verdict, and report and patch mode must agree: every
site reported `converted` (in report and in org mode) is covered by a hunk
of patch mode's diff.  Prints the counts.
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
from killable import agree, spatch  # noqa: E402
from harness import Tally  # noqa: E402

# Each subdirectory and the modes run on it; drivers/char has parse errors.
RUNS = {"drivers/char": ("report", "patch", "org", "context"),
        "fs/proc": ("report", "patch")}


def make_coccicheck(kdir: str, sub: str, mode: str, jobs: int) -> subprocess.CompletedProcess:
    """The README's command: `make coccicheck M=sub MODE=mode`, with KDIR and
    J set as a user sets them (the default KDIR is the same cache)."""
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", TOP, "coccicheck",
                           f"KDIR={kdir}", f"M={sub}", f"MODE={mode}", f"J={jobs}"],
                          capture_output=True, text=True, errors="replace",
                          stdin=subprocess.DEVNULL)


def timed_out(stderr: str) -> list[str]:
    """spatch's timeout lines (coccicheck prefixes each with its rule file,
    whose name may itself hold the word: schedule_timeout.cocci)."""
    return [ln for ln in stderr.splitlines()
            if re.search(r"(?i)\btimeout\b", re.sub(r"^[\w.-]+\.cocci: ", "", ln))]


def converted_sites(out: str) -> set[tuple[str, int]]:
    """(file, line) of every `converted` site of a report or org output."""
    return {(r.file, r.line) for r in map(spatch.parse_site_line, out.splitlines())
            if r and r.verdict == "converted"}


def uncovered(sites: set[tuple[str, int]], diff: str) -> list[str]:
    """The converted sites no hunk of the diff covers."""
    covered = {f: agree.covered_lines(d) for f, d in agree.split_diff(diff).items()}
    return [f"{f}:{ln}" for f, ln in sorted(sites) if ln not in covered.get(f, set())]


def check_output(mode: str, out: str, counts: collections.Counter[str]) -> list[str]:
    """What is wrong with one mode's output (counting its sites)."""
    problems = []
    if not out.strip():
        return ["no output"]
    if mode == "report":
        for line in out.splitlines():
            r = spatch.parse_report_line(line)
            kind = spatch.verdict_class(r.verdict) if r else ""
            if kind:
                counts[kind] += 1
            else:
                problems.append(f"line without a verdict: {line}")
    elif mode == "org":
        bad = [ln for ln in out.splitlines() if not spatch.parse_site_line(ln)]
        problems += [f"not an org TODO of a site: {ln}" for ln in bad[:5]]
    elif mode == "context":
        if not re.search(r"^[-*]\s", out, re.M):
            problems.append("no line marked")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kdir", required=True)
    ap.add_argument("--subdirs", nargs="*", default=list(RUNS))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        for sub in args.subdirs:
            counts: collections.Counter[str] = collections.Counter()
            outs: dict[str, str] = {}
            for mode in RUNS.get(sub, ("report", "patch")):
                t0 = time.time()
                proc = make_coccicheck(args.kdir, sub, mode, args.jobs)
                dt = time.time() - t0
                outs[mode] = proc.stdout
                problems = []
                if proc.returncode:
                    problems.append(f"make coccicheck exited {proc.returncode}: "
                                    + proc.stderr.strip()[-800:])
                timeouts = timed_out(proc.stderr)
                if timeouts:
                    problems.append("a file timed out: " + timeouts[0])
                problems += check_output(mode, proc.stdout, counts)
                if mode == "patch" and proc.stdout.strip():
                    patch = os.path.join(tmp, sub.replace("/", "_") + ".patch")
                    with open(patch, "w") as f:
                        f.write(proc.stdout)
                    chk = subprocess.run(["git", "apply", "--check", "-p1", patch],
                                         cwd=args.kdir, capture_output=True, text=True)
                    if chk.returncode:
                        problems.append("git apply --check failed: " + chk.stderr.strip()[:500])
                    counts["files changed"] = len(re.findall(r"^\+\+\+ ", proc.stdout, re.M))
                note = "" if mode != "report" else (
                    f"{sum(v for k, v in counts.items() if k != 'files changed')} sites, " +
                    ", ".join(f"{k} {counts[k]}" for k in
                              ("converted", "refused", "manual", "not on a syscall path")))
                tally.check(f"make coccicheck M={sub} MODE={mode}", not problems,
                            "\n".join(problems), dt, note)
            patch = outs.get("patch", "")
            for mode in ("report", "org"):
                if mode in outs and outs[mode].strip() and patch.strip():
                    missing = uncovered(converted_sites(outs[mode]), patch)
                    tally.check(f"M={sub}: every site {mode} mode converts has a hunk",
                                not missing, "no hunk for: " + ", ".join(missing[:20]))
            if "report" in outs and "org" in outs:
                r, o = converted_sites(outs["report"]), converted_sites(outs["org"])
                tally.check(f"M={sub}: report and org mode convert the same sites", r == o,
                            f"report only: {sorted(r - o)[:10]}, org only: {sorted(o - r)[:10]}")
            print(f"  {sub}: {counts['files changed']} files changed by patch mode")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
