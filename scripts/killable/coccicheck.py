#!/usr/bin/env python3
"""Run the killable rules over a kernel tree, as `make coccicheck` does.

Same variables and meanings as the kernel's scripts/coccicheck (MODE, M, J,
COCCI, SPFLAGS, V), but per-rule output is merged and sorted, so a run with
--jobs reads the same as a serial one, and a rule that finds nothing in patch
mode is not an error.
"""

from __future__ import annotations

import argparse
import glob
import os
import shlex
import subprocess
import sys
import tempfile

from killable import paths, spatch
from killable.paths import TOP


def die(msg: str) -> "NoReturn":  # type: ignore[name-defined]
    print(f"coccicheck: {msg}", file=sys.stderr)
    sys.exit(2)


def check_tree(kdir: str) -> None:
    if not os.path.isdir(kdir):
        die(f"{kdir}: no such directory (set KDIR to a kernel tree)")
    if not (os.path.isfile(os.path.join(kdir, "Makefile")) and
            os.path.isdir(os.path.join(kdir, "include", "linux"))):
        die(f"{kdir}: not a kernel tree (no Makefile and include/linux)")


def run_rule(args: argparse.Namespace, cocci: str) -> tuple[str, str, int]:
    requires = spatch.rule_requires(cocci)
    if requires and not spatch.satisfies(spatch.version(args.spatch), requires):
        return "", f"skipping {cocci}: needs spatch {requires}\n", 0
    where: list[str] = []
    if os.path.isdir(os.path.join(args.kdir, ".git")):
        where.append("--use-gitgrep")
    target = args.m or "."
    where += ["--dir", target] if os.path.isdir(os.path.join(args.kdir, target)) else [target]
    if args.mode == "patch":
        # Paths relative to the tree, as a/ and b/, so `git apply` takes the diff.
        where += ["--patch", "."]
    cmd = spatch.command(args.spatch, cocci, args.mode, options=spatch.rule_options(cocci),
                         reach=os.path.abspath(args.reach) if args.reach else "",
                         jobs=args.jobs, timeout=args.timeout, args=where,
                         spflags=shlex.split(args.spflags))
    if args.verbose:
        print(" ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    env = paths.module_env()
    proc = subprocess.run(cmd, cwd=args.kdir, capture_output=True, text=True, env=env)
    rc = proc.returncode
    if rc == 255 and "No rules apply" in proc.stderr:
        rc = 0
    return proc.stdout, proc.stderr, rc


def sort_report(text: str) -> list[str]:
    return sorted({ln for ln in text.splitlines() if ln.strip()}, key=spatch.location_key)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kdir", required=True)
    ap.add_argument("--mode", default="report", choices=["patch", "report", "context", "org"])
    ap.add_argument("-m", "--m", default="", help="subdirectory or file, relative to KDIR")
    ap.add_argument("--cocci", nargs="*", default=[], help="rule files (default: all of cocci/)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=200)
    ap.add_argument("--reach", default="", help="cross-file reachability TSV from make audit")
    ap.add_argument("--spflags", default="")
    ap.add_argument("--spatch", default="spatch")
    ap.add_argument("--out", default="", help="write here (atomically) instead of stdout")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.kdir = os.path.abspath(args.kdir)
    check_tree(args.kdir)
    if args.m and not os.path.exists(os.path.join(args.kdir, args.m)):
        die(f"M={args.m}: not found in {args.kdir}")
    rules = args.cocci or sorted(glob.glob(os.path.join(TOP, "cocci", "*.cocci")))
    rules = [os.path.abspath(r) for r in rules]
    chunks: list[str] = []
    failed = 0
    for cocci in rules:
        if args.verbose:
            with open(cocci, encoding="utf-8") as f:
                print("".join(l[3:] for l in f if l.startswith("///")), file=sys.stderr)
        out, err, rc = run_rule(args, cocci)
        for line in err.splitlines():
            if line.strip() and not line.startswith("warning:"):
                print(f"{os.path.basename(cocci)}: {line}", file=sys.stderr)
        if rc:
            print(f"coccicheck: {os.path.basename(cocci)}: spatch exited {rc}", file=sys.stderr)
            failed += 1
        chunks.append(out)
    if args.mode in ("report", "org") and args.mode == "report":
        text = "\n".join(sort_report("\n".join(chunks)))
        text = text + "\n" if text else ""
    else:
        text = "".join(chunks)
    if args.out:
        d = os.path.dirname(os.path.abspath(args.out))
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".coccicheck.")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, args.out)
    else:
        sys.stdout.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
