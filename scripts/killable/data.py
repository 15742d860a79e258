"""The tables in cocci/data/, each read by one loader.

Every table is a flat text file a user may extend: one entry a line, tab
separated, `#` comments.  Nothing else in the package opens these files.

  primitives.tsv           primitive, killable twin, family, error, shape, [patch]
  families.tsv             family, whether its waits hand something off, error style, rule title
  return-types.tsv         return types that carry a negative errno, and those that cannot
  subject-prefixes.tsv     commit subject prefixes by path (batches)
  acquire-release.tsv      acquisition, its release, undo style; `~REGEX` lines
  syscall-roots.tsv        where system calls enter (ops members, macros)
  must-not-fail-roots.tsv  where a failure must not happen (release, remove, ...)
  contexts.tsv             which must-not-fail kinds can have a fatal signal pending
  side-effect-free.tsv     calls a function may make before a sleep with nothing to undo
  local-writers.tsv        calls that write only into an argument, or declare a local
  untyped-root-members.tsv root members that count without the struct's type
  unchecked-members.tsv    root members the kernel also calls without handling a failure
  long-sleeps.tsv          operations that can block long: class, what bounds them
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from killable.paths import DATA_DIR


@dataclass
class Primitive:
    name: str
    twin: str
    family: str
    error: str          # what the twin returns on a fatal signal
    shape: str          # stmt | timeout | poll
    needs: str = ""     # a kernel patch the twin comes from, if 6.1 lacks it


@dataclass(frozen=True)
class RootRule:
    kind: str       # member | define | arg | name
    pattern: str
    root: str
    extra: str = ""


@dataclass(frozen=True)
class Contexts:
    """What contexts.tsv says of the must-not-fail kinds."""
    signal_free: frozenset[str]     # kinds that never have a fatal signal pending
    accepting: frozenset[str]       # calls by which a kernel thread accepts signals
    why: dict[str, str]             # kind -> why it can (or cannot) have one

    def can_be_killed(self, kind: str) -> bool:
        """Whether code of this kind can run with a fatal signal pending
        (an unknown kind can)."""
        return kind not in self.signal_free


@dataclass
class RootTable:
    syscall: list[RootRule]
    mustnotfail: list[RootRule]
    contexts: Contexts = Contexts(frozenset(), frozenset(), {})

    def interesting(self) -> frozenset[str]:
        """Macro and function names whose arguments name roots."""
        return frozenset(r.pattern for r in self.syscall + self.mustnotfail
                         if r.kind in ("arg", "name"))


def table_lines_numbered(path: str) -> Iterator[tuple[int, str]]:
    """(line number, entry) for the entries of a table: lines that are
    neither blank nor comments."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip() and not line.lstrip().startswith("#"):
                yield n, line.rstrip("\n")


def table_lines(path: str) -> Iterator[str]:
    """The entries of a table."""
    for _, line in table_lines_numbered(path):
        yield line


def load_primitives(path: str = os.path.join(DATA_DIR, "primitives.tsv")) -> dict[str, Primitive]:
    prims = {}
    for line in table_lines(path):
        cols = line.split("\t")
        p = Primitive(*cols[:5], needs=cols[5] if len(cols) > 5 else "")
        prims[p.name] = p
    return prims


@dataclass(frozen=True)
class Family:
    name: str
    handoff: bool       # the waiter may own what it waits for (the `handoff` check)
    style: str          # how the tree mostly tests the twin, where a file does not say:
                        # `if` (`if (twin(..)) return -EINTR;`) or `ret` (`ret = twin(..);`)
    title: str          # the rule file's first `///` line


def load_families(path: str = os.path.join(DATA_DIR, "families.tsv")) -> dict[str, Family]:
    """family -> Family, in the table's order; a malformed line is an error naming it."""
    out: dict[str, Family] = {}
    for n, line in table_lines_numbered(path):
        cols = line.split("\t")
        if len(cols) != 4 or cols[1] not in ("handoff", "-") or cols[2] not in ("if", "ret") \
                or not cols[3].strip():
            raise ValueError(f"{path}:{n}: want family<TAB>handoff|-<TAB>if|ret<TAB>title: {line!r}")
        out[cols[0]] = Family(cols[0], cols[1] == "handoff", cols[2], cols[3])
    return out


@dataclass(frozen=True)
class ReturnTypes:
    """What a function's return type says about carrying a new error."""
    errno: re.Pattern           # signed integers, `signed`/`const` before them allowed
    reasons: dict[str, str]     # type -> the verdict when it cannot carry one

    def carries_errno(self, rtype: str) -> bool:
        return self.errno.match(rtype) is not None

    def reason(self, rtype: str) -> str:
        """The verdict for a type that cannot carry an error, or ""."""
        return self.reasons.get(rtype, "").replace("{type}", rtype)


def load_return_types(path: str = os.path.join(DATA_DIR, "return-types.tsv")) -> ReturnTypes:
    errno: list[str] = []
    reasons: dict[str, str] = {}
    for n, line in table_lines_numbered(path):
        cols = line.split("\t")
        if len(cols) == 2 and cols[1] == "errno":
            errno.append(cols[0])
        elif cols[1] == "none" and len(cols) == 3 and cols[2].strip():
            reasons[cols[0]] = cols[2]
        else:
            raise ValueError(f"{path}:{n}: want type<TAB>errno or type<TAB>none<TAB>verdict: "
                             f"{line!r}")
    pattern = re.compile(r"^(?:(?:signed|const)\s*)*(?:%s)$" % "|".join(map(re.escape, errno)))
    return ReturnTypes(pattern, reasons)


def load_subject_prefixes(path: str = os.path.join(DATA_DIR, "subject-prefixes.tsv")
                          ) -> list[tuple[re.Pattern, str]]:
    """(path pattern, prefix template) in order: the first match wins."""
    out = []
    for n, line in table_lines_numbered(path):
        cols = line.split("\t")
        if len(cols) != 2:
            raise ValueError(f"{path}:{n}: want REGEX<TAB>prefix: {line!r}")
        out.append((re.compile(cols[0]), cols[1]))
    return out


def load_acquires(path: str = os.path.join(DATA_DIR, "acquire-release.tsv")
                  ) -> tuple[dict[str, tuple[str, str]], list[re.Pattern]]:
    """acquisition -> (release, style), and the patterns of style none."""
    table: dict[str, tuple[str, str]] = {}
    patterns: list[re.Pattern] = []
    for line in table_lines(path):
        if line.startswith("~"):
            patterns.append(re.compile(line[1:].strip()))
            continue
        acq, rel, style = line.split()[:3]
        table[acq] = (rel, style)
    return table, patterns


def load_root_rules(path: str) -> list[RootRule]:
    rules = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].rstrip("\n") if not raw.lstrip().startswith("#") else ""
            if not line.strip():
                continue
            cols = [c.strip() for c in line.split("\t") if c.strip() != ""]
            if len(cols) < 3 or cols[0] not in ("member", "define", "arg", "name"):
                raise SystemExit(f"{path}:{n}: bad root rule: {raw.strip()!r}")
            rules.append(RootRule(cols[0], cols[1], cols[2], cols[3] if len(cols) > 3 else ""))
    return rules


def load_contexts(path: str = os.path.join(DATA_DIR, "contexts.tsv")) -> Contexts:
    """contexts.tsv: `context KIND yes|no why` and `accept FUNCTION` rows."""
    free: set[str] = set()
    accepting: set[str] = set()
    why: dict[str, str] = {}
    for n, line in table_lines_numbered(path):
        cols = line.split("\t")
        if cols[0] == "context" and len(cols) == 4 and cols[2] in ("yes", "no"):
            why[cols[1]] = cols[3]
            if cols[2] == "no":
                free.add(cols[1])
        elif cols[0] == "accept" and len(cols) == 2 and cols[1].strip():
            accepting.add(cols[1].strip())
        else:
            raise ValueError(f"{path}:{n}: want context<TAB>KIND<TAB>yes|no<TAB>why or "
                             f"accept<TAB>FUNCTION: {line!r}")
    return Contexts(frozenset(free), frozenset(accepting), why)


def load_root_tables(data_dir: str = DATA_DIR) -> RootTable:
    return RootTable(load_root_rules(os.path.join(data_dir, "syscall-roots.tsv")),
                     load_root_rules(os.path.join(data_dir, "must-not-fail-roots.tsv")),
                     load_contexts(os.path.join(data_dir, "contexts.tsv")))


def load_name_table(path: str) -> tuple[frozenset[str], list[re.Pattern]]:
    """A table of names, one a line, with `~REGEX` lines for patterns."""
    names: set[str] = set()
    patterns: list[re.Pattern] = []
    for line in table_lines(path):
        entry = line.split("\t")[0].strip()
        if entry.startswith("~"):
            patterns.append(re.compile(entry[1:]))
        elif entry:
            names.add(entry)
    return frozenset(names), patterns


def load_untyped_root_members(path: str = os.path.join(DATA_DIR, "untyped-root-members.tsv")
                               ) -> tuple[frozenset[str], list[re.Pattern]]:
    return load_name_table(path)


@dataclass(frozen=True)
class UncheckedMember:
    """A root member the kernel also calls itself, dropping a failure;
    with a scope, only in files under one of dirs or calling one of calls
    (a kcontrol's .get/.put is a vmaster follower's only where a driver
    links followers)."""
    reason: str
    dirs: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()

    def applies(self, path: str, read: Callable[[], str]) -> bool:
        """Whether it holds for a root in path; read() gives the file's text."""
        if not self.dirs and not self.calls:
            return True
        where = "/" + path.lstrip("./")
        if any("/" + d in where for d in self.dirs):
            return True
        text = read() if self.calls else ""
        return any(re.search(r"\b%s\s*\(" % re.escape(c), text) for c in self.calls)


def load_unchecked_members(path: str = os.path.join(DATA_DIR, "unchecked-members.tsv")
                           ) -> dict[str, UncheckedMember]:
    """root member -> which kernel caller drops or misreads its failure,
    and where (third column: `dir/` and `call()` words; none: everywhere)."""
    out = {}
    for line in table_lines(path):
        cols = line.split("\t")
        scope = cols[2].split() if len(cols) > 2 else []
        out[cols[0].strip()] = UncheckedMember(
            cols[1].strip() if len(cols) > 1 else "",
            tuple(w for w in scope if w.endswith("/")),
            tuple(w[:-2] for w in scope if w.endswith("()")))
    return out


def load_side_effect_free(path: str = os.path.join(DATA_DIR, "side-effect-free.tsv")
                          ) -> tuple[frozenset[str], list[re.Pattern]]:
    return load_name_table(path)


def load_value_readers(path: str = os.path.join(DATA_DIR, "value-readers.tsv")
                       ) -> tuple[frozenset[str], list[re.Pattern]]:
    return load_name_table(path)


def load_local_writers(path: str = os.path.join(DATA_DIR, "local-writers.tsv")
                       ) -> dict[str, int]:
    """name -> the 1-based argument it writes through, or 0 for a
    declaration of a new local."""
    out: dict[str, int] = {}
    for n, line in table_lines_numbered(path):
        cols = line.split("\t")
        if len(cols) != 2 or not (cols[1].isdigit() or cols[1] == "declares"):
            raise ValueError(f"{path}:{n}: want name<TAB>N or name<TAB>declares: {line!r}")
        out[cols[0]] = 0 if cols[1] == "declares" else int(cols[1])
    return out


@dataclass(frozen=True)
class LongSleep:
    name: str
    klass: str          # io | usb | firmware | user-memory | network | wait | flush | poll-loop | ...
    bound: str          # none | internal:DUR | arg:N:UNIT | sleep:N:UNIT | work:N
    note: str = ""

    def bound_kind(self) -> str:
        return self.bound.split(":", 1)[0]

    def bound_arg(self) -> tuple[int, str]:
        """(argument index from 1, unit) of an arg:, sleep: or work: bound,
        else (0, "")."""
        parts = self.bound.split(":") + [""]
        if parts[0] in ("arg", "sleep", "work") and parts[1].isdigit():
            return int(parts[1]), parts[2]
        return 0, ""


LONG_SLEEP_BOUND = re.compile(r"^(none|internal:\d+(ms|s)|(arg|sleep):\d+:(jiffies|ms|us|s)"
                              r"|work:\d+)$")


def load_long_sleeps(path: str = os.path.join(DATA_DIR, "long-sleeps.tsv")) -> dict[str, LongSleep]:
    """name -> LongSleep; a malformed line is an error naming it."""
    out: dict[str, LongSleep] = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            cols = [c.strip() for c in raw.rstrip("\n").split("\t")]
            if len(cols) < 3 or not re.match(r"^[A-Za-z_]\w*$", cols[0]) or not cols[1] \
                    or not LONG_SLEEP_BOUND.match(cols[2]):
                raise ValueError(f"{path}:{n}: want name<TAB>class<TAB>bound[<TAB>note]: "
                                 f"{raw.strip()!r}")
            out[cols[0]] = LongSleep(cols[0], cols[1], cols[2], cols[3] if len(cols) > 3 else "")
    return out
