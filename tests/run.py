#!/usr/bin/env python3
"""The one test runner: every suite of tests/, by name or by tier.

    python3 tests/run.py rules unit          # suites by name
    python3 tests/run.py --tier fast         # make check-fast
    python3 tests/run.py --tier all          # make check
    python3 tests/run.py --list              # the suites and their tiers

Each suite is one or more commands that print their results in the one
format of tests/harness.py and end with `N passed, N failed`.  The runner
runs them in order (a failing suite does not stop the others), prints a
table of the suites and, last, `total: N passed, N failed`.  A command
without that last line counts once, by its exit status.  The Makefile's check-*
targets call this with the make variables; SUITES below is the only list.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from harness import Tally, run_unittests, summary_counts  # noqa: E402

Commands = list[list[str]]


@dataclass(frozen=True)
class Suite:
    name: str                                   # make check-NAME
    tier: str                                   # fast: the inner loop; full: make check only
    what: str
    commands: Callable[[argparse.Namespace], Commands]


def py(*argv: str) -> list[str]:
    return [sys.executable, *argv]


def kernel_test(a: argparse.Namespace, *argv: str) -> list[str]:
    return py(os.path.join(HERE, "kernel", "kerneltest.py"), "--kcache", a.kcache,
              "--build-dir", a.kernel_build_dir, "--jobs", str(a.kernel_jobs), *argv)


def only(a: argparse.Namespace) -> list[str]:
    """-k for the runners that take it: only the tests whose name has it."""
    return [f"-k{a.k}"] if a.k else []


def rule_cases(a: argparse.Namespace) -> Commands:
    runner = os.path.join(HERE, "run_rule_tests.py")
    return [py(runner, "--self-test"),
            py(runner, "--jobs", str(a.jobs), "--spatch", a.spatch,
               *only(a), *(["--update"] if a.update else []),
               *(["-v"] if a.verbose else []))]


SUITES = [
    Suite("generated", "fast", "the committed rules are what the generator writes; reach input",
          lambda a: [py(os.path.join(HERE, "rule_headers.py")),
                     py(os.path.join(HERE, "rule_inputs.py"))]),
    Suite("unit", "fast", "the verdict checks on small C snippets (no spatch)",
          lambda a: [py(__file__, "--unittest", os.path.join(HERE, "unit"))]),
    Suite("kernel-parsers", "fast", "the console, KTAP and diff parsers of the kernel tests",
          lambda a: [py(__file__, "--unittest", os.path.join(HERE, "kernel"))]),
    Suite("rules", "fast", "tests/cases: patch, report, compiled and run with a fatal signal",
          rule_cases),
    Suite("smoke", "full", "the rules under the kernel's coccicheck; patch/report on real dirs",
          lambda a: [py(os.path.join(HERE, "kernel_coccicheck.py"), "--kdir", a.kcache),
                     py(os.path.join(HERE, "smoke_real_tree.py"), "--kdir", a.kcache,
                        "-j", str(a.jobs))]),
    Suite("cli", "full", "bad input, the user's files, the first run (small trees)",
          lambda a: [py(os.path.join(HERE, "cli", "run_tests.py"), "--kdir", a.kcache, *only(a))]),
    Suite("precision", "full", "reviewed real 6.1 sites keep their verdicts and hunks",
          lambda a: [py(os.path.join(HERE, "precision", "precision.py"), "--kdir", a.kcache,
                        "--cache", a.cache, "-j", str(a.jobs), "check")]),
    Suite("audit", "full", "graph, reports, resume, shards, hung traces, the HTML page",
          lambda a: [py(os.path.join(HERE, "audit", "run_tests.py"), "--kdir", a.kdir,
                        "--spatch", a.spatch, *only(a))]),
    Suite("risk", "full", "long sleeps, lock identity, critical sections, wakers",
          lambda a: [py(os.path.join(HERE, "risk", "run_tests.py"))]),
    Suite("batches", "full", "series for one subsystem: git am, checkpatch, compile, refusals",
          lambda a: [py(os.path.join(HERE, "batches", "run_tests.py"), "--kdir", a.kcache,
                        "--cache", a.cache, "-m", a.batches_m, "-j", str(min(a.jobs, 2)))]),
    Suite("kernel-patches", "full", "kernel-patches/: checkpatch --strict, KUnit in a boot",
          lambda a: [kernel_test(a, "patches-check")]),
    Suite("kernel", "full", "killdemo booted as written and as converted",
          lambda a: [kernel_test(a, "--fresh-boot", "check")]),
    Suite("boot-fi", "full", "real drivers converted, their failure paths run under lockdep/kmemleak",
          lambda a: [py(os.path.join(HERE, "kernel", "bootfi.py"), "--kcache", a.kcache,
                        "--build-dir", a.boot_fi_build_dir, "--jobs", str(a.kernel_jobs),
                        "--fresh-boot", "check")]),
    Suite("readme", "full", "every README command as written, through make, on 6.1",
          lambda a: [py(os.path.join(HERE, "readme", "run_tests.py"), "--kdir", a.kcache,
                        "-j", str(min(a.jobs, 2)), *only(a))]),
]


def run_suite(suite: Suite, args: argparse.Namespace) -> tuple[int, int, float]:
    """Run a suite's commands; (passed, failed, seconds)."""
    passed = failed = 0
    t0 = time.time()
    for cmd in suite.commands(args):
        proc = subprocess.Popen(cmd, cwd=TOP, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace")
        assert proc.stdout is not None
        out = []
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            out.append(line)
        rc = proc.wait()
        counts = summary_counts("".join(out))
        if counts is None:
            # A command that tells only by its status counts once.
            if rc:
                print(f"FAIL: {suite.name}: `{' '.join(cmd)}` exited {rc}")
            passed, failed = passed + (rc == 0), failed + (rc != 0)
            continue
        passed += counts[0]
        failed += counts[1] + (1 if rc and not counts[1] else 0)
    return passed, failed, time.time() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suites", nargs="*", help="suite names (see --list)")
    ap.add_argument("--tier", choices=["fast", "all"], help="fast: the inner loop; all: make check")
    ap.add_argument("--list", action="store_true", help="list the suites")
    ap.add_argument("--unittest", metavar="DIR", help=argparse.SUPPRESS)
    cache = os.path.expanduser("~/.cache/killable")
    ap.add_argument("--cache", default=cache)
    ap.add_argument("--kcache", default=os.path.join(cache, "linux-6.1"))
    ap.add_argument("--kdir", default=None, help="the tree the audit tests use (default: --kcache)")
    ap.add_argument("--spatch", default="spatch")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--kernel-build-dir", default=os.path.join(cache, "build-kernel"))
    ap.add_argument("--kernel-jobs", type=int, default=2)
    ap.add_argument("--boot-fi-build-dir", default=os.path.join(cache, "build-boot-fi"))
    ap.add_argument("--batches-m", default="drivers/misc/mei")
    ap.add_argument("-k", default="", help="rules, cli, audit, readme: only the cases or tests matching this")
    ap.add_argument("--update", action="store_true", help="rules: rewrite .res/.stdout")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.kdir = args.kdir or args.kcache

    if args.unittest:
        tally = Tally()
        run_unittests(args.unittest, tally)
        return tally.finish()
    if args.list:
        for s in SUITES:
            print(f"{s.name:16} {s.tier:5} {s.what}")
        return 0
    by_name = {s.name: s for s in SUITES}
    unknown = [n for n in args.suites if n not in by_name]
    if unknown:
        ap.error(f"unknown suite {', '.join(unknown)} (see --list)")
    chosen = [by_name[n] for n in args.suites]
    if args.tier:
        chosen += [s for s in SUITES if (args.tier == "all" or s.tier == "fast")
                   and s not in chosen]
    if not chosen:
        ap.error("name suites or give --tier")

    rows = []
    for s in chosen:
        if len(chosen) > 1:
            print(f"== {s.name}", flush=True)
        rows.append((s.name, *run_suite(s, args)))
    if len(chosen) > 1:
        print("\nsuite             passed  failed   seconds")
        for name, p, f, sec in rows:
            print(f"{name:16} {p:7} {f:7} {sec:9.0f}")
    passed, failed = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"total: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
