#!/usr/bin/env python3
"""make audit: run the killable rules over a kernel tree and write reports.

  1. the cross-file call graph (callgraph.py) gives, per function, the syscall
     and must-not-fail root kinds and one shortest chain; it is written as the
     TSV the rules read through `-D killable_reach=FILE`;
  2. candidate files are the .c files naming a primitive (git grep);
  3. spatch runs in report mode over chunks of files (`--file-groups`, one
     file a group, so a timeout costs one file), J chunks at a time: first
     one rule that judges every site by scope, then each family's shape
     rules on copies that keep only the bodies holding its open cases
     (run_families); each file's result (report lines, parse errors,
     status ok|timeout|crash|skipped) is cached under CACHE/audit-cache/spatch
     by sha256(file) + rules version + the file's reach lines, written
     atomically, so a killed run resumes where it stopped;
  4. verdicts are joined with the graph into site records, each ranked by
     hang risk (killable.risk: risk, risk_evidence; --no-risk skips it), and
     the reports (reports/<tree>/summary.md, sites.csv, sites.json,
     index.html) are written through temporary files and renames.

--shard K/N writes one deterministic part (by directory) to a result file;
--merge A B ... joins such parts into the reports.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from killable import agree, cli, data as tables, paths, spatch
from killable import tree as kernel_tree
from killable.paths import TOP as ROOT
from killable.graph import callgraph
from killable.graph import reach as reachability
from killable.scan import effects
from killable.scan import csource
from killable.verdicts import rules as killable_rules
from killable.audit import report as report_audit
from killable.risk import analysis as risk_analysis

RESULT_FORMAT = "killable-audit-1"
CACHE_FORMAT = "3"     # 3: converted sites keep their hunks


class AuditError(Exception):
    """A one-line user error."""


# ---------------------------------------------------------------- inputs

def check_kdir(kdir: str) -> None:
    if not os.path.isdir(kdir):
        raise AuditError(f"KDIR={kdir}: no such directory")
    if not (os.path.isfile(os.path.join(kdir, "Makefile"))
            and os.path.isdir(os.path.join(kdir, "include", "linux"))):
        raise AuditError(f"KDIR={kdir}: not a kernel tree (needs a Makefile and include/linux/)")


def check_source(outdir: str, source: str, force: bool) -> None:
    """Refuse to overwrite reports that came from another tree (unless force)."""
    was = report_audit.recorded_source(outdir)
    if was and was != source and not force:
        raise AuditError(f"{outdir} holds the reports of another tree ({was}; this is "
                         f"{source}); give --force (AUDIT_FLAGS=--force) to replace them")


def check_writable(d: str) -> None:
    """That d can be made and written.  Nothing is created: a run that fails
    later leaves no empty reports directory behind."""
    probe = os.path.abspath(d)
    while not os.path.isdir(probe):
        if os.path.lexists(probe):
            raise AuditError(f"reports dir {d} is not writable: {probe} is not a directory")
        probe = os.path.dirname(probe)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".probe-", dir=probe)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise AuditError(f"reports dir {d} is not writable: {e.strerror}") from None


def load_primitives(path: str) -> dict[str, str]:
    """primitive -> family, from cocci/data/primitives.tsv (as the rules read it)."""
    return {name: p.family for name, p in tables.load_primitives(path).items()}


# The Python half of the rules: what a verdict can depend on besides cocci/.
RULE_PYTHON = ("scan", "graph/reach.py", "verdicts", "generate.py", "data.py", "paths.py", "agree.py",
               "atomic.py", "spatch.py")


def rules_version(root: str = ROOT) -> str:
    """Hash of cocci/ and of the Python the rules import."""
    files = []
    for top in ["cocci"] + [os.path.join("scripts", "killable", p) for p in RULE_PYTHON]:
        top = os.path.join(root, top)
        if os.path.isfile(top):
            files.append(top)
        for d, dirs, fs in os.walk(top):
            dirs.sort()
            files += [os.path.join(d, f) for f in sorted(fs)
                      if top.endswith("cocci") or f.endswith(".py")]
    h = hashlib.sha256()
    for p in sorted(files):
        h.update(os.path.relpath(p, root).encode() + b"\0")
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def combined_rules(cache: str, rver: str, override: str = "", kind: str = "combined") -> str:
    """A generated rule file: all families (`combined`) or the first pass (`sites`)."""
    if override:
        if not os.path.isfile(override):
            raise AuditError(f"rule file {override}: not found")
        return override
    out = os.path.join(cache, "audit-cache", f"{kind}-{rver}.cocci")
    if not os.path.exists(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        tmp = out + f".tmp{os.getpid()}"
        r = subprocess.run(paths.module_cmd("rules") + [f"--{kind}", tmp],
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(tmp):
            raise AuditError(f"make rules --{kind} failed: " +
                             (r.stderr.strip().splitlines() or ["?"])[-1])
        os.replace(tmp, out)
    return out


def candidates(kdir: str, prims: list[str], subdir: str = "") -> list[str]:
    """.c files (relative to kdir) that name one of the primitives."""
    pat = r"\b(" + "|".join(sorted(prims)) + r")\s*\("
    sub = subdir.strip("/")
    if os.path.exists(os.path.join(kdir, ".git")):
        spec = f"{sub}/*.c" if sub else "*.c"
        # PCRE when git has it: 1.6 s for the tree against 8 s with -E.
        for flavour in ("-P", "-E"):
            # -z: names as they are (git quotes unusual ones otherwise).
            r = subprocess.run(["git", "-C", kdir, "grep", "-l", "-z", flavour, pat, "--", spec],
                               capture_output=True, text=True)
            if r.returncode in (0, 1):
                return callgraph.split_readable(kdir, sorted(x for x in r.stdout.split("\0")
                                                             if x))[0]
    rx = re.compile(pat.encode())
    out = []
    files = callgraph.split_readable(kdir, callgraph.list_c_files(kdir, [sub] if sub else None))[0]
    for rel in files:
        with open(os.path.join(kdir, rel), "rb") as f:
            if rx.search(f.read()):
                out.append(rel)
    return out


def shard_files(files: list[str], k: int, n: int) -> list[str]:
    """Deterministic part k (1-based) of n, whole directories at a time."""
    by_dir: dict[str, list[str]] = {}
    for f in files:
        by_dir.setdefault(os.path.dirname(f), []).append(f)
    loads = [0] * n
    mine: list[str] = []
    for d in sorted(by_dir, key=lambda d: (-len(by_dir[d]), d)):
        i = min(range(n), key=lambda j: (loads[j], j))
        loads[i] += len(by_dir[d])
        if i == k - 1:
            mine.extend(by_dir[d])
    return sorted(mine)


# ---------------------------------------------------------------- running spatch

@dataclass
class RunConfig:
    kdir: str
    spatch: str
    cocci: str
    reach_of: dict[str, str]     # relpath -> its lines of the reach TSV
    options: list[str]
    timeout: int
    spflags: list[str]
    cache_dir: str
    key_base: str
    sites: str = ""              # the first-pass rule file (run_families)
    combined: str = ""           # all families in one file (patch_check)
    tree_reach: str = ""         # every file's lines, for walks that leave the chunk
    hops_of: dict[str, str] = field(default_factory=dict)  # relpath -> digest of its callers' lines
    # One reach TSV that every spatch process reads whole, instead of a
    # chunk's own lines (the precision corpus: a subset, reach_subset()).
    reach_file: str = ""


@dataclass
class ChunkStats:
    wall: float = 0.0
    user: float = 0.0
    sys: float = 0.0
    maxrss_kb: int = 0
    rc: int = 0


def parse_spatch_output(stdout: str, stderr: str, files: list[str]) -> dict[str, dict]:
    """Per-file results from one spatch run over `files` (file groups)."""
    res = {f: {"status": "", "lines": [], "parse_errors": 0, "parse_error_lines": [],
               "other": [], "candidates": []} for f in files}
    norm = {os.path.normpath(f): f for f in files}

    def owner(p: str) -> str | None:
        return norm.get(os.path.normpath(p))

    cur: str | None = None
    err_lines = stderr.splitlines()
    for i, line in enumerate(err_lines):
        if line.startswith("HANDLING: "):
            # One file a group: the rest of the line is its name, spaces and all.
            name = line[len("HANDLING: "):].strip()
            cur = owner(name) or (owner(name.split()[0]) if name else None)
            if cur and not res[cur]["status"]:
                res[cur]["status"] = "ok"
        elif line.startswith("Skipping: "):
            f = owner(line[len("Skipping: "):].strip())
            if f:
                res[f]["status"] = "skipped"
        elif line.startswith("parse error"):
            at = spatch.parse_error_location(err_lines[i + 1:i + 3])
            f = owner(at[0]) if at else cur
            if f:
                res[f]["parse_errors"] += 1
                if at:
                    res[f]["parse_error_lines"].append(at[1])
        elif line.startswith("EXN:"):
            m = re.search(r"^EXN: (.*) in (.+)$", line)
            f = owner(m.group(2)) if m else cur
            if f:
                res[f]["status"] = "timeout" if "Timeout" in line else "crash"
                res[f]["other"].append(line[:300])
    for line in stdout.splitlines():
        if line.startswith(killable_rules.CANDIDATE_MARK):
            fam, path, lno = (line[len(killable_rules.CANDIDATE_MARK):].split("\t") + ["", ""])[:3]
            f = owner(path)
            if f and lno.isdigit():
                res[f]["candidates"].append([fam, int(lno)])
                continue
        m = spatch.REPORT_RE.match(line)
        f = owner(m.group("file")) if m else None
        if f:
            if line not in res[f]["lines"]:
                res[f]["lines"].append(line)
        elif line.strip():
            # Output the contract does not describe; keep it with the chunk's
            # first file for the record, never lose it silently.
            res[files[0]]["other"].append(line[:300])
    for f, r in res.items():
        if r["status"] in ("timeout", "crash"):
            r["lines"] = []     # a partial match list is not a result
    return res


def kill_group(p: subprocess.Popen) -> None:
    """Kill spatch and the /usr/bin/time around it (children first)."""
    try:
        with open(f"/proc/{p.pid}/task/{p.pid}/children", encoding="ascii") as f:
            kids = [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        kids = []
    for pid in kids + [p.pid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


class Live:
    """The spatch processes running now, so that an interrupted run kills them."""

    def __init__(self) -> None:
        self.procs: set[subprocess.Popen] = set()
        self.lock = threading.Lock()
        self.stopping = False

    def add(self, p: subprocess.Popen) -> None:
        with self.lock:
            if self.stopping:
                kill_group(p)
            self.procs.add(p)

    def remove(self, p: subprocess.Popen) -> None:
        with self.lock:
            self.procs.discard(p)

    def kill_all(self) -> None:
        with self.lock:
            self.stopping = True
            for p in self.procs:
                kill_group(p)


def family_rules(cocci_dir: str) -> list[tuple[str, str]]:
    """Each family's rule file, with the family's name."""
    return [(path, os.path.basename(path)[:-len(".cocci")])
            for path in sorted(glob.glob(os.path.join(cocci_dir, "*.cocci")))]


def keyword_calls(cocci: str) -> re.Pattern:
    """A call of any primitive the rule file's `// Keywords:` names."""
    with open(cocci, encoding="utf-8") as f:
        kw = re.search(r"^// Keywords: (.*)$", f.read(), re.M)
    names = [k.strip() for k in (kw.group(1) if kw else "").split(",") if k.strip()]
    return re.compile(r"\b(?:%s)\s*\(" % "|".join(map(re.escape, names or ["(?!)"])))


def run_pruned(cfg: RunConfig, keep: dict[str, set[int]], live: Live | None,
               texts: dict[str, str]) -> tuple[dict[str, dict], ChunkStats]:
    """spatch over copies of the files that keep only the bodies holding
    the `keep` lines (csource.prune_bodies: same lines and columns)."""
    with tempfile.TemporaryDirectory(prefix="killable-pruned-") as root:
        write_pruned(root, keep, texts)
        return run_spatch(cfg, list(keep), live, root)


def write_pruned(root: str, keep: dict[str, set[int]], texts: dict[str, str]) -> None:
    """Copies of the files under root that keep only the bodies holding the
    `keep` lines."""
    for rel, lines in keep.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(csource.prune_bodies(texts[rel], lines))


def run_families(cfg: RunConfig, files: list[str],
                 live: Live | None = None) -> tuple[dict[str, dict], ChunkStats]:
    """Two passes: every site, then the shape rules where a shape decides.

    spatch parses every function of a file and runs every rule on it, and
    most functions of a file call no primitive, so both passes see copies
    of the files that keep only the bodies they need.  Most sites are
    judged by scope alone (not on a syscall path, refused, a return type
    that cannot carry an error): the first pass, one cheap rule for all
    families over the bodies that call a primitive, reports those and
    names the rest.  The shape rules then run per family over the bodies
    that hold that family's open cases.  On 40 tree files: 14.6 s for the
    mutex family alone on the whole files, 4.6 s for the first pass on
    them, and 1.9 s for the first pass on the pruned copies.
    """
    texts = {}
    for rel in files:
        with open(os.path.join(cfg.kdir, rel), encoding="utf-8", errors="replace") as f:
            texts[rel] = f.read()
    calls = keyword_calls(cfg.sites)
    sites_keep = {}
    for rel, t in texts.items():
        lines = csource.LineIndex(t)
        sites_keep[rel] = {lines.line(m.start()) for m in calls.finditer(t)}
    total = ChunkStats()
    merged, st = run_pruned(dataclasses.replace(cfg, cocci=cfg.sites), sites_keep, live, texts)
    add_stats(total, st)
    rank = {"ok": 0, "skipped": 1, "": 2, "timeout": 3, "crash": 4}
    for cocci, family in family_rules(cfg.cocci):
        keep = {rel: {ln for fam, ln in merged[rel]["candidates"] if fam == family}
                for rel in files if merged[rel]["status"] == "ok"}
        keep = {rel: lines for rel, lines in keep.items() if lines}
        if not keep:
            continue
        res, st = run_pruned(dataclasses.replace(cfg, cocci=cocci), keep, live, texts)
        add_stats(total, st)
        for rel, r in res.items():
            m = merged[rel]
            if rank.get(r["status"], 4) > rank.get(m["status"], 4):
                m["status"] = r["status"]
            m["lines"] += [ln for ln in r["lines"] if ln not in m["lines"]]
            m["parse_errors"] = max(m["parse_errors"], r["parse_errors"])
            m["parse_error_lines"] = sorted(set(m["parse_error_lines"]) | set(r["parse_error_lines"]))
            m["other"] += r["other"]
    for m in merged.values():
        del m["candidates"]
        if m["status"] in ("timeout", "crash"):
            m["lines"] = []
    if cfg.combined:
        add_stats(total, patch_check(cfg, merged, texts, live))
    return merged, total


def patch_check(cfg: RunConfig, merged: dict[str, dict], texts: dict[str, str],
                live: Live | None) -> ChunkStats:
    """Report and patch mode agree (killable/agree.py): the combined rules
    run in patch mode over copies that keep the bodies with converted sites,
    and a converted site with no hunk becomes `manual: rule failed in patch
    mode (why)`, as spatch gives up on a whole file at times (lib/test_hmm.c:
    `... reachable by inconsistent control-flow paths`)."""
    keep: dict[str, set[int]] = {}
    for rel, m in merged.items():
        for ln in m["lines"]:
            r = spatch.parse_report_line(ln)
            if r and r.verdict == "converted":
                keep.setdefault(rel, set()).add(r.line)
    if not keep:
        return ChunkStats()
    with tempfile.TemporaryDirectory(prefix="killable-agree-") as root:
        # The callers' bodies too: the plumbing the rules add there is part
        # of a site's hunk (its lines are next to the site's at times).
        write_pruned(root, {rel: csource.with_callers(texts[rel], lines)
                            for rel, lines in keep.items()}, texts)
        groups = os.path.join(root, ".groups")
        reach = os.path.join(root, ".reach.tsv")
        with open(groups, "w", encoding="utf-8") as f:
            f.write("\n\n".join(sorted(keep)) + "\n")
        if cfg.reach_file:
            reach = cfg.reach_file
        else:
            with open(reach, "w", encoding="utf-8") as f:
                f.write("".join(cfg.reach_of.get(rel, "") for rel in sorted(keep)))
        cmd = spatch.command(cfg.spatch, cfg.combined, "patch", options=cfg.options,
                             quiet=False, reach=reach, timeout=cfg.timeout,
                             tmp_dir=root, args=["--file-groups", groups],
                             spflags=cfg.spflags)
        env = paths.module_env()
        env["KILLABLE_REACH"] = reach
        if cfg.tree_reach:
            env[reachability.TREE_REACH_ENV] = cfg.tree_reach
        env["KILLABLE_SOURCE_ROOT"] = cfg.kdir
        t0 = time.time()
        p = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                             errors="replace", start_new_session=True)
        if live:
            live.add(p)
        try:
            out, err = p.communicate()
        finally:
            if live:
                live.remove(p)
    diffs = agree.split_diff(out)
    failures = [ln for ln in spatch.read_log(err).other if agree.FAILURE_RE.search(ln)]
    for rel, lines in keep.items():
        diff = next((d for f, d in diffs.items() if f == rel or f.endswith("/" + rel)), "")
        res = agree.PatchResult(covered=agree.covered_lines(diff), diff=diff)
        m = merged[rel]
        # Each converted site's hunk, for the page (the change a reader opens).
        m["hunks"] = {str(ln): h for ln, h in agree.hunks_at(agree.tidy(diff), lines).items()}
        funcs = {r.func for r in map(spatch.parse_report_line, m["lines"]) if r}
        # spatch gives up on a whole file: a failure that names one of its
        # functions explains every site of the file that lost its hunk.
        mine = [f for f in failures if rel in f or any(f" in {fn} " in f + " " for fn in funcs)]
        new = []
        for ln in m["lines"]:
            r = spatch.parse_report_line(ln)
            if r and r.verdict == "converted" and r.line not in res.covered:
                why = next((f for f in mine if f" in {r.func} " in f + " "),
                           mine[0] if mine and not diff else "")
                res.failure = agree.failure_message(why) if why else ""
                ln = spatch.report_line(r.file, r.line, r.col, r.colend, r.prim, r.func,
                                        agree.downgrade(r.verdict, r.line, res))
            new.append(ln)
        m["lines"] = new
    return ChunkStats(wall=time.time() - t0, rc=p.returncode)


def add_stats(total: ChunkStats, st: ChunkStats) -> None:
    total.wall += st.wall
    total.user += st.user
    total.sys += st.sys
    total.maxrss_kb = max(total.maxrss_kb, st.maxrss_kb)
    total.rc = total.rc or st.rc


def run_spatch(cfg: RunConfig, files: list[str], live: Live | None = None,
               root: str = "") -> tuple[dict[str, dict], ChunkStats]:
    """One spatch process over `files`; results for the files it finished.

    `root` holds copies of the files (run_families); the rules read the
    facts from the tree's own files."""
    if os.path.isdir(cfg.cocci):
        return run_families(cfg, files, live)
    with tempfile.TemporaryDirectory(prefix="killable-audit-") as wd:
        groups = os.path.join(wd, "groups")
        with open(groups, "w") as f:
            f.write("\n\n".join(files) + "\n")
        # Only these files' lines: the whole tree's reach TSV is ~100 MB and
        # the rules look a function up by the path of the file being matched.
        reach = cfg.reach_file or os.path.join(wd, "reach.tsv")
        if not cfg.reach_file:
            with open(reach, "w") as f:
                f.write("# killable reach for this chunk\n")
                for rel in files:
                    f.write(cfg.reach_of.get(rel, ""))
        cmd = spatch.command(cfg.spatch, cfg.cocci, "report", options=cfg.options,
                             quiet=False, reach=reach, timeout=cfg.timeout,
                             args=["--verbose-parsing", "--file-groups", groups],
                             spflags=cfg.spflags)
        env = paths.module_env()
        env["KILLABLE_REACH"] = reach
        if cfg.tree_reach:
            env[reachability.TREE_REACH_ENV] = cfg.tree_reach
        if root:
            env["KILLABLE_SOURCE_ROOT"] = cfg.kdir
        out_p, err_p = os.path.join(wd, "out"), os.path.join(wd, "err")
        # ru_maxrss of a child forked from this process counts our own pages
        # (the graph: ~1 GB for the whole tree) from before its exec; spatch
        # started by /usr/bin/time is measured alone.
        time_p = os.path.join(wd, "time")
        wrap = (["/usr/bin/time", "-f", "%M %U %S", "-o", time_p]
                if os.access("/usr/bin/time", os.X_OK) else [])
        t0 = time.time()
        with open(out_p, "wb") as out_f, open(err_p, "wb") as err_f:
            p = subprocess.Popen(wrap + cmd, cwd=root or cfg.kdir, stdout=out_f, stderr=err_f,
                                 stdin=subprocess.DEVNULL, env=env)
            if live:
                live.add(p)
            try:
                _pid, status, ru = os.wait4(p.pid, 0)
            except BaseException:
                kill_group(p)
                p.wait()
                raise
            finally:
                if live:
                    live.remove(p)
            p.returncode = os.waitstatus_to_exitcode(status)
        if live and live.stopping:
            raise KeyboardInterrupt
        st = ChunkStats(time.time() - t0, ru.ru_utime, ru.ru_stime, ru.ru_maxrss, p.returncode)
        try:
            with open(time_p, encoding="ascii", errors="replace") as f:
                last = f.read().strip().splitlines()[-1].split()
            st.maxrss_kb, st.user, st.sys = int(last[0]), float(last[1]), float(last[2])
        except (OSError, IndexError, ValueError):
            pass
        with open(out_p, encoding="utf-8", errors="replace") as f:
            stdout = f.read()
        with open(err_p, encoding="utf-8", errors="replace") as f:
            stderr = f.read()
    res = parse_spatch_output(stdout, stderr, files)
    if p.returncode != 0:
        tail = [x for x in stderr.splitlines() if x.strip()][-3:]
        for f, r in res.items():
            if r["status"] in ("", "ok") and len(files) == 1:
                r["status"] = "crash"
                r["lines"] = []
                r["other"].extend(x[:300] for x in tail)
            elif r["status"] in ("", "ok"):
                r["status"] = ""      # unknown: rerun alone
    return res, st


TREE_REACH_KEEP = 4


def write_tree_reach(by_file: dict[str, str], graph: callgraph.Graph, d: str) -> str:
    """Every file's reach lines in one file named by their digest, with an
    index beside it (reach.write_indexed) and the global functions' files
    (reach.DEFS_SUFFIX); its path."""
    defs = sorted(f"{name}\t{','.join(sorted({graph.files[n] for n in nids}))}\n"
                  for name, nids in graph.globals.items()
                  if all(graph.files[n].endswith(".c") for n in nids))
    h = hashlib.sha256()
    for rel in sorted(by_file):
        h.update(rel.encode() + b"\0" + by_file[rel].encode())
    h.update("".join(defs).encode())
    path = os.path.join(d, h.hexdigest()[:24] + ".tsv")
    if not os.path.exists(path + reachability.INDEX_SUFFIX):
        os.makedirs(d, exist_ok=True)
        with callgraph.atomic_open(path + reachability.DEFS_SUFFIX) as f:
            f.writelines(defs)
        reachability.write_indexed(path, by_file)
    os.utime(path)
    # The few most recent trees stay (another audit may be reading one).
    old = sorted(glob.glob(os.path.join(d, "*.tsv")), key=os.path.getmtime)[:-TREE_REACH_KEEP]
    for stale in old:
        for p in (stale + reachability.INDEX_SUFFIX, stale + reachability.DEFS_SUFFIX, stale):
            try:
                os.unlink(p)
            except OSError:
                pass
    return path


def caller_lines_digest(lines: str, by_file: dict[str, str]) -> str:
    """A digest of the reach lines of the files lines names as callers
    (mcaller:FILE:..., gcall:FILE:...): a file's verdicts read them, so
    its cached results must not outlive a change there."""
    files = sorted({cls.split(":")[1] for ln in lines.splitlines()
                    for cls in ln.rsplit("\t", 1)[-1].split(",")
                    if cls.startswith(("mcaller:", "gcall:"))})
    if not files:
        return ""
    h = hashlib.sha256()
    for rel in files:
        h.update(rel.encode() + b"\0" + by_file.get(rel, "").encode())
    return h.hexdigest()


def file_key(cfg: RunConfig, kdir: str, rel: str) -> str:
    with open(os.path.join(kdir, rel), "rb") as f:
        h = hashlib.sha256(f.read())
    h.update(b"\0" + cfg.key_base.encode() + b"\0" + cfg.reach_of.get(rel, "").encode())
    h.update(b"\0" + cfg.hops_of.get(rel, "").encode())
    return h.hexdigest()


def cache_path(cfg: RunConfig, key: str) -> str:
    return os.path.join(cfg.cache_dir, key[:2], key + ".json")


class Progress:
    """One updating line on stderr when it is a terminal."""

    def __init__(self, total: int, cached: int, enabled: bool) -> None:
        self.total, self.done, self.cached = total, cached, cached
        self.enabled = enabled and sys.stderr.isatty()
        self.t0 = time.time()
        self.bad = 0
        self.lock = threading.Lock()
        self.show()

    def add(self, n: int, bad: int) -> None:
        with self.lock:
            self.done += n
            self.bad += bad
            self.show()

    def show(self) -> None:
        if not self.enabled:
            return
        ran = self.done - self.cached
        left = self.total - self.done
        el = time.time() - self.t0
        eta = f"~{int(el / ran * left) // 60}m{int(el / ran * left) % 60:02d}s left" if ran else "..."
        sys.stderr.write(f"\raudit: {self.done}/{self.total} files ({self.cached} cached, "
                         f"{self.bad} timeout/crash), {eta}   ")
        sys.stderr.flush()

    def end(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def run_config(kdir: str, cache: str, spatch_bin: str, cocci: str, rver: str, sver: str,
               timeout: int, spflags: list[str], reach_of: dict[str, str], *,
               tree_reach: str = "", hops_of: dict[str, str] | None = None,
               reach_file: str = "", families: bool = True) -> RunConfig:
    """How spatch runs the rules (cocci: the family directory, or one rule
    file when families is false), with the key of its cached results: the
    header summaries are made first, once (each spatch process reads
    them), and are in the key, as a header change can change a verdict."""
    try:
        effects_table = os.path.basename(effects.ensure_table(kdir, cache))
    except OSError:
        effects_table = "none"
    opts = spatch.rule_options(cocci) or spatch.DEFAULT_OPTIONS
    key_base = "|".join([CACHE_FORMAT, rver, sver, " ".join(opts), str(timeout),
                         " ".join(spflags), effects_table])
    if reach_file:
        # Every file reads all of it: its content is in each file's key.
        with open(reach_file, "rb") as f:
            key_base += "|reach:" + hashlib.sha256(f.read()).hexdigest()[:12]
    return RunConfig(kdir, spatch_bin, cocci, reach_of, opts, timeout, spflags,
                     os.path.join(cache, "audit-cache", "spatch"), key_base,
                     combined_rules(cache, rver, kind="sites") if families else "",
                     combined_rules(cache, rver) if families else "",
                     tree_reach, hops_of or {}, reach_file)


def run_files(cfg: RunConfig, files: list[str], jobs: int, chunk: int, progress: bool,
              deadline: float = 0.0) -> tuple[dict[str, dict], list[ChunkStats]]:
    results: dict[str, dict] = {}
    todo: list[str] = []
    keys = {}
    for rel in files:
        k = file_key(cfg, cfg.kdir, rel)
        keys[rel] = k
        try:
            with open(cache_path(cfg, k), encoding="utf-8") as f:
                results[rel] = json.load(f)
        except (OSError, ValueError):
            todo.append(rel)
    prog = Progress(len(files), len(files) - len(todo), progress)
    stats: list[ChunkStats] = []
    lock = threading.Lock()
    live = Live()

    def store(rel: str, r: dict) -> None:
        callgraph.atomic_write(cache_path(cfg, keys[rel]), json.dumps(r, sort_keys=True))
        with lock:
            results[rel] = dict(r, _ran=True)

    def work(group: list[str]) -> None:
        if deadline and time.time() > deadline:
            return      # out of budget: these files stay unaudited, said so in the report
        res, st = run_spatch(cfg, group, live)
        with lock:
            stats.append(st)
        again = []
        for rel in group:
            r = res[rel]
            if r["status"]:
                store(rel, r)
            else:
                again.append(rel)
        if len(group) > 1:
            for rel in again:      # crash of the chunk: find the file that did it
                res1, st1 = run_spatch(cfg, [rel], live)
                with lock:
                    stats.append(st1)
                r = res1[rel]
                if not r["status"]:
                    r["status"] = "crash"
                store(rel, r)
        elif again:
            r = res[again[0]]
            r["status"] = "crash"
            store(again[0], r)
        prog.add(len(group), sum(1 for rel in group
                                 if results.get(rel, {}).get("status") in ("timeout", "crash")))

    # Big files first so that the last chunks are short.
    todo.sort(key=lambda rel: -os.path.getsize(os.path.join(cfg.kdir, rel)))
    # At least ~4 chunks per worker, so that J workers stay busy to the end.
    size = max(1, min(chunk, -(-len(todo) // (max(1, jobs) * 4))))
    groups = [todo[i:i + size] for i in range(0, len(todo), size)]
    ex = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futs = [ex.submit(work, g) for g in groups]
        for fu in as_completed(futs):
            fu.result()
    except BaseException:
        # Ctrl-C or SIGTERM: stop the running spatch processes; what is
        # cached stays cached.
        live.kill_all()
        ex.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        ex.shutdown(wait=True)
        prog.end()
    return results, stats


# ---------------------------------------------------------------- joining

def subsystem_of(rel: str) -> str:
    parts = rel.split("/")
    if len(parts) >= 3 and parts[0] in ("drivers", "sound", "arch", "fs", "net"):
        if parts[0] == "drivers":
            return "/".join(parts[:2])
    return parts[0] if len(parts) > 1 else "."


def site_record(m: re.Match, families: dict[str, str], lookup, rel: str) -> dict:
    verdict_text = m.group("verdict").strip()
    if verdict_text == "converted":
        verdict, reason = "convertible", ""
    elif verdict_text.startswith("refused:"):
        verdict, reason = "refused", verdict_text[len("refused:"):].strip()
    elif verdict_text.startswith("manual:"):
        verdict, reason = "manual", verdict_text[len("manual:"):].strip()
    elif verdict_text == "not on a syscall path":
        verdict, reason = "not on a syscall path", ""
    else:
        verdict, reason = "manual", "unknown verdict: " + verdict_text
    func = m.group("func")
    g = lookup(rel, func)
    return {"file": rel, "line": int(m.group("line")), "col": int(m.group("col")),
            "function": func, "primitive": m.group("prim"),
            "family": families.get(m.group("prim"), "?"),
            "verdict": verdict, "reason": reason, "needs": m.group("needs") or "",
            "root_kinds": ";".join(g.get("root_kinds", [])),
            "chain": g.get("chain", ""),
            "mnf_kinds": ";".join(g.get("mnf_kinds", [])),
            "subsystem": subsystem_of(rel), "driver": os.path.dirname(rel) or ".",
            "mnf_chain": g.get("mnf_chain", "")}


def join(results: dict[str, dict], families: dict[str, str], lookup) -> dict[str, dict]:
    """Site records: rule verdicts plus lookup(relpath, function) from the graph."""
    out = {}
    for rel in sorted(results):
        r = results[rel]
        sites = []
        for line in r.get("lines", []):
            m = spatch.REPORT_RE.match(line)
            if m:
                sites.append(site_record(m, families, lookup, rel))
                hunk = r.get("hunks", {}).get(m.group("line"), "")
                if hunk and sites[-1]["verdict"] == "convertible":
                    sites[-1]["hunk"] = hunk
        sites.sort(key=lambda s: (s["line"], s["col"], s["primitive"]))
        out[rel] = {"status": r.get("status", ""), "parse_errors": r.get("parse_errors", 0),
                    "parse_error_lines": r.get("parse_error_lines", []),
                    "other": r.get("other", [])[:5], "sites": sites}
    return out


# ---------------------------------------------------------------- the run

@dataclass
class Options:
    kdir: str
    subdir: str = ""
    jobs: int = 2
    cache: str = os.path.expanduser("~/.cache/killable")
    spatch: str = "spatch"
    rules: str = ""
    reports: str = os.path.join(ROOT, "reports")
    timeout: int = 120
    chunk: int = 120
    budget: float = 0.0
    spflags: list[str] = field(default_factory=list)
    shard: tuple[int, int] | None = None
    out: str = ""
    graph_scope: str = "tree"
    files: list[str] = field(default_factory=list)
    progress: bool = True
    strict_scan: bool = False
    risk: bool = True
    kcache: str = kernel_tree.DEFAULT_KCACHE
    force: bool = False


def audit(o: Options) -> dict:
    check_kdir(o.kdir)
    kdir = os.path.abspath(o.kdir)
    try:
        sub = kernel_tree.subdir(kdir, o.subdir)
    except kernel_tree.TreeError as e:
        raise AuditError(str(e)) from None
    if sub and not os.path.isdir(os.path.join(kdir, sub)):
        raise AuditError(f"M={o.subdir}: not a directory in {kdir}")
    tree = kernel_tree.report_name(kdir, sub, o.kcache)
    source = kernel_tree.source(kdir)
    outdir = os.path.join(o.reports, tree)
    if o.shard:
        check_writable(os.path.dirname(os.path.abspath(o.out)) or ".")
    else:
        check_writable(outdir)
        check_source(outdir, source, o.force)
    t_start = time.time()
    rver = rules_version()
    sver = spatch.version(o.spatch)
    # The family files one by one (see run_families); --rules picks one file.
    cocci = combined_rules(o.cache, rver, o.rules) if o.rules else os.path.join(ROOT, "cocci")
    if o.rules:
        with open(cocci, "rb") as f:
            rver = rver + "+" + hashlib.sha256(f.read()).hexdigest()[:8]
    families = load_primitives(os.path.join(ROOT, "cocci", "data", "primitives.tsv"))

    # 1. graph
    t0 = time.time()
    scope = [sub] if (o.graph_scope == "subdir" and sub) else None
    res = callgraph.compute(kdir, o.cache, o.jobs, scope, progress=o.progress,
                            reuse_stale=not o.strict_scan,
                            with_facts=risk_analysis.tree_facts_hook(kdir, o.cache, scope)
                            if o.risk else None)
    by_file = callgraph.reach_by_file(res)
    t_graph = time.time() - t0

    # 2. candidates
    files = o.files or candidates(kdir, list(families), sub)
    if o.shard:
        files = shard_files(files, *o.shard)
    # Only the audited files' reach lines are kept (the whole tree's are 59 MB);
    # the rest go to a file the rules read a file at a time, when a caller
    # walk leaves the files of its chunk.
    reach_of = {rel: by_file[rel] for rel in files if rel in by_file}
    tree_reach = write_tree_reach(by_file, res.graph, os.path.join(o.cache, "audit-cache", "reach"))
    hops_of = {rel: caller_lines_digest(lines, by_file) for rel, lines in reach_of.items()}
    res.by_file = by_file = None

    # 3. spatch (run_config)
    os.environ["KILLABLE_CACHE"] = o.cache
    cfg = run_config(kdir, o.cache, o.spatch, cocci, rver, sver, o.timeout, o.spflags,
                     reach_of, tree_reach=tree_reach, hops_of=hops_of, families=not o.rules)
    t1 = time.time()
    deadline = t_start + o.budget * 60 if o.budget else 0.0
    results, stats = run_files(cfg, files, o.jobs, o.chunk, o.progress, deadline)
    t_spatch = time.time() - t1
    not_audited = sorted(set(files) - set(results))

    joined = join(results, families, res.lookup)
    # 4. hang risk (killable.risk): risk and risk_evidence, last in each site
    t2 = time.time()
    ra = risk_analysis.analyze(kdir, o.cache, o.jobs, res=res, subdirs=scope) if o.risk else None
    for r in joined.values():
        risk_analysis.annotate(r["sites"], ra)
    t_risk = time.time() - t2
    # The graph and the risk analysis are done with: the reports reuse their memory.
    graph_stats, unreadable = res.stats, res.unreadable
    del res, ra
    data = {"format": RESULT_FORMAT, "tree": tree, "source": source, "subdir": sub,
            "kernelversion": kernel_tree.kernel_version(kdir),
            "rules_version": rver, "spatch_version": sver,
            "shard": f"{o.shard[0]}/{o.shard[1]}" if o.shard else "",
            "candidates": len(files), "files": joined, "not_audited": not_audited,
            **({"unreadable": unreadable} if unreadable else {}),
            "graph": {k: v for k, v in graph_stats.items()
                      if k not in ("scan_cache_hits", "scan_s", "build_s", "bfs_s",
                                   "graph_cached", "rescanned")}}
    run_stats = {"wall_s": round(time.time() - t_start, 2), "graph_s": round(t_graph, 2),
                 "spatch_s": round(t_spatch, 2), "risk_s": round(t_risk, 2),
                 "spatch_runs": len(stats),
                 "spatch_ran_files": sum(1 for r in results.values() if r.get("_ran")),
                 "spatch_user_s": round(sum(s.user for s in stats), 2),
                 "spatch_sys_s": round(sum(s.sys for s in stats), 2),
                 "spatch_max_rss_kb": max((s.maxrss_kb for s in stats), default=0),
                 "spatch_nonzero_rc": sum(1 for s in stats if s.rc != 0),
                 "jobs": o.jobs, "chunk": o.chunk, "graph": graph_stats}
    data["run_stats"] = run_stats
    if o.shard:
        run_stats["max_rss_kb"] = max_rss_kb()
        with callgraph.atomic_open(o.out) as f:
            report_audit.write_json(f, data)
    else:
        report_audit.write_reports(data, outdir)
        # The reachability the rules saw, for the audited files (make hung uses it).
        with callgraph.atomic_open(os.path.join(outdir, "reach.tsv")) as f:
            for rel in sorted(files):
                f.write(reach_of.get(rel, ""))
        # The peak of this process: the graph, the verdicts and the reports
        # (spatch and the scan workers are apart: spatch_max_rss_kb).
        run_stats["max_rss_kb"] = max_rss_kb()
        callgraph.atomic_write(os.path.join(outdir, "run-stats.json"),
                               json.dumps(run_stats, indent=1, sort_keys=True) + "\n")
    return data


def max_rss_kb() -> int:
    """The peak resident set of this process so far, in KiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def merge(paths: list[str], reports: str, force: bool = False) -> dict:
    parts = []
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            raise AuditError(f"shard result {p}: cannot read ({e})") from None
        if d.get("format") != RESULT_FORMAT:
            raise AuditError(f"shard result {p}: not a {RESULT_FORMAT} file")
        parts.append(d)
    first = parts[0]
    for d, p in zip(parts, paths):
        for k in ("tree", "source", "rules_version", "spatch_version", "subdir"):
            if d.get(k) != first.get(k):
                raise AuditError(f"shard result {p}: {k} {d[k]!r} differs from {first[k]!r}")
    files: dict[str, dict] = {}
    for d in parts:
        for rel, r in d["files"].items():
            files[rel] = r
    data = dict(first)
    data["shard"] = ""
    data["files"] = {k: files[k] for k in sorted(files)}
    data["candidates"] = sum(d["candidates"] for d in parts)
    data.pop("run_stats", None)
    outdir = os.path.join(reports, first["tree"])
    check_writable(outdir)
    if first.get("source"):
        check_source(outdir, first["source"], force)
    report_audit.write_reports(data, outdir)
    return data


def audit_spflags(spflags: str) -> list[str]:
    """SPFLAGS for the audit: it reads spatch's progress and parse errors on
    stderr, so --quiet and --very-quiet (which change only what spatch
    says, not what it finds) are left out."""
    return [f for f in spatch.split_flags(spflags) if f not in ("--quiet", "--very-quiet")]


def on_sigterm(_signum: int, _frame) -> None:
    raise KeyboardInterrupt


def main() -> int:
    ap = cli.parser("Audit a kernel tree with the killable rules.")
    ap.add_argument("--kdir", default=os.path.expanduser("~/.cache/killable/linux-6.1"))
    ap.add_argument("-M", "--subdir", default="", help="restrict to this subtree (make M=)")
    ap.add_argument("-j", "--jobs", type=cli.positive_int, default=os.cpu_count() or 1)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/killable"))
    ap.add_argument("--spatch", default="spatch")
    ap.add_argument("--rules", default="", help="rule file instead of the generated combined one")
    ap.add_argument("--reports", default=os.path.join(ROOT, "reports"),
                    help="reports base dir (the tree name is appended)")
    ap.add_argument("--timeout", type=int, default=120, help="spatch --timeout per file")
    ap.add_argument("--chunk", type=int, default=120, help="files per spatch process")
    ap.add_argument("--budget", type=float, default=0.0, metavar="MIN",
                    help="start no spatch chunk after MIN minutes; the report says what is "
                         "left, and a rerun resumes from the cache")
    ap.add_argument("--spflags", default="", help="extra spatch flags, last")
    ap.add_argument("--graph-scope", choices=("tree", "subdir"), default="tree",
                    help="call graph over the whole tree (default) or only M")
    ap.add_argument("--shard", metavar="K/N", help="process part K of N into --out")
    ap.add_argument("--out", default="", help="shard result file")
    ap.add_argument("--merge", nargs="+", metavar="RESULT", help="merge shard results")
    ap.add_argument("--files", nargs="*", default=[], help="audit these relpaths only")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--strict-scan", action="store_true",
                    help="rescan files whose graph facts come from an older csource version")
    ap.add_argument("--no-risk", action="store_true",
                    help="leave the risk columns empty (no hang-risk analysis, ~1 min less)")
    ap.add_argument("--kcache", default=kernel_tree.DEFAULT_KCACHE,
                    help="the kernel cache make deps unpacks: its reports are linux-X.Y, "
                         "any other tree's linux-X.Y-<hash>")
    ap.add_argument("--force", action="store_true",
                    help="replace reports that came from another tree")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        if args.merge:
            d = merge(args.merge, args.reports, args.force)
            print(f"audit: merged {len(args.merge)} shards into "
                  f"{os.path.join(args.reports, d['tree'])}/")
            return 0
        shard = None
        if args.shard:
            m = re.match(r"^(\d+)/(\d+)$", args.shard)
            if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
                raise AuditError(f"--shard {args.shard}: want K/N with 1 <= K <= N")
            shard = (int(m.group(1)), int(m.group(2)))
            if not args.out:
                raise AuditError("--shard needs --out FILE")
        o = Options(kdir=args.kdir, subdir=args.subdir, jobs=args.jobs,
                    cache=os.path.abspath(args.cache),
                    spatch=args.spatch, rules=os.path.abspath(args.rules) if args.rules else "",
                    reports=os.path.abspath(args.reports),
                    timeout=args.timeout, chunk=args.chunk, budget=args.budget,
                    spflags=audit_spflags(args.spflags),
                    shard=shard, out=args.out, graph_scope=args.graph_scope,
                    files=args.files, progress=not args.no_progress,
                    strict_scan=args.strict_scan, kcache=args.kcache, force=args.force,
                    risk=not args.no_risk)
        d = audit(o)
    except (AuditError, spatch.SpatchError) as e:
        print(f"audit: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\naudit: interrupted; finished files are cached, rerun to resume",
              file=sys.stderr)
        return 130
    totals = report_audit.totals(d)
    where = o.out if shard else os.path.join(o.reports, d["tree"]) + "/"
    print(f"audit: {totals['files']} files, {totals['sites']} sites "
          f"({', '.join(f'{v} {k}' for k, v in totals['by_verdict'].items())}), "
          f"{totals['parse_error_files']} files with parse errors, "
          f"{totals['failed_files']} timeout/crash -> {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
