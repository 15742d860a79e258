"""What killable knows about spatch, each fact written once.

  version(spatch)            the version `spatch --version` prints
  rule_options(cocci)        a rule file's `// Options:` flags, as coccicheck reads them
  rule_requires(cocci)       its `// Requires:` spatch version, and satisfies()
  command(...)               a spatch command line; split_flags() for SPFLAGS
  read_log(stderr)           parse errors and the lines worth showing, from its stderr
  REPORT_RE, report_message, report_line, parse_report_line
                             the report line:
                             `file:line:col-colend: PRIM in FUNC(): VERDICT`,
                             and for a conversion whose twin comes from one
                             of our kernel patches, `converted (needs
                             kernel-patches/PATCH)`
  ORG_RE, org_line, parse_site_line
                             the same site as an org TODO (org mode)

The report line is what `coccilib.report.print_report` prints (columns
0-based, end exclusive) around the rules' message; README.md, "Report
format", describes it.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from typing import Sequence

# The flags every rule file declares; used when a rule file declares none.
DEFAULT_OPTIONS = ["--no-includes", "--include-headers"]

# `file:line:col-colend: ` then the message: any report line.
LOCATION = r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+)-(?P<colend>\d+): "
LOCATED_RE = re.compile(LOCATION + r"(?P<msg>.*)$")
# The rules' message: `PRIM in FUNC(): VERDICT`, then ` (needs
# kernel-patches/PATCH)` when the twin is not in the tree yet.
NEEDS = r"(?: \(needs kernel-patches/(?P<needs>[^)\s]+)\))?"
MESSAGE = r"(?P<prim>\w+) in (?P<func>\w+)\(\): (?P<verdict>.*?)" + NEEDS
REPORT_RE = re.compile(LOCATION + MESSAGE + "$")
# The four verdicts a report line ends with.
VERDICTS = ("converted", "refused", "manual", "not on a syscall path")
VERDICT_RE = re.compile(r"^(?:converted|refused: .+|manual: .+|not on a syscall path)$")


class SpatchError(Exception):
    """spatch cannot be run: a one-line user error."""


@dataclass(frozen=True)
class ReportLine:
    file: str
    line: int
    col: int
    colend: int
    prim: str
    func: str
    verdict: str
    needs: str = ""         # the kernel patch the conversion needs first

    def __str__(self) -> str:
        return report_line(self.file, self.line, self.col, self.colend, self.prim, self.func,
                           self.verdict, self.needs)


def report_message(prim: str, func: str, verdict: str, needs: str = "") -> str:
    """The rules' message for one site (what print_report gets); needs is
    the file name in kernel-patches/ of the patch the twin comes from."""
    return f"{prim} in {func}(): {verdict}" + (f" (needs kernel-patches/{needs})" if needs else "")


def report_line(file: str, line: int, col: int, colend: int, prim: str, func: str,
                verdict: str, needs: str = "") -> str:
    """One report line, as spatch prints it in report mode."""
    return f"{file}:{line}:{col}-{colend}: {report_message(prim, func, verdict, needs)}"


def parse_report_line(text: str) -> ReportLine | None:
    """The fields of a report line, or None for any other line."""
    m = REPORT_RE.match(text)
    if not m:
        return None
    return ReportLine(m["file"], int(m["line"]), int(m["col"]), int(m["colend"]),
                      m["prim"], m["func"], m["verdict"], m["needs"] or "")


# The same site as org mode prints it (coccilib.org.print_todo).
ORG_RE = re.compile(r"^\* TODO \[\[view:(?P<file>[^:]+)::face=ovl-face1::linb=(?P<line>\d+)::"
                    r"colb=(?P<col>\d+)::cole=(?P<colend>\d+)\]\[" + MESSAGE + r"\]\]$")


def org_line(r: ReportLine) -> str:
    """One site as org mode prints it."""
    return (f"* TODO [[view:{r.file}::face=ovl-face1::linb={r.line}::colb={r.col}::"
            f"cole={r.colend}][{report_message(r.prim, r.func, r.verdict, r.needs)}]]")


def parse_site_line(text: str) -> ReportLine | None:
    """The fields of a report or org line, or None for any other line."""
    m = REPORT_RE.match(text) or ORG_RE.match(text)
    if not m:
        return None
    return ReportLine(m["file"], int(m["line"]), int(m["col"]), int(m["colend"]),
                      m["prim"], m["func"], m["verdict"], m["needs"] or "")


def verdict_class(verdict: str) -> str:
    """`manual: why` -> `manual`: one of VERDICTS, or "" for any other text."""
    return verdict.split(":", 1)[0] if VERDICT_RE.match(verdict) else ""


def is_site_line(text: str) -> bool:
    """Whether a line is a report line with one of the four verdicts."""
    r = parse_report_line(text)
    return r is not None and bool(verdict_class(r.verdict))


def location_key(text: str) -> tuple[str, int, int]:
    """Sort key of a report or org line: file, line, column (other lines
    sort by text)."""
    m = LOCATED_RE.match(text) or ORG_RE.match(text)
    return (m["file"], int(m["line"]), int(m["col"])) if m else (text, 0, 0)


# ---------------------------------------------------------------- version

def version(spatch: str) -> str:
    """`1.1.1` from `spatch --version`; "unknown" when it prints no version."""
    try:
        r = subprocess.run([spatch, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        raise SpatchError(f"cannot run spatch ({spatch})") from None
    m = re.search(r"spatch version (\S+)", r.stdout + r.stderr)
    return m.group(1) if m else "unknown"


def version_tuple(v: str) -> tuple[int, ...]:
    return tuple(map(int, re.findall(r"\d+", v)))


def satisfies(have: str, requires: str) -> bool:
    """Whether spatch version `have` meets a rule's `// Requires:` (empty: yes)."""
    return not requires or version_tuple(requires) <= version_tuple(have)


# ---------------------------------------------------------------- rule headers

def _rule_file(cocci: str) -> str:
    """A rule file; for a directory, its first .cocci (the family files
    share their header fields)."""
    if os.path.isdir(cocci):
        found = sorted(glob.glob(os.path.join(cocci, "*.cocci")))
        if not found:
            raise SpatchError(f"{cocci}: no .cocci file in this directory")
        return found[0]
    return cocci


def _header_field(cocci: str, name: str) -> list[str]:
    """The values of every `// NAME:` line of a rule file."""
    path = _rule_file(cocci)
    rx = re.compile(r"^//\s*%s:\s*(.*?)\s*$" % re.escape(name))
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [m.group(1) for m in map(rx.match, f) if m]
    except OSError as e:
        raise SpatchError(f"rule file {path}: {e.strerror}") from None


def rule_options(cocci: str) -> list[str]:
    """The `// Options:` flags of a rule file (or of a directory's family
    files), each once, as the kernel's coccicheck passes them."""
    opts: list[str] = []
    for value in _header_field(cocci, "Options"):
        for o in shlex.split(value):
            if o not in opts:
                opts.append(o)
    return opts


def rule_requires(cocci: str) -> str:
    """The spatch version a rule file's `// Requires:` asks for ("" if none)."""
    values = _header_field(cocci, "Requires")
    return values[-1] if values else ""


# ---------------------------------------------------------------- command lines

def command(spatch: str, cocci: str, mode: str, *, options: Sequence[str] = (),
            quiet: bool = True, reach: str = "", jobs: int = 1, tmp_dir: str = "",
            timeout: int = 0, args: Sequence[str] = (), spflags: Sequence[str] = ()) -> list[str]:
    """One spatch command line.

    mode is a virtual rule (`patch`, `report`, `context`, `org`); report and
    org modes print no diff.  quiet: `--very-quiet`, which also hides parse
    errors; else `--quiet --verbose-parsing` (progress and parse errors on
    stderr, for read_log).  reach is the `-D killable_reach=` TSV.  With
    jobs > 1 spatch makes a temporary directory per worker in its working
    directory (the user's tree) unless tmp_dir names a scratch directory.
    args are the files or `--dir`, `--file-groups`, ... arguments; spflags
    the user's flags, last, so that they win.
    """
    cmd = [spatch, "-D", mode]
    cmd += ["--very-quiet"] if quiet else ["--quiet", "--verbose-parsing"]
    if mode in ("report", "org"):
        cmd.append("--no-show-diff")
    cmd += ["--cocci-file", cocci, *options]
    if reach:
        cmd += ["-D", f"killable_reach={reach}"]
    if jobs > 1:
        cmd += ["--jobs", str(jobs), "--chunksize", "1"]
        if tmp_dir:
            cmd += ["--tmp-dir", os.path.join(tmp_dir, "spatch")]
    if timeout:
        cmd += ["--timeout", str(timeout)]
    return cmd + list(args) + list(spflags)



def split_flags(spflags: str) -> list[str]:
    """SPFLAGS split as the shell would."""
    try:
        return shlex.split(spflags)
    except ValueError as e:
        raise SpatchError(f"SPFLAGS={spflags!r}: {e}") from None


# ---------------------------------------------------------------- stderr

PARSE_ERROR_AT = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
# What `--quiet --verbose-parsing` prints besides errors: progress, the
# parser's recovery and guesses.  Everything else is shown to the user.
NOISE_RE = re.compile(
    r"^(?:HANDLING: |Skipping: |init_defs_builtins: |[Ww]arning: |ERROR-RECOV: |parsing pass\d|"
    r"parse error\s*$| ?= ?File \"|  around = |  whole content = |badcount: |bad: |BAD:!+|"
    r"SUSPICIOUS: |TYPEDEF CONFLICT|TODO:|PB MAYBE: |\(ONCE\) |WEIRD: |MultiFound declaration|"
    r"transforming some ident|stmt_elems_of_sequencable|semantic error seems|"
    r"no inferred keywords|passed:|LEXER: |CPP-|diff = $|\S+:\d+$|\s*$)")


def parse_error_location(following: Sequence[str]) -> tuple[str, int] | None:
    """The file and line a `parse error` line names, from the lines after it."""
    for nxt in following[:2]:
        m = PARSE_ERROR_AT.search(nxt)
        if m:
            return m["file"], int(m["line"])
    return None


@dataclass
class SpatchLog:
    parse_errors: list[tuple[str, int]]     # (file as spatch names it, line), in order
    other: list[str]                        # lines a user should see (EXN, tracebacks, ...)


def read_log(stderr: str) -> SpatchLog:
    """What a spatch run's stderr says: where it could not parse, and the rest
    that is not progress or parser noise."""
    lines = stderr.splitlines()
    errors: list[tuple[str, int]] = []
    other: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("parse error"):
            at = parse_error_location(lines[i + 1:i + 3])
            if at and at not in errors:
                errors.append(at)
        elif not NOISE_RE.match(line):
            other.append(line)
    return SpatchLog(errors, other)
