#!/usr/bin/env python3
"""make hung LOG=dmesg.txt: map hung-task reports to audited sleep sites.

The kernel's hung-task detector prints

  INFO: task cat:1234 blocked for more than 120 seconds.
  ...
  Call Trace:
   <TASK>
   __schedule+0x2eb/0x8d0
   ? foo_wait+0x2a/0x80 [foo]
   foo_ioctl+0x10/0x20 [foo]
   ...
   </TASK>

Each frame's function is looked up in reports/<tree>/sites.json.  For every
task the frames that hit audited sites are printed with their verdicts; for a
convertible site the patch that fixes it is produced by running spatch -D
patch with the combined rules on that file, and the hunks inside that
function are printed.  `?` frames (unreliable, maybe stale stack words) are
shown but marked.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

from killable import cli, paths, spatch, tree

TS = r"(?:\[\s*\d+\.\d+\]\s?)?(?:<\d>)?"
TASK_RE = re.compile(TS + r"\s*INFO: task (?P<name>.+?):(?P<pid>\d+) blocked for more than "
                     r"(?P<secs>\d+) seconds\.")
TRACE_RE = re.compile(TS + r"\s*Call Trace:")
FRAME_RE = re.compile(TS + r"\s*(?P<q>\? )?(?P<func>[A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+"
                      r"(?:\s+\[(?P<mod>[\w-]+)\])?\s*$")
END_RE = re.compile(TS + r"\s*(?:</TASK>|INFO: |---\[ end)")
SUFFIX_RE = re.compile(r"\.(?:constprop|isra|part|cold|lto_priv|llvm)(?:\.\d+)*$")


@dataclass
class Frame:
    func: str
    module: str
    unreliable: bool
    raw: str


@dataclass
class Task:
    name: str
    pid: int
    secs: int
    line: int
    frames: list[Frame] = field(default_factory=list)


def base_name(func: str) -> str:
    """foo.constprop.0 -> foo; foo.cold -> foo."""
    prev = None
    while prev != func:
        prev = func
        func = SUFFIX_RE.sub("", func)
    return func


def parse_log(text: str) -> list[Task]:
    tasks: list[Task] = []
    cur: Task | None = None
    in_trace = False
    for n, line in enumerate(text.splitlines(), 1):
        m = TASK_RE.match(line)
        if m:
            cur = Task(m.group("name"), int(m.group("pid")), int(m.group("secs")), n)
            tasks.append(cur)
            in_trace = False
            continue
        if cur is None:
            continue
        if TRACE_RE.match(line):
            in_trace = True
            continue
        if not in_trace:
            continue
        if END_RE.match(line):
            in_trace = False
            continue
        f = FRAME_RE.match(line)
        if f:
            cur.frames.append(Frame(base_name(f.group("func")), f.group("mod") or "",
                                    bool(f.group("q")), line.strip()))
    return tasks


def load_sites(path: str) -> dict[str, list[dict]]:
    """function -> its sites, from sites.json or sites.csv."""
    with open(path, encoding="utf-8", newline="") as f:
        if path.endswith(".csv"):
            sites = [dict(r, line=int(r["line"]), col=int(r["col"])) for r in csv.DictReader(f)]
        else:
            sites = json.load(f)["sites"]
    by_func: dict[str, list[dict]] = {}
    for s in sites:
        by_func.setdefault(s["function"], []).append(s)
    return by_func


def pick(sites: list[dict], module: str) -> list[dict]:
    """Prefer sites in the frame's module (file or directory of that name)."""
    if not module or len({s["file"] for s in sites}) == 1:
        return sites
    mod = module.replace("-", "_")
    hits = [s for s in sites
            if os.path.splitext(os.path.basename(s["file"]))[0].replace("-", "_") == mod
            or mod in s["file"].replace("-", "_").split("/")]
    return hits or sites


def function_span(path: str, func: str) -> tuple[int, int] | None:
    from killable.scan import csource
    ff = csource.scan_file(path)
    fn = ff.functions.get(func)
    return (fn.line, fn.end_line) if fn else None


def hunks_for(diff: str, span: tuple[int, int] | None, line: int, rel: str = "") -> str:
    """The hunks of a unified diff that overlap [span] (or contain line)."""
    lo, hi = span if span else (line, line)
    out, keep, head = [], False, []
    for l in diff.splitlines():
        if l.startswith("--- ") or l.startswith("+++ "):
            if rel:
                l = ("--- a/" if l.startswith("---") else "+++ b/") + rel
            head.append(l)
            continue
        m = re.match(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", l)
        if m:
            a = int(m.group(1))
            b = int(m.group(2)) if m.group(2) is not None else 1
            keep = a <= hi and a + max(b, 1) - 1 >= lo
        if keep:
            out.append(l)
    return "\n".join(head[-2:] + out) if out else ""


def patch_for(kdir: str, rel: str, func: str, line: int, spatch_prog: str, cocci: str,
              reach: str, timeout: int) -> str:
    cmd = spatch.command(spatch_prog, cocci, "patch",
                         options=spatch.rule_options(cocci) or spatch.DEFAULT_OPTIONS,
                         reach=reach, timeout=timeout, args=[rel])
    env = paths.module_env()
    if reach:
        env["KILLABLE_REACH"] = reach
    r = subprocess.run(cmd, cwd=kdir, capture_output=True, text=True, env=env)
    if r.returncode != 0 and "No rules apply" not in r.stderr + r.stdout:
        return f"(spatch -D patch failed, exit {r.returncode}: " \
               f"{(r.stderr.strip().splitlines() or ['?'])[-1]})"
    span = function_span(os.path.join(kdir, rel), func)
    h = hunks_for(r.stdout, span, line, rel)
    return h or "(spatch -D patch produced no change in this function)"


def report(tasks: list[Task], by_func: dict[str, list[dict]], kdir: str, spatch_prog: str,
           cocci: str, reach: str, timeout: int, with_patch: bool) -> tuple[str, int]:
    out: list[str] = []
    hits_total = 0
    patched: dict[tuple[str, str], str] = {}
    if not tasks:
        out.append("hung: no hung-task reports found in the log")
    for t in tasks:
        out.append(f"task {t.name}:{t.pid} blocked for more than {t.secs} seconds "
                   f"(log line {t.line}, {len(t.frames)} frames)")
        hits = 0
        for fr in t.frames:
            sites = by_func.get(fr.func)
            if not sites:
                continue
            for s in pick(sites, fr.module):
                hits += 1
                q = " (unreliable ? frame)" if fr.unreliable else ""
                why = f": {s['reason']}" if s.get("reason") else ""
                out.append(f"  {fr.func}{' [' + fr.module + ']' if fr.module else ''}{q} -> "
                           f"{s['file']}:{s['line']}: {s['primitive']}: {s['verdict']}{why}")
                if s.get("chain"):
                    out.append(f"      chain: {s['chain']}")
                if s.get("mnf_kinds"):
                    out.append(f"      must-not-fail: {s['mnf_kinds']}")
                if s.get("risk"):
                    ev = f" ({s['risk_evidence']})" if s.get("risk_evidence") else ""
                    out.append(f"      hang risk: {s['risk']}{ev}")
                if s["verdict"] == "convertible" and with_patch:
                    key = (s["file"], s["function"])
                    if key not in patched:
                        patched[key] = patch_for(kdir, s["file"], s["function"], s["line"],
                                                 spatch_prog, cocci, reach, timeout)
                        for pl in patched[key].splitlines():
                            out.append("      " + pl)
        if not hits:
            out.append("  no frame matches an audited site")
        hits_total += hits
    if tasks:
        # kernel/hung_task.c (6.1) skips TASK_WAKEKILL sleeps: a converted
        # site never shows up here again, so these traces come from kernels
        # that run the code as written.
        out.append("hung: the hung-task detector skips killable sleeps (TASK_WAKEKILL), so a "
                   "converted site no longer shows up in these reports; use logs of the "
                   "unconverted kernel to find candidates")
    return "\n".join(out) + "\n", hits_total


def main() -> int:
    ap = cli.parser("Map hung-task reports to audited sites.")
    ap.add_argument("log", help="dmesg text with hung-task reports ('-' for stdin)")
    ap.add_argument("--kdir", default=os.path.expanduser("~/.cache/killable/linux-6.1"))
    ap.add_argument("--reports", default="", help="reports/<tree> dir (default: from KDIR, M)")
    ap.add_argument("-M", "--subdir", default="", help="the M= the audit ran with")
    ap.add_argument("--kcache", default=tree.DEFAULT_KCACHE,
                    help="the kernel cache (its reports are linux-X.Y, see make audit)")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/killable"))
    ap.add_argument("--spatch", default="spatch")
    ap.add_argument("--rules", default="", help="combined rule file (default: generated)")
    ap.add_argument("--reach", default="", help="reach TSV (default: REPORTS/reach.tsv)")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--no-patch", action="store_true", help="do not run spatch -D patch")
    args = ap.parse_args()
    from killable.audit import run as audit
    try:
        if args.log == "-":
            text = sys.stdin.read()
        else:
            with open(args.log, encoding="utf-8", errors="replace") as f:
                text = f.read()
    except OSError as e:
        print(f"hung: error: {args.log}: {e.strerror}", file=sys.stderr)
        return 2
    reports = args.reports
    if not reports:
        try:
            audit.check_kdir(args.kdir)
            sub = tree.subdir(args.kdir, args.subdir)
        except (audit.AuditError, tree.TreeError) as e:
            print(f"hung: error: {e}", file=sys.stderr)
            return 2
        reports = os.path.join(paths.REPORTS, tree.report_name(args.kdir, sub, args.kcache))
    # sites.json when an audit ran here, else the committed sites.csv (same columns).
    sites_path = next((p for p in (os.path.join(reports, "sites.json"),
                                   os.path.join(reports, "sites.csv")) if os.path.exists(p)), "")
    if not sites_path:
        print(f"hung: error: {reports}/sites.json missing; run make audit first",
              file=sys.stderr)
        return 2
    by_func = load_sites(sites_path)
    tasks = parse_log(text)
    cocci = ""
    reach = args.reach or (os.path.join(reports, "reach.tsv")
                           if os.path.exists(os.path.join(reports, "reach.tsv")) else "")
    if not args.no_patch:
        try:
            spatch.version(args.spatch)     # runs, or one line now rather than a traceback later
            cocci = audit.combined_rules(args.cache, audit.rules_version(), args.rules)
        except (audit.AuditError, spatch.SpatchError) as e:
            print(f"hung: error: {e}", file=sys.stderr)
            return 2
    text_out, _hits = report(tasks, by_func, os.path.abspath(args.kdir), args.spatch, cocci,
                             os.path.abspath(reach) if reach else "", args.timeout,
                             not args.no_patch)
    sys.stdout.write(text_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
