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
         and a regression on real code fails.

corpus.tsv has one line per site (see FIELDS); the review column is `safe`,
`unsafe: <class>` or `doubtful: <why>`; evidence is file:line.  check fails
when a converted site's review is not `safe`, when its hunk changed or is
missing, and when a site it left alone is converted now.  A site that is no
longer converted passes (leaving a site alone never costs precision).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "scripts"))
from killable import agree, paths, spatch  # noqa: E402

sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import Tally  # noqa: E402

CORPUS = os.path.join(HERE, "corpus.tsv")
REACH = os.path.join(HERE, "reach.tsv")
FIELDS = ["file", "line", "function", "primitive", "verdict", "hunk", "review", "evidence"]


def read_corpus(path: str = CORPUS) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as f:
        rows = [r for r in csv.DictReader((ln for ln in f if not ln.startswith("#")),
                                          delimiter="\t")]
    return rows


def write_corpus(rows: list[dict[str, str]], header: str, path: str = CORPUS) -> None:
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(header)
        w = csv.DictWriter(f, FIELDS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})
    os.replace(path + ".tmp", path)


def run_rules(kdir: str, files: list[str], reach: str, mode: str, jobs: int) -> str:
    """The combined rules over files (one file a group), as the audit runs them."""
    with tempfile.TemporaryDirectory(prefix="killable-precision-") as wd:
        combined = os.path.join(wd, "all.cocci")
        subprocess.run(paths.module_cmd("rules") + ["--combined", combined], check=True)
        groups = os.path.join(wd, "groups")
        with open(groups, "w", encoding="utf-8") as f:
            f.write("\n\n".join(files) + "\n")
        cmd = spatch.command("spatch", combined, mode, options=spatch.rule_options(combined),
                             reach=reach, jobs=jobs, tmp_dir=wd, timeout=200,
                             args=["--file-groups", groups])
        env = paths.module_env()
        env["KILLABLE_REACH"] = reach
        p = subprocess.run(cmd, cwd=kdir, env=env, capture_output=True, text=True,
                           errors="replace")
        if p.returncode not in (0, 255):
            raise SystemExit(f"precision: spatch exited {p.returncode}: {p.stderr[-500:]}")
        return p.stdout


def hunks_by_site(diff: str) -> dict[tuple[str, int], str]:
    """(file, old line) -> the hunk's changed lines, for every line a hunk covers."""
    out: dict[tuple[str, int], str] = {}
    cur = ""
    for block in re.split(r"(?m)^(?=diff -u -p |--- )", diff):
        m = re.search(r"(?m)^--- (?:a/)?(\S+)", block)
        if m:
            cur = m.group(1)
        for h in re.finditer(r"(?ms)^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@[^\n]*\n(.*?)(?=^@@ |\Z)",
                             block):
            start, count = int(h.group(1)), int(h.group(2) or 1)
            changed = "\n".join(ln for ln in h.group(3).split("\n") if ln[:1] in "+-")
            for line in range(start, start + count):
                out[(cur, line)] = changed
    return out


def hunk_digest(text: str) -> str:
    """A hunk's changed lines, hashed (trailing newlines do not count)."""
    text = text.strip("\n")
    return hashlib.sha256(text.encode()).hexdigest()[:12] if text else ""


def normalize(path: str, files: list[str]) -> str:
    """A diff's path (with spatch's a/ b/ prefixes or not) as a corpus path."""
    for f in files:
        if path == f or path.endswith("/" + f):
            return f
    return path


def site_results(kdir: str, files: list[str], reach: str, jobs: int
                 ) -> tuple[dict[tuple[str, int], str], dict[tuple[str, int], str]]:
    report = run_rules(kdir, files, reach, "report", jobs)
    verdicts: dict[tuple[str, int], str] = {}
    for line in report.splitlines():
        r = spatch.parse_report_line(line)
        if r:
            verdicts[(normalize(r.file, files), r.line)] = r.verdict
    diff = run_rules(kdir, files, reach, "patch", jobs)
    hunks = {(normalize(f, files), ln): h for (f, ln), h in hunks_by_site(diff).items()}
    # As the audit and coccicheck do: what patch mode cannot make is manual.
    for key, v in verdicts.items():
        if v == "converted" and not hunks.get(key, "").strip():
            verdicts[key] = agree.downgrade(v, key[1], agree.PatchResult())
    return verdicts, hunks


def draw(args: argparse.Namespace) -> int:
    """Draw sites for review; with --append, new ones beside the corpus's."""
    old = read_corpus() if args.append else []
    have = {(r["file"], r["line"]) for r in old}
    with open(os.path.join(args.reports, "sites.csv"), encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["verdict"] == "convertible"
                and (r["file"], r["line"]) not in have]
    rows.sort(key=lambda r: (r["file"], int(r["line"])))
    picked = random.Random(args.seed).sample(rows, min(args.n, len(rows)))
    picked.sort(key=lambda r: (r["file"], int(r["line"])))
    files = sorted({r["file"] for r in picked} | {r["file"] for r in old})
    with open(os.path.join(args.reports, "reach.tsv"), encoding="utf-8") as f:
        lines = [ln for ln in f if ln.split("\t", 1)[0] in set(files)]
    with open(REACH, "w", encoding="utf-8") as f:
        f.write(f"# reach lines of the corpus files, from {args.reports}/reach.tsv\n")
        f.writelines(lines)
    verdicts, hunks = site_results(args.kdir, files, REACH, args.jobs)
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
        f"{args.reports}/sites.csv (sorted by file, line; sites already here left out).\n")
    write_corpus(old + out, header)
    print(f"precision: drew {len(out)} sites from {len({r['file'] for r in picked})} files; "
          f"hunks in {args.hunks}")
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
    """The corpus, and what the rules say now of its sites."""
    rows = read_corpus()
    verdicts, hunks = site_results(args.kdir, sorted({r["file"] for r in rows}), REACH,
                                   args.jobs)
    return rows, verdicts, hunks


def update(args: argparse.Namespace) -> int:
    rows, verdicts, hunks = corpus_results(args)
    again = 0
    for r in rows:
        key = (r["file"], int(r["line"]))
        v = verdicts.get(key, "(no report line)")
        h = hunk_digest(hunks.get(key, ""))
        if v == "converted" and (r["verdict"] != "converted" or h != r["hunk"]):
            r["review"] = ""
            again += 1
        r["verdict"], r["hunk"] = v, h if v == "converted" else ""
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
        elif v != r["verdict"] and args.verbose:
            # Leaving a site alone never hurts precision; make update records it.
            print(f"note: {where}: now {v!r}")
        tally.check(where, not problems, "; ".join(problems), note=v)
    return tally.finish()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kdir", default=os.path.expanduser("~/.cache/killable/linux-6.1"))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="draw sites for a new review")
    d.add_argument("--reports", required=True, help="an audit's reports/<tree> directory")
    d.add_argument("-n", type=int, default=150)
    d.add_argument("--seed", type=int, default=20261204)
    d.add_argument("--hunks", default=os.path.join(TOP, "tests", "out", "precision"))
    d.add_argument("--append", action="store_true", help="keep the corpus, add new sites")
    m = sub.add_parser("merge", help="take reviews into the corpus")
    m.add_argument("reviews", nargs="+")
    sub.add_parser("update", help="take the rules' new verdicts; changed hunks need review")
    c = sub.add_parser("check", help="the recorded sites keep their reviewed verdicts")
    c.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(args.kdir):
        print(f"precision: {args.kdir}: no such directory (make deps)", file=sys.stderr)
        return 2
    if args.cmd != "draw" and not os.path.exists(CORPUS):
        print(f"precision: {CORPUS}: no corpus (precision.py draw makes one)", file=sys.stderr)
        return 2
    return {"draw": draw, "merge": merge, "update": update, "check": check}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
