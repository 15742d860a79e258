#!/usr/bin/env python3
"""Run the killable rules over a kernel tree, as `make coccicheck` does.

Same variables and meanings as the kernel's scripts/coccicheck (MODE, M, J,
COCCI, SPFLAGS, V), but per-rule output is merged and sorted, so a run with
--jobs reads the same as a serial one, and a rule that finds nothing in patch
mode is not an error.  Where spatch could not parse the code (and so reports
no site), stderr says so, one line a file with the lines.  spatch runs in the
tree, so that it names files as the kernel's coccicheck does, and keeps its
temporary files in a scratch directory: the tree is only read.

With several of the project's family files (the default), patch mode runs
them as one combined rule file, so each file gets one diff that applies
(each family runs on the previous one's output), and report and org modes
check each `converted` site against patch mode (killable/agree.py): a site
patch mode cannot make is `manual: rule failed in patch mode (...)`.
"""

from __future__ import annotations

import argparse
import glob
import os
import shlex
import subprocess
import sys
import tempfile

from killable import agree, cli, paths, spatch, tree
from killable.graph import callgraph
from killable.scan import effects
from killable.paths import TOP


class UserError(Exception):
    """A one-line error for the user."""


def check_tree(kdir: str) -> None:
    if not os.path.isdir(kdir):
        raise UserError(f"{kdir}: no such directory (set KDIR to a kernel tree)")
    if not (os.path.isfile(os.path.join(kdir, "Makefile")) and
            os.path.isdir(os.path.join(kdir, "include", "linux"))):
        raise UserError(f"{kdir}: not a kernel tree (no Makefile and include/linux)")


def check_inputs(args: argparse.Namespace) -> None:
    """Every input checked before spatch runs: one line and exit 2 if wrong."""
    args.kdir = os.path.abspath(args.kdir)
    check_tree(args.kdir)
    try:
        args.m = tree.subdir(args.kdir, args.m)
    except tree.TreeError as e:
        raise UserError(str(e)) from None
    if args.files:
        if args.m:
            raise UserError("give M or a file list, not both")
        try:
            with open(args.files, encoding="utf-8") as f:
                args.files = [ln.strip() for ln in f if ln.strip()]
        except OSError as e:
            raise UserError(f"{args.files}: {e.strerror}") from None
        for rel in args.files:
            if not os.path.isfile(os.path.join(args.kdir, rel)):
                raise UserError(f"{rel}: no such file in {args.kdir}")
    rules = args.cocci or sorted(glob.glob(os.path.join(TOP, "cocci", "*.cocci")))
    for r in rules:
        if not os.path.isfile(r):
            raise UserError(f"COCCI={r}: no such rule file")
    args.cocci = [os.path.abspath(r) for r in rules]
    if args.reach:
        try:
            callgraph.check_reach_tsv(args.reach)
        except ValueError as e:
            raise UserError(f"REACH={e}") from None
        args.reach = os.path.abspath(args.reach)
    args.spflags = spatch.split_flags(args.spflags)
    args.spatch_version = spatch.version(args.spatch)
    prewarm_effects(args.kdir)


def prewarm_effects(kdir: str) -> None:
    """The tree's header summaries, computed once here rather than by each
    spatch process (killable.scan.effects); without a cache the rules
    fall back to the tables."""
    try:
        effects.ensure_table(kdir, effects.cache_dir())
    except OSError:
        pass


def run_rule(args: argparse.Namespace, cocci: str, tmp: str) -> tuple[str, str, int]:
    """One rule over the tree; spatch runs in the tree (relative names, as
    the kernel's coccicheck) but keeps its temporary files in tmp."""
    requires = spatch.rule_requires(cocci)
    if requires and not spatch.satisfies(args.spatch_version, requires):
        return "", f"skipping {cocci}: needs spatch {requires}\n", 0
    where: list[str] = []
    if args.files:
        # One spatch process parses the rules once (~4 s for the combined
        # file); one file a group, so a timeout costs that file only.
        groups = os.path.join(tmp, "groups")
        with open(groups, "w", encoding="utf-8") as f:
            f.write("\n\n".join(args.files) + "\n")
        where += ["--file-groups", groups]
    else:
        if os.path.isdir(os.path.join(args.kdir, ".git")):
            where.append("--use-gitgrep")
        target = args.m or "."
        where += ["--dir", target] if os.path.isdir(os.path.join(args.kdir, target)) else [target]
    if args.mode == "patch":
        # Paths relative to the tree, as a/ and b/, so `git apply` takes the diff.
        where += ["--patch", "."]
    # Not --very-quiet: it hides parse errors too (read_log sorts them out).
    cmd = spatch.command(args.spatch, cocci, args.mode, options=spatch.rule_options(cocci),
                         quiet=False, reach=args.reach, jobs=args.jobs, tmp_dir=tmp,
                         timeout=args.timeout, args=where, spflags=args.spflags)
    if args.verbose:
        print(" ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    env = paths.module_env()
    proc = subprocess.run(cmd, cwd=args.kdir, capture_output=True, text=True, env=env,
                          errors="replace")
    rc = proc.returncode
    if rc == 255 and "No rules apply" in proc.stderr:
        rc = 0
    return proc.stdout, proc.stderr, rc


def combined_rules(rules: list[str], tmp: str) -> str:
    """The rule file that patch mode runs (and report and org modes agree
    with) when every rule is one of the project's family files: one family
    alone, or several combined into one file in tmp (each family runs on
    the previous one's output, so a file gets one diff).  "" for anyone
    else's rules."""
    ours = os.path.join(TOP, "cocci")
    if not rules or any(os.path.dirname(c) != ours for c in rules):
        return ""
    if len(rules) == 1:
        return rules[0]
    combined = os.path.join(tmp, "killable-all.cocci")
    cmd = paths.module_cmd("rules") + ["--combined", combined]
    for r in rules:
        cmd += ["--family", os.path.splitext(os.path.basename(r))[0]]
    subprocess.run(cmd, check=True, capture_output=True)
    return combined


def sort_report(text: str) -> list[str]:
    return sorted({ln for ln in text.splitlines() if ln.strip()}, key=spatch.location_key)


def parse_error_lines(kdir: str, errors: set[tuple[str, int]]) -> list[str]:
    """One line per file of the tree where spatch could not parse: the sites
    in those functions are missing from the output."""
    by_file: dict[str, set[int]] = {}
    for path, line in errors:
        rel = os.path.relpath(path, kdir) if os.path.isabs(path) else os.path.normpath(path)
        if rel.startswith(".." + os.sep):
            continue        # spatch's own macro file, not the tree
        by_file.setdefault(rel, set()).add(line)
    return [f"coccicheck: {rel}: spatch could not parse line{'s' if len(ls) > 1 else ''} "
            f"{', '.join(map(str, sorted(ls)))}; sites in the functions there are not reported"
            for rel, ls in sorted(by_file.items())]


def main() -> int:
    ap = cli.parser(__doc__.splitlines()[0])
    ap.add_argument("--kdir", required=True)
    ap.add_argument("--mode", default="report", choices=["patch", "report", "context", "org"])
    ap.add_argument("-m", "--m", default="", help="subdirectory or file, relative to KDIR")
    ap.add_argument("--files", default="", metavar="LIST",
                    help="instead of M: the files LIST names, one a line, relative to KDIR")
    ap.add_argument("--cocci", nargs="*", default=[], help="rule files (default: all of cocci/)")
    ap.add_argument("-j", "--jobs", type=cli.positive_int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=200)
    ap.add_argument("--reach", default="", help="cross-file reachability TSV from make audit")
    ap.add_argument("--spflags", default="", help="extra spatch flags, last (--spflags=FLAGS)")
    ap.add_argument("--spatch", default="spatch")
    ap.add_argument("--out", default="", help="write here (atomically) instead of stdout")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    try:
        check_inputs(args)
    except (UserError, spatch.SpatchError) as e:
        print(f"coccicheck: {e}", file=sys.stderr)
        return 2
    chunks: list[str] = []
    failed = 0
    parse_errors: set[tuple[str, int]] = set()
    with tempfile.TemporaryDirectory(prefix="killable-coccicheck-") as tmp:
        combined = combined_rules(args.cocci, tmp)
        rules = [combined] if combined and args.mode == "patch" else args.cocci
        for cocci in rules:
            if args.verbose:
                with open(cocci, encoding="utf-8") as f:
                    print("".join(l[3:] for l in f if l.startswith("///")), file=sys.stderr)
            out, err, rc = run_rule(args, cocci, tmp)
            log = spatch.read_log(err)
            parse_errors.update(log.parse_errors)
            for line in log.other:
                print(f"{os.path.basename(cocci)}: {line}", file=sys.stderr)
            if rc:
                print(f"coccicheck: {os.path.basename(cocci)}: spatch exited {rc}",
                      file=sys.stderr)
                failed += 1
            chunks.append(out)
        if combined and args.mode in ("report", "org"):
            # While the combined rules still exist: every `converted` is a
            # site patch mode changes.
            lines = agree.agree_report(args.kdir, "\n".join(chunks).splitlines(), combined,
                                       spatch_bin=args.spatch, reach=args.reach,
                                       jobs=args.jobs, timeout=args.timeout)
            chunks = ["\n".join(lines)]
    for line in parse_error_lines(args.kdir, parse_errors):
        print(line, file=sys.stderr)
    if args.mode in ("report", "org"):
        text = "\n".join(sort_report("\n".join(chunks)))
        text = text + "\n" if text else ""
    else:
        text = "".join(chunks)
        if args.mode == "patch":
            text = agree.tidy(text)
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
