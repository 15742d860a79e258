#!/usr/bin/env python3
"""The precision corpus: real 6.1 sites, reviewed by hand, checked forever.

  draw   draw N convertible sites at random (seeded) from an audit's
         sites.csv, and write for each its hunk (patch mode with the
         audit's reach.tsv) for the reviewers, plus the reach lines of the
         drawn files (so that the check needs no whole-tree graph);
  merge  take the reviewers' files (NNN<TAB>file:line<TAB>review<TAB>
         evidence<TAB>reason, NNN the site's index in the draw) into the
         corpus;
  update rerun the rules after a change: a site no longer converted takes
         its new verdict (leaving a site alone needs no review); a converted
         site whose hunk changed loses its review and must be reviewed again;
  check  rerun the rules on the corpus files and check that every site
         still gets the verdict the review accepted and, for a converted
         site, the same hunk: a changed conversion must be reviewed again,
         and a regression on real code fails.  Also the recall corpus:
         every site reviewed as a correct refusal (class D) must still be
         left alone.
  draw-recall, merge-recall
         the same for recall.tsv: N high-risk sites the rules leave alone
         (manual or refused), drawn at random from an audit, with their
         reasons for the reviewers, who class each A (a local conversion),
         B (caller plumbing), C (cancellation or lifetime work), D (a
         correct refusal) or U (cannot tell).

corpus.tsv has one line per site (see FIELDS); the review column is `safe`,
`unsafe: <class>` or `doubtful: <why>`; evidence is file:line.  check fails
when a converted site's review is not `safe`, when its hunk changed or is
missing, when a site it left alone is converted now, and when a converted
site is no longer converted (recall lost: `update` records it on purpose).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "scripts"))
from killable import agree, spatch  # noqa: E402
from killable.audit import run as audit_run  # noqa: E402
from killable.graph import callgraph  # noqa: E402

sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import Tally  # noqa: E402

CORPUS = os.path.join(HERE, "corpus.tsv")
RECALL = os.path.join(HERE, "recall.tsv")
REACH = os.path.join(HERE, "reach.tsv")
DEFAULT_CACHE = os.path.expanduser("~/.cache/killable")
FIELDS = ["file", "line", "function", "primitive", "verdict", "hunk", "review", "evidence"]
RECALL_FIELDS = ["file", "line", "function", "primitive", "verdict", "risk", "class", "matters",
                 "evidence"]


def read_corpus(path: str = CORPUS) -> list[dict[str, str]]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        rows = [r for r in csv.DictReader((ln for ln in f if not ln.startswith("#")),
                                          delimiter="\t")]
    return rows


def write_corpus(rows: list[dict[str, str]], header: str, path: str = CORPUS,
                 fields: list[str] = FIELDS) -> None:
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(header)
        w = csv.DictWriter(f, fields, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})
    os.replace(path + ".tmp", path)


def hunk_digest(text: str) -> str:
    """A hunk's changed lines, hashed (its @@ line, context and trailing
    newlines do not count)."""
    changed = "\n".join(ln for ln in text.split("\n") if ln[:1] in "+-").strip("\n")
    return hashlib.sha256(changed.encode()).hexdigest()[:12] if changed else ""


def site_results(kdir: str, files: list[str], reach: str, jobs: int,
                 cache: str = DEFAULT_CACHE
                 ) -> tuple[dict[tuple[str, int], str], dict[tuple[str, int], str]]:
    """What the audit says of the sites of files: (file, line) -> verdict,
    and of each converted site, its hunk.  The audit's own pipeline runs
    (killable.audit.run: the pruned first pass, the family rules, patch
    mode where a site converts), with one reach file for every chunk, and
    its results are cached as the audit's are: a rerun on unchanged rules
    costs nothing."""
    os.environ["KILLABLE_CACHE"] = cache
    cfg = audit_run.run_config(kdir, cache, "spatch", os.path.join(TOP, "cocci"),
                               audit_run.rules_version(), spatch.version("spatch"), 200, [], {},
                               reach_file=reach)
    results, _stats = audit_run.run_files(cfg, sorted(set(files)), jobs, 120, progress=False)
    verdicts: dict[tuple[str, int], str] = {}
    hunks: dict[tuple[str, int], str] = {}
    for rel, res in results.items():
        for line in res.get("lines", []):
            r = spatch.parse_report_line(line)
            if r:
                # Why spatch gave up (a multi-line exception at times) is
                # the audit's to show, not the corpus's to record.
                verdicts[(rel, r.line)] = (agree.RULE_FAILED
                                           if r.verdict.startswith(agree.RULE_FAILED)
                                           else r.verdict)
        for ln, h in res.get("hunks", {}).items():
            hunks[(rel, int(ln))] = h
    return verdicts, hunks


def draw(args: argparse.Namespace) -> int:
    """Draw sites for review; with --append, new ones beside the corpus's."""
    old = read_corpus() if args.append else []
    have = {(r["file"], r["line"]) for r in old}
    if args.new_since:
        # Only the conversions a rules change added: a fresh draw of a new class.
        with open(args.new_since, encoding="utf-8") as f:
            have |= {(r["file"], r["line"]) for r in csv.DictReader(f)
                     if r["verdict"] == "convertible"}
    with open(os.path.join(args.reports, "sites.csv"), encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["verdict"] == "convertible"
                and (r["file"], r["line"]) not in have]
    rows.sort(key=lambda r: (r["file"], int(r["line"])))
    picked = random.Random(args.seed).sample(rows, min(args.n, len(rows)))
    picked.sort(key=lambda r: (r["file"], int(r["line"])))
    files = sorted({r["file"] for r in picked} | {r["file"] for r in old})
    write_reach(args.reports, picked + old + read_corpus(RECALL))
    verdicts, hunks = site_results(args.kdir, files + [r["file"] for r in read_corpus(RECALL)],
                                   REACH, args.jobs, args.cache)
    if args.update:
        # The same run's verdicts for the sites already here (update).
        again = take_new_verdicts(old, verdicts, hunks)
        print(f"precision: updated; {again} converted site(s) already here need a new review")
    out = []
    os.makedirs(args.hunks, exist_ok=True)
    for i, r in enumerate(picked, len(old)):
        key = (r["file"], int(r["line"]))
        v = verdicts.get(key, "(no report line)")
        h = hunks.get(key, "")
        out.append({"file": r["file"], "line": r["line"], "function": r["function"],
                    "primitive": r["primitive"], "verdict": v,
                    "hunk": hunk_digest(h) if v == "converted" else "",
                    "review": "", "evidence": ""})
        with open(os.path.join(args.hunks, f"{i:03d}.txt"), "w", encoding="utf-8") as f:
            f.write(f"{r['file']}:{r['line']} {r['primitive']} in {r['function']}(): {v}\n"
                    f"chain: {r['chain']}\n\n{h.strip() or '(no hunk)'}\n")
    header = (corpus_header() if old else "") + (
        f"# Sites {len(old)}-{len(old) + len(out) - 1}: {len(out)} convertible sites drawn with "
        f"random.Random({args.seed}).sample from {len(rows)} convertible sites of "
        f"{args.reports}/sites.csv (sorted by file, line; sites already here left out"
        + (f"; only sites not convertible in {args.new_since_name or args.new_since}"
           if args.new_since else "") + ").\n")
    write_corpus(old + out, header)
    print(f"precision: drew {len(out)} sites from {len({r['file'] for r in picked})} files; "
          f"hunks in {args.hunks}")
    return 0


def write_reach(reports: str, rows: list[dict]) -> None:
    """The reach lines of both corpora's files, and of the files their
    functions' callers are in, from an audit's reach.tsv (so that the check
    needs no whole-tree graph)."""
    lines = callgraph.reach_subset(os.path.join(reports, "reach.tsv"),
                                   {r["file"] for r in rows},
                                   {(r["file"], r["function"]) for r in rows})
    with open(REACH, "w", encoding="utf-8") as f:
        f.write(f"# reach lines of the corpus files, from {reports}/reach.tsv\n")
        f.writelines(lines)


def draw_recall(args: argparse.Namespace) -> int:
    """Draw high-risk sites the rules leave alone, for the refusal review."""
    old = read_corpus(RECALL)
    have = {(r["file"], r["line"]) for r in old}
    with open(os.path.join(args.reports, "sites.csv"), encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["verdict"] in ("manual", "refused")
                and r["risk"] == "high" and (r["file"], r["line"]) not in have]
    rows.sort(key=lambda r: (r["file"], int(r["line"])))
    picked = random.Random(args.seed).sample(rows, min(args.n, len(rows)))
    picked.sort(key=lambda r: (r["file"], int(r["line"])))
    os.makedirs(args.hunks, exist_ok=True)
    out = []
    for i, r in enumerate(picked, len(old)):
        out.append({"file": r["file"], "line": r["line"], "function": r["function"],
                    "primitive": r["primitive"], "verdict": f"{r['verdict']}: {r['reason']}",
                    "risk": r["risk"], "class": "", "matters": "", "evidence": ""})
        with open(os.path.join(args.hunks, f"recall-{i:03d}.txt"), "w", encoding="utf-8") as f:
            f.write(f"SITE {i}: {r['file']}:{r['line']} {r['primitive']} in {r['function']}()\n"
                    f"verdict: {r['verdict']}: {r['reason']}\nchain: {r['chain']}\n"
                    f"must-not-fail kinds: {r['mnf_kinds'] or '-'}\n"
                    f"hang risk: {r['risk']}: {r['risk_evidence']}\n")
    header = (corpus_header(RECALL) if old else
              "# Recall corpus: high-risk sites the rules leave alone, reviewed as a "
              "maintainer would (class A local conversion, B caller plumbing, C "
              "cancellation or lifetime work, D correct refusal, U cannot tell).  "
              "make check-precision fails when a D site is converted.\n") + (
        f"# Sites {len(old)}-{len(old) + len(out) - 1}: {len(out)} high-risk manual or "
        f"refused sites drawn with random.Random({args.seed}).sample from {len(rows)} such "
        f"sites of {args.reports}/sites.csv (sorted by file, line).\n")
    write_corpus(old + out, header, RECALL, RECALL_FIELDS)
    write_reach(args.reports, read_corpus() + old + out)
    print(f"precision: drew {len(out)} recall sites; briefs in {args.hunks}/recall-*.txt")
    return 0


def merge_recall(args: argparse.Namespace) -> int:
    """Reviews as `SITE n | class | matters yes/no | evidence` lines."""
    rows = read_corpus(RECALL)
    n = 0
    for path in args.reviews:
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^\W*SITE\s+(\d+)\s*\|\s*([ABCDU])\s*\|\s*matters\s+(\w+)\s*\|"
                             r"\s*(.*)$", line.strip())
                if not m:
                    continue
                r = rows[int(m.group(1))]
                r["class"], r["matters"] = m.group(2), m.group(3)
                r["evidence"] = " ".join(m.group(4).split())
                n += 1
    write_corpus(rows, corpus_header(RECALL), RECALL, RECALL_FIELDS)
    print(f"precision: merged {n} recall reviews")
    return 0


def corpus_header(path: str = CORPUS) -> str:
    with open(path, encoding="utf-8") as f:
        return "".join(ln for ln in f if ln.startswith("#"))


def merge(args: argparse.Namespace) -> int:
    rows = read_corpus()
    n = 0
    for path in args.reviews:
        with open(path, encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 3 or not cols[0].strip().isdigit():
                    continue
                i = int(cols[0])
                where = f"{rows[i]['file']}:{rows[i]['line']}"
                if cols[1].strip() and cols[1].strip() != where:
                    raise SystemExit(f"precision: {path}: site {i} is {where}, not {cols[1]}")
                rows[i]["review"] = " ".join(cols[2].split())
                rows[i]["evidence"] = " ".join(" ".join(cols[3:]).split())
                n += 1
    write_corpus(rows, corpus_header())
    print(f"precision: merged {n} reviews")
    return 0


def corpus_results(args: argparse.Namespace):
    """The corpus, and what the rules say now of its sites (and of the
    recall corpus's, in the same run)."""
    rows = read_corpus()
    files = {r["file"] for r in rows} | {r["file"] for r in read_corpus(RECALL)}
    verdicts, hunks = site_results(args.kdir, sorted(files), REACH, args.jobs, args.cache)
    return rows, verdicts, hunks


def take_new_verdicts(rows: list[dict], verdicts: dict, hunks: dict) -> int:
    """Record what the rules say now of rows; a conversion that is new or
    whose hunk changed loses its review.  Returns how many did."""
    again = 0
    for r in rows:
        key = (r["file"], int(r["line"]))
        v = verdicts.get(key, "(no report line)")
        h = hunk_digest(hunks.get(key, ""))
        if v == "converted" and (r["verdict"] != "converted" or h != r["hunk"]):
            r["review"] = ""
            again += 1
        r["verdict"], r["hunk"] = v, h if v == "converted" else ""
    return again


def update(args: argparse.Namespace) -> int:
    rows, verdicts, hunks = corpus_results(args)
    again = take_new_verdicts(rows, verdicts, hunks)
    write_corpus(rows, corpus_header())
    print(f"precision: updated; {again} converted site(s) need a new review")
    return 0


def check(args: argparse.Namespace) -> int:
    rows, verdicts, hunks = corpus_results(args)
    tally = Tally("precision", quiet=not args.verbose)
    for r in rows:
        key = (r["file"], int(r["line"]))
        where = f"{r['file']}:{r['line']} {r['function']}()"
        v = verdicts.get(key, "(no report line)")
        h = hunk_digest(hunks.get(key, ""))
        problems = []
        review = r["review"]
        if v == "converted":
            # A conversion is only as good as its review.
            if r["verdict"] != "converted":
                problems.append(f"now converted, recorded {r['verdict']!r}: review the hunk")
            elif h != r["hunk"]:
                problems.append(f"hunk changed ({h or 'none'} != {r['hunk']}): review it again")
            elif not review.startswith("safe"):
                problems.append(f"converted, but the review says {review or 'nothing'}")
            if not h:
                problems.append("reported converted but patch mode made no hunk")
        elif r["verdict"] == "converted":
            # Leaving a site alone never hurts precision, but a reviewed
            # conversion lost is recall lost: say so, and record it on
            # purpose (precision.py update) or fix the rules.
            problems.append(f"conversion lost, now {v!r} (precision.py update records it)")
        elif v != r["verdict"] and args.verbose:
            print(f"note: {where}: now {v!r}")
        tally.check(where, not problems, "; ".join(problems), note=v)
    for r in read_corpus(RECALL):
        if r["class"] != "D":
            continue
        v = verdicts.get((r["file"], int(r["line"])), "(no report line)")
        tally.check(f"recall D {r['file']}:{r['line']} {r['function']}() stays left alone",
                    v != "converted", f"converted now; the review said: {r['evidence']}",
                    note=v)
    return tally.finish()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kdir", default=os.path.expanduser("~/.cache/killable/linux-6.1"))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cache", default=DEFAULT_CACHE,
                    help="where the rule files and the results are cached (as make audit's)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="draw sites for a new review")
    d.add_argument("--reports", required=True, help="an audit's reports/<tree> directory")
    d.add_argument("-n", type=int, default=150)
    d.add_argument("--new-since", default="", metavar="SITES_CSV",
                   help="draw only sites not convertible in this older sites.csv")
    d.add_argument("--new-since-name", default="", help="how the header names that file")
    d.add_argument("--seed", type=int, default=20261204)
    d.add_argument("--hunks", default=os.path.join(TOP, "tests", "out", "precision"))
    d.add_argument("--append", action="store_true", help="keep the corpus, add new sites")
    d.add_argument("--update", action="store_true",
                   help="with --append: also take the rules' new verdicts for the corpus's sites")
    m = sub.add_parser("merge", help="take reviews into the corpus")
    m.add_argument("reviews", nargs="+")
    sub.add_parser("update", help="take the rules' new verdicts; changed hunks need review")
    dr = sub.add_parser("draw-recall", help="draw high-risk sites left alone for review")
    dr.add_argument("--reports", required=True, help="an audit's reports/<tree> directory")
    dr.add_argument("-n", type=int, default=60)
    dr.add_argument("--seed", type=int, default=20261205)
    dr.add_argument("--hunks", default=os.path.join(TOP, "tests", "out", "precision"))
    mr = sub.add_parser("merge-recall", help="take refusal reviews into recall.tsv")
    mr.add_argument("reviews", nargs="+")
    c = sub.add_parser("check", help="the recorded sites keep their reviewed verdicts")
    c.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(args.kdir):
        print(f"precision: {args.kdir}: no such directory (make deps)", file=sys.stderr)
        return 2
    if args.cmd not in ("draw", "draw-recall") and not os.path.exists(CORPUS):
        print(f"precision: {CORPUS}: no corpus (precision.py draw makes one)", file=sys.stderr)
        return 2
    return {"draw": draw, "merge": merge, "update": update, "check": check,
            "draw-recall": draw_recall, "merge-recall": merge_recall}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
