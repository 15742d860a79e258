"""Effect summaries of a tree's headers: which macros and inline functions only read.

A call between a function's nearest earlier exit and its sleep is an effect
the new failure path would not undo, unless it only reads and computes.
side-effect-free.tsv names such calls one by one; most of them, though,
are the accessors, conversions and arithmetic that headers define
(`d_inode`, `snd_pcm_substream_chip`, `net_generic`, `DIV_ROUND_UP`,
`list_first_entry`, `cpu_to_le16`).  This module reads every header of a
tree once and computes, bottom-up to a fixed point, the names whose every
definition (a function-like macro, or a `static inline` function) writes
nothing but its own locals and calls only such names, the table's
side-effect-free calls, or its macro parameters.  A name defined in two
headers is pure only if both definitions are.

The result is cached per tree (`CACHE/effects/`, keyed by the headers'
paths, sizes and times and by this scanner) as one name a line, and the
rules read it through KILLABLE_EFFECTS (Rules.is_pure_call).  Without it
the rules fall back to the table and the file's own static helpers.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile

from killable import cli, data
from killable.paths import DATA_DIR
from killable.scan import csource

SUMMARY_FORMAT = "2"
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
PROTOTYPE_RE = re.compile(r"(?:^|[;}])\s*(?:extern\s+)?(?:(?:const|struct|enum|union|unsigned|"
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


def header_paths(kdir: str) -> list[str]:
    """Every .h of the tree, relative, sorted (tools/ and scripts/ are no kernel code)."""
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


def tree_key(kdir: str, headers: list[str]) -> str:
    h = hashlib.sha256(SUMMARY_FORMAT.encode())
    for f in (__file__, os.path.join(DATA_DIR, "side-effect-free.tsv")):
        with open(f, "rb") as fh:
            h.update(fh.read())
    for rel in headers:
        try:
            st = os.stat(os.path.join(kdir, rel))
        except OSError:
            continue
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:24]


def macro_facts(body: str, params: set[str]) -> tuple[bool, set[str]]:
    """(writes something, the names it calls) of a macro body.  A store is
    any assignment whose target is not a name the body declares itself
    (`typeof(x) __x = (x);` in a statement expression)."""
    body = csource.blank_noise(body.replace("\\\n", " \n"))
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


def inline_facts(text: str) -> dict[str, list[tuple[bool, set[str]]]]:
    """Per static inline function of a header: (writes a non-local, calls)."""
    from killable.verdicts import body as fbody
    out: dict[str, list[tuple[bool, set[str]]]] = {}
    clean = csource.blank_noise(text)
    for start, end, fn in csource.function_bodies(clean, csource.LineIndex(clean)):
        head_from = max(clean.rfind(";", 0, start), clean.rfind("}", 0, start)) + 1
        if not INLINE_RE.search(clean[head_from:start]):
            continue
        inner = clean[start:end + 1]
        calls = {c for c, _ in fbody.calls_in(inner) if c not in NOT_CALLS}
        out.setdefault(fn.name, []).append((bool(fbody.stores_in(inner)), calls))
    return out


def prototypes(text: str) -> set[str]:
    """The functions a header declares at top level (bodies blanked)."""
    clean = csource.blank_noise(text)
    out = list(clean)
    for start, end, _fn in csource.function_bodies(clean, csource.LineIndex(clean)):
        for i in range(start + 1, min(end, len(out))):
            if out[i] != "\n":
                out[i] = " "
    return {n for n in PROTOTYPE_RE.findall("".join(out))
            if n not in NOT_CALLS and n not in ("return", "else", "case", "goto")}


def cache_dir() -> str:
    """Where the summaries are kept: KILLABLE_CACHE (the Makefile's CACHE),
    else ~/.cache/killable."""
    return os.environ.get("KILLABLE_CACHE") or os.path.expanduser("~/.cache/killable")


def balanced(calls: set[str], acquires: dict[str, tuple[str, str]]) -> set[str]:
    """The calls left once every acquisition released in the same body is
    taken out with its release (net_generic: rcu_read_lock() ...
    rcu_read_unlock() around a read holds nothing after it)."""
    out = set(calls)
    for c in calls:
        rel = acquires.get(c, ("", ""))[0]
        if rel and rel in calls:
            out -= {c, rel}
    return out


def summarize(kdir: str, headers: list[str]) -> set[str]:
    """The names that only read, to a fixed point."""
    names, patterns = data.load_side_effect_free()
    acquires, _ = data.load_acquires()
    defs: dict[str, list[tuple[bool, set[str]]]] = {}
    protos: set[str] = set()
    # `extern void __compiletime_error("...") __bad_copy_from(void);`: an
    # attribute macro before the name looks like a prototype of itself.
    attributes: set[str] = set()
    for rel in headers:
        try:
            with open(os.path.join(kdir, rel), encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        for m in DEFINE_RE.finditer(text):
            if "__attribute__" in m.group(3):
                attributes.add(m.group(1))
            params = {p.strip() for p in m.group(2).split(",")} - {"...", ""}
            writes, calls = macro_facts(m.group(3), params)
            defs.setdefault(m.group(1), []).append((writes, balanced(calls, acquires)))
        for m in ALIAS_RE.finditer(text):
            if m.group(2) != m.group(1) and not m.group(2).isdigit():
                defs.setdefault(m.group(1), []).append((False, {m.group(2)}))
        protos.update(prototypes(text))
        if "inline" in text:
            try:
                for name, facts in inline_facts(text).items():
                    defs.setdefault(name, []).extend(
                        (w, balanced(calls, acquires)) for w, calls in facts)
            except (ValueError, IndexError, RecursionError):
                continue    # a header the scanner cannot read costs its own names only

    def table_pure(n: str) -> bool:
        if n.startswith("__builtin_"):
            return not IMPURE_BUILTINS.match(n)
        return n in names or any(p.search(n) for p in patterns)

    protos -= attributes
    pure = {n for n, ds in defs.items() if not any(w for w, _ in ds) and n not in protos}
    changed = True
    while changed:
        changed = False
        for n in list(pure):
            if any(c not in pure and not table_pure(c) for _, calls in defs[n] for c in calls):
                pure.discard(n)
                changed = True
    return pure


def ensure_table(kdir: str, cache: str) -> str:
    """The path of the tree's summary table, computed once and cached."""
    headers = header_paths(kdir)
    d = os.path.join(cache, "effects")
    path = os.path.join(d, tree_key(kdir, headers) + ".txt")
    if os.path.exists(path):
        return path
    os.makedirs(d, exist_ok=True)
    pure = summarize(kdir, headers)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".effects.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(f"# names that only read: macros and static inlines of {len(headers)} headers "
                f"of {kdir} (killable.scan.effects)\n")
        f.writelines(n + "\n" for n in sorted(pure))
    os.replace(tmp, path)
    tables = sorted((os.path.join(d, f) for f in os.listdir(d) if f.endswith(".txt")),
                    key=os.path.getmtime, reverse=True)
    for old in tables[KEEP_TABLES:]:
        try:
            os.unlink(old)      # other trees' or older scanners' tables
        except OSError:
            pass
    return path


def load_table(path: str) -> frozenset[str]:
    with open(path, encoding="utf-8") as f:
        return frozenset(ln.strip() for ln in f if ln.strip() and not ln.startswith("#"))


def main() -> int:
    ap = cli.parser("Print (and cache) the names a tree's headers define that only read.")
    ap.add_argument("--kdir", required=True)
    ap.add_argument("--cache", default=cache_dir())
    ap.add_argument("names", nargs="*", help="say pure or not for these only")
    args = ap.parse_args()
    path = ensure_table(args.kdir, args.cache)
    pure = load_table(path)
    if args.names:
        for n in args.names:
            print(f"{n}\t{'pure' if n in pure else '-'}")
    else:
        print(f"{path}: {len(pure)} names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
