#!/usr/bin/env python3
"""Turn killable's patch-mode diff into reviewable patch series, one per MAINTAINERS section.

Runs the combined rules in patch and report mode on M, splits the diff per
file, groups the files by MAINTAINERS section (get_maintainer.pl --subsystem),
commits one patch per file (files coupled by a converted helper go together)
in a private clone of the tree, checks every patch (checkpatch --strict, a
C=1 sparse compile of each changed file on an allmodconfig build), and writes
`git format-patch --cover-letter --thread=shallow` series plus SUMMARY.md.
Only the functions whose converted sites the hang-risk stage (killable.risk)
ranks high are kept, with the evidence in each commit message; --all keeps
every convertible site.
The tree and its repository are only read: commits live in a clone that
borrows the tree's objects (`git clone --shared`).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from typing import Iterable, Optional, Sequence

from killable import cli, data, paths, spatch
from killable.atomic import atomic_write
from killable.graph import callgraph
from killable.paths import KERNEL_PATCHES, TOP
from killable.risk import analysis as risk_analysis
from killable.scan import csource
DIAG = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?:(?P<col>\d+):)? "
                  r"(?P<kind>warning|error): (?P<msg>.*)$")
DIAG_ANY = re.compile(r"^\S+:\d+:(?:\d+:)? (?:warning|error): ", re.M)
MAX_PER_SERIES = 15
SUBJECT_MAX = 75
WRAP = 72
CONFIG_DISABLE = ["WERROR", "DEBUG_INFO_BTF", "KASAN", "KCSAN", "UBSAN", "KCOV",
                  "GCOV_KERNEL", "GCC_PLUGINS", "DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT",
                  "DEBUG_INFO_DWARF4", "DEBUG_INFO_DWARF5"]
CONFIG_ENABLE = ["DEBUG_INFO_NONE"]


class Fail(Exception):
    """A one-line error for the user."""


@dataclasses.dataclass
class Site:
    file: str
    line: int
    col: int
    prim: str
    func: str
    verdict: str
    risk: str = ""          # hang risk (killable.risk), when it was ranked
    evidence: str = ""
    needs: str = ""         # the file in kernel-patches/ its twin comes from
    lock: str = ""          # the lock's (or queue's) identity, when the risk stage named it

    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclasses.dataclass
class Unit:
    """One commit: a file, or files coupled by a converted helper."""
    files: list[str]
    diff: str
    sites: list[Site]
    section: str
    prefix: str
    cc: list[str]
    subject: str = ""
    body: str = ""
    checkpatch: str = "not run"
    checkpatch_lines: list[str] = dataclasses.field(default_factory=list)
    compile: str = "not run"
    compile_lines: list[str] = dataclasses.field(default_factory=list)
    sparse: str = "not run"
    sparse_lines: list[str] = dataclasses.field(default_factory=list)
    compiled: dict[str, str] = dataclasses.field(default_factory=dict)
    needs: list[str] = dataclasses.field(default_factory=list)
    exported: list[str] = dataclasses.field(default_factory=list)

    def ok(self, allow_unbuilt: bool = False) -> bool:
        built = ("ok", "not built") if allow_unbuilt else ("ok",)
        return (self.checkpatch == "clean" and self.compile in built
                and self.sparse in ("clean", "not built"))


def log(msg: str) -> None:
    print(f"batches: {msg}", file=sys.stderr, flush=True)


def run(cmd: list[str], cwd: Optional[str] = None, check: bool = False,
        env: Optional[dict[str, str]] = None, inp: Optional[str] = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, input=inp,
                          errors="replace")
    if check and proc.returncode:
        err = (proc.stderr or proc.stdout).strip().splitlines()
        raise Fail(f"{' '.join(cmd[:3])} failed: {err[-1] if err else proc.returncode}")
    return proc


def git(repo: str, *args: str, check: bool = True, env: Optional[dict[str, str]] = None,
        inp: Optional[str] = None) -> str:
    return run(["git", "-C", repo, *args], check=check, env=env, inp=inp).stdout


def user_identity(kdir: str) -> tuple[str, str]:
    """Who the patches are from and who signs them off: the committer git
    itself would record in kdir, as `git format-patch -s` does
    (GIT_COMMITTER_NAME/EMAIL, then the tree's config, then the global one).
    A Signed-off-by certifies the Developer's Certificate of Origin, so only
    the person sending the patches can give it, never the tool."""
    ident = []
    for var, key in (("GIT_COMMITTER_NAME", "user.name"), ("GIT_COMMITTER_EMAIL", "user.email")):
        ident.append(os.environ.get(var, "").strip() or
                     git(kdir, "config", "--get", key, check=False).strip())
    if not all(ident):
        raise Fail("no git identity to sign the patches off with: set yours with "
                   "git config --global user.name 'Your Name' and "
                   "git config --global user.email you@example.org (or in KDIR)")
    return ident[0], ident[1]


# ---------------------------------------------------------------- parsing

def parse_report(text: str) -> list[Site]:
    sites = []
    for line in text.splitlines():
        r = spatch.parse_report_line(line)
        if r:
            sites.append(Site(r.file, r.line, r.col, r.prim, r.func, r.verdict, needs=r.needs))
    return sites


def split_diff(text: str) -> dict[str, str]:
    """Per-file pieces of a `diff -u -p` (spatch's or git's), keyed by the b/ path."""
    pieces: dict[str, list[str]] = {}
    cur: Optional[list[str]] = None
    pending: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("diff "):
            pending = [line]
            cur = None
            continue
        if line.startswith("--- ") and (cur is None or pending):
            pending.append(line)
            continue
        if line.startswith("+++ ") and pending:
            path = line[4:].split("\t")[0].strip()
            path = path[2:] if path.startswith("b/") else path
            if path in pieces:
                raise Fail(f"the diff patches {path} twice (run the combined rules)")
            cur = pieces[path] = pending + [line]
            pending = []
            continue
        if cur is not None:
            cur.append(line)
    return {k: "".join(v) for k, v in pieces.items()}


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


def hunks_of(piece: str) -> tuple[list[str], list[list]]:
    """(header lines, [[old start, old len, new start, new len, tail, body lines]])."""
    head: list[str] = []
    hunks: list[list] = []
    for line in piece.splitlines(keepends=True):
        m = HUNK.match(line.rstrip("\n"))
        if m:
            hunks.append([int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1),
                          int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1),
                          m.group(5), []])
        elif hunks:
            hunks[-1][5].append(line)
        else:
            head.append(line)
    return head, hunks


def hunk_functions(spans: list[tuple[int, int, str]], hunk: list) -> set[str]:
    """The functions of the original file whose lines a hunk changes."""
    old = hunk[0]
    changed: list[int] = []
    for line in hunk[5]:
        if line.startswith("-"):
            changed.append(old)
            old += 1
        elif line.startswith("+"):
            changed.append(old)
        elif not line.startswith("\\"):
            old += 1
    return {name for a, b, name in spans for c in changed if a <= c <= b}


def name_locks(sites: list[Site], ra: "risk_analysis.Analysis") -> None:
    """Each site's hang risk with its evidence, and its lock or queue as the
    risk stage names it: the unit a reviewer asks about ("why these two
    acquisitions and not the third?")."""
    for s in sites:
        s.risk, s.evidence = ra.rank(s.file, s.line, s.prim)
        found = ra.site(s.file, s.line, s.prim)
        s.lock = found.identity if found is not None else ""


def lock_lines(unit: Unit, sites: Sequence[Site]) -> list[str]:
    """For each lock the unit converts: which of its acquisitions in the
    audited directory it converts, which it leaves and why (one line each),
    and, when its long holder keeps sleeping uninterruptibly, what the
    conversion still buys."""
    conv = [s for s in unit.sites if s.verdict == "converted" and s.lock]
    out: list[str] = []

    def key(s: Site) -> tuple[str, str]:
        # One lock the risk stage names twice (behind a typedef) is one.
        return driver_dir(s.file), lock_short_name(s.lock)

    for k in dict.fromkeys(key(s) for s in conv):
        mine = [s for s in conv if key(s) == k]
        others = [s for s in sites if s.lock and key(s) == k and s not in mine]
        names = list(dict.fromkeys(s.lock for s in mine + others))
        lock = names[0] if len(names) == 1 else f"{k[1]} ({', '.join(names)})"
        taken = [s for s in others if s.verdict == "converted"]
        idle = [s for s in others if s.verdict == "not on a syscall path"]
        left = [s for s in others if s.verdict not in ("converted", "not on a syscall path")]
        head = (f"{lock}: this patch converts {len(mine)} of its {len(mine) + len(others)} "
                f"acquisitions here")
        head += (f"; {len(taken)} more {'is' if len(taken) == 1 else 'are'} converted in "
                 f"{'another patch' if len(taken) == 1 else 'other patches'} of this series"
                 if taken else "")
        head += (f"; {len(idle)} {'is' if len(idle) == 1 else 'are'} not on a system-call "
                 f"path" if idle else "")
        head += "; left alone on system-call paths:" if left else "."
        out.append(textwrap.fill(head, WRAP, initial_indent="  ", subsequent_indent="    ",
                                 break_long_words=False, break_on_hyphens=False))
        for x in left:
            out.append(textwrap.fill(f"{os.path.basename(x.file)}:{x.line} {x.func}(): "
                                     f"{x.verdict}", WRAP, initial_indent="    ",
                                     subsequent_indent="      ", break_long_words=False,
                                     break_on_hyphens=False))
        holder = re.search(r"held across .* in (\w+)\(\)", mine[0].evidence or "")
        if holder and any(x.func == holder.group(1) for x in left):
            out.append(textwrap.fill(
                f"Its long holder, {holder.group(1)}(), still takes it uninterruptibly: "
                f"the converted acquisitions stop waiting for it on a fatal signal, "
                f"while a task stuck inside {holder.group(1)}() itself stays unkillable.",
                WRAP, initial_indent="    ", subsequent_indent="    ",
                break_long_words=False, break_on_hyphens=False))
    return out


def keep_high_risk(kdir: str, pieces: dict[str, str], sites: list[Site],
                   ra: "risk_analysis.Analysis") -> dict[str, str]:
    """The diff pieces cut down to the functions with a high-risk converted
    site, and the hunks that plumb their callers.  The other converted sites
    get the verdict `not taken: hang risk low|unknown`."""
    conv = [s for s in sites if s.verdict == "converted"]
    for s in conv:
        s.risk, s.evidence = ra.rank(s.file, s.line, s.prim)
    keep = {(s.file, s.func) for s in conv if s.risk == "high"}
    conv_funcs: dict[str, set[str]] = collections.defaultdict(set)
    for s in conv:
        conv_funcs[s.file].add(s.func)
    parsed: dict[str, tuple[list[str], list[list], list[set[str]]]] = {}
    for f, piece in pieces.items():
        spans = function_spans(kdir, f)
        head, hunks = hunks_of(piece)
        parsed[f] = (head, hunks, [hunk_functions(spans, h) for h in hunks])
    # A hunk that changes a kept function and another converted one keeps both.
    changed = True
    while changed:
        changed = False
        for f, (_head, _hunks, funcs) in parsed.items():
            for fs in funcs:
                mine = fs & conv_funcs[f]
                if any((f, x) in keep for x in mine) and not all((f, x) in keep for x in mine):
                    keep |= {(f, x) for x in mine}
                    changed = True
    kept_names = {x for _f, x in keep}
    dropped_names = {s.func for s in conv} - kept_names
    out: dict[str, str] = {}
    for f, (head, hunks, funcs) in parsed.items():
        kept: list[list] = []
        for h, fs in zip(hunks, funcs):
            mine = fs & conv_funcs[f]
            if mine:
                ok = any((f, x) in keep for x in mine)
            else:
                # Plumbing (a caller of a converted helper, a prototype): kept
                # with the helper it is for.
                text = "".join(l[1:] for l in h[5] if l[:1] in "+-")
                calls = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text))
                ok = bool(calls & kept_names) or not calls & dropped_names
            if ok:
                kept.append(h)
        if kept:
            out[f] = join_hunks(head, kept)
    for s in conv:
        if (s.file, s.func) not in keep:
            s.verdict = f"not taken: hang risk {s.risk or 'unknown'}"
    return out


def added_lines(diff: str) -> set[int]:
    """New-file line numbers of the + lines."""
    out: set[int] = set()
    n = 0
    for line in diff.splitlines():
        m = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", line)
        if m:
            n = int(m.group(1))
            continue
        if line.startswith("+++") or line.startswith("---"):
            continue
        if line.startswith("+"):
            out.add(n)
            n += 1
        elif line.startswith(" ") or line == "":
            n += 1
    return out


def load_twins() -> dict[str, tuple[str, str, str]]:
    """primitive -> (twin, kernel patch it needs or "", error on a fatal signal)."""
    return {p.name: (p.twin, p.needs, p.error) for p in data.load_primitives().values()}


# ---------------------------------------------------------------- naming

def prefix_from_history(kdir: str, path: str) -> str:
    """The most common `a: b:` prefix of the subjects touching path's directory."""
    d = os.path.dirname(path) or "."
    out = git(kdir, "log", "--no-merges", "-n", "50", "--format=%s", "--", d, check=False)
    counts: collections.Counter[str] = collections.Counter()
    for subj in out.splitlines():
        m = re.match(r"^((?:[\w./+-]+(?: [\w./+-]+)?: )+)", subj)
        if m:
            counts[m.group(1).strip()] += 1
    if counts:
        best, n = counts.most_common(1)[0]
        if n >= 3:
            return best
    return ""


def prefix_from_path(path: str, prefixes: list[tuple[re.Pattern, str]] | None = None) -> str:
    """The subject prefix cocci/data/subject-prefixes.tsv gives path."""
    for pat, tmpl in data.load_subject_prefixes() if prefixes is None else prefixes:
        m = pat.match(path)
        if m:
            return tmpl.format(*m.groups())
    return os.path.splitext(os.path.basename(path))[0] + ":"


def func_list(funcs: list[str]) -> str:
    names = [f"{f}()" for f in funcs]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def func_kind(func: str) -> str:
    """What kind of syscall entry a function name suggests, for subjects and bodies."""
    if "ioctl" in func:
        return "ioctl"
    if "dbgfs" in func or "debugfs" in func:
        return "debugfs"
    if re.search(r"_(show|store)$", func):
        return "sysfs"
    if re.search(r"_(open|read|write|fsync|llseek|mmap|read_iter|write_iter|splice_read)$", func):
        return "file"
    if re.search(r"_(start|next|stop)$", func):
        return "seq_file"
    return "syscall"


def kinds_phrase(funcs: list[str]) -> str:
    """"file, ioctl and sysfs paths"; "syscall paths" when a name says nothing."""
    order = ["file", "ioctl", "sysfs", "debugfs", "seq_file"]
    kinds = {func_kind(f) for f in funcs}
    if "syscall" in kinds:
        return "syscall paths"
    names = [k for k in order if k in kinds]
    return (", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]) + " paths"


def kinds_nouns(funcs: list[str]) -> str:
    """"file operations and sysfs attributes", for the commit body."""
    nouns = {"file": "file operations", "ioctl": "ioctl", "sysfs": "sysfs attributes",
             "debugfs": "debugfs files", "seq_file": "seq_file reads", "syscall": "system calls"}
    kinds = list(dict.fromkeys(nouns[k] for k in ["file", "ioctl", "sysfs", "debugfs", "seq_file",
                                                   "syscall"] if k in {func_kind(f) for f in funcs}))
    return ", ".join(kinds[:-1]) + " and " + kinds[-1] if len(kinds) > 1 else kinds[0]


def lock_short_name(identity: str) -> str:
    """The name a maintainer calls a lock by: `optrom_mutex` for
    `qla_hw_data.optrom_mutex` and for `qla_attr.c:&vha->hw->optrom_mutex`,
    `harddog_mutex` for `harddog_mutex (arch/um/drivers/harddog_kern.c)`."""
    words = re.findall(r"\w+", re.sub(r"\s*\([^()]*\)\s*$", "", identity))
    return words[-1] if words else ""


def make_subject(prefix: str, funcs: list[str], locks: Sequence[str] = ()) -> str:
    """`prefix make f() and g() killable`; when the functions do not fit and
    the commit is about one lock, the lock names it (one commit per lock:
    two patches of a series must not both be `make syscall paths
    killable`); else the kinds of paths."""
    subj = f"{prefix} make {func_list(funcs)} killable"
    if len(subj) <= SUBJECT_MAX:
        return subj
    names = list(dict.fromkeys(lock_short_name(x) for x in locks if lock_short_name(x)))
    if len(names) == 1:
        subj = f"{prefix} make {names[0]} acquisitions killable"
        if len(subj) <= SUBJECT_MAX:
            return subj
    subj = f"{prefix} make {kinds_phrase(funcs)} killable"
    if len(subj) <= SUBJECT_MAX:
        return subj
    subj = f"{prefix} make syscall paths killable"
    return subj if len(subj) <= SUBJECT_MAX else subj[:SUBJECT_MAX]


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "misc"


def wrap(text: str) -> str:
    # Never inside a name: kernel-patches/0001-fs-add-... stays whole.
    return "\n\n".join(textwrap.fill(p, WRAP, break_on_hyphens=False, break_long_words=False)
                       for p in text.split("\n\n"))


def make_body(unit: Unit, twins: dict[str, tuple[str, str, str]], signer: str,
              sites: Sequence[Site] = ()) -> str:
    conv = [s for s in unit.sites if s.verdict == "converted"]
    funcs = list(dict.fromkeys(s.func for s in conv))
    prims = list(dict.fromkeys(s.prim for s in conv))
    where = " and ".join(os.path.basename(f) for f in unit.files)
    errs = sorted({twins[p][2] for p in prims if p in twins}) or ["-EINTR"]
    paras = [
        f"{func_list(funcs)} in {where} run on system-call paths "
        f"({kinds_nouns(funcs)}) and sleep uninterruptibly in "
        f"{func_list(prims)}. A task waiting there is in D state and ignores "
        f"SIGKILL: when the wakeup never comes (a wedged device, a lock "
        f"holder that is itself stuck) the process cannot be killed and only "
        f"a reboot clears it.",
        f"Use the killable twins. They sleep the same way but also wake for a "
        f"fatal signal; the task is then about to die, so the "
        f"{' or '.join(errs)} returned on that path never reaches user "
        f"space and no caller sees a new error code. The interruptible "
        f"variants are not used because they would let ordinary signals fail "
        f"the call.",
    ]
    needed = list(dict.fromkeys(twins.get(s.prim, (s.prim + "_killable",))[0]
                                for s in conv if s.needs))
    if unit.exported:
        n = len(unit.exported)
        paras.append(f"{func_list(unit.exported)} {'is' if n == 1 else 'are'} exported. Every "
                     f"caller in the tree was checked: each passes the new error on, or runs "
                     f"where no fatal signal can be pending. Modules outside the tree were not "
                     f"checked; one that ignores the result would carry on as if the call had "
                     f"succeeded.")
    if needed:
        paras.append(f"{func_list(needed)} {'is' if len(needed) == 1 else 'are'} not in this "
                     f"tree yet: the first patch of this series adds "
                     f"{'it' if len(needed) == 1 else 'them'}.")
    if not conv:
        # Only callers changed: they now check a helper converted elsewhere.
        funcs = sorted(set(re.findall(r"^@@ [^@]+ @@ .*?(\w+)\(", unit.diff, re.M))) or ["the callers"]
        paras = [f"{func_list(funcs)} in {where} call a helper that is now killable and "
                 f"returns an error when a fatal signal ends its sleep; pass that error on "
                 f"instead of carrying on as if the helper had succeeded."]
    text = wrap("\n\n".join(paras))
    lines = ["Converted sites:"] if conv else []
    multi = len(unit.files) > 1
    for s in conv:
        twin = twins.get(s.prim, (s.prim + "_killable", "", ""))[0]
        entry = f"  {os.path.basename(s.file) + ': ' if multi else ''}{s.func}(): {s.prim}() -> {twin}()"
        if len(entry) > WRAP:
            entry = f"  {s.func}():\n    {s.prim}() -> {twin}()"
        lines.append(entry)
    if lines:
        text += "\n\n" + "\n".join(lines)
    risky = [s for s in conv if s.risk == "high" and s.evidence]
    if risky:
        ev = ["Why these can hang (what a holder or waker sleeps on):"]
        same: dict[str, list[str]] = {}
        for s in risky:
            same.setdefault(s.evidence, []).append(f"{s.func}(): {s.prim}()")
        for evidence, who in same.items():
            ev.append(textwrap.fill(f"{func_list([w.split('(')[0] for w in who])}: {evidence}"
                                    if len(who) > 1 else f"{who[0]}: {evidence}", WRAP,
                                    initial_indent="  ", subsequent_indent="    ",
                                    break_long_words=False, break_on_hyphens=False))
        text += "\n\n" + "\n".join(ev)
    per_lock = lock_lines(unit, sites)
    if per_lock:
        text += "\n\nBy lock, its acquisitions in this directory:\n" + "\n".join(per_lock)
    text += "\n\n" + wrap("Generated by killable's Coccinelle rules (make batches); "
                          "error paths unwind what the function already holds.")
    tags = [f"Cc: {c}" for c in unit.cc] + [f"Signed-off-by: {signer}"]
    return text + "\n\n" + "\n".join(tags) + "\n"


# ---------------------------------------------------------------- maintainers

def maintainers(kdir: str, path: str) -> tuple[str, list[str]]:
    """(most specific MAINTAINERS section or "", addresses) for path."""
    proc = run(["perl", "scripts/get_maintainer.pl", "--nogit", "--nogit-fallback",
                "--subsystem", "--norolestats", "-f", path], cwd=kdir)
    addrs, sections = [], []
    for line in proc.stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        if "@" in line and re.search(r"(<[^>]+@[^>]+>|^\S+@\S+)$", line):
            addrs.append(line)
        else:
            sections.append(line)
    sections = [s for s in sections if s != "THE REST"]
    return (sections[0] if sections else ""), addrs


def driver_dir(path: str) -> str:
    return os.path.dirname(path)


# ---------------------------------------------------------------- units and series

def exported_functions(kdir: str, files: list[str], funcs: list[str]) -> list[str]:
    """Which of funcs (converted in files) an EXPORT_SYMBOL*() exports:
    their callers in the tree were checked, modules outside it were not."""
    text = ""
    for rel in files:
        try:
            with open(os.path.join(kdir, rel), encoding="utf-8", errors="replace") as f:
                text += f.read()
        except OSError:
            continue
    return [f for f in dict.fromkeys(funcs)
            if re.search(r"\bEXPORT_\w*SYMBOL\w*\s*\(\s*%s\s*[,)]" % re.escape(f), text)]


# A lock with at most this many converted acquisitions, all in one file, is
# small: the file's small locks share one commit instead of one each.
SMALL_LOCK = 2


def function_spans(kdir: str, path: str) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of each function defined in the file."""
    try:
        with open(os.path.join(kdir, path), encoding="utf-8", errors="replace") as fh:
            clean = csource.blank_noise(fh.read())
    except OSError:
        return []
    return [(fn.line, fn.end_line, fn.name)
            for _a, _b, fn in csource.function_bodies(clean, csource.LineIndex(clean))]


def join_hunks(head: list[str], hunks: list[list]) -> str:
    """A file's diff piece from its header and some of its hunks, the new
    side's line numbers counted over those hunks alone."""
    delta = 0
    out = list(head)
    for old_start, old_len, _new_start, new_len, tail, lines in hunks:
        new_start = old_start + delta + (1 if old_len == 0 else 0) - (1 if new_len == 0 else 0)
        out.append(f"@@ -{old_start},{old_len} +{new_start},{new_len} @@{tail}\n")
        out.extend(lines)
        delta += new_len - old_len
    return "".join(out)


class Joined:
    """Union-find over hashable nodes."""

    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def lock_key(s: Site) -> str:
    """What a commit is about: the site's lock, or its function when the
    risk stage named no lock."""
    return f"lock:{s.lock}" if s.lock else f"fn:{s.file}:{s.func}"


def commit_groups(kdir: str, pieces: dict[str, str], sites: list[Site],
                  per_driver: bool = False) -> list[dict[str, list[list]]]:
    """The hunks of each commit, per file: one commit per lock.

    A hunk goes with the locks of the converted sites in the functions it
    changes; a hunk that changes no such function (a caller that now
    checks a converted helper, a prototype) goes with the helper's locks.
    The locks of one function stay in one commit (its error exits are
    written once), and so do a driver's locks of one name and a file's
    small locks (SMALL_LOCK).  With per_driver, a driver's files are one
    commit."""
    conv = [s for s in sites if s.verdict == "converted" and s.file in pieces]
    j = Joined()
    conv_fn: dict[tuple[str, str], None] = {}
    by_name: dict[str, set[str]] = collections.defaultdict(set)
    for s in conv:
        j.union(f"fn:{s.file}:{s.func}", lock_key(s))
        if s.lock:
            # One lock the risk stage names twice (`qla_hw_data.optrom_mutex`,
            # and `qla_attr.c:&vha->hw->optrom_mutex` behind a typedef): a
            # driver's locks of one name are one commit.
            j.union(lock_key(s), f"name:{driver_dir(s.file)}:{lock_short_name(s.lock)}")
        conv_fn[(s.file, s.func)] = None
        by_name[s.func].add(s.file)
    parsed: dict[str, tuple[list[str], list[list]]] = {}
    for f in sorted(pieces):
        head, hunks = hunks_of(pieces[f])
        parsed[f] = (head, hunks)
        spans = function_spans(kdir, f)
        defined = {name for _a, _b, name in spans}
        for i, h in enumerate(hunks):
            node = ("hunk", f, i)
            j.find(node)
            linked = False
            for x in hunk_functions(spans, h):
                if (f, x) in conv_fn:
                    j.union(node, f"fn:{f}:{x}")
                    linked = True
            if linked:
                continue
            text = "".join(l[1:] for l in h[5] if l[:1] in "+-")
            for name in set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text)) & set(by_name):
                # This file's own function of that name if it has one.
                for g in ([f] if f in by_name[name] or name in defined else sorted(by_name[name])):
                    if (g, name) in conv_fn:
                        j.union(node, f"fn:{g}:{name}")
                        linked = True
            if not linked:
                j.union(node, f"file:{f}")
    groups: dict = collections.defaultdict(list)
    for f, (_head, hunks) in parsed.items():
        for i in range(len(hunks)):
            groups[j.find(("hunk", f, i))].append((f, i))
    # A file's leftover hunks (no converted function, no call of one) and its
    # small locks go with the file's first commit.
    nconv = collections.Counter(j.find(lock_key(s)) for s in conv)
    first: dict[str, object] = {}
    for root, members in sorted(groups.items(), key=lambda kv: min(kv[1])):
        files = {f for f, _ in members}
        small = len(files) == 1 and nconv[root] <= SMALL_LOCK
        for f in files:
            if small or j.find(f"file:{f}") == root:
                if f in first:
                    j.union(first[f], root)
                else:
                    first[f] = root
    if per_driver:
        seen: dict[str, tuple[str, int]] = {}
        for f, (_head, hunks) in parsed.items():
            for i in range(len(hunks)):
                j.union(seen.setdefault(driver_dir(f), ("hunk", f, i)), ("hunk", f, i))
    merged: dict = collections.defaultdict(lambda: collections.defaultdict(list))
    for f, (_head, hunks) in parsed.items():
        for i, h in enumerate(hunks):
            merged[j.find(("hunk", f, i))][f].append(h)
    return [dict(g) for g in merged.values()]


def build_units(kdir: str, pieces: dict[str, str], sites: list[Site],
                twins: dict[str, tuple[str, str, str]], signer: str,
                per_driver: bool = False) -> list[Unit]:
    by_file: dict[str, list[Site]] = collections.defaultdict(list)
    for s in sites:
        by_file[s.file].append(s)
    heads = {f: hunks_of(pieces[f])[0] for f in pieces}
    units = []
    prefixes = data.load_subject_prefixes()
    for group in commit_groups(kdir, pieces, sites, per_driver):
        members = sorted(group)
        section, cc = maintainers(kdir, members[0])
        if not section:
            section = driver_dir(members[0])
        for m in members[1:]:
            for a in maintainers(kdir, m)[1]:
                if a not in cc:
                    cc.append(a)
        prefix = prefix_from_history(kdir, members[0]) or prefix_from_path(members[0], prefixes)
        diff = "".join(join_hunks(heads[m], group[m]) for m in members)
        spans = {m: [(h[0], h[0] + max(h[1], 1) - 1) for h in group[m]] for m in members}
        # The sites whose lines this commit's hunks change.
        usites = sorted((s for m in members for s in by_file.get(m, [])
                         if s.verdict != "converted" or
                         any(a <= s.line <= b for a, b in spans[m])),
                        key=lambda s: (s.file, s.line, s.col))
        u = Unit(members, diff, usites, section, prefix, cc)
        conv = [s for s in usites if s.verdict == "converted"]
        if not conv:
            # The diff touched a file without a converted site of its own
            # (a caller plumbed for a helper elsewhere): name the functions changed.
            funcs = sorted(set(re.findall(r"^@@ [^@]+ @@ .*?(\w+)\(", u.diff, re.M))) or ["callers"]
        else:
            funcs = list(dict.fromkeys(s.func for s in conv))
        u.subject = make_subject(prefix, funcs, [s.lock for s in conv])
        u.needs = sorted({s.needs for s in conv if s.needs})
        u.exported = exported_functions(kdir, members, [s.func for s in conv])
        u.body = make_body(u, twins, signer, sites)
        units.append(u)
    units.sort(key=lambda u: (u.section, u.files, hunks_of(u.diff)[1][0][0]))
    return units


def split_parts(items: list, size: int = MAX_PER_SERIES) -> list[list]:
    """At most `size` per posting, parts as even as possible."""
    if not items:
        return []
    n = -(-len(items) // size)
    per = -(-len(items) // n)
    return [items[i:i + per] for i in range(0, len(items), per)]


# ---------------------------------------------------------------- tree, scratch clone, build

def check_kdir(kdir: str) -> None:
    if not os.path.isdir(kdir):
        raise Fail(f"KDIR={kdir}: no such directory")
    if not (os.path.isfile(os.path.join(kdir, "Makefile")) and
            os.path.isdir(os.path.join(kdir, "include", "linux")) and
            os.path.isfile(os.path.join(kdir, "scripts", "checkpatch.pl"))):
        raise Fail(f"KDIR={kdir}: not a kernel tree (no Makefile, include/linux, scripts/checkpatch.pl)")
    if run(["git", "-C", kdir, "rev-parse", "--show-toplevel"]).stdout.strip() != \
            os.path.realpath(kdir):
        raise Fail(f"KDIR={kdir}: not the top of a git repository "
                   f"(batches commit in a clone of it; git init && git commit the tree first)")
    dirty = run(["git", "-C", kdir, "status", "--porcelain", "--untracked-files=no"]).stdout.splitlines()
    if dirty:
        raise Fail(f"KDIR={kdir} has uncommitted changes ({len(dirty)} files, e.g. "
                   f"{dirty[0][3:]}); commit or stash them, nothing was touched")


def check_out(out: str) -> None:
    try:
        os.makedirs(out, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out, prefix=".probe.")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise Fail(f"output directory {out}: not writable ({e.strerror})")


def ensure_worktree(kdir: str, wt: str, base: str) -> None:
    """wt: a private clone of the tree checked out at base, its objects
    borrowed from the tree's repository (`git clone --shared`).  Commits and
    checkouts happen there; the user's repository is only read (a `git
    worktree` would stay registered in it)."""
    if os.path.isfile(os.path.join(wt, ".git")):
        # A worktree made by an older killable: unregister it from the tree.
        git(kdir, "worktree", "remove", "--force", wt, check=False)
        git(kdir, "worktree", "prune", check=False)
    usable = (os.path.isdir(os.path.join(wt, ".git")) and
              run(["git", "-C", wt, "cat-file", "-e", f"{base}^{{commit}}"]).returncode == 0)
    if not usable:
        if os.path.lexists(wt):
            shutil.rmtree(wt)
        os.makedirs(os.path.dirname(wt), exist_ok=True)
        run(["git", "clone", "-q", "--shared", "--no-checkout", kdir, wt], check=True)
    git(wt, "checkout", "-q", "--detach", base)
    reset_worktree(wt, base)


def reset_worktree(wt: str, base: str) -> None:
    git(wt, "reset", "-q", "--hard", base)
    git(wt, "clean", "-fdq")


def kernel_patch_order() -> list[str]:
    """The files of kernel-patches/series, in the order they apply."""
    with open(os.path.join(KERNEL_PATCHES, "series"), encoding="utf-8") as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


def apply_prerequisites(wt: str, base: str, needs: Iterable[str], env: dict[str, str]) -> str:
    """wt reset to base, then our kernel patches the conversions need
    (inode_lock_killable() is not in 6.1) committed by git am, in the
    series' order: the commit the units go on (base when none is needed)."""
    reset_worktree(wt, base)
    wanted = set(needs)
    for name in kernel_patch_order():
        if name not in wanted:
            continue
        proc = run(["git", "-C", wt, "am", "-q", "--keep-cr", os.path.join(KERNEL_PATCHES, name)],
                   env=env)
        if proc.returncode:
            git(wt, "am", "--abort", check=False)
            raise Fail(f"kernel-patches/{name} does not apply to {base[:12]}: "
                       f"{(proc.stderr or proc.stdout).strip().splitlines()[:1]}")
        wanted.discard(name)
    if wanted:
        raise Fail(f"not in kernel-patches/series: {', '.join(sorted(wanted))}")
    return git(wt, "rev-parse", "HEAD").strip()


def ensure_objdir(wt: str, obj: str, jobs: int) -> None:
    stamp = os.path.join(obj, ".batches-prepared")
    if os.path.isfile(stamp):
        return
    os.makedirs(obj, exist_ok=True)
    t0 = time.time()
    log(f"configuring {obj} (allmodconfig, sanitizers and debug info off) and make prepare; cached after")
    nice = ["nice", "make", "-s", "-C", wt, f"O={obj}"]
    for cmd in (nice + ["allmodconfig"],
                ["./scripts/config", "--file", os.path.join(obj, ".config")]
                + [a for o in CONFIG_DISABLE for a in ("-d", o)]
                + [a for o in CONFIG_ENABLE for a in ("-e", o)],
                nice + ["olddefconfig"], nice + [f"-j{jobs}", "prepare"]):
        proc = run(cmd, cwd=wt, env=paths.kernel_make_env())
        if proc.returncode:
            said = (proc.stderr + proc.stdout).strip().splitlines()
            why = [ln for ln in said if "***" in ln and "Error" not in ln] or said[-1:]
            raise Fail(f"kernel build setup failed: {shlex.join(cmd)}: {' | '.join(why[:4])}")
    with open(stamp, "w") as f:
        f.write(f"prepared in {time.time() - t0:.0f}s\n")


def compile_targets(wt: str, path: str) -> list[str]:
    """The .c files to compile for a changed path (a header: the .c files beside it that include it)."""
    if path.endswith(".c"):
        return [path]
    if path.endswith(".h"):
        d = os.path.dirname(path)
        base = os.path.basename(path)
        out = []
        for name in sorted(os.listdir(os.path.join(wt, d))):
            if name.endswith(".c"):
                with open(os.path.join(wt, d, name), encoding="utf-8", errors="replace") as f:
                    if f'"{base}"' in f.read():
                        out.append(os.path.join(d, name))
        return out[:4]
    return []


def compile_one(wt: str, obj: str, cfile: str, cache_dir: str, key_extra: str) -> dict:
    """Compile cfile with C=1 CHECK=sparse; cached by content (file, config, changed headers)."""
    with open(os.path.join(wt, cfile), "rb") as f:
        content = f.read()
    blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
    with open(os.path.join(obj, ".config"), "rb") as f:
        cfg = hashlib.sha1(f.read()).hexdigest()
    key = hashlib.sha1(f"{cfile}\0{blob}\0{cfg}\0{key_extra}".encode()).hexdigest()
    cpath = os.path.join(cache_dir, key + ".json")
    if os.path.isfile(cpath):
        with open(cpath, encoding="utf-8") as f:
            res = json.load(f)
        res["cached"] = True
        return res
    ofile = os.path.join(obj, cfile[:-2] + ".o")
    if os.path.exists(ofile):
        os.unlink(ofile)
    t0 = time.time()
    cmd = ["nice", "make", "-C", wt, f"O={obj}", "C=1", "CHECK=sparse", cfile[:-2] + ".o"]
    proc = run(cmd, cwd=wt, env=paths.kernel_make_env())
    if proc.returncode and not DIAG_ANY.search(proc.stdout + proc.stderr):
        proc = run(cmd, cwd=wt, env=paths.kernel_make_env())  # a make failure the compiler does not explain: once more
    out = proc.stdout + proc.stderr
    diags = []
    for line in out.splitlines():
        m = DIAG.match(line.strip())
        if m:
            f = re.sub(r"^(\.\./)+", "", m["file"])
            if f.startswith(wt + "/"):
                f = f[len(wt) + 1:]
            diags.append({"file": f, "line": int(m["line"]), "kind": m["kind"], "msg": m["msg"]})
    built = os.path.exists(ofile)
    res = {"file": cfile, "blob": blob, "rc": proc.returncode, "built": built,
           "sparse_ran": bool(re.search(r"^\s+CHECK\s", out, re.M)),
           "diags": diags, "seconds": round(time.time() - t0, 1),
           "tail": [l.replace(wt + "/", "") for l in out.splitlines()
                    if re.search(r"error|No rule", l, re.I) and not l.startswith("make")][:6]
                   or [l.replace(wt + "/", "") for l in out.splitlines()][-6:]}
    target = cfile[:-2] + ".o"
    if proc.returncode and not built and not diags and \
            re.search(rf"No rule to make target '{re.escape(target)}'", out):
        res["not_built"] = True
    if proc.returncode == 0 or diags or res.get("not_built"):
        # Only a result the compiler explains is kept; anything else is redone next time.
        os.makedirs(cache_dir, exist_ok=True)
        atomic_write(cpath, json.dumps(res))
    res["cached"] = False
    return res


def diag_key(d: dict) -> tuple[str, str, str]:
    return (d["file"], d["kind"], d["msg"])


def judge_compile(unit: Unit, base: dict[str, dict], new: dict[str, dict],
                  pieces: dict[str, str]) -> None:
    comp_lines: list[str] = []
    sparse_lines: list[str] = []
    status_c, status_s = "ok", "clean"
    changed_lines = {f: added_lines(pieces[f]) for f in unit.files if f in pieces}
    for cfile, r in new.items():
        unit.compiled[cfile] = r["blob"]
        if r.get("not_built"):
            continue
        b0 = base.get(cfile)
        if b0 is not None and not b0["built"]:
            # It does not build before the patch either: this config (x86_64
            # allmodconfig) does not build it (another arch, a broken driver).
            r["not_built"] = True
            comp_lines.append(f"{cfile}: does not compile before the patch either: "
                              + (b0["tail"][0] if b0["tail"] else f"make exited {b0['rc']}"))
            continue
        if not r["built"]:
            status_c = "error"
            comp_lines += r["tail"] or [f"{cfile}: make exited {r['rc']}"]
            continue
        if not r["sparse_ran"]:
            status_s = "sparse did not run"
        b = collections.Counter(diag_key(d) for d in base.get(cfile, {}).get("diags", []))
        for d in r["diags"]:
            k = diag_key(d)
            if b[k]:
                b[k] -= 1
                continue
            in_changed = d["line"] in changed_lines.get(d["file"], set())
            text = f"{d['file']}:{d['line']}: {d['kind']}: {d['msg']}" + \
                ("" if in_changed else " (not in a changed line)")
            is_sparse = not re.search(r"\[-W[\w=-]+\]$", d["msg"])
            if d["kind"] == "error":
                status_c = "error"
                comp_lines.append(text)
            elif is_sparse:
                sparse_lines.append(text)
                if in_changed:
                    status_s = "new warning"
            else:
                comp_lines.append(text)
                if in_changed and status_c == "ok":
                    status_c = "new warning"
    if new and all(r.get("not_built") for r in new.values()):
        status_c = status_s = "not built"
        comp_lines.append("not built by this config (x86_64 allmodconfig): unchecked")
    if not new:
        status_c = status_s = "not built"
        comp_lines.append("no .c file to compile for " + ", ".join(unit.files))
    unit.compile, unit.compile_lines = status_c, comp_lines
    unit.sparse, unit.sparse_lines = status_s, sparse_lines


def commit_unit(wt: str, unit: Unit, env: dict[str, str]) -> str:
    proc = run(["git", "-C", wt, "apply", "--index", "-"], inp=unit.diff)
    if proc.returncode:
        raise Fail(f"{unit.files[0]}: the diff does not apply to the tree's HEAD: "
                   f"{proc.stderr.strip().splitlines()[:1]}")
    git(wt, "commit", "-q", "-F", "-", env=env, inp=unit.subject + "\n\n" + unit.body)
    return git(wt, "rev-parse", "HEAD").strip()


def run_checkpatch(wt: str, patch_text: str) -> tuple[str, list[str]]:
    proc = run(["perl", "scripts/checkpatch.pl", "--strict", "--terse", "--show-types", "-"],
               cwd=wt, inp=patch_text)
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    problems = [l for l in lines if re.search(r"\b(ERROR|WARNING|CHECK):", l)]
    if proc.returncode == 0 and not problems:
        return "clean", lines[-1:]
    return "failed", problems or lines


# ---------------------------------------------------------------- series output

def fill_cover(path: str, subject: str, blurb: str) -> None:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        raise Fail(f"{path}: format-patch cover letter without placeholders")
    text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", blurb.rstrip())
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def cover_blurb(section: str, units: list[Unit], held: list[Unit], other_sites: list[Site],
                ctx: dict, part: str, needs: Sequence[str] = ()) -> str:
    nsites = sum(1 for u in units for s in u.sites if s.verdict == "converted")
    nfiles = sum(len(u.files) for u in units)
    used = list(dict.fromkeys(t for u in units for t in re.findall(r"-> (\w+)\(\)", u.body)))
    out = [wrap(
        f"This series{part} converts {nsites} uninterruptible sleeps in {nfiles} "
        f"files of {section} to their killable twins"
        f"{' (' + func_list(used) + ')' if used else ''}, "
        f"one patch per lock (a file's locks taken at most {SMALL_LOCK} times each share "
        f"one patch).")]
    if needs:
        out[0] += "\n\n" + wrap(
            f"{'Patch 1 adds' if len(needs) == 1 else f'Patches 1-{len(needs)} add'} the "
            "killable twin the later patches use, which this tree lacks "
            f"(kernel-patches/{', kernel-patches/'.join(needs)} of killable; see "
            f"{'its' if len(needs) == 1 else 'their'} commit message for where upstream "
            "stands).")
    out.append(wrap(
        "Why: every converted site is reachable from a system call (file "
        "operations, ioctl, sysfs/debugfs attributes). An uninterruptible sleep "
        "there leaves the task in D state, deaf to SIGKILL, when the wakeup "
        "never comes. The killable twin sleeps the same way but wakes for a "
        "fatal signal; the task then dies, so the new error return never reaches "
        "user space and behaviour is unchanged for everyone else."))
    out.append(wrap(
        f"How it was generated: killable {ctx['tool_rev']} (Coccinelle rules, "
        f"spatch {ctx['spatch']}), `make batches M={ctx['m']}` on {ctx['tree']} "
        f"({ctx['base'][:12]}). Sites are converted only where the error can be "
        f"returned without leaking what the function holds; the rest are listed "
        f"below and left for a human."))
    out.append(wrap(
        "How it was checked: every patch passes scripts/checkpatch.pl --strict; "
        "every changed file was compiled with `make C=1 CHECK=sparse` on "
        f"allmodconfig ({ctx['config_note']}) with no compiler error and no new "
        "compiler or sparse warning in a changed line. Not runtime-tested on "
        "this hardware; killable's own boot test SIGKILLs each primitive family "
        "under qemu."))
    locks = list(dict.fromkeys(s.lock for u in units for s in u.sites
                               if s.verdict == "converted" and s.lock))
    if locks:
        out.append("Per lock (its acquisitions in these files: converted here, left alone):")
        for lock in locks:
            acq = [s for s in other_sites if s.lock == lock]
            n = sum(s.verdict == "converted" for s in acq)
            out.append(textwrap.fill(f"{lock}: {n} converted, {len(acq) - n} left alone", WRAP,
                                     initial_indent="  ", subsequent_indent="    ",
                                     break_long_words=False))
    left = [s for s in other_sites if s.verdict != "converted" and s.verdict != "not on a syscall path"]
    if left:
        out.append("Left alone in these files (syscall-reachable, not converted):")
        for s in left:
            out.append(textwrap.fill(f"{s.where()} {s.func}(): {s.prim}: {s.verdict}", WRAP,
                                     initial_indent="  ", subsequent_indent="    "))
    idle = sum(1 for s in other_sites if s.verdict == "not on a syscall path")
    if idle:
        out.append(f"({idle} other sleeps in these files are not on a syscall path.)")
    if held:
        out.append("Held back (failed a check, not in this series):")
        for u in held:
            out.append(f"  {u.subject}: checkpatch {u.checkpatch}, compile {u.compile}, "
                       f"sparse {u.sparse}")
    return "\n\n".join(out[:4]) + "\n\n" + "\n".join(out[4:]) + "\n"


def common_prefix(prefixes: list[str]) -> str:
    """The leading `a: b:` words every prefix shares ("misc: mei:" and "misc: lkdtm:" -> "misc:")."""
    split = [p.split() for p in prefixes]
    out: list[str] = []
    for words in zip(*split):
        if len(set(words)) != 1:
            break
        out.append(words[0])
    return " ".join(out)


def write_series(wt: str, base: str, name: str, section: str, units: list[Unit],
                 held: list[Unit], sites: list[Site], outdir: str, ctx: dict,
                 env: dict[str, str], part: str) -> dict:
    needs = sorted({n for u in units for n in u.needs})
    apply_prerequisites(wt, base, needs, env)
    for u in units:
        commit_unit(wt, u, env)
    sdir = os.path.join(outdir, name)
    if os.path.isdir(sdir):
        shutil.rmtree(sdir)
    cc = list(dict.fromkeys(a for u in units for a in u.cc))
    cmd = ["format-patch", "-q", "--cover-letter", f"--base={base}", "--thread=shallow",
           "-o", sdir] + [f"--cc={a}" for a in cc] + [f"{base}..HEAD"]
    git(wt, *cmd, env=env)
    files = sorted(f for f in os.listdir(sdir) if f.endswith(".patch"))
    for pf in files:
        unfold_subject(os.path.join(sdir, pf))
    head = common_prefix([u.prefix for u in units]) or units[0].prefix
    csubj = f"{head} make syscall paths killable{part and ' (' + part.strip(' ,') + ')'}"
    files_in = {f for u in units for f in u.files}
    others = [s for s in sites if s.file in files_in]
    fill_cover(os.path.join(sdir, files[0]), csubj[:SUBJECT_MAX],
               cover_blurb(section, units, held, others, ctx, part, needs))
    with open(os.path.join(sdir, ".killable-batch"), "w") as f:
        f.write(section + "\n")
    return {"name": name, "section": section, "dir": os.path.relpath(sdir, outdir),
            "cover": files[0], "cover_subject": csubj[:SUBJECT_MAX],
            "needs": needs,
            "patches": [prerequisite_record(pf, n, wt) for pf, n in zip(files[1:], needs)]
            + [dict(file=pf, **unit_record(u)) for pf, u in zip(files[1 + len(needs):], units)]}


def unfold_subject(path: str) -> None:
    """The Subject header on one line: format-patch folds one longer than 78
    columns (`[PATCH 1/3] fs: add inode_lock_killable() and` + a line that
    goes on), and b4 0.12 (Debian 12's) then stops with "Header values may
    not contain linefeed".  One line of up to 998 is as valid a header."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    head, sep, rest = text.partition("\n\n")
    new = re.sub(r"^(Subject: .*)\n[ \t]+(.*)$", r"\1 \2", head, flags=re.M)
    while new != head:
        head, new = new, re.sub(r"^(Subject: .*)\n[ \t]+(.*)$", r"\1 \2", new, flags=re.M)
    if head + sep + rest != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(head + sep + rest)


def prerequisite_record(pf: str, name: str, wt: str) -> dict:
    """A series' patch that is one of our kernel patches, as a row like a
    unit's: make check-kernel-patches checks it (checkpatch --strict, KUnit
    in a boot); here checkpatch runs again, and every unit after it was
    compiled on top of it."""
    with open(os.path.join(KERNEL_PATCHES, name), encoding="utf-8") as f:
        text = f.read()
    subject = re.search(r"^Subject: (?:\[[^]]*\] )?(.*(?:\n .*)*)", text, re.M)
    check, lines = run_checkpatch(wt, text)
    return {"subject": " ".join(subject.group(1).split()) if subject else name,
            "files": sorted(set(re.findall(r"^\+\+\+ b/(\S+)", text, re.M))),
            "checkpatch": check, "checkpatch_lines": lines, "compile": "ok",
            "compile_lines": [], "sparse": "not built", "sparse_lines": [], "compiled": {},
            "needs": [], "sites": [], "kernel_patch": name, "file": pf}


def unit_record(u: Unit) -> dict:
    return {"subject": u.subject, "files": u.files, "checkpatch": u.checkpatch,
            "checkpatch_lines": u.checkpatch_lines, "compile": u.compile,
            "compile_lines": u.compile_lines, "sparse": u.sparse, "sparse_lines": u.sparse_lines,
            "compiled": u.compiled, "needs": u.needs,
            "sites": [dataclasses.asdict(s) for s in u.sites if s.verdict == "converted"]}


def clear_series(out: str) -> None:
    """Remove the series a previous run wrote (only directories marked as ours)."""
    for d in os.listdir(out):
        if os.path.isfile(os.path.join(out, d, ".killable-batch")):
            shutil.rmtree(os.path.join(out, d))


def write_summary(outdir: str, ctx: dict, series: list[dict], held: list[Unit],
                  times: dict[str, float]) -> None:
    lines = [f"# killable batches: {ctx['m']}", "",
             f"Tree {ctx['tree']} at {ctx['base'][:12]}; killable {ctx['tool_rev']}, "
             f"spatch {ctx['spatch']}; build {ctx['obj']} ({ctx['config_note']}).", "",
             *([ctx["risk"], ""] if ctx.get("risk") else []),
             "| series | patch | subject | checkpatch | compile | sparse |",
             "|---|---|---|---|---|---|"]
    for s in series:
        for p in s["patches"]:
            lines.append(f"| {s['dir']} | {p['file']} | {p['subject']} | {p['checkpatch']} | "
                         f"{p['compile']} | {p['sparse']} |")
    if not series:
        lines.append("| (none) | | nothing converted, or every patch held back | | | |")
    if held:
        lines += ["", "## Held back (not in any series)", ""]
        for u in held:
            lines.append(f"- `{u.subject}` ({', '.join(u.files)}): checkpatch {u.checkpatch}, "
                         f"compile {u.compile}, sparse {u.sparse}")
            for l in u.checkpatch_lines if u.checkpatch != "clean" else []:
                lines.append(f"    - {l}")
            for l in u.compile_lines + u.sparse_lines:
                lines.append(f"    - {l}")
            if u.needs:
                lines.append(f"    - needs kernel-patches/{', '.join(u.needs)} (twin not in this tree)")
    notes = [f"- {p['file']}: {l}" for s in series for p in s["patches"]
             for l in p["compile_lines"] + p["sparse_lines"]]
    if notes:
        lines += ["", "## Warnings outside changed lines (did not block)", ""] + notes
    lines += ["", "## Times", ""] + [f"- {k}: {v:.0f}s" if v or not k.startswith("(") else f"- {k}"
                                     for k, v in times.items()]
    with open(os.path.join(outdir, "SUMMARY.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------- main

def run_rules(args: argparse.Namespace, mode: str, combined: str) -> str:
    cmd = ["nice"] + paths.module_cmd("coccicheck") + ["--kdir",
           args.kdir, "--mode", mode, "--cocci", combined, "-j", str(args.jobs), "-m", args.m]
    if args.reach:
        cmd += ["--reach", os.path.abspath(args.reach)]
    proc = run(cmd)
    if proc.returncode:
        tail = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        raise Fail(f"coccicheck --mode {mode} failed: {tail[0]}")
    return proc.stdout


def main() -> int:
    ap = cli.parser(__doc__.splitlines()[0])
    ap.add_argument("--kdir", required=True, help="kernel tree (a clean git repository)")
    ap.add_argument("-m", "--m", required=True, help="subdirectory or file, relative to KDIR")
    ap.add_argument("--reach", default="", help="cross-file reachability TSV from make audit")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/killable"))
    ap.add_argument("--out", default=os.path.join(TOP, "out", "batches"))
    ap.add_argument("--obj", default="", help="build directory (default CACHE/batches-obj/<tree id>)")
    ap.add_argument("-j", "--jobs", type=cli.positive_int, default=2)
    ap.add_argument("--patch-file", default="", help="use this patch-mode diff instead of running the rules")
    ap.add_argument("--report-file", default="", help="use this report-mode output instead of running the rules")
    ap.add_argument("--no-compile", action="store_true", help="skip the compile/sparse step (reported)")
    ap.add_argument("--allow-unbuilt", action="store_true",
                    help="ship patches to files this config does not build (marked in SUMMARY.md)")
    ap.add_argument("--per-driver", action="store_true",
                    help="one commit per driver directory instead of one per file")
    ap.add_argument("--max-per-series", type=int, default=MAX_PER_SERIES)
    ap.add_argument("--all", action="store_true",
                    help="every convertible site (default: only those ranked high by the "
                         "hang-risk analysis, python3 -m killable risk)")
    args = ap.parse_args()
    try:
        return batches(args)
    except (Fail, spatch.SpatchError) as e:
        print(f"batches: {e}", file=sys.stderr)
        return 2


def batches(args: argparse.Namespace) -> int:
    t_start = time.time()
    times: dict[str, float] = {}
    args.kdir = os.path.abspath(args.kdir)
    args.out = os.path.abspath(args.out)
    check_kdir(args.kdir)
    if not os.path.exists(os.path.join(args.kdir, args.m)):
        raise Fail(f"M={args.m}: not found in {args.kdir}")
    if args.reach:
        try:
            callgraph.check_reach_tsv(args.reach)
        except ValueError as e:
            raise Fail(f"REACH={e}") from None
    check_out(args.out)
    signer_name, signer_email = user_identity(args.kdir)
    twins = load_twins()
    base = git(args.kdir, "rev-parse", "HEAD").strip()
    # One scratch clone and one build directory per tree (not per HEAD): a new
    # HEAD is checked out in the same clone and make rebuilds only what changed.
    real = os.path.realpath(args.kdir)
    tid = slug(os.path.basename(real)) + "-" + hashlib.sha1(real.encode()).hexdigest()[:8]
    bcache = os.path.join(args.cache, "batches")
    os.makedirs(bcache, exist_ok=True)
    lockf = open(os.path.join(bcache, "lock"), "w")
    try:
        fcntl.flock(lockf, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        log("another make batches holds the lock; waiting")
        fcntl.flock(lockf, fcntl.LOCK_EX)

    # 1. The rules, patch and report mode.
    t0 = time.time()
    if args.patch_file and args.report_file:
        try:
            with open(args.patch_file, encoding="utf-8") as f:
                diff = f.read()
            with open(args.report_file, encoding="utf-8") as f:
                report = f.read()
        except OSError as e:
            raise Fail(f"{e.filename}: {e.strerror}")
    elif args.patch_file or args.report_file:
        raise Fail("--patch-file and --report-file go together")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            combined = os.path.join(tmp, "killable-all.cocci")
            run(paths.module_cmd("rules") + ["--combined", combined], check=True)
            log(f"rules in patch mode on {args.m}")
            diff = run_rules(args, "patch", combined)
            log(f"rules in report mode on {args.m}")
            report = run_rules(args, "report", combined)
    times["rules (patch + report mode)"] = time.time() - t0
    sites = parse_report(report)
    pieces = split_diff(diff)
    risk_note = ""
    if any(s.verdict == "converted" for s in sites):
        # The risk stage names each site's lock (the commit messages account
        # for a converted lock's other acquisitions) and ranks the hang risk.
        t0 = time.time()
        log("locks and hang risk of the sites (killable risk)")
        ra = risk_analysis.analyze(args.kdir, args.cache, args.jobs)
        name_locks(sites, ra)
        if args.all:
            risk_note = "Every convertible site (--all): hang risk not used to choose."
        else:
            nconv = sum(s.verdict == "converted" for s in sites)
            pieces = keep_high_risk(args.kdir, pieces, sites, ra)
            diff = "".join(pieces[f] for f in sorted(pieces))
            risk_note = (f"Hang risk: {sum(s.verdict == 'converted' for s in sites)} of {nconv} "
                         "converted sites kept, those in functions with a site ranked high "
                         "(python3 -m killable risk); the others are listed as not taken. "
                         "--all keeps every one.")
        times["locks and hang risk"] = time.time() - t0
    for name, text in (("killable.diff", diff), ("report.txt", report)):
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(text)
    log(f"{len(pieces)} files changed, {sum(s.verdict == 'converted' for s in sites)} sites converted")

    # 2. Units (commits) and their series.
    t0 = time.time()
    units = build_units(args.kdir, pieces, sites, twins, f"{signer_name} <{signer_email}>",
                        args.per_driver)
    times["grouping (get_maintainer)"] = time.time() - t0

    ctx = {"m": args.m, "tree": os.path.basename(args.kdir.rstrip("/")), "base": base,
           "risk": risk_note,
           "tool_rev": git(TOP, "rev-parse", "--short", "HEAD", check=False).strip() or "(no git)",
           "spatch": spatch.version("spatch"), "obj": "", "config_note": "nothing compiled"}
    clear_series(args.out)
    if not units:
        times["total"] = time.time() - t_start
        write_summary(args.out, ctx, [], [], times)
        with open(os.path.join(args.out, "batches.json"), "w", encoding="utf-8") as f:
            json.dump({"ctx": ctx, "series": [], "held": [], "times": times}, f, indent=1)
        print(f"batches: nothing converted in {args.m}; no series")
        return 0

    # 3. Worktree, build directory.
    wt = os.path.join(bcache, f"src-{tid}")
    obj = os.path.abspath(args.obj) if args.obj else os.path.join(args.cache, "batches-obj", tid)
    ensure_worktree(args.kdir, wt, base)
    now = time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime())
    env = dict(os.environ, GIT_AUTHOR_NAME=signer_name, GIT_AUTHOR_EMAIL=signer_email,
               GIT_COMMITTER_NAME=signer_name, GIT_COMMITTER_EMAIL=signer_email,
               GIT_AUTHOR_DATE=now, GIT_COMMITTER_DATE=now)
    config_note = "compile skipped (--no-compile)"
    if units and not args.no_compile:
        t0 = time.time()
        ensure_objdir(wt, obj, args.jobs)
        times["configure + prepare (cached)"] = time.time() - t0
        config_note = ("sanitizers, gcc plugins, BTF and debug info off, WERROR off; "
                       "sparse " + run(["sparse", "--version"]).stdout.strip())

    # 4. Check every unit: checkpatch on its own patch, compile at base and patched.
    t0 = time.time()
    # Conversions to a twin from our kernel patches go on top of them: the
    # units are checked and compiled there, and their series carry them first.
    pbase = apply_prerequisites(wt, base, {n for u in units for n in u.needs}, env)
    cdir = os.path.join(bcache, "compile-cache")
    headers_diff = "".join(pieces[f] for f in pieces if f.endswith(".h"))
    hkey = hashlib.sha1(headers_diff.encode()).hexdigest()
    targets = {u.files[0]: sorted({c for f in u.files for c in compile_targets(wt, f)}) for u in units}
    base_res: dict[str, dict] = {}
    if not args.no_compile:
        for u in units:
            for c in targets[u.files[0]]:
                base_res[c] = compile_one(wt, obj, c, cdir, pbase)
    times["compile at base"] = time.time() - t0
    t0 = time.time()
    for u in units:
        sha = commit_unit(wt, u, env)
        patch_text = git(wt, "format-patch", "--stdout", "-1", sha, env=env)
        u.checkpatch, u.checkpatch_lines = run_checkpatch(wt, patch_text)
    times["checkpatch"] = time.time() - t0
    t0 = time.time()
    cached_new: list[bool] = []
    for u in units:
        if args.no_compile:
            u.compile = u.sparse = "skipped"
            continue
        new = {c: compile_one(wt, obj, c, cdir, pbase + hkey) for c in targets[u.files[0]]}
        cached_new += [r["cached"] for r in new.values()]
        judge_compile(u, base_res, new, pieces)
    times["compile patched"] = time.time() - t0
    if not args.no_compile:
        allres = list(base_res.values()) + [{"cached": c} for c in cached_new]
        times[f"(compiles: {len(allres)}, from cache: {sum(r['cached'] for r in allres)})"] = 0.0
    reset_worktree(wt, base)

    # 5. Series.
    ok = [u for u in units if u.ok(args.allow_unbuilt) or (args.no_compile and u.checkpatch == "clean")]
    held = [u for u in units if u not in ok]
    by_section: dict[str, list[Unit]] = collections.defaultdict(list)
    for u in ok:
        by_section[u.section].append(u)
    held_by: dict[str, list[Unit]] = collections.defaultdict(list)
    for u in held:
        held_by[u.section].append(u)
    ctx.update(obj=obj, config_note=config_note)
    t0 = time.time()
    series = []
    for section, us in sorted(by_section.items()):
        parts = split_parts(us, args.max_per_series)
        for i, pu in enumerate(parts, 1):
            name = slug(section) + (f"-part{i}" if len(parts) > 1 else "")
            part = f", part {i} of {len(parts)}" if len(parts) > 1 else ""
            series.append(write_series(wt, base, name, section, pu, held_by.get(section, []),
                                       sites, args.out, ctx, env, part))
    reset_worktree(wt, base)
    times["format-patch"] = time.time() - t0
    times["total"] = time.time() - t_start
    write_summary(args.out, ctx, series, held, times)
    with open(os.path.join(args.out, "batches.json"), "w", encoding="utf-8") as f:
        json.dump({"ctx": ctx, "series": series, "worktree": wt,
                   "held": [dict(**unit_record(u), section=u.section) for u in held],
                   "times": times}, f, indent=1)
    npatch = sum(len(s["patches"]) for s in series)
    print(f"batches: {len(series)} series, {npatch} patches, {len(held)} held back; "
          f"{os.path.relpath(os.path.join(args.out, 'SUMMARY.md'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
