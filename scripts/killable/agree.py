"""Report mode and patch mode agree, site by site.

Report mode says `converted` when a shape rule matches; patch mode can still
make no hunk for the site, because spatch gives up on the whole file (for
example `... reachable by inconsistent control-flow paths` on a goto shape
whose label is reached both before and after the sleep).  Such a site is
reported `manual: rule failed in patch mode (...)` instead.  The families'
changes to one file come from one spatch run of the combined rules (each
family's rules run on the previous ones' output), so they make one diff.

Used by `make coccicheck` (report and org modes) and the audit.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import re
import subprocess
from dataclasses import dataclass, field

from killable import paths, spatch

RULE_FAILED = "manual: rule failed in patch mode"
HUNK_RE = re.compile(r"(?m)^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")
FILE_RE = re.compile(r"(?m)^--- (?:a/)?(\S+)")
# What spatch says when it gives up on a file's transformation.
FAILURE_RE = re.compile(r"(?:EXN|Failure|Fatal error|reachable by inconsistent|strange type|"
                        r"Impossible|Not_found|Invalid_argument)")


@dataclass
class PatchResult:
    """One file's patch-mode result: the old lines its hunks cover."""
    covered: set[int] = field(default_factory=set)
    diff: str = ""
    failure: str = ""


def split_diff(diff: str) -> dict[str, str]:
    """A multi-file diff as file -> its part (paths as spatch printed them)."""
    out: dict[str, str] = {}
    # Without --patch spatch prints no `diff -u -p` line: a file's part
    # starts at its `---`/`+++` pair.
    parts = re.split(r"(?m)^(?=--- \S[^\n]*\n\+\+\+ )", diff)
    for part in parts:
        m = FILE_RE.search(part)
        if m:
            out[m.group(1)] = out.get(m.group(1), "") + part
    return out


# An added `if (...)` (or `else`) and the added statement right under it.
ADDED_IF = re.compile(r"^\+(\s*)(?:if\s*\(.*\)|else|else\s+if\s*\(.*\))\s*$")


def fix_indent(diff: str) -> str:
    """spatch indents a statement it adds under an added `if (...)` at the
    `if`'s own depth where the function indents its `case` bodies one tab
    deeper than kernel style (mwave_ioctl: `if (mutex_lock_killable(...))`
    and `return -EINTR;` at three tabs both).  Such a line gets the tab it
    lacks; hunk line counts do not change."""
    lines = diff.split("\n")
    for i in range(len(lines) - 1):
        m = ADDED_IF.match(lines[i])
        nxt = lines[i + 1]
        if m and nxt.startswith("+") and not nxt[1:].lstrip().startswith("{"):
            body = re.match(r"^\+(\s*)", nxt).group(1)
            if body == m.group(1):
                lines[i + 1] = "+" + m.group(1) + "\t" + nxt[1 + len(body):]
    return "\n".join(lines)


NEW_RANGE = re.compile(r"^(@@ -\d+(?:,\d+)? \+\d+)(?:,(\d+))?( @@.*)$")


def fix_else(diff: str) -> str:
    """An added `}` and the added `else {` after it at the same depth, as
    spatch prints a braced if/else it wrote (ext4_dio_write_iter), become
    kernel style's one line `} else {` (checkpatch: ELSE_AFTER_BRACE); the
    hunk's new-side count drops by one for each."""
    out: list[str] = []
    header = -1
    lines = diff.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("@@"):
            header = len(out)
        close = re.match(r"^\+(\s*)\}\s*$", line)
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if close and header >= 0 and re.match(r"^\+%s(else\b.*)$" % re.escape(close.group(1)), nxt):
            m = NEW_RANGE.match(out[header])
            if m:
                count = int(m.group(2) or 1) - 1
                out[header] = f"{m.group(1)},{count}{m.group(3)}"
                out.append(f"+{close.group(1)}}} " + nxt[1 + len(close.group(1)):])
                i += 2
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


def tidy(diff: str) -> str:
    """What patch mode prints, in kernel style (fix_indent, fix_else)."""
    return fix_else(fix_indent(diff))


def covered_lines(diff: str) -> set[int]:
    lines: set[int] = set()
    for m in HUNK_RE.finditer(diff):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start, start + max(count, 1)))
    return lines


def hunks_at(diff: str, lines: set[int]) -> dict[int, str]:
    """Of lines (old line numbers), each covered by a hunk of diff (one
    file's part): that hunk, from its `@@` line, as the reader of a site
    sees its change."""
    out: dict[int, str] = {}
    starts = [m for m in HUNK_RE.finditer(diff)]
    for k, m in enumerate(starts):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        end = starts[k + 1].start() if k + 1 < len(starts) else len(diff)
        text = diff[m.start():end]
        text = re.split(r"(?m)^(?=diff |--- )", text)[0].rstrip("\n") + "\n"
        for line in lines:
            if start <= line < start + max(count, 1):
                out[line] = text
    return out


def failure_message(stderr: str) -> str:
    """The first line of spatch's stderr that says why it gave up, shortened."""
    for line in spatch.read_log(stderr).other:
        if FAILURE_RE.search(line):
            line = re.sub(r"^\S+: node \d+: ", "", line.strip())
            return line[:160]
    return ""


def patch_one(kdir: str, rel: str, cocci: str, *, spatch_bin: str, reach: str, timeout: int,
              opts: list[str], env: dict[str, str]) -> PatchResult:
    """Patch mode of the combined rules over one file (relative to kdir)."""
    cmd = spatch.command(spatch_bin, cocci, "patch", options=opts, quiet=False,
                         reach=reach, timeout=timeout, args=[rel])
    p = subprocess.run(cmd, cwd=kdir, env=env, capture_output=True, text=True,
                       errors="replace", stdin=subprocess.DEVNULL)
    res = PatchResult(diff=p.stdout, covered=covered_lines(p.stdout))
    if not res.covered:
        res.failure = failure_message(p.stderr) or (
            f"spatch exited {p.returncode}" if p.returncode not in (0, 255) else "")
    return res


def patch_results(kdir: str, files: list[str], cocci: str, *, spatch_bin: str = "spatch",
                  reach: str = "", jobs: int = 1, timeout: int = 200,
                  options: list[str] | None = None) -> dict[str, PatchResult]:
    """Patch mode of the combined rules over files (relative to kdir), each
    file alone (jobs at a time), so one file's failure costs only that file."""
    if not files:
        return {}
    opts = options if options is not None else spatch.rule_options(cocci)
    env = paths.module_env()
    if reach:
        env["KILLABLE_REACH"] = reach
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        results = pool.map(lambda rel: patch_one(kdir, rel, cocci, spatch_bin=spatch_bin,
                                                 reach=reach, timeout=timeout, opts=opts,
                                                 env=env), files)
        return dict(zip(files, results))


def downgrade(verdict: str, line: int, res: PatchResult | None) -> str:
    """The verdict a report line should carry once patch mode has spoken."""
    if verdict != "converted" or res is None or line in res.covered:
        return verdict
    why = res.failure or "no hunk for this site"
    return f"{RULE_FAILED} ({why})"


def agree_report(kdir: str, report_lines: list[str], cocci: str, *, spatch_bin: str = "spatch",
                 reach: str = "", jobs: int = 1, timeout: int = 200) -> list[str]:
    """Report (or org) lines with every `converted` that patch mode does not
    make rewritten to `manual: rule failed in patch mode (...)`, in the same
    format."""
    parsed = [(ln, spatch.parse_site_line(ln)) for ln in report_lines]
    files = sorted({r.file for _, r in parsed if r and r.verdict == "converted"})
    rel = {f: os.path.relpath(os.path.join(kdir, f), kdir) if not os.path.isabs(f)
           else os.path.relpath(f, kdir) for f in files}
    results = patch_results(kdir, [rel[f] for f in files], cocci, spatch_bin=spatch_bin,
                            reach=reach, jobs=jobs, timeout=timeout)
    out = []
    for ln, r in parsed:
        if r and r.verdict == "converted":
            v = downgrade(r.verdict, r.line, results.get(rel[r.file]))
            if v != r.verdict:
                new = dataclasses.replace(r, verdict=v)
                ln = str(new) if spatch.REPORT_RE.match(ln) else spatch.org_line(new)
        out.append(ln)
    return out
