#!/usr/bin/env python3
"""Write the audit reports from a result (audit.py's or merged shards').

reports/<tree>/
  summary.md    totals by verdict and family, versions, parse failures,
                per-subsystem and per-driver tables, the 30 busiest drivers
  sites.csv     one row a site, the columns README.md documents
  sites.json    {"tree", "rules_version", "spatch_version", "sites": [...]}
  index.html    one self-contained page: subsystem and driver bars by verdict,
                a paged, sortable, filterable table of the sites and each
                site's chains and reason; its state is in the URL hash
  results.json  the whole result (per-file status, parse errors, sites)

Every file is written to a temporary name and renamed, so a reader never
sees half a report.  Nothing here depends on time or on run order.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import os
import re
import sys
import zlib
from collections import Counter, defaultdict
from collections.abc import Sequence

from killable.graph.callgraph import atomic_open, atomic_write
from killable.risk import analysis as risk_analysis
from killable import cli

VERDICTS = ["convertible", "manual", "refused", "not on a syscall path"]
COLUMNS = ["file", "line", "col", "function", "primitive", "family", "verdict", "reason",
           "needs", "root_kinds", "chain", "mnf_kinds", "subsystem", "driver", "risk", "risk_evidence",
           "lock"]
# Hang risk (killable.risk), the last three columns; "" when the audit ran with --no-risk.
RISK_COLUMNS = list(risk_analysis.RISK_COLUMNS)
RISKS = ["high", "low", "unknown", ""]
COLORS = {"convertible": "#2e7d32", "manual": "#f9a825", "refused": "#c62828",
          "not on a syscall path": "#9e9e9e"}


def all_sites(data: dict) -> list[dict]:
    out = []
    for rel in sorted(data["files"]):
        out.extend(data["files"][rel]["sites"])
    out.sort(key=lambda s: (s["file"], s["line"], s["col"], s["primitive"]))
    for s in out:       # a result from before the risk stage
        for k in RISK_COLUMNS:
            s.setdefault(k, "")
    return out


def totals(data: dict) -> dict:
    sites = all_sites(data)
    files = data["files"]
    by_v = Counter(s["verdict"] for s in sites)
    return {"files": len(files), "sites": len(sites),
            "by_verdict": {v: by_v.get(v, 0) for v in VERDICTS if by_v.get(v, 0)},
            "parse_error_files": sum(1 for r in files.values() if r["parse_errors"]),
            "parse_errors": sum(r["parse_errors"] for r in files.values()),
            "failed_files": sum(1 for r in files.values()
                                if r["status"] in ("timeout", "crash"))}


def table(header: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(x) for x in r) + " |")
    return out


def summary_md(data: dict) -> str:
    sites = all_sites(data)
    t = totals(data)
    files = data["files"]
    lines = [f"# killable audit: {data['tree']}", ""]
    left = data.get("not_audited") or []
    if left:
        lines += [f"**Incomplete:** {len(left)} of {data.get('candidates', len(left))} candidate "
                  "files were not audited in this run (it stopped at its time budget); their "
                  "sites are missing below.  `make audit` again resumes from the cache.", ""]
    # Only what the tree, the code and spatch decide: no rules version (it
    # changes with any edit of the rules' code; results.json and sites.json
    # have it) and nothing that depends on the caches, so that rerunning an
    # audit leaves the committed summary.md as it was.
    lines += [f"- spatch version: {data['spatch_version']}",
              *([f"- source: `{data['source']}`"] if data.get("source") else []),
              f"- subtree: {data['subdir'] or '(whole tree)'}",
              f"- candidate files: {t['files']}; sites: {t['sites']}",
              f"- files with parse errors: {t['parse_error_files']} "
              f"({t['parse_errors']} parse errors; sites inside an unparsed function "
              "are not seen: no match is not clean)",
              f"- files timed out or crashed: {t['failed_files']}",
              f"- call graph: {data['graph'].get('functions', 0)} functions, "
              f"{data['graph'].get('edges', 0)} edges, "
              f"{data['graph'].get('syscall_reachable', 0)} reachable from "
              f"{data['graph'].get('syscall_roots', 0)} syscall roots, "
              f"{data['graph'].get('mnf_reachable', 0)} from "
              f"{data['graph'].get('mnf_roots', 0)} must-not-fail roots", ""]
    lines += ["## By verdict", ""]
    by_v = Counter(s["verdict"] for s in sites)
    lines += table(["verdict", "sites"], [[v, by_v.get(v, 0)] for v in VERDICTS])
    needs = Counter(s["needs"] for s in sites if s["verdict"] == "convertible" and s.get("needs"))
    if needs:
        lines += ["", "Convertible sites whose killable form comes from one of our kernel "
                  "patches (`needs` in sites.csv; `make batches` puts the patch first in "
                  "their series):", ""]
        lines += table(["needs", "sites"], [[f"`kernel-patches/{n}`", c]
                                            for n, c in sorted(needs.items())])
    lines += ["", "## By family", ""]
    fam: dict[str, Counter] = defaultdict(Counter)
    for s in sites:
        fam[s["family"]][s["verdict"]] += 1
    lines += table(["family"] + VERDICTS + ["total"],
                   [[f] + [fam[f].get(v, 0) for v in VERDICTS] + [sum(fam[f].values())]
                    for f in sorted(fam)])

    def group(key: str) -> dict[str, Counter]:
        g: dict[str, Counter] = defaultdict(Counter)
        for s in sites:
            g[s[key]][s["verdict"]] += 1
        return g

    lines += ["", "## Top 30 drivers by convertible + manual sites", ""]
    drv = group("driver")
    top = sorted(drv, key=lambda d: (-(drv[d]["convertible"] + drv[d]["manual"]), d))[:30]
    lines += table(["driver", "convertible", "manual", "refused", "not on a syscall path"],
                   [[f"`{d}`"] + [drv[d].get(v, 0) for v in VERDICTS] for d in top
                    if drv[d]["convertible"] + drv[d]["manual"]])
    lines += risk_md(sites)
    lines += ["", "## By subsystem", ""]
    sub = group("subsystem")
    lines += table(["subsystem"] + VERDICTS + ["total"],
                   [[f"`{k}`"] + [sub[k].get(v, 0) for v in VERDICTS] + [sum(sub[k].values())]
                    for k in sorted(sub)])
    lines += ["", "## By driver (directory)", ""]
    lines += table(["driver"] + VERDICTS + ["total"],
                   [[f"`{k}`"] + [drv[k].get(v, 0) for v in VERDICTS] + [sum(drv[k].values())]
                    for k in sorted(drv)])
    bad = sorted((rel, r) for rel, r in files.items()
                 if r["parse_errors"] or r["status"] in ("timeout", "crash", "skipped"))
    lines += ["", "## Files spatch did not fully see", ""]
    if bad:
        lines += table(["file", "status", "parse errors", "first error lines", "sites"],
                       [[f"`{rel}`", r["status"], r["parse_errors"],
                         ", ".join(str(x) for x in r["parse_error_lines"][:5]),
                         len(r["sites"])] for rel, r in bad])
    else:
        lines.append("None.")
    unread = data.get("unreadable") or []
    if unread:
        lines += ["", "## Files that could not be read", "",
                  f"{len(unread)} `.c`/`.h` files are dangling or looping symlinks, or "
                  "unreadable: they are left out of the call graph and the audit.", ""]
        lines += [f"- `{rel}`" for rel in unread]
    return "\n".join(lines) + "\n"


SOURCE_LINE = re.compile(r"^- source: `(.+)`$", re.M)


def recorded_source(outdir: str) -> str:
    """The source (tree.source) a reports directory was written from, "" if
    none is recorded there (no reports, or reports from before it was)."""
    try:
        with open(os.path.join(outdir, "summary.md"), encoding="utf-8") as f:
            m = SOURCE_LINE.search(f.read())
    except OSError:
        return ""
    return m.group(1) if m else ""


def risk_md(sites: list[dict]) -> list[str]:
    """Sites by hang risk, and the drivers ranked by high-risk sites."""
    if not sites:
        return []
    if not any(s.get("risk") for s in sites):
        return ["", "## Hang risk", "", "Not computed (the audit ran with --no-risk)."]
    by: dict[str, Counter] = defaultdict(Counter)
    for s in sites:
        by[s.get("risk") or "not computed"][s["verdict"]] += 1
    lines = ["", "## Hang risk", "",
             "`high`: some holder of the lock sleeps long while holding it, or the wake-up "
             "depends on hardware, another process, user space or the network; `low`: every "
             "holder found does short work, or a short timeout bounds the wait; `unknown`: "
             "holders or wakers not found.  The evidence is in `sites.csv` (`risk_evidence`); "
             "`python3 -m killable risk` explains the ranking.", ""]
    lines += table(["risk"] + VERDICTS + ["total"],
                   [[r] + [by[r].get(v, 0) for v in VERDICTS] + [sum(by[r].values())]
                    for r in RISKS + ["not computed"] if by.get(r)])
    drv: dict[str, Counter] = defaultdict(Counter)
    for s in sites:
        if s.get("risk") == "high" and s["verdict"] in ("convertible", "manual"):
            drv[s["driver"]][s["verdict"]] += 1
    top = sorted(drv, key=lambda d: (-(drv[d]["convertible"] + drv[d]["manual"]), d))[:30]
    lines += ["", "## Top 30 drivers by high-risk convertible + manual sites", ""]
    lines += table(["driver", "high-risk convertible", "high-risk manual", "total"],
                   [[f"`{d}`", drv[d]["convertible"], drv[d]["manual"],
                     drv[d]["convertible"] + drv[d]["manual"]] for d in top])
    return lines


def sites_csv(sites: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for s in sites:
        w.writerow(s)
    return buf.getvalue()


# ---------------------------------------------------------------- index.html
#
# The page carries the sites as integer columns into sorted string tables:
# sorted, so sorting the page by a column is sorting its integers.  Columns
# are fixed-width base-64 text, string tables are front-coded, a chain is a
# list of function-name numbers and a reason that quotes a chain refers to it.
# For linux-6.1's 29,244 sites that is ~2 MB where JSON objects took 10 MB.

B64 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
CHAIN_SEP = " -> "
# The chain a reason quotes: "reachable from must-not-fail root work (a -> b)".
REASON_CHAIN = re.compile(r"\(([A-Za-z_][\w.]*(?: -> [A-Za-z_][\w.]*)*)\)")
PAGE_ROWS = 100


def pack(values: Sequence[int]) -> list:
    """[width, text]: each value as `width` base-64 digits, most significant first."""
    width = 1
    while max(values, default=0) >= 64 ** width:
        width += 1
    digits = [B64[i >> 6] + B64[i & 63] for i in range(4096)]
    out = []
    for v in values:
        if v < 0:
            raise ValueError(f"pack: negative {v}")
        s = ""
        for _ in range((width + 1) // 2):
            s = digits[v & 4095] + s
            v >>= 12
        out.append(s[-width:])
    return [width, "".join(out)]


def front(strings: list[str]) -> list[str]:
    """Front coding of a sorted list: each entry is one base-64 digit, the
    length of the prefix it shares with the one before (at most 63), then
    the rest of it."""
    out, prev = [], ""
    for s in strings:
        k = min(len(os.path.commonprefix([prev, s])), 63)
        out.append(B64[k] + s[k:])
        prev = s
    return out


def split_reason(reason: str) -> tuple[str, str]:
    """(template, chain): the last chain the reason quotes becomes \\x01."""
    last = None
    if "\x01" not in reason:
        for last in REASON_CHAIN.finditer(reason):
            pass
    if not last:
        return reason, ""
    return reason[:last.start(1)] + "\x01" + reason[last.end(1):], last.group(1)


def page_data(sites: list[dict]) -> dict:
    """The sites as the page's script reads them (see the comment above)."""
    def table(values) -> tuple[list, dict]:
        t = sorted(set(values))
        return t, {v: i for i, v in enumerate(t)}

    files, fi = table((s["file"], s["driver"], s["subsystem"]) for s in sites)
    drivers, di = table(s["driver"] for s in sites)
    subs, si = table(s["subsystem"] for s in sites)
    prims, pi = table((s["primitive"], s["family"]) for s in sites)
    fams, fa = table(s["family"] for s in sites)
    kinds, ki = table([s["root_kinds"] for s in sites] + [s["mnf_kinds"] for s in sites])
    # A conversion that needs one of our kernel patches says so where a
    # verdict's reason stands (sites.csv has it in its own column).
    why = [s["reason"] or (f"needs kernel-patches/{s['needs']}" if s.get("needs") else "")
           for s in sites]
    reasons, ri = table(why)
    split = [split_reason(r) for r in reasons]
    tmpls, ti = table(t for t, _ in split)
    chains, ci = table([""] + [s["chain"] for s in sites] + [s["mnf_chain"] for s in sites]
                       + [c for _, c in split])
    names, ni = table([s["function"] for s in sites]
                      + [n for c in chains if c for n in c.split(CHAIN_SEP)])
    toks = [[ni[n] for n in c.split(CHAIN_SEP)] if c else [] for c in chains]
    locks, li = table(s.get("lock", "") for s in sites)
    # What only an opened site shows, its risk evidence and its hunk (1.8 MB
    # and 1 MB as text on linux-6.1), goes in compressed and is unpacked
    # the first time a site is opened.
    evidence, ei = table(s.get("risk_evidence", "") for s in sites)
    hunks, hi = table([""] + [s.get("hunk", "") for s in sites])
    lazy = json.dumps({"evidence": evidence, "hunks": hunks}, separators=(",", ":"))
    f = [fi[(s["file"], s["driver"], s["subsystem"])] for s in sites]
    fd = all(b >= a for a, b in zip(f, f[1:]))
    cols = {
        "f": [b - a for a, b in zip([0] + f, f)] if fd else f,
        "l": [s["line"] for s in sites], "c": [s["col"] for s in sites],
        "n": [ni[s["function"]] for s in sites],
        "p": [pi[(s["primitive"], s["family"])] for s in sites],
        "v": [VERDICTS.index(s["verdict"]) for s in sites],
        "r": [ri[w] for w in why],
        "k": [ki[s["root_kinds"]] for s in sites], "m": [ki[s["mnf_kinds"]] for s in sites],
        "ch": [ci[s["chain"]] for s in sites], "mc": [ci[s["mnf_chain"]] for s in sites],
        "rk": [RISKS.index(s.get("risk", "")) if s.get("risk", "") in RISKS else 3
               for s in sites],
        "lk": [li[s.get("lock", "")] for s in sites],
        "re": [ei[s.get("risk_evidence", "")] for s in sites],
        "hk": [hi[s.get("hunk", "")] for s in sites]}
    return {
        "n": len(sites), "fDelta": fd, "cols": {k: pack(v) for k, v in cols.items()},
        "files": front([x[0] for x in files]), "fileDrv": pack([di[x[1]] for x in files]),
        "fileSub": pack([si[x[2]] for x in files]),
        "drivers": front(drivers), "subs": subs,
        "prims": [p for p, _ in prims], "primFam": pack([fa[x] for _, x in prims]),
        "fams": fams, "kinds": kinds, "names": front(names),
        "chainLen": pack([len(t) for t in toks]), "chainTok": pack([n for t in toks for n in t]),
        "tmpls": front(tmpls), "reasonT": pack([ti[t] for t, _ in split]),
        "reasonC": pack([ci[c] for _, c in split]), "locks": front(locks),
        "lazy": base64.b64encode(zlib.compress(lazy.encode(), 9)).decode()}


ELIXIR = "https://elixir.bootlin.com/linux/v{version}/source/{{file}}#L{{line}}"


def line_links(data: dict) -> dict:
    """Where a site's line can be read: a released kernel's (the tree's
    `make kernelversion`, no local version) on Elixir.  A distribution's
    source (Debian's carries its own patches) or a local tree may differ
    in a few files; the link's title says which release it shows."""
    ver = data.get("kernelversion", "")
    if not re.fullmatch(r"\d+\.\d+(?:\.\d+)?", ver):
        return {}
    if ver.endswith(".0") and ver.count(".") == 2:
        ver = ver[:-2]
    return {"lineUrl": ELIXIR.format(version=ver), "lineSource": f"v{ver} on elixir.bootlin.com"}


def checkout_rules_version() -> str:
    """The rules version of the code checked out now ("" if it cannot be
    read): a page from an older audit says that its verdicts may be stale."""
    try:
        from killable.audit.run import rules_version  # run.py imports this module
        return rules_version()
    except (ImportError, OSError):
        return ""


def index_html(data: dict, checkout_rules: str | None = None) -> str:
    """The page; `checkout_rules` stands in for the checkout's rules version."""
    sites = all_sites(data)
    t = totals(data)
    rules = data["rules_version"]
    now = checkout_rules_version() if checkout_rules is None else checkout_rules
    stale = ""
    if now and now != rules.split("+")[0]:
        stale = (f'<div class="stale" id="stale">The rules checked out now are '
                 f'<code>{html.escape(now)}</code>, not the <code>{html.escape(rules)}</code> '
                 "this audit ran with: verdicts may have changed since. "
                 "<code>make audit</code> refreshes this report.</div>")
    left = len(data.get("not_audited") or [])
    meta = (f'rules <code id="rules">{html.escape(rules)}</code> &middot; spatch '
            f'{html.escape(data["spatch_version"])} &middot; '
            f'{html.escape(data["subdir"] or "whole tree")} &middot; {t["files"]} files &middot; '
            f'{t["sites"]} sites &middot; {t["parse_error_files"]} files with parse errors '
            f'&middot; {t["failed_files"]} timed out or crashed'
            + (f' &middot; <b>incomplete: {left} files not audited</b>' if left else ""))
    blob = dict(page_data(sites), verdicts=VERDICTS, colors=[COLORS[v] for v in VERDICTS],
                pageRows=PAGE_ROWS, risks=RISKS, **line_links(data))
    js = json.dumps(blob, separators=(",", ":")).replace("<", "\\u003c")
    parts = {"TREE": html.escape(data["tree"]), "META": meta, "STALE": stale, "DATA": js,
             "FAMILIES": "".join(f'<option value="{html.escape(f)}">{html.escape(f)}</option>'
                                 for f in blob["fams"])}
    return re.sub(r"%(TREE|META|STALE|FAMILIES|DATA)%", lambda m: parts[m.group(1)], PAGE)


PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>killable audit: %TREE%</title>
<style>
* { box-sizing: border-box; }
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #f6f7f9; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
header { padding: 10px 16px 8px; background: #fff; border-bottom: 1px solid #ddd; }
h1 { font-size: 18px; margin: 0 0 2px; }
h2 { font-size: 13px; margin: 0; }
.meta { color: #555; }
.stale { margin-top: 6px; padding: 4px 8px; background: #fff4e0; border: 1px solid #f0c36d;
  border-radius: 3px; color: #6b3d00; display: inline-block; }
#note { margin: 8px 16px 0; padding: 6px 10px; background: #fff8c4; border: 1px solid #e0cd5f;
  border-radius: 3px; display: flex; gap: 10px; align-items: baseline; }
#note[hidden] { display: none; }
#note ul { margin: 0; padding-left: 18px; flex: 1; }
button { font: inherit; cursor: pointer; }
#note button { border: 0; background: none; font-size: 16px; line-height: 1; }
main { padding: 10px 16px 30px; }
#drill { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; }
.panel.wide { grid-column: 1 / -1; }
.bar .hi { color: #a32020; font-weight: 600; }
pre.hunk { margin: 0; padding: 6px 8px; background: #fff; border: 1px solid #e3e3e3; overflow-x: auto;
  font: 12px/1.35 ui-monospace, "DejaVu Sans Mono", monospace; white-space: pre; }
pre.hunk span { display: block; }
pre.hunk .add { color: #1b5e20; background: #e8f5e9; }
pre.hunk .del { color: #b71c1c; background: #ffebee; }
pre.hunk .at { color: #6a1b9a; }
.panel { background: #fff; border: 1px solid #ddd; border-radius: 4px; min-width: 0; }
.panel h2 { padding: 6px 10px; border-bottom: 1px solid #eee; display: flex; gap: 8px;
  align-items: baseline; }
.panel h2 .hint { font-weight: normal; color: #777; margin-left: auto; font-size: 12px; }
.bars { max-height: 214px; overflow-y: auto; padding: 3px 0; contain: content; }
/* Only the dozen bars in view are laid out: a keystroke redraws hundreds. */
.bars .bar { content-visibility: auto; contain-intrinsic-size: auto 16px; }
.bar { display: grid; grid-template-columns: minmax(0, 40%) minmax(0, 1fr) 56px; gap: 8px;
  align-items: center; width: 100%; padding: 1px 10px; border: 0; background: none;
  text-align: left; color: inherit; }
.bar:hover, .bar:focus-visible { background: #eef3fb; outline: none; }
.bar.sel { background: #dce7f8; font-weight: 600; }
.bar .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.track { display: flex; height: 12px; background: #f1f1f1; }
.track i { display: block; height: 100%; min-width: 1px; }
.bar .n { text-align: right; color: #444; font-variant-numeric: tabular-nums; }
.empty { color: #777; padding: 8px 10px; }
#controls { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; margin: 12px 0 6px; }
.chip { border: 1px solid #bbb; background: #fff; border-radius: 14px; padding: 2px 10px 2px 7px;
  color: #222; }
.chip[aria-pressed="true"] { border-color: #1a4fa0; background: #e3ecfa; }
.chip[aria-pressed="false"].dim { opacity: .55; }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 5px;
  vertical-align: -1px; }
#filter { width: 320px; font: inherit; padding: 3px 7px; }
select { font: inherit; padding: 2px 4px; }
#where { display: flex; gap: 14px; align-items: center; margin: 2px 0 6px; }
#count { color: #444; margin-left: auto; }
.pager { display: inline-flex; gap: 4px; align-items: center; margin-left: auto; }
#count + .pager { margin-left: 0; }
.pager button { border: 1px solid #bbb; background: #fff; border-radius: 3px; padding: 1px 8px; }
.pager button:disabled { opacity: .4; cursor: default; }
#crumbs { color: #555; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#crumbs a, .det a { color: #1a4fa0; cursor: pointer; text-decoration: none; }
#crumbs a:hover, .det a:hover { text-decoration: underline; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; background: #fff;
  border: 1px solid #ddd; }
th, td { padding: 3px 6px; text-align: left; vertical-align: top; border-bottom: 1px solid #eee;
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
th { background: #eef0f3; cursor: pointer; user-select: none; position: sticky; top: 0;
  z-index: 1; border-bottom: 1px solid #ccc; }
th.asc::after { content: " \25B2"; font-size: 10px; } th.desc::after { content: " \25BC"; font-size: 10px; }
td.reason { white-space: normal; }
td.reason div { display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical;
  overflow: hidden; }
td.line { text-align: right; font-variant-numeric: tabular-nums; }
td .dir { color: #777; }
tr.site { cursor: pointer; }
tr.site:hover, tr.site:focus { background: #f5f8fd; outline: none; }
tr.site.sel { background: #dce7f8; }
.mnf { color: #a32020; }
td.risk.r-high { color: #a32020; font-weight: 600; }
tr.detail > td { white-space: normal; background: #fbfcfe; padding: 8px 12px 12px;
  border-bottom: 2px solid #9db7e0; }
.det { display: grid; grid-template-columns: 150px minmax(0, 1fr); gap: 5px 12px; }
.det > b { color: #555; font-weight: 600; }
.chain { margin: 0; padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 2px 0; }
.chain li { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.chain li + li::before { content: "\2192"; color: #888; padding: 0 6px; }
.chain li:last-child a { font-weight: 700; }
#loose { margin-bottom: 8px; background: #fff; border: 1px solid #9db7e0; padding: 8px 12px; }
#loose[hidden] { display: none; }
</style></head><body>
<header>
<h1>killable audit: %TREE%</h1>
<div class="meta">%META%</div>
%STALE%
</header>
<div id="note" role="status" hidden><ul></ul><button type="button" title="dismiss" id="note-x">&times;</button></div>
<main>
<noscript><p>This page needs JavaScript; summary.md and sites.csv beside it hold the same sites.</p></noscript>
<section id="drill">
 <div class="panel"><h2>Subsystems <span class="hint">sites by verdict; click one for its drivers</span></h2>
  <div class="bars" id="subs"></div></div>
 <div class="panel"><h2 id="drv-title">Drivers</h2><div class="bars" id="drvs"></div></div>
 <div class="panel wide"><h2 id="lock-title">Locks and wait queues <span class="hint">ranked by hang risk:
  acquisitions ranked high first; click one for its acquisitions</span></h2><div class="bars" id="locks"></div></div>
</section>
<div id="controls">
 <span id="chips"></span>
 <label>family <select id="family"><option value="">all</option>%FAMILIES%</select></label>
 <label title="hang risk: high when a holder of the lock sleeps long, or the wake-up depends on hardware, another process, user space or the network">risk <select id="risk"><option value="">all</option><option value="high">high</option><option value="low">low</option><option value="unknown">unknown</option></select></label>
 <input id="filter" type="search" placeholder="filter: words in file, function, chain, reason&hellip;"
  aria-label="filter" autocomplete="off" spellcheck="false">
</div>
<div id="where"><nav id="crumbs"></nav><span id="count"></span><span class="pager" id="pager"></span></div>
<div id="loose" hidden></div>
<table id="sites">
<colgroup><col style="width:22%"><col style="width:5%"><col style="width:15%"><col style="width:12%">
<col style="width:12%"><col style="width:6%"><col style="width:8%"><col style="width:20%"></colgroup>
<thead><tr><th data-col="file">file</th><th data-col="line">line</th><th data-col="function">function</th>
<th data-col="primitive">primitive</th><th data-col="verdict">verdict</th><th data-col="risk">risk</th>
<th data-col="root_kinds" title="syscall root kinds; must-not-fail kinds in red">roots</th>
<th data-col="reason">reason</th></tr></thead>
<tbody></tbody></table>
<div style="display:flex;margin-top:6px"><span class="pager" id="pager2"></span></div>
</main>
<script id="data" type="application/json">%DATA%</script>
<script>
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('data').textContent);
  var K = window.killable = {renders: 0, firstRender: 0, lastKeyMs: 0, lastComputeMs: 0, keyAt: 0};
  var B64 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_';
  var AV = new Int32Array(128), i, k;
  for (i = 0; i < 64; i++) AV[B64.charCodeAt(i)] = i;
  function unpack(p) {
    var w = p[0], s = p[1], n = s.length / w, out = new Int32Array(n), j = 0;
    for (var i = 0; i < n; i++) {
      var v = 0;
      for (var k = 0; k < w; k++) v = v * 64 + AV[s.charCodeAt(j++)];
      out[i] = v;
    }
    return out;
  }
  function unfront(a) {
    var out = new Array(a.length), prev = '';
    for (var i = 0; i < a.length; i++) {
      prev = prev.slice(0, AV[a[i].charCodeAt(0)]) + a[i].slice(1);
      out[i] = prev;
    }
    return out;
  }
  // ---- the sites: integer columns into sorted string tables
  var N = D.n, C = {};
  for (k in D.cols) C[k] = unpack(D.cols[k]);
  if (D.fDelta) for (i = 1; i < N; i++) C.f[i] += C.f[i - 1];
  var FILES = unfront(D.files), FDRV = unpack(D.fileDrv), FSUB = unpack(D.fileSub);
  var DRVS = unfront(D.drivers), SUBS = D.subs, PRIMS = D.prims, PFAM = unpack(D.primFam);
  var FAMS = D.fams, KINDS = D.kinds, NAMES = unfront(D.names), TMPLS = unfront(D.tmpls);
  var RT = unpack(D.reasonT), RC = unpack(D.reasonC);
  var VERD = D.verdicts, COLORS = D.colors, ROWS = D.pageRows, RISKS = D.risks;
  var LOCKS = unfront(D.locks), LINE_URL = D.lineUrl || '';
  var CLEN = unpack(D.chainLen), CTOK = unpack(D.chainTok), COFF = new Int32Array(CLEN.length + 1);
  for (i = 0; i < CLEN.length; i++) COFF[i + 1] = COFF[i] + CLEN[i];
  var SITE_DRV = new Int32Array(N), SITE_SUB = new Int32Array(N), SITE_FAM = new Int32Array(N);
  for (i = 0; i < N; i++) {
    SITE_DRV[i] = FDRV[C.f[i]]; SITE_SUB[i] = FSUB[C.f[i]]; SITE_FAM[i] = PFAM[C.p[i]];
  }
  var DRV_SUB = new Int32Array(DRVS.length);
  for (i = 0; i < FILES.length; i++) DRV_SUB[FDRV[i]] = FSUB[i];
  function chainNames(c) {
    var out = [];
    for (var j = COFF[c]; j < COFF[c + 1]; j++) out.push(NAMES[CTOK[j]]);
    return out;
  }
  function chainText(c) { return chainNames(c).join(' -> '); }
  function reasonText(r) {
    var t = TMPLS[RT[r]];
    return t.indexOf('\u0001') < 0 ? t : t.split('\u0001').join(chainText(RC[r]));
  }
  function indexOf(arr) { var m = Object.create(null); arr.forEach(function (x, i) { m[x] = i; }); return m; }
  var VI = indexOf(VERD), FI = indexOf(FAMS), SI = indexOf(SUBS), DI = indexOf(DRVS), LI = indexOf(LOCKS);
  // What only an opened site shows (risk evidence, hunk) is unpacked the
  // first time one is opened: DecompressionStream, then a render.
  var LAZY = null, lazyWait = null;
  function withLazy(then) {
    if (LAZY) return;
    if (!lazyWait) {
      var bin = atob(D.lazy), bytes = new Uint8Array(bin.length);
      for (var b = 0; b < bin.length; b++) bytes[b] = bin.charCodeAt(b);
      lazyWait = new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate')))
        .text().then(function (t) { LAZY = JSON.parse(t); });
    }
    lazyWait.then(then);
  }
  // sort keys: every table is sorted, so a column's integers sort as its text
  var KEYS = {file: null, line: C.l, col: C.c, 'function': C.n, primitive: C.p, family: SITE_FAM,
    verdict: C.v, risk: C.rk, reason: C.r, root_kinds: C.k, mnf_kinds: C.m, chain: C.ch, mnf_chain: C.mc,
    subsystem: SITE_SUB, driver: SITE_DRV, lock: C.lk};
  var perms = {};
  function permFor(col) {
    if (perms[col]) return perms[col];
    var p = new Int32Array(N), key = KEYS[col];
    for (var i = 0; i < N; i++) p[i] = i;
    if (key) p.sort(function (a, b) { return key[a] - key[b] || a - b; });
    return (perms[col] = p);
  }
  // ---- text filter: each word must occur in some column
  var LOW = null;
  function lowTables() {
    if (LOW) return LOW;
    function lc(s) { return s.toLowerCase(); }
    var chains = [], reasons = [];
    for (var c = 0; c < CLEN.length; c++) chains.push(chainText(c).toLowerCase());
    for (var r = 0; r < RT.length; r++) reasons.push(reasonText(r).toLowerCase());
    return (LOW = {f: FILES.map(lc), n: NAMES.map(lc), p: PRIMS.map(lc), fam: FAMS.map(lc),
      v: VERD.map(lc), k: KINDS.map(lc), s: SUBS.map(lc), d: DRVS.map(lc), ch: chains, r: reasons,
      lk: LOCKS.map(lc)});
  }
  function hits(arr, w) {
    var out = new Uint8Array(arr.length);
    for (var i = 0; i < arr.length; i++) if (arr[i].indexOf(w) >= 0) out[i] = 1;
    return out;
  }
  // Each word narrows the one before, and a typed word only grows: the
  // query before this keystroke gives a mask to start from, not zero.
  var lastWords = [], lastMasks = [];
  function wordMask(w, base) {
    var L = lowTables();
    var f = hits(L.f, w), n = hits(L.n, w), p = hits(L.p, w), fam = hits(L.fam, w),
      v = hits(L.v, w), kk = hits(L.k, w), s = hits(L.s, w), d = hits(L.d, w),
      ch = hits(L.ch, w), r = hits(L.r, w), lk = hits(L.lk, w), digits = /^\d+$/.test(w);
    var out = new Uint8Array(N);
    for (var i = 0; i < N; i++) {
      if (base && !base[i]) continue;
      var fi = C.f[i];
      out[i] = f[fi] | n[C.n[i]] | p[C.p[i]] | fam[SITE_FAM[i]] | v[C.v[i]] | kk[C.k[i]] |
        kk[C.m[i]] | s[FSUB[fi]] | d[FDRV[fi]] | ch[C.ch[i]] | ch[C.mc[i]] | r[C.r[i]] | lk[C.lk[i]] |
        (digits && String(C.l[i]).indexOf(w) >= 0 ? 1 : 0);
    }
    return out;
  }
  function textMask(q) {
    var words = q.toLowerCase().split(/\s+/).filter(Boolean), masks = [], k = 0;
    while (k < words.length && k < lastWords.length && words[k] === lastWords[k]) masks.push(lastMasks[k++]);
    var base = k ? masks[k - 1] : null;
    for (var j = k; j < words.length; j++) {
      // a site that holds the longer word holds the shorter one too
      var from = j === k && j < lastWords.length && words[j].indexOf(lastWords[j]) >= 0 ? lastMasks[j] : base;
      base = wordMask(words[j], from);
      masks.push(base);
    }
    lastWords = words; lastMasks = masks;
    return base;
  }
  // ---- state, kept in the URL hash
  var COLS = Object.keys(KEYS);
  var DEF = {subsystem: '', driver: '', lock: '', verdict: [], family: '', risk: '', filter: '', sort: 'file',
    dir: 'asc', page: 1, site: -1};
  var ORDER = ['subsystem', 'driver', 'lock', 'verdict', 'family', 'risk', 'filter', 'sort', 'dir', 'page', 'site'];
  var state = {}, notes = [];
  function siteKey(i) { return FILES[C.f[i]] + ':' + C.l[i] + ':' + C.c[i]; }
  function findSite(key) {
    var m = /^(.*):(\d+):(\d+)$/.exec(key) || /^(.*):(\d+)$/.exec(key);
    if (!m) return -1;
    var line = +m[2], col = m[3] === undefined ? -1 : +m[3];
    for (var i = 0; i < N; i++)
      if (C.l[i] === line && (col < 0 || C.c[i] === col) && FILES[C.f[i]] === m[1]) return i;
    return -1;
  }
  function readHash() {
    var s = {}, h = location.hash.replace(/^#/, ''), vs;
    for (var k in DEF) s[k] = DEF[k];
    notes = [];
    h.split('&').forEach(function (kv) {
      if (!kv) return;
      var j = kv.indexOf('='), key = dec(j < 0 ? kv : kv.slice(0, j)), v = j < 0 ? '' : dec(kv.slice(j + 1));
      if (key === 'verdict') {
        vs = [];
        v.split(',').forEach(function (x) {
          var y = x.replace(/[-_]/g, ' ').trim();
          if (!y) return;
          if (y in VI) { if (vs.indexOf(y) < 0) vs.push(y); }
          else notes.push('Unknown verdict \u201c' + x + '\u201d: showing ' + (vs.length ? 'the others.' : 'all verdicts.'));
        });
        s.verdict = vs.length === VERD.length ? [] : vs;
      } else if (key === 'risk') {
        if (RISKS.indexOf(v) >= 0) s.risk = v; else notes.push('Unknown risk \u201c' + v + '\u201d: showing every risk.');
      } else if (key === 'family') {
        if (v in FI || !v) s.family = v; else notes.push('Unknown family \u201c' + v + '\u201d: showing all families.');
      } else if (key === 'subsystem') {
        if (v in SI || !v) s.subsystem = v; else notes.push('No subsystem \u201c' + v + '\u201d in this audit: showing all subsystems.');
      } else if (key === 'driver') {
        if (v in DI || !v) s.driver = v; else notes.push('No driver \u201c' + v + '\u201d in this audit: showing all drivers.');
      } else if (key === 'lock') {
        if (v in LI && v) s.lock = v; else if (v) notes.push('No lock or queue \u201c' + v + '\u201d in this audit: showing every lock.');
      } else if (key === 'filter') {
        s.filter = v;
      } else if (key === 'sort') {
        if (COLS.indexOf(v) >= 0) s.sort = v; else notes.push('Cannot sort by \u201c' + v + '\u201d: sorted by file.');
      } else if (key === 'dir') {
        if (v === 'asc' || v === 'desc') s.dir = v; else notes.push('Sort direction \u201c' + v + '\u201d is not asc or desc: ascending.');
      } else if (key === 'page') {
        if (/^\d+$/.test(v) && +v >= 1) s.page = +v; else notes.push('Page \u201c' + v + '\u201d is not a page number: page 1.');
      } else if (key === 'site') {
        var i = findSite(v);
        if (i >= 0) s.site = i; else notes.push('No site \u201c' + v + '\u201d (file:line:col) in this audit.');
      } else {
        notes.push('Ignored \u201c' + key + '\u201d: not a setting of this page.');
      }
    });
    if (s.driver) {
      var sub = SUBS[DRV_SUB[DI[s.driver]]];
      if (s.subsystem && s.subsystem !== sub)
        notes.push('Driver ' + s.driver + ' is in subsystem ' + sub + ', not ' + s.subsystem + '.');
      s.subsystem = sub;
    }
    state = s;
  }
  function dec(x) { try { return decodeURIComponent(x.replace(/\+/g, ' ')); } catch (e) { return x; } }
  function enc(x) { return encodeURIComponent(x).replace(/%2F/g, '/').replace(/%3A/g, ':').replace(/%2C/g, ','); }
  function hashOf(s) {
    var parts = [];
    ORDER.forEach(function (k) {
      var v = s[k];
      if (k === 'verdict') v = v.join(',');
      if (k === 'site') v = v < 0 ? '' : siteKey(v);
      if (v === DEF[k] || v === '') return;
      parts.push(k + '=' + enc(String(v)));
    });
    return parts.length ? '#' + parts.join('&') : location.pathname + location.search;
  }
  var seenHash = null;   // the hash the page shows: a hashchange to it is no news
  function writeHash(push) {
    var h = hashOf(state);
    if (h.charAt(0) !== '#' ? location.hash : h !== location.hash)
      history[push ? 'pushState' : 'replaceState'](null, '', h);
    seenHash = location.hash;
  }
  // ---- filtering and counting
  var rows = new Int32Array(N), nrows = 0, reveal = false;
  var SUBV = new Int32Array(SUBS.length * 4), DRVV = new Int32Array(DRVS.length * 4), CHIP = new Int32Array(4);
  var LOCKV = new Int32Array(LOCKS.length * 4), LOCKH = new Int32Array(LOCKS.length), HIGH = RISKS.indexOf('high');
  var computed = '';
  function compute() {
    var sig = [state.sort, state.dir, state.filter, state.verdict.join(','), state.family, state.risk,
      state.subsystem, state.driver, state.lock].join('\u0000');
    if (sig === computed) return;
    var t0 = performance.now();
    computed = sig;
    var perm = permFor(state.sort), desc = state.dir === 'desc', tm = state.filter.trim() ? textMask(state.filter) : null;
    var vmask = 0;
    state.verdict.forEach(function (v) { vmask |= 1 << VI[v]; });
    if (!vmask) vmask = 15;
    var rsk = state.risk ? RISKS.indexOf(state.risk) : -1;
    var fam = state.family ? FI[state.family] : -1, sub = state.subsystem ? SI[state.subsystem] : -1,
      drv = state.driver ? DI[state.driver] : -1, lck = state.lock ? LI[state.lock] : -1;
    SUBV.fill(0); DRVV.fill(0); CHIP.fill(0); LOCKV.fill(0); LOCKH.fill(0); nrows = 0;
    for (var j = 0; j < N; j++) {
      var i = desc ? perm[N - 1 - j] : perm[j];
      if ((tm && !tm[i]) || (fam >= 0 && SITE_FAM[i] !== fam) || (rsk >= 0 && C.rk[i] !== rsk)) continue;
      var v = C.v[i], s = SITE_SUB[i], d = SITE_DRV[i], l = C.lk[i];
      var place = (sub < 0 || s === sub) && (drv < 0 || d === drv), here = place && (lck < 0 || l === lck);
      if (here) CHIP[v]++;
      if (!(vmask >> v & 1)) continue;
      SUBV[s * 4 + v]++; DRVV[d * 4 + v]++;
      if (place) { LOCKV[l * 4 + v]++; if (C.rk[i] === HIGH && v !== 3) LOCKH[l]++; }
      if (here) rows[nrows++] = i;
    }
    K.lastComputeMs = performance.now() - t0;
  }
  // ---- rendering
  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
  var $ = function (id) { return document.getElementById(id); };
  // One bar: the name, its sites as a track of verdict colours, a count.
  function barHTML(attr, name, counts, i, max, sel, label, tipMore) {
    var segs = '', tip = [];
    for (var v = 0; v < 4; v++) {
      var c = counts[i * 4 + v];
      if (!c) continue;
      segs += '<i style="width:' + (100 * c / max).toFixed(2) + '%;background:' + COLORS[v] + '"></i>';
      tip.push(c + ' ' + VERD[v]);
    }
    return '<button type="button" class="bar' + (name === sel ? ' sel' : '') + '" data-' + attr +
      '="' + esc(name) + '" title="' + esc(name + ': ' + (tip.join(', ') || 'no sites') + tipMore) + '">' +
      '<span class="name mono">' + esc(name) + '</span><span class="track">' + segs +
      '</span><span class="n">' + label + '</span></button>';
  }
  function bars(el, names, counts, sel, attr, limit) {
    var list = [], max = 1, n, i;
    for (i = 0; i < names.length; i++) {
      if (attr === 'drv' && state.subsystem && DRV_SUB[i] !== SI[state.subsystem]) continue;
      n = counts[i * 4] + counts[i * 4 + 1] + counts[i * 4 + 2] + counts[i * 4 + 3];
      if (n || names[i] === sel) list.push([i, n]);
      if (n > max) max = n;
    }
    list.sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; });
    var more = list.length > limit ? list.length - limit : 0, out = [];
    list.slice(0, limit).forEach(function (e) {
      out.push(barHTML(attr, names[i = e[0]], counts, i, max, sel, String(e[1]), ''));
    });
    if (more) out.push('<div class="empty">' + more + ' more with fewer sites: pick a subsystem, or filter.</div>');
    if (!list.length) out.push('<div class="empty">No sites match.</div>');
    el.innerHTML = out.join('');
  }
  // Locks ranked by hang risk: the acquisitions on system-call paths a risk
  // of high was found for, then all of them; the unnamed ("") left out.
  function lockBars(el, limit) {
    var list = [], max = 1, i;
    for (i = 0; i < LOCKS.length; i++) {
      if (!LOCKS[i]) continue;
      var n = LOCKV[i * 4] + LOCKV[i * 4 + 1] + LOCKV[i * 4 + 2] + LOCKV[i * 4 + 3];
      if (n || LOCKS[i] === state.lock) list.push([i, n, LOCKH[i]]);
      if (n > max) max = n;
    }
    list.sort(function (a, b) { return b[2] - a[2] || b[1] - a[1] || a[0] - b[0]; });
    var out = [];
    list.slice(0, limit).forEach(function (e) {
      out.push(barHTML('lock', LOCKS[i = e[0]], LOCKV, i, max, state.lock,
        (e[2] ? '<span class="hi">' + e[2] + '</span> / ' : '') + e[1], '; ' + e[2] + ' ranked high on a syscall path'));
    });
    if (list.length > limit) out.push('<div class="empty">' + (list.length - limit) + ' more: pick a subsystem or driver, or filter.</div>');
    if (!list.length) out.push('<div class="empty">No lock or queue named for these sites.</div>');
    el.innerHTML = out.join('');
  }
  function hunkHTML(h) {
    return '<pre class="hunk">' + h.replace(/\n$/, '').split('\n').map(function (ln) {
      var c = ln.charAt(0) === '+' ? 'add' : ln.charAt(0) === '-' ? 'del' : ln.slice(0, 2) === '@@' ? 'at' : '';
      return '<span class="' + c + '">' + (esc(ln) || ' ') + '</span>';
    }).join('') + '</pre>';
  }
  function lineLink(i) {
    var f = FILES[C.f[i]], at = esc(f + ':' + C.l[i]);
    if (!LINE_URL) return '<code>' + at + '</code>';
    return '<a class="src" href="' + esc(LINE_URL.replace('{file}', f).replace('{line}', C.l[i])) +
      '" target="_blank" rel="noopener" title="the line in ' + esc(D.lineSource) + '"><code>' + at + '</code></a>';
  }
  function chainHTML(c, kinds, none) {
    if (!CLEN[c]) return '<span>' + none + '</span>';
    return '<div>' + (kinds ? 'roots: <code>' + esc(kinds) + '</code>' : '') + '</div><ol class="chain">' +
      chainNames(c).map(function (n) { return '<li><a data-q="' + esc(n) + '" title="filter by ' + esc(n) + '">' + esc(n) + '</a></li>'; }).join('') + '</ol>';
  }
  function detailHTML(i) {
    var f = FILES[C.f[i]], v = C.v[i], reason = reasonText(C.r[i]);
    return '<div class="det">' +
      '<b>site</b><div><code>' + esc(siteKey(i)) + '</code> in <code>' + esc(NAMES[C.n[i]]) + '()</code>: <code>' +
      esc(PRIMS[C.p[i]]) + '</code> (' + esc(FAMS[SITE_FAM[i]]) + ') &middot; <a data-sub="' + esc(SUBS[SITE_SUB[i]]) +
      '">' + esc(SUBS[SITE_SUB[i]]) + '</a> &rsaquo; <a data-drv="' + esc(DRVS[SITE_DRV[i]]) + '">' +
      esc(DRVS[SITE_DRV[i]]) + '</a> &middot; <a href="' + esc(hashOf(state)) + '">link</a></div>' +
      '<b>verdict</b><div><span class="dot" style="background:' + COLORS[v] + '"></span>' + esc(VERD[v]) + '</div>' +
      '<b>source</b><div class="line-link">' + lineLink(i) + '</div>' +
      '<b>hang risk</b><div class="risk-full">' + (RISKS[C.rk[i]] ? esc(RISKS[C.rk[i]]) + ': <span class="evidence">' +
        (LAZY ? esc(LAZY.evidence[C.re[i]]) : 'loading&hellip;') + '</span>' : '<span class="dir">not computed</span>') + '</div>' +
      '<b>lock or queue</b><div class="lock">' + (LOCKS[C.lk[i]] ? '<a data-lock="' + esc(LOCKS[C.lk[i]]) + '" title="its acquisitions">' +
        esc(LOCKS[C.lk[i]]) + '</a>' : '<span class="dir">not named</span>') + '</div>' +
      '<b>reason</b><div class="reason-full">' + (reason ? esc(reason) : '<span class="dir">none given</span>') + '</div>' +
      (C.hk[i] ? '<b>change</b><div class="change">' + (LAZY ? hunkHTML(LAZY.hunks[C.hk[i]]) : 'loading&hellip;') + '</div>' : '') +
      '<b>syscall chain</b><div class="chain-syscall">' + chainHTML(C.ch[i], KINDS[C.k[i]], KINDS[C.k[i]] ?
        esc(NAMES[C.n[i]]) + '() is itself where the system call enters (<code>' + esc(KINDS[C.k[i]]) + '</code>)' :
        'no syscall root reaches ' + esc(NAMES[C.n[i]]) + '()') + '</div>' +
      '<b>must-not-fail chain</b><div class="chain-mnf mnf">' + chainHTML(C.mc[i], KINDS[C.m[i]], '<span class="dir">none</span>') + '</div>' +
      '</div>';
  }
  function rowHTML(i) {
    var f = FILES[C.f[i]], slash = f.lastIndexOf('/'), v = C.v[i], reason = reasonText(C.r[i]),
      rk = KINDS[C.k[i]], mk = KINDS[C.m[i]];
    return '<tr class="site v-' + VERD[v].replace(/ /g, '-') + (i === state.site ? ' sel' : '') + '" data-i="' + i + '" tabindex="0">' +
      '<td class="file" title="' + esc(f) + '"><b>' + esc(f.slice(slash + 1)) + '</b> <span class="dir">' + esc(f.slice(0, slash + 1)) + '</span></td>' +
      '<td class="line">' + C.l[i] + '</td>' +
      '<td class="function mono" title="' + esc(NAMES[C.n[i]]) + '">' + esc(NAMES[C.n[i]]) + '</td>' +
      '<td class="primitive mono">' + esc(PRIMS[C.p[i]]) + '</td>' +
      '<td class="verdict"><span class="dot" style="background:' + COLORS[v] + '"></span>' + esc(VERD[v]) + '</td>' +
      '<td class="risk r-' + (RISKS[C.rk[i]] || 'none') + '">' + esc(RISKS[C.rk[i]]) + '</td>' +
      '<td class="roots" title="' + esc(rk + (mk ? ' | must-not-fail: ' + mk : '')) + '">' + esc(rk.replace(/;/g, ' ')) +
      (mk ? ' <span class="mnf">' + esc(mk.replace(/;/g, ' ')) + '</span>' : '') + '</td>' +
      '<td class="reason" title="' + esc(reason) + '"><div>' + esc(reason) + '</div></td></tr>';
  }
  function pagerHTML(pages) {
    var p = state.page;
    return '<button type="button" data-page="1"' + (p <= 1 ? ' disabled' : '') + ' title="first page">&laquo;</button>' +
      '<button type="button" data-page="' + (p - 1) + '"' + (p <= 1 ? ' disabled' : '') + ' title="previous page">&lsaquo;</button>' +
      '<span>page ' + p + ' of ' + pages + '</span>' +
      '<button type="button" data-page="' + (p + 1) + '"' + (p >= pages ? ' disabled' : '') + ' title="next page">&rsaquo;</button>' +
      '<button type="button" data-page="' + pages + '"' + (p >= pages ? ' disabled' : '') + ' title="last page">&raquo;</button>';
  }
  function render() {
    compute();
    var pages = Math.max(1, Math.ceil(nrows / ROWS)), at = -1, j;
    if (state.site >= 0) for (j = 0; j < nrows; j++) if (rows[j] === state.site) { at = j; break; }
    if (reveal && at >= 0) state.page = Math.floor(at / ROWS) + 1;
    if (state.page > pages) {
      if (reveal) notes.push('Page ' + state.page + ' is past the last page (' + pages + ').');
      state.page = pages;
    }
    var first = (state.page - 1) * ROWS, last = Math.min(nrows, first + ROWS), html = [];
    for (j = first; j < last; j++) {
      html.push(rowHTML(rows[j]));
      if (rows[j] === state.site) html.push('<tr class="detail"><td colspan="8">' + detailHTML(rows[j]) + '</td></tr>');
    }
    document.querySelector('#sites tbody').innerHTML = html.join('') ||
      '<tr><td colspan="8" class="empty">No site matches these filters.</td></tr>';
    var loose = $('loose');
    if (state.site >= 0 && at < 0) {
      loose.innerHTML = '<p>This site is outside the current filters.</p>' + detailHTML(state.site);
      loose.hidden = false;
    } else loose.hidden = true;
    var count = $('count');
    count.textContent = (first + (nrows ? 1 : 0)) + '\u2013' + last + ' of ' + nrows + ' sites' +
      (nrows !== N ? ' (' + N + ' in all)' : '');
    count.setAttribute('data-rows', nrows);
    $('pager').innerHTML = $('pager2').innerHTML = pagerHTML(pages);
    bars($('subs'), SUBS, SUBV, state.subsystem, 'sub', 400);
    bars($('drvs'), DRVS, DRVV, state.driver, 'drv', state.subsystem ? 2000 : 150);
    lockBars($('locks'), state.subsystem || state.driver ? 400 : 100);
    if (state.site >= 0 && !LAZY) withLazy(render);
    $('drv-title').innerHTML = state.subsystem ? 'Drivers in <code>' + esc(state.subsystem) +
      '</code> <span class="hint">click one for its sites</span>' :
      'Drivers <span class="hint">all subsystems, the busiest first</span>';
    $('chips').innerHTML = VERD.map(function (v, i) {
      var on = state.verdict.indexOf(v) >= 0;
      return '<button type="button" class="chip' + (state.verdict.length && !on ? ' dim' : '') + '" data-verdict="' + esc(v) +
        '" aria-pressed="' + on + '"><span class="dot" style="background:' + COLORS[i] + '"></span>' +
        esc(v) + ' <b>' + CHIP[i] + '</b></button>';
    }).join('');
    var crumbs = ['<a data-sub="">all subsystems</a>'];
    if (state.subsystem) crumbs.push('<a data-sub="' + esc(state.subsystem) + '">' + esc(state.subsystem) + '</a>');
    if (state.driver) crumbs.push('<a data-drv="' + esc(state.driver) + '">' + esc(state.driver) + '</a>');
    if (state.lock) crumbs.push('lock <code>' + esc(state.lock) + '</code> <a data-lock="" title="every lock">&times;</a>');
    if (state.site >= 0) crumbs.push('<code>' + esc(siteKey(state.site)) + '</code>');
    $('crumbs').innerHTML = crumbs.join(' &rsaquo; ');
    document.querySelectorAll('#sites th').forEach(function (th) {
      th.className = th.getAttribute('data-col') === state.sort ? state.dir : '';
    });
    var input = $('filter');
    if (input.value !== state.filter && document.activeElement !== input) input.value = state.filter;
    $('family').value = state.family;
    $('risk').value = state.risk;
    var note = $('note');
    note.hidden = !notes.length;
    note.querySelector('ul').innerHTML = notes.map(function (n) { return '<li>' + esc(n) + '</li>'; }).join('');
    if (reveal) {
      ['subs', 'drvs', 'locks'].forEach(function (id) {
        var el = $(id), b = el.querySelector('.bar.sel');
        if (b) el.scrollTop = b.offsetTop - el.offsetTop - el.clientHeight / 2;
      });
      var tr = at >= 0 && document.querySelector('tr.site.sel');
      if (tr) tr.scrollIntoView({block: 'center'});
    }
    reveal = false;
    K.renders++;
    document.body.setAttribute('data-rendered', 'yes');
  }
  // ---- events
  function go(patch, push) {
    for (var k in patch) state[k] = patch[k];
    if (!('page' in patch)) state.page = 1;
    notes = [];
    writeHash(push);
    render();
  }
  document.addEventListener('click', function (e) {
    var t = e.target.closest('[data-col],[data-sub],[data-drv],[data-lock],[data-verdict],[data-page],[data-q],a.src,tr.site,#note-x');
    if (!t || t.disabled) return;
    if (t.id === 'note-x') { notes = []; $('note').hidden = true; return; }
    if (t.classList.contains('src')) return;    // the link opens the line, it does not close the site
    if (t.hasAttribute('data-col')) {
      var c = t.getAttribute('data-col');
      go(state.sort === c ? {dir: state.dir === 'asc' ? 'desc' : 'asc'} : {sort: c, dir: 'asc'}, false);
    } else if (t.hasAttribute('data-sub')) {
      var s = t.getAttribute('data-sub');
      go({subsystem: s === state.subsystem && t.classList.contains('bar') ? '' : s, driver: '', site: -1}, true);
    } else if (t.hasAttribute('data-drv')) {
      var d = t.getAttribute('data-drv');
      if (d === state.driver && t.classList.contains('bar')) go({driver: '', site: -1}, true);
      else go({driver: d, subsystem: SUBS[DRV_SUB[DI[d]]], site: -1}, true);
    } else if (t.hasAttribute('data-lock')) {
      var lk = t.getAttribute('data-lock');
      go({lock: lk === state.lock && t.classList.contains('bar') ? '' : lk, site: -1}, true);
    } else if (t.hasAttribute('data-verdict')) {
      var v = t.getAttribute('data-verdict'), vs = state.verdict.slice(), at = vs.indexOf(v);
      if (at >= 0) vs.splice(at, 1); else vs.push(v);
      if (vs.length === VERD.length) vs = [];
      go({verdict: VERD.filter(function (x) { return vs.indexOf(x) >= 0; })}, false);
    } else if (t.hasAttribute('data-page')) {
      go({page: +t.getAttribute('data-page')}, false);
      document.getElementById('sites').scrollIntoView({block: 'start'});
    } else if (t.hasAttribute('data-q')) {
      var q = t.getAttribute('data-q');
      go({filter: q, site: -1}, true);
      $('filter').value = q;
    } else {
      if (window.getSelection().toString()) return;   // selecting text, not opening
      var i = +t.getAttribute('data-i');
      go({site: state.site === i ? -1 : i, page: state.page}, true);
    }
  });
  // Typing: the first key after a pause filters at once; keys within GAP ms
  // of the last run wait for one run at its end, with the input's value then.
  var GAP = 120, qTimer = 0, qLast = -1e9, keyAt = 0;
  function runFilter() {
    qTimer = 0;
    qLast = performance.now();
    go({filter: $('filter').value, site: -1}, false);
    document.body.offsetHeight;   // the layout the frame needs, on our clock
    K.lastKeyMs = performance.now() - keyAt;
  }
  $('filter').addEventListener('input', function () {
    keyAt = K.keyAt = performance.now();
    if (qTimer) return;
    var wait = qLast + GAP - keyAt;
    if (wait <= 0) runFilter(); else qTimer = setTimeout(runFilter, wait);
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Enter' && e.target.matches && e.target.matches('tr.site')) e.target.click();
  });
  $('family').addEventListener('change', function (e) { go({family: e.target.value}, false); });
  $('risk').addEventListener('change', function (e) { go({risk: e.target.value}, false); });
  function fromHash() {
    if (location.hash === seenHash) return;
    readHash(); reveal = true; writeHash(false); render();
  }
  window.addEventListener('hashchange', fromHash);
  window.addEventListener('popstate', fromHash);
  fromHash();
  K.firstRender = performance.now();
  // The filter's lower-case tables cost a tenth of a second: make them
  // while the reader looks at the page, not on the first keystroke.
  setTimeout(lowTables, 0);
})();
</script>
</body></html>
"""

def dump_json(obj, depth: int = 2, sort_records: bool = True) -> str:
    """JSON with one record a line down to `depth`: diffs stay readable, and
    the records go through the C encoder (with `indent` json is pure Python,
    5 s of a warm whole-tree run).  sort_records=False keeps the records'
    own key order."""
    if depth and isinstance(obj, dict) and obj:
        return "{\n" + ",\n".join(f"{json.dumps(k)}: {dump_json(obj[k], depth - 1, sort_records)}"
                                   for k in sorted(obj)) + "\n}"
    if depth and isinstance(obj, list) and obj:
        return "[\n" + ",\n".join(dump_json(x, depth - 1, sort_records) for x in obj) + "\n]"
    return json.dumps(obj, sort_keys=sort_records)


def write_json(f, obj, depth: int = 2, sort_records: bool = True) -> None:
    """dump_json(obj) written to f piece by piece: the whole-tree
    results.json is 20 MB of text, and dump_json holds its parts as well."""
    if depth and isinstance(obj, dict) and obj:
        f.write("{\n")
        for i, k in enumerate(sorted(obj)):
            f.write((",\n" if i else "") + json.dumps(k) + ": ")
            write_json(f, obj[k], depth - 1, sort_records)
        f.write("\n}")
    elif depth and isinstance(obj, list) and obj:
        f.write("[\n")
        for i, x in enumerate(obj):
            if i:
                f.write(",\n")
            write_json(f, x, depth - 1, sort_records)
        f.write("\n]")
    else:
        f.write(json.dumps(obj, sort_keys=sort_records))


def write_json_file(path: str, obj, sort_records: bool = True) -> None:
    """write_json and a newline, through a temporary file and a rename."""
    with atomic_open(path) as f:
        write_json(f, obj, sort_records=sort_records)
        f.write("\n")


def risk_last(site: dict) -> dict:
    """A site with its keys sorted, the risk columns last."""
    out = {k: site[k] for k in sorted(site) if k not in RISK_COLUMNS}
    out.update((k, site.get(k, "")) for k in RISK_COLUMNS)
    return out


def write_reports(data: dict, outdir: str) -> None:
    os.makedirs(outdir, exist_ok=True)
    sites = all_sites(data)
    stable = {k: v for k, v in data.items() if k != "run_stats"}
    write_json_file(os.path.join(outdir, "results.json"), stable)
    atomic_write(os.path.join(outdir, "sites.csv"), sites_csv(sites))
    write_json_file(os.path.join(outdir, "sites.json"),
                    {"tree": data["tree"], "rules_version": data["rules_version"],
                     "spatch_version": data["spatch_version"], "subdir": data["subdir"],
                     "sites": [risk_last(x) for x in sites]}, sort_records=False)
    atomic_write(os.path.join(outdir, "summary.md"), summary_md(data))
    atomic_write(os.path.join(outdir, "index.html"), index_html(data))


def main() -> int:
    ap = cli.parser("Rewrite the reports from a results.json.")
    ap.add_argument("results")
    ap.add_argument("outdir")
    args = ap.parse_args()
    with open(args.results, encoding="utf-8") as f:
        data = json.load(f)
    write_reports(data, args.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
