#!/usr/bin/env python3
"""make check-readme: every command the README shows, run as written, through make.

The front door (issue 20): `make coccicheck` crashed in its default mode on
every real tree while each stage's own tests, which called the Python entry
points, stayed green.  So here each command runs through the Makefile, on
real 6.1 code (the kernel cache), and must exit 0 with output:

  make audit M=drivers/char     reports/linux-6.1-drivers_char/ (removed after)
  make hung LOG=... M=...       a hung-task trace of drivers/char mapped to its site
  make risk                     the whole 6.1 tree; and with RISK_FLAGS=--validate
  make bench FAMILIES=...       each family's spatch time on a subtree
  make bench BENCH_M=...        the audit against the kernel's coccicheck
  make boot-fi-reach REPORTS=   the boot-fi reach subset, refreshed from itself: unchanged
  make -n check-*               every check target names suites tests/run.py has

`make coccicheck` in its four modes is the smoke suite (tests/smoke_real_tree.py)
and `make batches` the batches suite; the first test here fails when the
README shows a `make` target that no test runs.  Also: `python3 -m killable
--help` and each command's `--help` exit 0, an unknown command exits 2 with
one line, and a make variable given a wrong value is one line on stderr
(besides make's own `Error 2`), never a usage dump or a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, os.path.join(TOP, "tests"))
from killable import COMMANDS, paths, spatch  # noqa: E402
from harness import Skip, Tally, collect, expect  # noqa: E402

# Every make target the README shows -> the suite or test here that runs it.
COVERED = {
    "deps": "every suite (make check depends on deps)",
    "check": ".ci/run",
    "coccicheck": "smoke (tests/smoke_real_tree.py), cli",
    "audit": "test_make_audit_subdir",
    "hung": "test_make_hung",
    "risk": "test_make_risk",
    "bench": "test_make_bench",
    "batches": "batches (tests/batches/run_tests.py)",
    "boot-fi-reach": "test_make_boot_fi_reach",
    "rules": "generated (tests/rule_headers.py)",
    "kernel-patches-check": "test_make_check_targets (the suite is kernel-patches)",
}
HPET_TRACE = os.path.join(TOP, "tests", "audit", "traces", "hpet-ioctl.txt")


class Ctx:
    def __init__(self, kdir: str, tmp: str, jobs: int) -> None:
        self.kdir = kdir
        self.tmp = tmp
        self.jobs = jobs


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                          stdin=subprocess.DEVNULL, **kw)


def make(ctx: Ctx, *args: str) -> subprocess.CompletedProcess:
    """A README command: `make TARGET VAR=...` in the checkout, on the 6.1 cache."""
    return run(["make", "-s", "--no-print-directory", "-C", TOP, *args,
                f"KDIR={ctx.kdir}"])


def said(p: subprocess.CompletedProcess) -> str:
    return f"rc={p.returncode} stderr={p.stderr.strip()[-800:]!r} stdout={p.stdout[-300:]!r}"


def need_tree(ctx: Ctx) -> None:
    if not os.path.isdir(os.path.join(ctx.kdir, "include", "linux")):
        raise Skip(f"no 6.1 tree at {ctx.kdir}")


def readme_targets() -> set[str]:
    """The make targets the README shows: its command lines and its table."""
    with open(os.path.join(TOP, "README.md"), encoding="utf-8") as f:
        text = f.read()
    found = set(re.findall(r"^ {4}make ([a-z][\w-]*)", text, re.M))
    found |= set(re.findall(r"^\| `make ([a-z][\w-]*)", text, re.M))
    return found


def test_every_readme_command_has_a_test(ctx: Ctx) -> None:
    missing = sorted(t for t in readme_targets()
                     if t not in COVERED and not t.startswith("check"))
    expect(not missing, f"README shows make targets no test runs: {missing}")


def test_make_check_targets(ctx: Ctx) -> None:
    """Each `make check-*` the README shows runs tests/run.py with suites it has."""
    listed = run([sys.executable, os.path.join(TOP, "tests", "run.py"), "--list"]).stdout
    suites = {ln.split()[0] for ln in listed.splitlines() if ln.strip()}
    bad = []
    for target in sorted(t for t in readme_targets()
                         if t.startswith("check") or t == "kernel-patches-check"):
        p = run(["make", "-n", "--no-print-directory", "-C", TOP, target])
        calls = [ln for ln in p.stdout.splitlines() if "tests/run.py" in ln]
        if p.returncode or not calls:
            bad.append(f"{target}: make -n exited {p.returncode}, no tests/run.py call")
            continue
        for call in calls:
            args = call.split("tests/run.py", 1)[1].split()
            named = [a for i, a in enumerate(args) if not a.startswith("-") and
                     (i == 0 or not args[i - 1].startswith("--") or "=" in args[i - 1])
                     and re.fullmatch(r"[a-z][\w-]*", a)]
            unknown = [n for n in named if n not in suites]
            if unknown or not (named or "--tier" in args):
                bad.append(f"{target}: suites {unknown or 'none'} not in tests/run.py")
    expect(not bad, "; ".join(bad))


def test_python_help(ctx: Ctx) -> None:
    p = run([sys.executable, "-m", "killable", "--help"], env=paths.module_env())
    expect(p.returncode == 0 and all(c in p.stdout for c in COMMANDS),
           f"python3 -m killable --help: {said(p)}")
    bad = []
    for name in COMMANDS:
        q = run(paths.module_cmd(name) + ["--help"])
        if q.returncode or "usage:" not in q.stdout:
            bad.append(f"{name} --help: rc={q.returncode} {q.stderr.strip()[-200:]}")
    expect(not bad, "; ".join(bad))
    u = run([sys.executable, "-m", "killable", "frobnicate"], env=paths.module_env())
    expect(u.returncode == 2 and len(u.stderr.strip().splitlines()) == 1 and not u.stdout,
           f"unknown command: {said(u)}")


def one_line(p: subprocess.CompletedProcess) -> bool:
    """Exit 2, one line of ours on stderr (make adds its `Error 2`), no
    usage dump and no traceback."""
    ours = [ln for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith("make")]
    return (p.returncode == 2 and len(ours) == 1 and "Traceback" not in p.stderr
            and not ours[0].startswith("usage:"))


def test_wrong_make_variables(ctx: Ctx) -> None:
    """A make variable a user can get wrong: one clear line."""
    cases = [
        ("coccicheck", "MODE=fix", "M=drivers/char/mwave"),
        ("coccicheck", "J=many", "M=drivers/char/mwave"),
        ("coccicheck", "J=0", "M=drivers/char/mwave"),
        ("coccicheck", "M=drivers/nonexistent"),
        ("coccicheck", "COCCI=/nonexistent.cocci", "M=drivers/char/mwave"),
        ("coccicheck", "REACH=/nonexistent.tsv", "M=drivers/char/mwave"),
        ("coccicheck", "SPATCH=/nonexistent/spatch", "M=drivers/char/mwave"),
        ("audit", "J=x", "M=drivers/char/mwave"),
        ("audit", "M=drivers/nonexistent"),
        ("hung",),
        ("hung", "LOG=/nonexistent/dmesg.txt"),
        ("batches",),
        ("batches", "M=drivers/nonexistent"),
        ("bench", "FAMILIES=drivers/nonexistent"),
        ("bench", "BENCH_M=drivers/nonexistent"),
        ("risk", "J=-3"),
    ]
    bad = []
    for target, *variables in cases:
        p = make(ctx, target, *variables)
        if not one_line(p):
            bad.append(f"make {target} {' '.join(variables)}: {said(p)}")
    # A KDIR that is not a tree, for the commands that take one.
    for target in ("coccicheck", "audit", "risk", "bench"):
        p = run(["make", "-s", "--no-print-directory", "-C", TOP, target, f"KDIR={ctx.tmp}"])
        if not one_line(p):
            bad.append(f"make {target} KDIR=<not a tree>: {said(p)}")
    expect(not bad, "\n".join(bad))


def audit_reports(ctx: Ctx, sub: str) -> str:
    return os.path.join(TOP, "reports", "linux-6.1-" + sub.replace("/", "_"))


def test_make_audit_subdir(ctx: Ctx) -> None:
    """`make audit M=drivers/char`: the reports of one subtree."""
    need_tree(ctx)
    reports = audit_reports(ctx, "drivers/char")
    p = make(ctx, "audit", "M=drivers/char", f"J={ctx.jobs}", "AUDIT_FLAGS=--no-progress")
    expect(p.returncode == 0, f"make audit M=drivers/char: {said(p)}")
    for f in ("summary.md", "sites.csv", "index.html", "reach.tsv"):
        expect(os.path.getsize(os.path.join(reports, f)) > 0, f"{reports}/{f} empty or missing")
    with open(os.path.join(reports, "sites.csv"), encoding="utf-8") as f:
        rows = f.read().splitlines()
    expect(len(rows) > 100 and any(",convertible," in r or ",converted," in r for r in rows),
           f"sites.csv of drivers/char has {len(rows)} rows and no convertible site")


def test_make_hung(ctx: Ctx) -> None:
    """`make hung LOG=dmesg.txt` after that audit: hpet_ioctl's mutex."""
    need_tree(ctx)
    if not os.path.isfile(os.path.join(audit_reports(ctx, "drivers/char"), "sites.json")):
        raise Skip("needs the audit of test_make_audit_subdir")
    p = make(ctx, "hung", f"LOG={HPET_TRACE}", "M=drivers/char")
    expect(p.returncode == 0 and "hpet_ioctl" in p.stdout and "drivers/char/hpet.c" in p.stdout,
           f"make hung: {said(p)}")


def test_make_risk(ctx: Ctx) -> None:
    """`make risk` on the 6.1 cache, and the README's --validate line (its
    files into a scratch directory, not the checkout)."""
    need_tree(ctx)
    p = make(ctx, "risk", f"J={ctx.jobs}")
    expect(p.returncode == 0 and p.stdout.strip(), f"make risk: {said(p)}")
    out, locks = os.path.join(ctx.tmp, "risk.tsv"), os.path.join(ctx.tmp, "locks.tsv")
    p = make(ctx, "risk", f"J={ctx.jobs}", f"RISK_FLAGS=--validate --out {out} --locks {locks}")
    expect(p.returncode == 0 and p.stdout.strip(), f"make risk RISK_FLAGS=--validate: {said(p)}")
    for f in (out, locks):
        expect(os.path.isfile(f) and os.path.getsize(f) > 0, f"{f} not written")


def test_make_bench(ctx: Ctx) -> None:
    """`make bench` both ways, on small subtrees (the README's are minutes)."""
    need_tree(ctx)
    p = make(ctx, "bench", "FAMILIES=drivers/char/mwave,fs/proc", f"J={ctx.jobs}")
    rows = [ln for ln in p.stdout.splitlines() if "(all families)" in ln]
    expect(p.returncode == 0 and len(rows) == 2, f"make bench FAMILIES=...: {said(p)}")
    p = make(ctx, "bench", "BENCH_M=drivers/char/mwave", f"J={ctx.jobs}")
    expect(p.returncode == 0 and "baseline" in p.stdout + p.stderr,
           f"make bench BENCH_M=drivers/char/mwave: {said(p)}")


def test_make_boot_fi_reach(ctx: Ctx) -> None:
    """`make boot-fi-reach REPORTS=dir`, given the subset itself as the
    audit's reach.tsv: the refreshed subset is the committed one."""
    need_tree(ctx)
    subset = os.path.join(TOP, "tests", "kernel", "boot-fi", "reach.tsv")
    reports = os.path.join(ctx.tmp, "reports")
    os.makedirs(reports, exist_ok=True)
    shutil.copy(subset, os.path.join(reports, "reach.tsv"))
    with open(subset, encoding="utf-8") as f:
        before = f.read()
    p = make(ctx, "boot-fi-reach", f"REPORTS={reports}")
    with open(subset, encoding="utf-8") as f:
        after = f.read()
    if after != before:
        with open(subset, "w", encoding="utf-8") as f:
            f.write(before)
    expect(p.returncode == 0 and "bootfi:" in p.stdout, f"make boot-fi-reach: {said(p)}")
    expect(after == before, "the subset refreshed from itself changed: the committed subset "
           "lacks lines for files the boot-fi kernel builds")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kdir", required=True, help="the 6.1 cache")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-k", default="", help="only tests whose name has this")
    args = ap.parse_args()
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="check-readme.") as tmp:
        ctx = Ctx(os.path.abspath(args.kdir), tmp, args.jobs)
        reports = audit_reports(ctx, "drivers/char")
        existed = os.path.exists(reports)
        try:
            tally.run_all(collect(globals(), args.k), ctx)
        finally:
            if not existed:
                shutil.rmtree(reports, ignore_errors=True)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
