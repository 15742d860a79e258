#!/usr/bin/env python3
"""Fast, approximate facts about one C file: functions, calls, ops tables.

This is the front end shared by the rules (in-file reachability, run inside
spatch) and by the audit (the cross-file call graph).  It does not parse C;
it blanks comments, strings and preprocessor lines, then tracks braces.  That
is enough for kernel style code and survives the macros that make spatch give
up on a function, which matters because a function spatch cannot parse is
still a caller or a root for the functions it can.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import re
import sys
from dataclasses import asdict, dataclass, field

from killable import cli

KEYWORDS = frozenset("""
if for while switch return sizeof typeof __typeof__ __typeof do else case
goto default defined __attribute__ __builtin_expect likely unlikely
asm __asm__ volatile __volatile__ _Static_assert static_assert offsetof
__alignof__ _Alignof alignof
""".split())

# Words that may precede a function name in a definition but are not its type.
DECL_NOISE = frozenset("""
static inline extern __always_inline noinline __init __exit __cold __hot
notrace __maybe_unused __used __weak __sched __ref __meminit __devinit
__cpuinit __noreturn noinstr __visible asmlinkage __attribute_const__
__must_check __latent_entropy __init_or_module __kprobes nokprobe_inline
__always_unused __flatten __noinline_for_stack __net_init __net_exit
noinline_for_stack __xipram STATIC
""".split())

IDENT = re.compile(r"[A-Za-z_]\w*")
CALL = re.compile(r"([A-Za-z_]\w*)\s*\(")
STRUCT_INIT = re.compile(
    r"struct\s+([A-Za-z_]\w*)\s+(?:__\w+\s+)*(?:const\s+)?([A-Za-z_]\w*)\s*"
    r"(?:\[[^\]=;{]*\]\s*)?(?:__\w+(?:\([^)]*\))?\s*)*=\s*\{")
DESIGNATED = re.compile(r"\.\s*([A-Za-z_]\w*)\s*=\s*&?\s*\(?\s*([A-Za-z_]\w*)\s*\)?\s*(?=[,}\n])")
# The receiver of a member call: `dev->info->` before `read_raw(`.
RECEIVER = re.compile(r"(?:[A-Za-z_]\w*(?:\s*\[[^\]\[]*\])?\s*(?:->|\.)\s*)+\Z")
MEMBER_ASSIGN = re.compile(r"(?:->|\.)\s*([A-Za-z_]\w*)\s*=\s*&?\s*([A-Za-z_]\w*)\s*;")


@dataclass
class Call:
    callee: str
    line: int
    # discarded | returned | tested | assigned:<var> | other
    use: str
    via_member: bool = False


@dataclass
class Function:
    name: str
    line: int
    end_line: int
    return_type: str
    is_static: bool
    calls: list[Call] = field(default_factory=list)
    # Lines of `return EXPR;` statements, with EXPR text.
    returns: list[tuple[int, str]] = field(default_factory=list)
    macro: str = ""


@dataclass
class Ref:
    struct_type: str
    member: str
    func: str
    line: int


@dataclass
class MacroRef:
    macro: str
    args: list[str]
    line: int
    function: str = ""


@dataclass
class FileFacts:
    path: str
    functions: dict[str, Function] = field(default_factory=dict)
    refs: list[Ref] = field(default_factory=list)
    macro_refs: list[MacroRef] = field(default_factory=list)
    address_taken: set[str] = field(default_factory=set)
    # Of address_taken, the functions whose address this file only stores
    # in struct members (`.read_raw = f`, `ops->read_raw = f`): their
    # callers are the member's call sites, which the whole-tree graph knows.
    stored_only: set[str] = field(default_factory=set)

    def function_at(self, line: int) -> Function | None:
        best = None
        for fn in self.functions.values():
            if fn.line <= line <= fn.end_line:
                if best is None or fn.line > best.line:
                    best = fn
        return best

    def to_json(self) -> dict:
        d = asdict(self)
        d["address_taken"] = sorted(self.address_taken)
        d["stored_only"] = sorted(self.stored_only)
        return d

    @staticmethod
    def from_json(d: dict) -> "FileFacts":
        ff = FileFacts(d["path"])
        for name, f in d["functions"].items():
            calls = [Call(**c) for c in f.pop("calls")]
            rets = [tuple(r) for r in f.pop("returns")]
            ff.functions[name] = Function(calls=calls, returns=rets, **f)
        ff.refs = [Ref(**r) for r in d["refs"]]
        ff.macro_refs = [MacroRef(**m) for m in d["macro_refs"]]
        ff.address_taken = set(d["address_taken"])
        ff.stored_only = set(d.get("stored_only", ()))
        return ff


NOISE = re.compile(
    r"/\*.*?\*/"                       # block comment
    r"|//[^\n]*"                        # line comment
    r"|\"(?:\\.|[^\"\\\n])*\""   # string literal
    r"|'(?:\\.|[^'\\\n])*'"         # char literal
    r"|^[ \t]*#(?:\\\n|[^\n])*",    # preprocessor line and continuations
    re.S | re.M)


def _blank(m: re.Match) -> str:
    s = m.group(0)
    quoted = s[0] in "\"'"
    if "\n" not in s:
        # Most noise is one line: no regex needed to keep its newlines.
        return s[0] + " " * (len(s) - 2) + s[-1] if quoted else " " * len(s)
    if quoted:
        return s[0] + re.sub(r"[^\n]", " ", s[1:-1]) + s[-1]
    return re.sub(r"[^\n]", " ", s)


@functools.lru_cache(maxsize=4)
def blank_noise(text: str) -> str:
    """Blank comments, string and char literals, and preprocessor lines.

    Newlines are kept so that offsets still map to the same line numbers.
    The graph's scanners each blank the same file in turn: hence the cache.
    """
    return NOISE.sub(_blank, text)


_BRACKETS = {"(": re.compile(r"[()]"), "{": re.compile(r"[{}]"), "[": re.compile(r"[\[\]]")}


def matching(text: str, i: int, open_c: str, close_c: str) -> int:
    """Index of the bracket closing the one at i, or len(text)."""
    depth = 0
    for m in _BRACKETS[open_c].finditer(text, i):
        if m.group(0) == open_c:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start()
    return len(text)


def split_args(s: str) -> list[str]:
    args, depth, cur = [], 0, []
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    tail = "".join(cur).strip()
    if tail or args:
        args.append(tail)
    return args


class LineIndex:
    def __init__(self, text: str):
        # Offset of each line's start, from the line lengths (a loop over
        # newline matches was a tenth of a scan).
        self.starts = list(itertools.accumulate(map(len, text.split("\n")[:-1]),
                                                lambda a, b: a + b + 1, initial=0))

    def line(self, off: int) -> int:
        return bisect.bisect_right(self.starts, off)


USE_RETURN = re.compile(r"\breturn$")
USE_ASSIGN = re.compile(r"([A-Za-z_]\w*(?:\s*(?:->|\.)\s*\w+)*)\s*[-+*/|&]?=$")
USE_TEST = re.compile(r"(?:\bif|\bwhile)\s*\(\s*!?\s*$|(?:&&|\|\||!)$")
USE_CMP = re.compile(r"(==|!=|<=|>=|<|>)\s*(\S+?)\s*[)&|;]")


def classify_use(text: str, start: int, end: int) -> str:
    """How the value of the call text[start:end] is used."""
    # Only the tail matters; a short window keeps the end-anchored searches cheap.
    before = text[max(0, start - 80):start].rstrip()
    after = text[end:end + 40].lstrip()
    cmp = USE_CMP.match(after)
    if cmp:
        # Compared with one code: a new error would read as something else.
        return "tested" if cmp.group(2) == "0" else "other"
    if before.endswith("return") and USE_RETURN.search(before[-7:]):
        return "returned"
    if before.endswith("=") and not re.search(r"[=!<>]=$", before[-2:]):
        m = USE_ASSIGN.search(before[-60:])
        if m:
            return "assigned:" + re.sub(r"\s+", "", m.group(1))
    if USE_TEST.search(before[-20:]) or after[:1] == "?":
        return "tested"
    if before.endswith("(void)") or re.search(r"\(\s*void\s*\)$", before[-12:]):
        return "discarded"
    if after.startswith(";") and (before == "" or before[-1] in ";{}:)" or
                                  before.endswith("else")):
        return "discarded"
    if re.search(r"IS_ERR(?:_OR_NULL)?\s*\($", before[-20:]):
        return "tested"
    return "other"


def scan_text(text: str, path: str = "", interesting: frozenset[str] = frozenset(),
              uses: bool = True) -> FileFacts:
    """Scan C source text. `interesting` names calls whose args are kept.

    uses=False leaves each Call.use "other" and Function.returns empty: the
    call graph needs neither.
    """
    facts = FileFacts(path)
    clean = blank_noise(text)
    lines = LineIndex(clean)
    n = len(clean)
    bodies = function_bodies(clean, lines)
    for _start, _end, fn in bodies:
        facts.functions.setdefault(fn.name, fn)

    gaps = []
    prev = 0
    for start, end, fn in bodies:
        scan_body(clean, start, end, fn, lines, facts, interesting, uses)
        gaps.append((prev, start))
        prev = end
    gaps.append((prev, n))

    # Top-level macro invocations: DEVICE_ATTR_RW(foo); module_exit(bar); ...
    # A call's name and "(" never span a brace, so the gaps hold them all.
    for m in (m for a, b in gaps for m in CALL.finditer(clean, a, b)):
        if m.group(1) in KEYWORDS:
            continue
        name = m.group(1)
        if not (name.isupper() or name in interesting or "_" in name and name.split("_")[0].isupper()
                or name in ("module_init", "module_exit", "late_initcall")):
            continue
        close = matching(clean, m.end() - 1, "(", ")")
        facts.macro_refs.append(MacroRef(name, split_args(clean[m.end():close]),
                                         lines.line(m.start())))

    stored_at: set[int] = set()      # offsets of the function names in refs
    for m in STRUCT_INIT.finditer(clean):
        stype = m.group(1)
        open_b = m.end() - 1
        close = matching(clean, open_b, "{", "}")
        body = clean[open_b:close]
        for d in DESIGNATED.finditer(body):
            facts.refs.append(Ref(stype, d.group(1), d.group(2),
                                  lines.line(open_b + d.start())))
            stored_at.add(open_b + d.start(2))
    for start, end, _fn in bodies:
        for d in MEMBER_ASSIGN.finditer(clean, start, end):
            facts.refs.append(Ref("", d.group(1), d.group(2), lines.line(d.start())))
            stored_at.add(d.start(2))

    names = set(facts.functions)
    loose: set[str] = set()
    exported = re.compile(r"EXPORT_\w*SYMBOL\w*\s*\(\s*$")
    for m in IDENT.finditer(clean):
        w = m.group(0)
        if w in names:
            rest = clean[m.end():m.end() + 20].lstrip()
            if not rest.startswith("(") and \
                    not exported.search(clean[max(0, m.start() - 40):m.start()]):
                facts.address_taken.add(w)
                if m.start() not in stored_at:
                    loose.add(w)
    facts.stored_only = facts.address_taken - loose
    return facts


def function_bodies(clean: str, lines: LineIndex) -> list[tuple[int, int, Function]]:
    """Each top-level function body of blanked text: offsets of its braces."""
    depth = 0
    stmt_start = 0
    bodies: list[tuple[int, int, Function]] = []
    pos = 0
    top = re.compile(r"[{};]")
    while True:
        m = top.search(clean, pos)
        if m is None:
            break
        i, c = m.start(), m.group(0)
        if c == "{":
            if depth == 0:
                fn = function_head(clean[stmt_start:i], stmt_start, lines)
                end = matching(clean, i, "{", "}")
                if fn is not None:
                    fn.end_line = lines.line(end)
                    bodies.append((i, end, fn))
                pos = stmt_start = end + 1
                continue
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            stmt_start = i + 1
        pos = i + 1
    return bodies


def with_callers(text: str, keep_lines: set[int]) -> set[int]:
    """keep_lines and the first line of every function of text that calls,
    directly or through other such functions, one that holds a kept line:
    the bodies a rule may change along with a site's (a void function that
    learns to fail makes its callers in the file check)."""
    functions = list(scan_text(text, uses=False).functions.values())
    held = {fn.name for fn in functions
            if any(fn.line <= k <= fn.end_line for k in keep_lines)}
    out = set(keep_lines)
    grew = True
    while grew:
        grew = False
        for fn in functions:
            if fn.name not in held and any(c.callee in held for c in fn.calls):
                held.add(fn.name)
                out.add(fn.line)
                grew = True
    return out


def prune_bodies(text: str, keep_lines: set[int]) -> str:
    """Blank the body of every function that holds none of `keep_lines`.

    Line and column of everything kept stay the same, and preprocessor
    directives stay, so that #if/#else/#endif still pair up around a head
    that the scanner took for one function.
    """
    clean = blank_noise(text)
    lines = LineIndex(clean)
    out: list[str] = []
    last = 0
    for start, end, fn in function_bodies(clean, lines):
        if any(fn.line <= k <= fn.end_line for k in keep_lines):
            continue
        out.append(text[last:start + 1])
        body = text[start + 1:end]
        q = 0
        for m in NOISE.finditer(body):
            g = m.group(0)
            if g.lstrip(" \t").startswith("#"):
                out.append(_SPACES.sub(" ", body[q:m.start()]))
                out.append(directive_without_open_comment(g))
                q = m.end()
        out.append(_SPACES.sub(" ", body[q:]))
        last = end
    out.append(text[last:])
    return "".join(out)


_SPACES = re.compile(r"[^\n]")


def directive_without_open_comment(line: str) -> str:
    """A directive kept in a blanked body, minus a block comment it opens
    and does not close (`#if 0\t/*` in net/atm/lec.c): the comment's end
    is blanked with the body, and an unterminated comment stops spatch's
    lexer ("lexing: empty token") for the whole file."""
    at = 0
    while True:
        i = line.find("/*", at)
        if i < 0:
            return line
        j = line.find("*/", i + 2)
        if j < 0:
            return line[:i] + _SPACES.sub(" ", line[i:])
        at = j + 2


def function_head(head: str, base: int, lines: LineIndex) -> Function | None:
    h = head.rstrip()
    # `int f(void) __acquires(x)`, `__must_hold(l)` and other annotation tails.
    m = re.search(r"\)\s*(?:__\w+(?:\s*\([^()]*\))?\s*)+$", h)
    if m:
        h = h[:m.start() + 1]
    if not h.endswith(")"):
        return None
    # Find the parameter list: the paren group that closes at the end.
    depth = 0
    for j in range(len(h) - 1, -1, -1):
        if h[j] == ")":
            depth += 1
        elif h[j] == "(":
            depth -= 1
            if depth == 0:
                break
    else:
        return None
    before = h[:j].rstrip()
    m = re.search(r"([A-Za-z_]\w*)$", before)
    if not m:
        return None
    name = m.group(1)
    if name in KEYWORDS or "=" in before:
        return None
    rtype_text = before[:m.start()]
    words = rtype_text.split()
    is_static = "static" in words
    macro = ""
    if re.match(r"(COMPAT_)?SYSCALL_DEFINE\d$", name):
        args = split_args(h[j + 1:-1])
        macro = name
        name = ("compat_sys_" if name.startswith("COMPAT") else "sys_") + (args[0] if args else "")
        rtype = "long"
    else:
        rtype = " ".join(w for w in re.sub(r"\*", " * ", rtype_text).split()
                         if w not in DECL_NOISE and not w.startswith("__attribute__"))
        rtype = rtype.replace(" *", "*").replace("* ", "*").strip()
        if not rtype or rtype.endswith(",") or re.search(r"[;{}]", rtype):
            if re.search(r"[;{}]", rtype):
                return None
            rtype = "int"
    start_off = base + len(head) - len(head.lstrip())
    return Function(name, lines.line(base + m.start()), 0, rtype, is_static, macro=macro)


def scan_body(clean: str, start: int, end: int, fn: Function, lines: LineIndex,
              facts: FileFacts, interesting: frozenset[str], uses: bool = True) -> None:
    for m in CALL.finditer(clean, start, end):
        name = m.group(1)
        if name in KEYWORDS:
            continue
        pre = clean[max(0, m.start() - 3):m.start()].rstrip()
        via_member = pre.endswith("->") or pre.endswith(".")
        close = matching(clean, m.end() - 1, "(", ")") if uses or name in interesting else -1
        at = m.start()
        if via_member and uses:
            # The value is the whole `dev->info->read_raw(...)`'s.
            lo = max(start, at - 120)
            recv = RECEIVER.search(clean[lo:at])
            at = lo + recv.start() if recv else at
        use = classify_use(clean, at, close + 1) if uses else "other"
        fn.calls.append(Call(name, lines.line(m.start()), use, via_member))
        if name in interesting:
            facts.macro_refs.append(MacroRef(name, split_args(clean[m.end():close]),
                                             lines.line(m.start()), fn.name))
    if not uses:
        return
    for m in re.finditer(r"\breturn\b\s*([^;]*);", clean[start:end]):
        fn.returns.append((lines.line(start + m.start()), " ".join(m.group(1).split())))


def scan_file(path: str, interesting: frozenset[str] = frozenset()) -> FileFacts:
    with open(path, encoding="utf-8", errors="replace") as f:
        return scan_text(f.read(), path, interesting)


def main() -> int:
    ap = cli.parser("Print the facts csource finds in C files.")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    for p in args.files:
        json.dump(scan_file(p).to_json(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
