"""Effect summaries of a tree: which functions and macros only read, or
write only into what their caller hands them.

A call between a function's nearest earlier exit and its sleep is an effect
the new failure path would not undo, unless it only reads and computes, or
writes only into the caller's own objects.  side-effect-free.tsv and
local-writers.tsv name such calls one by one; most of them, though, are the
accessors, conversions and arithmetic that headers define (`d_inode`,
`net_generic`, `DIV_ROUND_UP`, `cpu_to_le16`), and parsers, getters and
predicates (`__iio_str_to_fixpoint(buf, m, &integer, &fract)`).  This
module reads every header of a tree once and computes, bottom-up to a
fixed point over the calls, per name (a function-like macro or a `static
inline`; summarize() also takes .c files, whose global functions are names
and whose static ones take part under their file, but ensure_table() does
not give it any: see source_paths()): which pointer parameters it writes
through (one level: `*p`, `p->f`, `p[i]`) when that and its own locals are
all it changes, calling only such names with such arguments.  A call
through a pointer, a store to a file-scope variable, or a call of anything
unknown is an effect.  A name defined twice gets what both definitions do.

The result is cached per tree (`CACHE/effects/`, keyed by the headers'
paths, sizes and times and by this scanner and its tables) as one line a
name: `name` (only reads) or `name<TAB>1,3` (writes through parameters 1
and 3); the rules read it (Rules.is_pure_call, Rules.param_writes).
Without it they fall back to the tables and the file's own static helpers.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing
import os
import re
import signal
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable

from killable import cli, data
from killable.paths import DATA_DIR
from killable.scan import csource

SUMMARY_FORMAT = "3"
# Tables kept in the cache: the kernel cache's, the test trees' (the test
# kernels' clones, small trees of the CLI tests) and a user's own; one
# ~1 MB file a tree, and the whole tree's takes minutes to remake.
KEEP_TABLES = 24
DEFINE_RE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)",
                       re.M)
# `#define cpu_to_le16 __cpu_to_le16`: another name for a function-like macro.
ALIAS_RE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+\(?\s*(\w+)\s*\)?[ \t]*$", re.M)
# Compiler builtins that write through a pointer argument or stop the machine;
# the others only compute.
# A top-level prototype `void foo(struct bar *b);`: foo has a real
# definition in some .c file, and a `static inline` of the same name is
# the stub of the other configuration (`#else static inline void foo(...)
# {}`), whose purity says nothing.
PROTOTYPE_RE = re.compile(r"(?:^|(?<=[;}]))\s*(?:extern\s+)?(?:(?:const|struct|enum|union|unsigned|"
                          r"signed|static|__\w+)\s+)*\w+[\s*]+\**\s*(\w+)\s*\("
                          r"[^;{}]*\)\s*(?:__\w+(?:\([^;{}]*\))?\s*)*;")
IMPURE_BUILTINS = re.compile(r"^__builtin_(?:mem\w+|str\w+|trap|unreachable|prefetch|"
                             r"return_address|frame_address|va_\w+)$")
INLINE_RE = re.compile(r"\bstatic\s+(?:__always_inline|inline|__inline__|__inline)\b")
# Words that look like calls in a macro body but are the language.
NOT_CALLS = frozenset({"if", "while", "for", "switch", "return", "sizeof", "typeof",
                       "__typeof__", "__typeof", "_Generic", "__builtin_constant_p",
                       "__builtin_choose_expr", "__builtin_types_compatible_p",
                       "__builtin_expect", "likely", "unlikely", "offsetof", "do",
                       "__same_type", "__is_constexpr", "_Static_assert", "defined",
                       "__attribute__", "asm", "__asm__", "volatile", "__volatile__"})
CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
# An assignment that is no comparison: =, op=, ++, --.
ASSIGN_RE = re.compile(r"(?<![=!<>+\-*/%&|^])=(?!=)|\+\+|--|[+\-*/%&|^]=|<<=|>>=")


# ---- effects of one function body ----------------------------------------
# What a function changes, from its own text: used for the headers' inline
# functions here and for a file's static helpers by the rules
# (Rules.param_writes), so that both judge a body the same way.

# The start of a declaration statement: qualifiers, a type name, then the
# first declarator (`struct foo *f = ...`, `int a, b[4];`, `for (int i`).
DECL_RE = re.compile(r"(?:^|(?<=[;{}(]))\s*((?:(?:const|static|volatile|unsigned|signed|register|"
                     r"struct|union|enum|long|short)\s+)*)([A-Za-z_]\w*)((?:\s*\*\s*|\s+)(?:const\s+)?)"
                     r"(\**)\s*([A-Za-z_]\w*)\s*(?=[=;,\[)])")
NOT_TYPES = frozenset({"return", "goto", "case", "else", "do", "sizeof", "typeof", "break",
                       "continue", "default", "asm", "__asm__", "struct", "union", "enum"})
# A line outside the preprocessor with a parenthesis: code, or a comment.
CODE_PAREN_RE = re.compile(r"^[ \t]*[^#\s][^\n]*\(", re.M)
CLOSE_RE = re.compile(r"\s*\)")
WORD_RE = re.compile(r"\s*(\w+)")
# A plain name counted up or down (`nr++`, `--left`), not a member's.
INCDEC_RE = re.compile(r"(?<![\w>.\]])(\w+)\s*(?:\+\+|--)|(?:\+\+|--)\s*(\w+)\b(?!\s*(?:->|\.|\[))")
# The target of a store through a pointer: one level only (`*p`, `p->f`,
# `p[i]`, `p->f.g[i]`); `p->q->x` writes into what p's object points to.
ONE_DEREF_RE = re.compile(r"^(?:\*\s*(\w+)|(\w+)\s*(?:\[[^\]]*\]\s*)*(?:->\s*\w+)?"
                          r"(?:\s*(?:\.\s*\w+|\[[^\]]*\]))*)$")
# Own object: a local struct or array written in place (`s.f`, `a[i]`).
IN_PLACE_RE = re.compile(r"^(\w+)(?:\s*(?:\.\s*\w+|\[[^\]]*\]))*$")
# An argument naming an object: `&x`, `x`, `&x.f`, `x->f`, `&x[i]`, `(void *)&x`.
ARG_OBJECT_RE = re.compile(r"^(?:\(\s*[\w\s*]+\)\s*)?(&?)\s*\(?\s*(\w+)\s*\)?"
                           r"((?:\s*(?:->|\.)\s*\w+|\s*\[[^\]]*\])*)$")


@dataclass
class Locals:
    """The names a function declares: parameters (in order, with whether
    each is a pointer) and the locals of its body; statics are shared."""
    params: list[tuple[str, bool]]
    scalars: set[str]       # non-pointer locals: structs, arrays, numbers
    pointers: set[str]      # pointer locals
    statics: set[str]       # `static` locals: state that outlives the call

    def param_index(self, name: str) -> int:
        """1-based index of a parameter, 0 when name is none."""
        for i, (p, _) in enumerate(self.params, 1):
            if p == name:
                return i
        return 0

    def declared(self, name: str) -> bool:
        return (name in self.scalars or name in self.pointers or self.param_index(name) > 0) \
            and name not in self.statics


def function_params(head: str, name: str) -> list[tuple[str, bool]]:
    """(name, is pointer) of each parameter in a function's head (the text
    before its body's brace)."""
    at = head.rfind(name)
    while at > 0 and (head[at - 1].isalnum() or head[at - 1] == "_"):
        at = head.rfind(name, 0, at)
    open_ = head.find("(", at + len(name)) if at >= 0 else -1
    if open_ < 0 or head[at + len(name):open_].strip():
        return []
    close = csource.matching(head, open_, "(", ")")
    out = []
    for arg in csource.split_args(head[open_ + 1:close]):
        arg = arg.strip()
        if arg in ("", "void", "..."):
            continue
        pname = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(|(\w+)\s*(?:\[[^\]]*\]\s*)*$", arg)
        out.append(((pname.group(1) or pname.group(2)) if pname else "", "*" in arg or "[" in arg))
    return out


def body_locals(head: str, name: str, inner: str) -> Locals:
    """Locals of a function body (blanked text inside its braces)."""
    loc = Locals(function_params(head, name), set(), set(), set())
    for m in DECL_RE.finditer(inner):
        if m.group(2) in NOT_TYPES or m.group(5) in NOT_TYPES:
            continue
        static = "static" in m.group(1).split()
        decls = [(bool(m.group(4)) or "*" in m.group(3), m.group(5))]
        # The other declarators of the statement: `int a, *b, c[4];`.
        end = inner.find(";", m.end())
        if end > 0 and not CLOSE_RE.match(inner, m.end()):
            rest = csource.split_args(inner[m.end():end])[1:]
            for d in rest:
                dm = re.match(r"\s*(\**)\s*([A-Za-z_]\w*)", d)
                if dm:
                    decls.append((bool(dm.group(1)), dm.group(2)))
        for ptr, n in decls:
            if static:
                loc.statics.add(n)
            else:
                (loc.pointers if ptr else loc.scalars).add(n)
    return loc


@dataclass
class BodyEffects:
    """What a function does besides reading: shared is the first change
    that is neither to its own locals nor through a pointer parameter ('' if
    none); param_stores the parameters (1-based) it writes through; calls
    each direct call with what each argument names (ArgRef)."""
    shared: str
    param_stores: set[int]
    calls: list[tuple[str, tuple[int, ...]]]


# ArgRef: what an argument of a call names, for a callee that writes
# through it: a parameter of the caller (its index, > 0), the caller's own
# local object (OWN_ARG), or anything else (SHARED_ARG).
OWN_ARG = 0
SHARED_ARG = -1


def arg_ref(arg: str, loc: Locals) -> int:
    """What an argument names for a callee that writes through it: `&x`,
    `&x.f`, an array `x` of the caller's own (OWN_ARG); a pointer parameter
    `p`, or `&p->f` (its index); anything else, such as `x.ptr` or `p->q`,
    whose target is one more pointer away (SHARED_ARG)."""
    m = ARG_OBJECT_RE.match(arg.strip())
    if not m or m.group(2) in loc.statics:
        return SHARED_ARG
    amp, base, path = m.group(1), m.group(2), m.group(3) or ""
    if not amp and path.strip():
        return SHARED_ARG
    derefs = path.count("->")
    idx = loc.param_index(base)
    if idx and loc.params[idx - 1][1] and derefs <= 1:
        return idx
    if base in loc.scalars and derefs == 0:
        return OWN_ARG
    return SHARED_ARG


def body_effects(head: str, name: str, inner: str,
                 declarers: frozenset[str] = frozenset()) -> BodyEffects:
    """The effects of one function: head is the blanked text before its
    body's brace, inner the blanked body; declarers the calls that declare
    their first argument as a local (DECLARE_WAITQUEUE, LIST_HEAD).  Stops
    at the first change to shared state (calls are then not listed)."""
    from killable.verdicts import body as fbody
    loc = body_locals(head, name, inner)
    for m in CALL_RE.finditer(inner):
        if m.group(1) in declarers:
            first = WORD_RE.match(inner, m.end())
            if first:
                loc.scalars.add(first.group(1))
    eff = BodyEffects("", set(), [])
    for lhs in fbody.stores_in(inner):
        if lhs.lstrip().startswith("."):
            continue    # a designated initializer (`struct va_format vaf = { .fmt = fmt };`)
        m = ONE_DEREF_RE.match(lhs)
        base = m and (m.group(1) or m.group(2))
        idx = loc.param_index(base) if base else 0
        own = IN_PLACE_RE.match(lhs)
        if idx and loc.params[idx - 1][1]:
            eff.param_stores.add(idx)
        elif not (own and own.group(1) in loc.scalars and own.group(1) not in loc.statics):
            eff.shared = lhs
            return eff
    # A plain name assigned or counted must be a parameter or a local: a
    # file-scope variable (or a static local) is shared state.
    plain = fbody.locals_assigned(inner) | {a or b for a, b in INCDEC_RE.findall(inner)}
    for n in sorted(plain):
        if not loc.declared(n):
            eff.shared = n
            return eff
    for m in CALL_RE.finditer(inner):
        callee = m.group(1)
        if callee in NOT_CALLS or callee in fbody.KEYWORDS:
            continue
        j = m.start() - 1
        while j >= 0 and inner[j] in " \t\n":
            j -= 1
        if (j >= 0 and (inner[j] == "." or inner[j - 1:j + 1] == "->")) or \
                loc.declared(callee) or callee in loc.statics:
            eff.shared = f"a call through {callee}"
            eff.calls = []
            return eff
        close = csource.matching(inner, m.end() - 1, "(", ")")
        args = csource.split_args(inner[m.end():close])
        eff.calls.append((callee, tuple(arg_ref(a, loc) for a in args)))
    return eff


def written_through(eff: BodyEffects,
                    callee_writes: Callable[[str], frozenset[int] | None]) -> frozenset[int] | None:
    """The parameters a function with these effects writes through when that
    is all it changes; None when it changes anything else.  callee_writes
    says the same of a callee (frozenset() when it only reads)."""
    if eff.shared:
        return None
    out = set(eff.param_stores)
    for callee, refs in eff.calls:
        writes = callee_writes(callee)
        if writes is None:
            return None
        for n in writes:
            ref = refs[n - 1] if n <= len(refs) else SHARED_ARG
            if ref == SHARED_ARG:
                return None
            if ref > 0:
                out.add(ref)
    return frozenset(out)


def source_paths(kdir: str) -> list[str]:
    """Every .h of the tree, relative, sorted (tools/ and scripts/ are no
    kernel code).  The tables are made of the headers: the whole tree's .c
    files took 320 s and 5.4 GB on 2 cores (6.1), too much for a step every
    clone of the tree repeats; a .c file's own static helpers are judged by
    the rules from the file itself."""
    out = []
    for d, dirs, files in os.walk(kdir):
        rel = os.path.relpath(d, kdir)
        if rel == ".":
            dirs[:] = [x for x in dirs if x not in ("tools", "scripts", "Documentation", ".git")]
        elif rel == "arch":
            # The summaries are x86's: another architecture's headers
            # (ia64's swab intrinsics) would make every shared name an
            # effect; a name only they define stays one.
            dirs[:] = [x for x in dirs if x == "x86"]
        dirs.sort()
        out += [os.path.normpath(os.path.join(rel, f)) for f in sorted(files) if f.endswith(".h")]
    return out


def tree_key(kdir: str, paths: list[str]) -> str:
    h = hashlib.sha256(SUMMARY_FORMAT.encode())
    # The summaries read bodies with the verdicts' own stores_in() and
    # locals_assigned(): a change there changes them too.
    from killable.verdicts import body as fbody
    for f in (__file__, fbody.__file__, csource.__file__,
              os.path.join(DATA_DIR, "side-effect-free.tsv"),
              os.path.join(DATA_DIR, "local-writers.tsv"),
              os.path.join(DATA_DIR, "acquire-release.tsv")):
        with open(f, "rb") as fh:
            h.update(fh.read())
    for rel in paths:
        try:
            st = os.stat(os.path.join(kdir, rel))
        except OSError:
            continue
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:24]


def without_attributes(text: str) -> str:
    """text with each `__attribute__((...))` blanked: the names inside
    (`__section__`, `__aligned__`) are no calls.  `#define __section(s)
    __attribute__((__section__(s)))` then calls nothing, and neither does
    RCU_LOCKDEP_WARN()'s `static bool __section(".data.unlikely")
    __warned;`."""
    for m in reversed(list(re.finditer(r"\b__attribute__\s*\(", text))):
        close = csource.matching(text, m.end() - 1, "(", ")")
        if close > 0:
            text = text[:m.start()] + " " * (close + 1 - m.start()) + text[close + 1:]
    return text


def macro_facts(body: str, params: set[str]) -> tuple[bool, set[str]]:
    """(writes something, the names it calls) of a macro body.  A store is
    any assignment whose target is not a name the body declares itself
    (`typeof(x) __x = (x);` in a statement expression)."""
    body = without_attributes(csource.blank_noise(body.replace("\\\n", " \n")))
    declared = set(re.findall(r"(?:\btypeof\s*\([^;]*?\)|\b\w+)\s+\*?\s*(\w+)\s*=(?!=)", body))
    # A once-flag of a debug warning (`static bool __warned;` in
    # RCU_LOCKDEP_WARN) is the macro's own, not the caller's state.
    declared |= set(re.findall(r"\bstatic\s+[^;={}]*?\b(\w+)\s*[;=]", body))
    writes = False
    for m in ASSIGN_RE.finditer(body):
        if m.group(0) in ("++", "--"):
            writes = True
            break
        lhs = re.search(r"([\w\]\)\.>-]+)\s*$", body[:m.start()])
        name = lhs.group(1) if lhs else ""
        if name not in declared:
            writes = True
            break
    calls = {c for c in CALL_RE.findall(body) if c not in NOT_CALLS and c not in params}
    return writes, calls


def function_effects(clean: str, header: bool, declarers: frozenset[str]
                     ) -> list[tuple[str, bool, BodyEffects]]:
    """(name, static, effects) of each function a file (blanked) defines;
    of a header, its static inline functions only (a plain declaration
    there has its body in some .c file)."""
    out = []
    for start, end, fn in csource.function_bodies(clean, csource.LineIndex(clean)):
        head_from = max(clean.rfind(";", 0, start), clean.rfind("}", 0, start)) + 1
        head = clean[head_from:start]
        if header and not INLINE_RE.search(head):
            continue
        out.append((fn.name, fn.is_static, body_effects(head, fn.name, clean[start + 1:end],
                                                         declarers)))
    return out


def prototypes(clean: str) -> set[str]:
    """The functions a header (blanked) declares at top level, with the
    function bodies left out."""
    parts, at = [], 0
    for start, end, _fn in csource.function_bodies(clean, csource.LineIndex(clean)):
        parts.append(clean[at:start + 1])
        parts.append("\n" * clean.count("\n", start + 1, end))
        at = end
    parts.append(clean[at:])
    return {n for n in PROTOTYPE_RE.findall("".join(parts))
            if n not in NOT_CALLS and n not in ("return", "else", "case", "goto")}


def cache_dir() -> str:
    """Where the summaries are kept: KILLABLE_CACHE (the Makefile's CACHE),
    else ~/.cache/killable."""
    return os.environ.get("KILLABLE_CACHE") or os.path.expanduser("~/.cache/killable")


# The releases of locks: a lock taken and released in one body is held
# nowhere after it.  An allocation freed in the same body may be freed on
# its error path only and returned on the other (fsk_dup_filters()).
LOCK_RELEASE = re.compile(r"unlock|^up$|^up_read$|^up_write$")


def balanced(calls: set[str], acquires: dict[str, tuple[str, str]]) -> set[str]:
    """The calls left once every lock released in the same body is taken
    out with its release (net_generic: rcu_read_lock() ...
    rcu_read_unlock() around a read holds nothing after it)."""
    out = set(calls)
    for c in calls:
        rel = acquires.get(c, ("", ""))[0]
        if rel and rel in calls and LOCK_RELEASE.search(rel):
            out -= {c, rel}
    return out


Writes = "frozenset[int] | None"


@dataclass
class FileEffects:
    """What one file contributes to the summaries."""
    # (name, effects): a header's macros and aliases (an alias calls its target)
    macros: list[tuple[str, BodyEffects]]
    # (name, static, effects): a .c file's functions, a header's static inlines
    functions: list[tuple[str, bool, BodyEffects]]
    protos: set[str]            # a header's top-level prototypes
    attributes: set[str]        # a header's macros that expand to __attribute__
    local_macros: set[str]      # a .c file's own function-like macros


@functools.lru_cache(maxsize=1)
def scan_tables() -> tuple[dict[str, tuple[str, str]], frozenset[str]]:
    """The acquisitions and the declaring calls, read once a process."""
    acquires, _ = data.load_acquires()
    return acquires, frozenset(n for n, argn in data.load_local_writers().items() if argn == 0)


ASM_IF = re.compile(r"^\s*#\s*(?:ifdef\s+__ASSEMBLY__|if\s+defined\s*\(?\s*__ASSEMBLY__\s*\)?)\s*"
                    r"(?:/[/*].*)?$")
ASM_IFNDEF = re.compile(r"^\s*#\s*(?:ifndef\s+__ASSEMBLY__|if\s+!\s*defined\s*\(?\s*__ASSEMBLY__"
                        r"\s*\)?)\s*(?:/[/*].*)?$")
PP_IF = re.compile(r"^\s*#\s*if")
PP_ELSE = re.compile(r"^\s*#\s*(?:else|elif)\b")
PP_ENDIF = re.compile(r"^\s*#\s*endif\b")


def without_assembly(text: str) -> str:
    """text with the lines only assembly sees blanked: the body of
    `#ifdef __ASSEMBLY__` and the #else of `#ifndef __ASSEMBLY__`.  C code
    never sees their macros (linkage.h's `#define ALIGN __ALIGN` made the
    C macro ALIGN(x, a) of align.h a name defined twice, one of them not
    known to only read)."""
    if "__ASSEMBLY__" not in text:
        return text
    out = []
    # Per open #if: (its current branch is assembly only, its #else is).
    stack: list[tuple[bool, bool]] = []
    for line in text.split("\n"):
        asm = any(now for now, _ in stack)
        if (ifdef := ASM_IF.match(line)) or ASM_IFNDEF.match(line):
            stack.append((bool(ifdef), not ifdef))
        elif PP_IF.match(line):
            stack.append((False, False))
        elif PP_ELSE.match(line) and stack:
            # An #elif after an __ASSEMBLY__ test is read as C.
            is_else = line.lstrip().lstrip("#").lstrip().startswith("else")
            stack[-1] = (stack[-1][1] and is_else, False)
        elif PP_ENDIF.match(line) and stack:
            stack.pop()
        elif asm:
            line = ""
        out.append(line)
    return "\n".join(out)


def file_effects(text: str, header: bool) -> FileEffects:
    """The facts of one file for summarize()."""
    acquires, declarers = scan_tables()
    if header:
        text = without_assembly(text)
    # A header of #defines only (amdgpu's register masks: 16 MB each) has
    # no prototype or function to blank the text for.
    clean = csource.blank_noise(text) if not header or CODE_PAREN_RE.search(text) else ""
    out = FileEffects([], [], set(), set(), set())
    for m in DEFINE_RE.finditer(text):
        if not header:
            # A .c file's own macro hides any other of its name there; its
            # body is not summarized.
            out.local_macros.add(m.group(1))
            continue
        if "__attribute__" in m.group(3):
            out.attributes.add(m.group(1))
        params = {p.strip() for p in m.group(2).split(",")} - {"...", ""}
        writes, calls = macro_facts(m.group(3), params)
        out.macros.append((m.group(1), BodyEffects(
            "a store" if writes else "", set(),
            [(c, ()) for c in sorted(balanced(calls, acquires))])))
    if header:
        for m in ALIAS_RE.finditer(text):
            if m.group(2) != m.group(1) and not m.group(2)[0].isdigit():
                out.macros.append((m.group(1), BodyEffects("", set(), [(m.group(2), ())])))
        out.protos = prototypes(clean) if clean else set()
        if "inline" not in text or not clean:
            return out
    try:
        found = function_effects(clean, header, declarers)
    except (ValueError, IndexError, RecursionError):
        return out      # a file the scanner cannot read costs its own names only
    for name, static, eff in found:
        if not eff.shared:
            keep = balanced({c for c, _ in eff.calls}, acquires)
            eff.calls = [(c, r) for c, r in eff.calls if c in keep]
        out.functions.append((name, static, eff))
    return out


def read_file_effects(job: tuple[str, str]) -> tuple[str, FileEffects | None]:
    """(rel, its facts) for a worker: job is (tree, rel)."""
    kdir, rel = job
    try:
        with open(os.path.join(kdir, rel), encoding="utf-8", errors="replace") as f:
            return rel, file_effects(f.read(), rel.endswith(".h"))
    except OSError:
        return rel, None


def default_signals() -> None:
    """A worker's signals as a new process has them: a caller's handler
    (the audit's SIGTERM) is not the worker's to run."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def tree_file_effects(kdir: str, paths: list[str], jobs: int) -> dict[str, FileEffects]:
    """Every file's facts, scanned by jobs processes."""
    todo = [(kdir, rel) for rel in paths]
    if jobs > 1 and len(todo) > 200:
        # close() and join(), not terminate(): the workers end on their own,
        # not by a SIGTERM whose handler they inherited (the audit's).
        pool = multiprocessing.Pool(jobs, initializer=default_signals)
        try:
            return {rel: fe for rel, fe in pool.imap_unordered(read_file_effects, todo, chunksize=64)
                    if fe is not None}
        finally:
            pool.close()
            pool.join()
    return {rel: fe for rel, fe in map(read_file_effects, todo) if fe is not None}


def summarize(kdir: str, paths: list[str], jobs: int = 1) -> dict[str, frozenset[int]]:
    """Per name a tree defines (macro, static inline, or global function of
    a .c file): the pointer parameters it writes through when that is all
    it changes (frozenset() when it only reads), to a fixed point.  A name
    that changes anything else is left out.  A name defined more than once
    (configurations, architectures) gets what all definitions do."""
    names, patterns = data.load_side_effect_free()
    local_writers = data.load_local_writers()
    facts = tree_file_effects(kdir, paths, jobs)
    # Node keys: a name (macros, static inlines, .c globals), or
    # (file, name) for a .c file's static function.
    defs: dict[object, list[BodyEffects]] = {}
    c_globals: set[str] = set()
    file_macros: dict[str, set[str]] = {}
    protos: set[str] = set()
    # `extern void __compiletime_error("...") __bad_copy_from(void);`: an
    # attribute macro before the name looks like a prototype of itself.
    attributes: set[str] = set()
    for rel in paths:
        fe = facts.get(rel)
        if fe is None:
            continue
        header = rel.endswith(".h")
        for name, eff in fe.macros:
            defs.setdefault(name, []).append(eff)
        protos |= fe.protos
        attributes |= fe.attributes
        if fe.local_macros:
            file_macros[rel] = fe.local_macros
        for name, static, eff in fe.functions:
            key: object = (rel, name) if static and not header else name
            if not header and not static:
                c_globals.add(name)
            defs.setdefault(key, []).append(eff)
    del facts
    protos -= attributes
    # A header's stub of a function declared there and defined in no .c
    # file this scan reads (another architecture's, assembly) says nothing.
    for name in protos - c_globals:
        if name in defs:
            defs[name].append(BodyEffects("declared, defined elsewhere", set(), []))

    def table_writes(n: str) -> Writes:
        argn = local_writers.get(n)
        if argn is not None:
            return frozenset({argn}) if argn else frozenset()
        if n.startswith("__builtin_"):
            return None if IMPURE_BUILTINS.match(n) else frozenset()
        if n in names or any(p.search(n) for p in patterns):
            return frozenset()
        return None

    table: dict[str, Writes] = {}
    value: dict[object, Writes] = {}

    def resolved(rel: str, n: str) -> object:
        """The node a call of n from rel reaches, or ("", n) for a name
        only the tables judge."""
        if (rel, n) in defs:
            return (rel, n)
        if n in file_macros.get(rel, ()):
            return ("?", n)
        if n not in table:
            table[n] = table_writes(n)
        if table[n] is None and n in defs:
            return n
        return ("", n)

    def writes_of(key: object) -> Writes:
        if isinstance(key, tuple) and key[0] in ("", "?"):
            return table.get(key[1]) if key[0] == "" else None
        return value[key]

    callers: dict[object, set[object]] = {}
    for key, effs in defs.items():
        rel = key[0] if isinstance(key, tuple) else ""
        for eff in effs:
            for c, _ in eff.calls:
                callers.setdefault(resolved(rel, c), set()).add(key)
        own = [None if e.shared else frozenset(e.param_stores) for e in effs]
        value[key] = None if any(w is None for w in own) else \
            frozenset().union(*own)  # type: ignore[arg-type]
    work = list(defs)
    queued = set(work)
    while work:
        key = work.pop()
        queued.discard(key)
        if value[key] is None:
            continue
        rel = key[0] if isinstance(key, tuple) else ""
        new: Writes = frozenset()
        for eff in defs[key]:
            w = written_through(eff, lambda c: writes_of(resolved(rel, c)))
            if w is None:
                new = None
                break
            new = new | w
        if new != value[key]:
            value[key] = new
            for c in callers.get(key, ()):
                if c not in queued:
                    queued.add(c)
                    work.append(c)
    return {k: v for k, v in value.items() if isinstance(k, str) and v is not None}


def ensure_table(kdir: str, cache: str, jobs: int = 2) -> str:
    """The path of the tree's summary table, computed once and cached."""
    paths = source_paths(kdir)
    d = os.path.join(cache, "effects")
    path = os.path.join(d, tree_key(kdir, paths) + ".txt")
    if os.path.exists(path):
        return path
    os.makedirs(d, exist_ok=True)
    writes = summarize(kdir, paths, jobs)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".effects.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(f"# what {len(paths)} headers and .c files of {kdir} define that only reads "
                "(a name), or writes only through its pointer parameters (name<TAB>N,...) "
                "(killable.scan.effects)\n")
        f.writelines(n + ("\t" + ",".join(map(str, sorted(w))) if w else "") + "\n"
                     for n, w in sorted(writes.items()))
    os.replace(tmp, path)
    tables = sorted((os.path.join(d, f) for f in os.listdir(d) if f.endswith(".txt")),
                    key=os.path.getmtime, reverse=True)
    for old in tables[KEEP_TABLES:]:
        try:
            os.unlink(old)      # other trees' or older scanners' tables
        except OSError:
            pass
    return path


def load_table(path: str) -> dict[str, frozenset[int]]:
    """name -> the parameters it writes through (frozenset() when pure)."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for ln in f:
            if ln.strip() and not ln.startswith("#"):
                name, _, argn = ln.rstrip("\n").partition("\t")
                out[name] = frozenset(int(x) for x in argn.split(",") if x)
    return out


def main() -> int:
    ap = cli.parser("Print (and cache) the names a tree defines that only read, or write "
                    "only through their pointer parameters.")
    ap.add_argument("--kdir", required=True)
    ap.add_argument("--cache", default=cache_dir())
    ap.add_argument("names", nargs="*", help="say pure or not for these only")
    args = ap.parse_args()
    path = ensure_table(args.kdir, args.cache)
    writes = load_table(path)
    if args.names:
        for n in args.names:
            w = writes.get(n)
            print(f"{n}\t" + ("-" if w is None else "writes through " + ",".join(map(str, sorted(w)))
                              if w else "pure"))
    else:
        print(f"{path}: {len(writes)} names, {sum(1 for w in writes.values() if not w)} pure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
