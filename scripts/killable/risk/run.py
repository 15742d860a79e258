#!/usr/bin/env python3
"""python3 -m killable risk: rank every sleep site of a tree by hang risk.

Prints the sites the risk scan found by kind and risk.  --out writes them as
TSV, --locks every lock with its critical sections' verdict, --query shows
one site.  --validate treats the tree's own killable calls (chosen by kernel
developers) as their uninterruptible twins and prints the fraction of them
ranked high, beside the fraction of all syscall-reachable lock sites ranked
high: the first should be high, the second not, if the ranking finds what
people found without calling everything a risk.  --sites ranks the sites of
an audit's sites.json instead of the scan's own list for the second number.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections import Counter

from killable import cli, data as tables
from killable.paths import DATA_DIR
from killable.risk import analysis as risk_analysis
from killable.risk.analysis import Analysis, LOCK_FAMILIES, Site

HUMAN_GOAL = 0.80
ALL_GOAL = 0.50


def reached(a: Analysis, rel: str, func: str) -> bool:
    nid = a.res.graph.node(rel, func)
    return nid is not None and a.res.sys.reached(nid)


def human_sites(a: Analysis) -> list[Site]:
    """The killable calls of the tree: the twins of primitives.tsv."""
    twins = {p.twin for p in tables.load_primitives().values()}
    return sorted((s for s in a.sites.values() if s.prim in twins),
                  key=lambda s: (s.rel, s.line, s.prim))


def reachable_lock_sites(a: Analysis, sites_json: str = "") -> list[tuple[str, str, str]]:
    """(risk, site, evidence) of every uninterruptible lock site a system call
    reaches: the scan's own sites, or those of an audit's sites.json."""
    prims = tables.load_primitives()
    fam = {p.name: p.family for p in prims.values()}
    out = []
    if sites_json:
        with open(sites_json, encoding="utf-8") as f:
            recs = json.load(f)["sites"]
        for r in recs:
            if fam.get(r["primitive"]) in LOCK_FAMILIES and r.get("chain"):
                risk, ev = a.rank(r["file"], r["line"], r["primitive"])
                out.append((risk, f"{r['file']}:{r['line']} {r['primitive']}", ev))
        return out
    for s in a.sites.values():
        if fam.get(s.prim) in LOCK_FAMILIES and reached(a, s.rel, s.func):
            out.append((s.risk, f"{s.rel}:{s.line} {s.prim}", s.evidence))
    return out


def fraction(n: int, d: int) -> str:
    return f"{n}/{d} = {100.0 * n / d:.1f}%" if d else "0/0"


def validate(a: Analysis, sites_json: str = "", out=sys.stdout) -> tuple[float, float]:
    human = human_sites(a)
    h_high = sum(1 for s in human if s.risk == "high")
    by = Counter((s.kind, s.risk) for s in human)
    allr = reachable_lock_sites(a, sites_json)
    a_high = sum(1 for r, _s, _e in allr if r == "high")
    fh = h_high / len(human) if human else 0.0
    fa = a_high / len(allr) if allr else 0.0
    print(f"human-chosen killable sites ranked high: {fraction(h_high, len(human))} "
          f"(locks {by['lock', 'high']}/{sum(v for k, v in by.items() if k[0] == 'lock')}, "
          f"waits {by['wait', 'high']}/{sum(v for k, v in by.items() if k[0] == 'wait')})",
          file=out)
    print(f"syscall-reachable lock sites ranked high: {fraction(a_high, len(allr))} "
          f"({'audit sites.json' if sites_json else 'the risk scan'}; "
          f"{Counter(r for r, _s, _e in allr)['low']} low, "
          f"{Counter(r for r, _s, _e in allr)['unknown']} unknown)", file=out)
    met = fh >= HUMAN_GOAL and fa <= ALL_GOAL
    print(f"goal (>= {HUMAN_GOAL:.0%} of human-chosen high, <= {ALL_GOAL:.0%} of all): "
          f"{'met' if met else 'NOT met'}", file=out)
    return fh, fa


def site_rows(a: Analysis) -> list[str]:
    rows = []
    for s in sorted(a.sites.values(), key=lambda s: (s.rel, s.line, s.prim)):
        rows.append("\t".join([s.rel, str(s.line), s.func, s.prim, s.kind, s.identity,
                               s.risk, s.evidence.replace("\t", " ")]))
    return rows


def lock_rows(a: Analysis) -> list[str]:
    rows = []
    for ident in sorted(a.sections):
        secs = a.sections[ident]
        risk, ev = a.lock_risk.get(ident, ("", ""))
        rows.append("\t".join([ident, risk or ("unknown" if any(x.escapes for x in secs)
                                               else "low"),
                               str(len(secs)), str(len({(x.rel, x.func) for x in secs})),
                               ev.replace("\t", " ")]))
    return rows


def main() -> int:
    ap = cli.parser(__doc__.split("\n\n")[0])
    ap.add_argument("--kdir", default=os.path.expanduser("~/.cache/killable/linux-6.1"))
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/killable"))
    ap.add_argument("-j", "--jobs", type=cli.positive_int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--table", default=os.path.join(DATA_DIR, "long-sleeps.tsv"),
                    help="the long-sleep table (default cocci/data/long-sleeps.tsv)")
    ap.add_argument("--depth", type=int, default=risk_analysis.MAX_DEPTH,
                    help="calls below a holder's call that still count as sleeping long "
                         f"(default {risk_analysis.MAX_DEPTH})")
    ap.add_argument("--ignore-class", action="append", default=[], metavar="CLASS",
                    help="do not count long sleeps of this class (io, usb, wait, ...)")
    ap.add_argument("--out", help="write every site: file, line, function, primitive, kind, "
                                  "lock or queue, risk, evidence (TSV)")
    ap.add_argument("--locks", help="write every lock: identity, risk, sections, functions, "
                                    "evidence (TSV)")
    ap.add_argument("--validate", action="store_true",
                    help="the fraction of the tree's killable calls ranked high, and of all "
                         "syscall-reachable lock sites")
    ap.add_argument("--sites", default="", help="an audit's sites.json: the lock sites for "
                                                 "--validate's second fraction")
    ap.add_argument("--human-out", help="with --validate: each killable call, its risk and "
                                        "evidence (TSV)")
    ap.add_argument("--sample", type=int, default=0, metavar="N",
                    help="print N random syscall-reachable low lock verdicts (for review)")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--query", action="append", default=[], metavar="FILE:LINE",
                    help="print the risk of the sites at this line")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.kdir, "include", "linux")):
        print(f"risk: error: {args.kdir} is not a kernel tree", file=sys.stderr)
        return 2
    if args.sites and not os.path.isfile(args.sites):
        print(f"risk: error: {args.sites}: no such file", file=sys.stderr)
        return 2
    try:
        tables.load_long_sleeps(args.table)
    except (OSError, ValueError) as e:
        print(f"risk: error: {e}", file=sys.stderr)
        return 2
    say = None if args.quiet else (lambda m: print(m, file=sys.stderr))
    a = risk_analysis.analyze(os.path.abspath(args.kdir), args.cache, args.jobs,
                              sleeps_path=args.table, progress=say,
                              ignore=frozenset(args.ignore_class), max_depth=args.depth)
    by = Counter((s.kind, s.risk) for s in a.sites.values())
    print(f"risk: {len(a.sites)} sites in {a.stats['files']} files, "
          f"{a.stats['long_functions']} functions sleep long, {a.stats['locks']} locks; "
          + ", ".join(f"{k} {r} {n}" for (k, r), n in sorted(by.items()))
          + f" ({a.stats['seconds']} s)")
    if args.out:
        risk_analysis.callgraph.atomic_write(
            args.out, "".join(r + "\n" for r in site_rows(a)))
    if args.locks:
        risk_analysis.callgraph.atomic_write(
            args.locks, "".join(r + "\n" for r in lock_rows(a)))
    for q in args.query:
        rel, _, line = q.rpartition(":")
        hits = [s for s in a.sites.values() if s.rel == rel and str(s.line) == line]
        for s in hits:
            print(f"{s.rel}:{s.line} {s.func}() {s.prim}: {s.risk} [{s.identity}] {s.evidence}")
        if not hits:
            print(f"{q}: no site")
    if args.validate:
        validate(a, args.sites)
        if args.human_out:
            risk_analysis.callgraph.atomic_write(args.human_out, "".join(
                "\t".join([s.rel, str(s.line), s.func, s.prim, s.kind, s.risk, s.evidence]) + "\n"
                for s in human_sites(a)))
    if args.sample:
        lows = sorted((r for r in reachable_lock_sites(a) if r[0] == "low"), key=lambda r: r[1])
        for r in random.Random(args.seed).sample(lows, min(args.sample, len(lows))):
            print(f"low\t{r[1]}\t{r[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
