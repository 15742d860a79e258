#!/usr/bin/env python3
"""Write the audit reports from a result (audit.py's or merged shards').

reports/<tree>/
  summary.md    totals by verdict and family, versions, parse failures,
                per-subsystem and per-driver tables, the 30 busiest drivers
  sites.csv     one row a site, the columns README.md documents
  sites.json    {"tree", "rules_version", "spatch_version", "sites": [...]}
  index.html    one self-contained page: sortable, filterable table and an
                SVG bar chart of subsystems by verdict
  results.json  the whole result (per-file status, parse errors, sites)

Every file is written to a temporary name and renamed, so a reader never
sees half a report.  Nothing here depends on time or on run order.
"""

from __future__ import annotations

import argparse
import csv
import html
import io
import json
import os
import sys
from collections import Counter, defaultdict

from killable.graph.callgraph import atomic_write

VERDICTS = ["convertible", "manual", "refused", "not on a syscall path"]
COLUMNS = ["file", "line", "col", "function", "primitive", "family", "verdict", "reason",
           "root_kinds", "chain", "mnf_kinds", "subsystem", "driver"]
COLORS = {"convertible": "#2e7d32", "manual": "#f9a825", "refused": "#c62828",
          "not on a syscall path": "#9e9e9e"}


def all_sites(data: dict) -> list[dict]:
    out = []
    for rel in sorted(data["files"]):
        out.extend(data["files"][rel]["sites"])
    out.sort(key=lambda s: (s["file"], s["line"], s["col"], s["primitive"]))
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
    lines += [f"- rules version: `{data['rules_version']}`",
              f"- spatch version: {data['spatch_version']}",
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
              f"{data['graph'].get('mnf_roots', 0)} must-not-fail roots"
              + (f"; {data['graph']['stale_scan_entries']} files' graph facts come from an "
                 "older csource/root-table version (--strict-scan rescans them)"
                 if data['graph'].get('stale_scan_entries') else ""), ""]
    lines += ["## By verdict", ""]
    by_v = Counter(s["verdict"] for s in sites)
    lines += table(["verdict", "sites"], [[v, by_v.get(v, 0)] for v in VERDICTS])
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
    return "\n".join(lines) + "\n"


def sites_csv(sites: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for s in sites:
        w.writerow(s)
    return buf.getvalue()


def svg_chart(sites: list[dict], top: int = 25) -> str:
    """Horizontal stacked bars: subsystems by verdict, the `top` biggest."""
    g: dict[str, Counter] = defaultdict(Counter)
    for s in sites:
        g[s["subsystem"]][s["verdict"]] += 1
    keys = sorted(g, key=lambda k: (-sum(g[k].values()), k))[:top]
    width, label_w, bar_h, gap = 900, 190, 18, 6
    height = 40 + len(keys) * (bar_h + gap) + 30
    mx = max((sum(g[k].values()) for k in keys), default=1)
    scale = (width - label_w - 60) / mx
    out = [f'<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" role="img" aria-label="sites per subsystem by verdict">']
    x = label_w
    for v in VERDICTS:
        out.append(f'<rect x="{x}" y="8" width="12" height="12" fill="{COLORS[v]}"/>'
                   f'<text x="{x + 16}" y="19" font-size="12">{html.escape(v)}</text>')
        x += 40 + 7 * len(v)
    for i, k in enumerate(keys):
        y = 36 + i * (bar_h + gap)
        out.append(f'<text x="{label_w - 6}" y="{y + 13}" font-size="12" '
                   f'text-anchor="end">{html.escape(k)}</text>')
        x = label_w
        for v in VERDICTS:
            n = g[k].get(v, 0)
            if n:
                w = max(1.0, n * scale)
                out.append(f'<rect class="bar" data-subsystem="{html.escape(k)}" '
                           f'data-verdict="{html.escape(v)}" x="{x:.1f}" y="{y}" '
                           f'width="{w:.1f}" height="{bar_h}" fill="{COLORS[v]}">'
                           f'<title>{html.escape(k)}: {n} {html.escape(v)}</title></rect>')
                x += w
        out.append(f'<text x="{x + 4:.1f}" y="{y + 13}" font-size="11">'
                   f'{sum(g[k].values())}</text>')
    out.append("</svg>")
    return "\n".join(out)


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>killable audit: {tree}</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }}
h1 {{ font-size: 20px; margin: 0 0 6px; }}
.meta {{ color: #555; margin-bottom: 10px; }}
.cards span {{ display: inline-block; padding: 6px 10px; margin: 0 8px 8px 0; border-radius: 4px;
  color: #fff; font-weight: 600; }}
#controls {{ margin: 10px 0; }}
#controls input, #controls select {{ font-size: 14px; padding: 3px 6px; }}
table {{ border-collapse: collapse; width: 100%; font-size: 12px; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }}
th {{ background: #f0f0f0; cursor: pointer; user-select: none; position: sticky; top: 0; }}
th.asc::after {{ content: " \\25B2"; }} th.desc::after {{ content: " \\25BC"; }}
td.chain {{ font-family: monospace; font-size: 11px; color: #333; }}
tr.v-convertible td.verdict {{ color: #2e7d32; font-weight: 600; }}
tr.v-manual td.verdict {{ color: #a67c00; font-weight: 600; }}
tr.v-refused td.verdict {{ color: #c62828; font-weight: 600; }}
</style></head><body>
<h1>killable audit: {tree}</h1>
<div class="meta">rules {rules} &middot; spatch {spatch} &middot; {nfiles} files &middot;
{nsites} sites &middot; {perr} files with parse errors &middot; {failed} timed out/crashed</div>
<div class="cards">{cards}</div>
{chart}
<div id="controls">
 <label>filter <input id="filter" type="search" placeholder="text in any column"></label>
 <label>verdict <select id="verdict"><option value="">all</option>{vopts}</select></label>
 <span id="count"></span>
</div>
<table id="sites"><thead><tr>{ths}</tr></thead><tbody></tbody></table>
<script id="data" type="application/json">{json}</script>
<script>
(function () {{
  var COLS = {cols};
  var NUM = {{line: 1, col: 1}};
  var sites = JSON.parse(document.getElementById('data').textContent);
  var tbody = document.querySelector('#sites tbody');
  var state = {{sort: 'file', dir: 'asc', filter: '', verdict: ''}};
  function readHash() {{
    var h = location.hash.replace(/^#/, '');
    h.split('&').forEach(function (kv) {{
      if (!kv) return;
      var i = kv.indexOf('='), k = decodeURIComponent(i < 0 ? kv : kv.slice(0, i));
      var v = i < 0 ? '' : decodeURIComponent(kv.slice(i + 1).replace(/\\+/g, ' '));
      if (k in state) state[k] = v;
    }});
    if (COLS.indexOf(state.sort) < 0) state.sort = 'file';
    if (state.dir !== 'desc') state.dir = 'asc';
  }}
  function writeHash() {{
    var parts = [];
    ['sort', 'dir', 'filter', 'verdict'].forEach(function (k) {{
      if (state[k]) parts.push(k + '=' + encodeURIComponent(state[k]));
    }});
    history.replaceState(null, '', '#' + parts.join('&'));
  }}
  function cmp(a, b) {{
    var k = state.sort, x = a[k], y = b[k], r;
    if (NUM[k]) r = x - y; else r = String(x).localeCompare(String(y));
    if (r === 0) r = a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col;
    return state.dir === 'desc' ? -r : r;
  }}
  function render() {{
    var f = state.filter.toLowerCase();
    var rows = sites.filter(function (s) {{
      if (state.verdict && s.verdict !== state.verdict) return false;
      if (!f) return true;
      for (var i = 0; i < COLS.length; i++)
        if (String(s[COLS[i]]).toLowerCase().indexOf(f) >= 0) return true;
      return false;
    }});
    rows.sort(cmp);
    var frag = document.createDocumentFragment();
    rows.forEach(function (s) {{
      var tr = document.createElement('tr');
      tr.className = 'site v-' + s.verdict.replace(/ /g, '-');
      COLS.forEach(function (c) {{
        var td = document.createElement('td');
        td.className = c;
        td.textContent = s[c];
        tr.appendChild(td);
      }});
      frag.appendChild(tr);
    }});
    tbody.textContent = '';
    tbody.appendChild(frag);
    document.getElementById('count').textContent = rows.length + ' of ' + sites.length + ' sites';
    document.getElementById('count').setAttribute('data-rows', rows.length);
    document.querySelectorAll('#sites th').forEach(function (th) {{
      th.className = th.getAttribute('data-col') === state.sort ? state.dir : '';
    }});
    document.getElementById('filter').value = state.filter;
    document.getElementById('verdict').value = state.verdict;
    document.body.setAttribute('data-rendered', 'yes');
  }}
  document.querySelectorAll('#sites th').forEach(function (th) {{
    th.addEventListener('click', function () {{
      var c = th.getAttribute('data-col');
      if (state.sort === c) state.dir = state.dir === 'asc' ? 'desc' : 'asc';
      else {{ state.sort = c; state.dir = 'asc'; }}
      writeHash(); render();
    }});
  }});
  document.getElementById('filter').addEventListener('input', function (e) {{
    state.filter = e.target.value; writeHash(); render();
  }});
  document.getElementById('verdict').addEventListener('change', function (e) {{
    state.verdict = e.target.value; writeHash(); render();
  }});
  window.addEventListener('hashchange', function () {{ readHash(); render(); }});
  readHash(); render();
}})();
</script>
</body></html>
"""


def index_html(data: dict) -> str:
    sites = all_sites(data)
    t = totals(data)
    cols = ["file", "line", "function", "primitive", "family", "verdict", "reason",
            "root_kinds", "mnf_kinds", "chain", "subsystem"]
    by_v = Counter(s["verdict"] for s in sites)
    cards = "".join(f'<span style="background:{COLORS[v]}">{by_v.get(v, 0)} '
                    f'{html.escape(v)}</span>' for v in VERDICTS)
    slim = [{c: s[c] for c in cols + ["col"]} for s in sites]
    blob = json.dumps(slim, separators=(",", ":")).replace("</", "<\\/")
    return PAGE.format(
        tree=html.escape(data["tree"]), rules=html.escape(data["rules_version"]),
        spatch=html.escape(data["spatch_version"]), nfiles=t["files"], nsites=t["sites"],
        perr=t["parse_error_files"], failed=t["failed_files"], cards=cards,
        chart=svg_chart(sites), json=blob, cols=json.dumps(cols),
        vopts="".join(f'<option value="{html.escape(v)}">{html.escape(v)}</option>'
                      for v in VERDICTS),
        ths="".join(f'<th data-col="{c}">{c.replace("_", " ")}</th>' for c in cols))


def dump_json(obj, depth: int = 2) -> str:
    """JSON with one record a line down to `depth`: diffs stay readable, and
    the records go through the C encoder (with `indent` json is pure Python,
    5 s of a warm whole-tree run)."""
    if depth and isinstance(obj, dict) and obj:
        return "{\n" + ",\n".join(f"{json.dumps(k)}: {dump_json(obj[k], depth - 1)}"
                                   for k in sorted(obj)) + "\n}"
    if depth and isinstance(obj, list) and obj:
        return "[\n" + ",\n".join(dump_json(x, depth - 1) for x in obj) + "\n]"
    return json.dumps(obj, sort_keys=True)


def write_reports(data: dict, outdir: str) -> None:
    os.makedirs(outdir, exist_ok=True)
    sites = all_sites(data)
    stable = {k: v for k, v in data.items() if k != "run_stats"}
    atomic_write(os.path.join(outdir, "results.json"), dump_json(stable) + "\n")
    atomic_write(os.path.join(outdir, "sites.csv"), sites_csv(sites))
    atomic_write(os.path.join(outdir, "sites.json"), dump_json(
        {"tree": data["tree"], "rules_version": data["rules_version"],
         "spatch_version": data["spatch_version"], "subdir": data["subdir"],
         "sites": sites}) + "\n")
    atomic_write(os.path.join(outdir, "summary.md"), summary_md(data))
    atomic_write(os.path.join(outdir, "index.html"), index_html(data))


def main() -> int:
    ap = argparse.ArgumentParser(description="Rewrite the reports from a results.json.")
    ap.add_argument("results")
    ap.add_argument("outdir")
    args = ap.parse_args()
    with open(args.results, encoding="utf-8") as f:
        data = json.load(f)
    write_reports(data, args.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
