#!/usr/bin/env python3
"""Cross-file call graph of a kernel tree, and what syscalls can reach.

Every .c file is scanned with csource.scan_file (in parallel, cached per file
under CACHE/audit-cache/scan/ by the sha256 of its content and of the scanner
code and root tables).  The global graph has one node per (file, function):

  direct call f()      -> a static or global f in the same file, else the
                          unique global f; several globals (per-arch or
                          per-config twins) all get an edge
  call through x->m()  -> the functions stored in member m (designated
  or x.m()                initializers and `p->m = f`) of x's struct type
                          when it is known (a local or parameter declaration,
                          struct field types: build_graph); untyped, every
                          function stored in an m, if there are at most 8

Roots are the rules' own tables (cocci/data/syscall-roots.tsv and
must-not-fail-roots.tsv, through reachability.roots_in).  The BFS the rules'
in-file view takes too (reachability.walk) keeps one shortest chain per
reachable function; root kinds spread to all reachable functions
(must-not-fail kinds along direct calls only).

Outputs (both TSV, sorted):
  reach.tsv   relpath<TAB>function<TAB>classes         (read by the rules via
              -D killable_reach=FILE; classes like fops,ioctl,mnf:release)
  chains.tsv  relpath<TAB>function<TAB>root_kinds<TAB>mnf_kinds<TAB>chain<TAB>mnf_chain
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import time
from array import array
from dataclasses import dataclass, field
from multiprocessing import Pool
from typing import Callable, Iterable, Iterator, Sequence

from killable.scan import csource
from killable.graph import members
from killable.graph import reach as reachability
from killable.graph.reach import filled  # noqa: F401  (risk.analysis uses callgraph.filled)
from killable import cli
from killable.atomic import atomic_open, atomic_pickle, atomic_write  # noqa: F401

SCAN_FORMAT = "1"


# ---------------------------------------------------------------- utilities

def read_json(path: str):
    """A cache entry, or None when it is missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def sha256_bytes(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def hash_files(paths: Iterable[str]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(os.path.basename(p).encode() + b"\0")
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


# The tables a file's roots and macro references are read against.
ROOT_TABLES = ("syscall-roots.tsv", "must-not-fail-roots.tsv", "contexts.tsv")


def tables_version(data_dir: str = reachability.DATA_DIR) -> str:
    """Hash of ROOT_TABLES: facts scanned against other tables miss the
    roots a new row names (SENSOR_DEVICE_ATTR_RW's functions) and are
    never reused."""
    return hash_files([os.path.join(data_dir, t) for t in ROOT_TABLES])[:16]


def scanner_version(data_dir: str = reachability.DATA_DIR) -> str:
    """Hash of everything a scan result depends on besides the C file."""
    files = [csource.__file__, reachability.__file__] + \
        [os.path.join(data_dir, t) for t in ROOT_TABLES]
    return (SCAN_FORMAT + hash_files(files))[:16]


def list_c_files(kdir: str, subdirs: list[str] | None = None) -> list[str]:
    """Relative paths of the .c files of a tree (git ls-files when possible)."""
    subdirs = [s.strip("/") for s in (subdirs or []) if s.strip("/")]
    if os.path.isdir(os.path.join(kdir, ".git")) or os.path.isfile(os.path.join(kdir, ".git")):
        specs = [f"{s}/*.c" for s in subdirs] if subdirs else ["*.c"]
        r = subprocess.run(["git", "-C", kdir, "ls-files", "-z", "--"] + specs,
                           capture_output=True)
        if r.returncode == 0:
            files = [x for x in r.stdout.decode("utf-8", "replace").split("\0") if x]
            return sorted(files)
    out = []
    for top in (subdirs or [""]):
        base = os.path.join(kdir, top)
        for d, dirs, fs in os.walk(base):
            dirs[:] = sorted(x for x in dirs if not x.startswith("."))
            for f in fs:
                if f.endswith(".c"):
                    out.append(os.path.relpath(os.path.join(d, f), kdir))
    return sorted(out)


def split_readable(kdir: str, rels: list[str]) -> tuple[list[str], list[str]]:
    """(files that can be read, the others): a dangling symlink, a symlink
    loop, a directory named *.c or an unreadable file is left out, not a crash."""
    ok, bad = [], []
    for rel in rels:
        p = os.path.join(kdir, rel)
        (ok if os.path.isfile(p) and os.access(p, os.R_OK) else bad).append(rel)
    return ok, bad


# ---------------------------------------------------------------- scanning

@dataclass
class ScanJob:
    kdir: str
    relpath: str
    cache_dir: str
    version: str
    interesting: frozenset[str]
    table: reachability.RootTable
    reuse_stale: bool = True
    digest: bool = False        # also its graph_digest (in the worker)
    tables: str = ""            # tables_version() the facts are read against


def compact_facts(ff: csource.FileFacts, table: reachability.RootTable) -> dict:
    """The part of a file's facts the graph needs, small enough to cache."""
    funcs = []
    for name, fn in ff.functions.items():
        direct = sorted({c.callee for c in fn.calls if not c.via_member})
        member = sorted({c.callee for c in fn.calls if c.via_member})
        funcs.append([name, fn.line, fn.end_line, int(fn.is_static), direct, member])
    refs = sorted({(r.struct_type, r.member, r.func) for r in ff.refs})
    sys_roots = sorted({(r.func, r.kind, r.via, int(r.errptr))
                        for r in reachability.roots_in(ff, table.syscall)})
    mnf_roots = sorted({(r.func, r.kind, r.via, int(r.errptr))
                        for r in reachability.mustnotfail_roots(ff, table)})
    return {"functions": funcs, "refs": [list(r) for r in refs],
            "sys_roots": [list(r) for r in sys_roots],
            "mnf_roots": [list(r) for r in mnf_roots]}


def scan_cached(job: ScanJob) -> tuple[str, dict, bool]:
    """(relpath, compact facts, was_cached) for one file."""
    path = os.path.join(job.kdir, job.relpath)
    with open(path, "rb") as f:
        content = f.read()
    key = sha256_bytes(content)[:40] + "-" + job.version
    cpath = os.path.join(job.cache_dir, key[:2], key + ".json")
    cached = read_json(cpath)
    if cached is not None:
        return job.relpath, cached, True
    facts = compact_facts(csource.scan_text(content.decode("utf-8", "replace"), path,
                                           job.interesting, uses=False), job.table)
    facts["tv"] = job.tables
    atomic_write(cpath, json.dumps(facts, separators=(",", ":")))
    return job.relpath, facts, False


# 2: embedded struct fields too (`struct snd_soc_dpcm_runtime dpcm[2];`).
# 3: unions, and the named members of an anonymous struct or union.
# 4: typedefs of structs and unions.
# 5: the graph's fields as in 2 again; C's reading of members for the doors.
TYPES_FORMAT = "5"
# struct and union tags share one name space in C.
STRUCT_OPEN = re.compile(r"\b(struct|union)\s+([A-Za-z_]\w*)\s*\{")
FIELD_DECL = re.compile(r"\b(struct|union)\s+([A-Za-z_]\w*)\s*(?:\*\s*)*(?:const\s+)?"
                        r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?;")
ANON_OPEN = re.compile(r"\b(?:struct|union)\s*\{")
ANON_NAME = re.compile(r"\s*(?:__\w+(?:\s*\([^()]*(?:\([^()]*\))?[^()]*\))?\s*)*"
                       r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?;")
VAR_DECL = re.compile(r"\bstruct\s+([A-Za-z_]\w*)\s*\**\s*(?:const\s+)?([A-Za-z_]\w*)"
                      r"\s*(?=[,;=)\[])")
# Starts only at an identifier's first character: the same matches, 5x faster.
CHAIN = r"(?<![\w])([A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*(?:->|\.)\s*([A-Za-z_]\w*)"
# A member call `a->b.c(` (group 3 empty) or a store `a->b.c = f;` (group
# 3 = f), in one pass: their spans never overlap, and each pass was a
# quarter of a file's scan.
MCALL_OR_STORE = re.compile(CHAIN + r"\s*(?:\(|=\s*&?\s*([A-Za-z_]\w*)\s*;)")
SPLIT = re.compile(r"\s*(?:->|\.)\s*")


def brace_pairs(clean: str) -> dict[int, int]:
    """Offset of each '{' -> offset of its '}'."""
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for m in re.finditer(r"[{}]", clean):
        if m.group(0) == "{":
            stack.append(m.start())
        elif stack:
            pairs[stack.pop()] = m.start()
    return pairs


def struct_fields(clean: str, pairs: dict[int, int], stype: str, start: int, end: int,
                  out: set[tuple[str, str, str]]) -> None:
    """The fields of stype declared in clean[start:end] with a struct or
    union type, as C has them.  A named member of an anonymous struct or
    union (`struct { DECLARE_BITMAP(read, N); ... } shadow_msr_intercept;`
    in struct vcpu_svm) gets the type `stype.member`, whose own fields are
    read the same way: a mention of shadow_msr_intercept.read is then
    known not to be any ops table's .read.  The fields of an unnamed one
    are stype's own."""
    inner: list[tuple[int, int]] = []
    for a in ANON_OPEN.finditer(clean, start, end):
        close = pairs.get(a.end() - 1)
        if close is None or close > end or any(x < a.start() < y for x, y in inner):
            continue
        inner.append((a.start(), close))
        name = ANON_NAME.match(clean, close + 1)
        if name:
            sub = f"{stype}.{name.group(1)}"
            out.add((stype, name.group(1), sub))
            struct_fields(clean, pairs, sub, a.end(), close, out)
    for f in FIELD_DECL.finditer(clean, start, end):
        if not named_inside(f.start(), inner, clean):
            out.add((stype, f.group(3), f.group(2)))


def named_inside(at: int, inner: list[tuple[int, int]], clean: str) -> bool:
    """Whether offset at lies in one of the inner (anonymous) bodies that
    is a named member, whose fields are not the outer struct's."""
    for x, y in inner:
        if x < at < y:
            return bool(ANON_NAME.match(clean, y + 1))
    return False


TYPEDEF_TAG = re.compile(r"\btypedef\s+(?:const\s+)?(?:struct|union)\s+([A-Za-z_]\w*)\s+"
                         r"([A-Za-z_]\w*)\s*;")
TYPEDEF_BODY = re.compile(r"\btypedef\s+(?:struct|union)\s*([A-Za-z_]\w*)?\s*\{")
TYPEDEF_NAME = re.compile(r"\s*(?:__\w+(?:\s*\([^()]*(?:\([^()]*\))?[^()]*\))?\s*)*"
                          r"([A-Za-z_]\w*)\s*;")


def typedef_tags(clean: str, pairs: dict[int, int]) -> set[tuple[str, str]]:
    """(typedef name, struct or union tag) for `typedef struct T name;` and
    `typedef struct T { ... } name;`; an untagged body's type is the name
    itself (`typedef struct { ... } name;`).  A pointer typedef names no
    struct and is left out."""
    out = {(m.group(2), m.group(1)) for m in TYPEDEF_TAG.finditer(clean)}
    for m in TYPEDEF_BODY.finditer(clean):
        close = pairs.get(m.end() - 1)
        name = TYPEDEF_NAME.match(clean, close + 1) if close is not None else None
        if name:
            out.add((name.group(1), m.group(1) or name.group(1)))
    return out


def type_facts(text: str, spans: list[tuple[str, int, int]]) -> dict:
    """Struct field types, and typed member calls and stores per function.

    fields: [struct, field, field's struct type] for `struct T *field;` and
            `struct T field;` members
    calls:  {function: [[member, base var type or "", [fields between]]]}
    stores: [[base type or "", [fields], member, function stored]]
    """
    clean = csource.blank_noise(text)
    pairs = brace_pairs(clean)
    # The graph binds member calls by `fields`, read as ever: a struct's
    # struct-typed fields, those of its anonymous members included.  The
    # rows C's own reading adds (unions, anonymous members' own types) type
    # only the receivers of the member door check (door_fields): binding a
    # call through them would no longer meet the functions a designated
    # initializer stores there untyped, and callers would be lost.
    fields: set[tuple[str, str, str]] = set()
    doors: set[tuple[str, str, str]] = set()
    for m in STRUCT_OPEN.finditer(clean):
        end = pairs.get(m.end() - 1)
        if end is None:
            continue
        if m.group(1) == "struct":
            fields.update((m.group(2), f.group(3), f.group(2))
                          for f in FIELD_DECL.finditer(clean, m.end(), end) if f.group(1) == "struct")
        struct_fields(clean, pairs, m.group(2), m.end(), end, doors)
    door_rows = [list(x) for x in sorted(doors - fields)]
    aliases = [list(x) for x in sorted(typedef_tags(clean, pairs))]
    if not spans:
        return {"fields": [list(x) for x in sorted(fields)], "door_fields": door_rows,
                "typedefs": aliases, "calls": {}, "stores": []}
    starts = csource.LineIndex(clean).starts
    calls: dict[str, list] = {}
    stores = set()
    for name, line, end_line in spans:
        a = starts[min(line - 1, len(starts) - 1)]
        b = starts[end_line] if end_line < len(starts) else len(clean)
        body = clean[a:b]
        var = {}
        for v in VAR_DECL.finditer(body):
            var.setdefault(v.group(2), v.group(1))
        out = set()
        for c in MCALL_OR_STORE.finditer(body):
            chain = SPLIT.split(c.group(1))
            if c.group(3) is None:
                out.add((c.group(2), var.get(chain[0], ""), tuple(chain[1:])))
            else:
                stores.add((var.get(chain[0], ""), tuple(chain[1:]), c.group(2), c.group(3)))
        if out:
            calls[name] = [[m, t, list(fs)] for m, t, fs in sorted(out)]
    return {"fields": [list(x) for x in sorted(fields)], "door_fields": door_rows,
            "typedefs": aliases, "calls": calls,
            "stores": [[t, list(fs), m, f] for t, fs, m, f in sorted(stores)]}


def cached_json(cache_dir: str, key: str, compute):
    """compute(), cached as JSON under cache_dir/key[:2]/key.json."""
    cpath = os.path.join(cache_dir, key[:2], key + ".json")
    try:
        with open(cpath, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        pass
    result = compute()
    atomic_write(cpath, json.dumps(result, separators=(",", ":")))
    return result


def cached_by_content(kdir: str, relpath: str, cache_dir: str, suffix: str, compute):
    """compute(content) for a file, cached as JSON under the hash of its
    content and suffix (the version of what compute derives)."""
    with open(os.path.join(kdir, relpath), "rb") as f:
        content = f.read()
    return cached_json(cache_dir, sha256_bytes(content)[:40] + suffix,
                       lambda: compute(content))


def types_cached(kdir: str, relpath: str, cache_dir: str, version: str,
                 spans: list[tuple[str, int, int]]) -> dict:
    return cached_by_content(kdir, relpath, cache_dir, "-t" + TYPES_FORMAT + version,
                             lambda content: type_facts(content.decode("utf-8", "replace"),
                                                        spans))


MACRO_DEF = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(", re.M)


def macros_cached(kdir: str, relpath: str, cache_dir: str) -> list[str]:
    """Function-like macros a file defines (a call of one is not a call)."""
    return cached_by_content(kdir, relpath, cache_dir, "-m1", lambda content: sorted(
        {m.group(1).decode() for m in MACRO_DEF.finditer(content)}))


def local_macros(rel: str, ff: Facts, dir_macros: dict[str, set[str]]) -> set[str]:
    """Macros visible as such in rel: its own and those of headers beside it,
    minus names the file itself defines as functions (#ifdef alternatives)."""
    m = set(ff.macros) | dir_macros.get(os.path.dirname(rel), set())
    if m:
        m -= set(ff.names or ())
    return m


STALE_RE = re.compile(r"^[0-9a-f]{40}-(?:(?P<g>g[0-9a-f]{16}-t(?P<gt>\d+)-m1h?)|"
                      r"(?P<t>t(?P<tt>\d)[0-9a-f]{16})|(?P<c>[0-9a-f]{16}))\.json$")


def stale_facts(job: ScanJob, sha: str) -> dict | None:
    """Facts of the same content from an older scanner version, if any.

    csource.py and the root tables change often while the rules are worked
    on; a cold scan of the tree is ~15 min on 2 busy cores.  Reusing older
    per-file facts keeps `make audit` usable; the count is reported and
    --strict-scan turns it off.  Only facts read against the same root
    tables are reused (tables_version): a file's roots and macro
    references depend on them."""
    d = os.path.join(job.cache_dir, sha[:2])
    try:
        names = [n for n in os.listdir(d) if n.startswith(sha + "-")]
    except OSError:
        return None
    header = job.relpath.endswith(".h")
    best: dict[str, tuple[float, str]] = {}
    for n in names:
        m = STALE_RE.match(n)
        if not m:
            continue
        kind = "g" if m.group("g") else "t" if m.group("t") else "c"
        if kind == "g" and m.group("g").endswith("h") != header:
            continue
        # Type facts of another format bind member calls another way
        # (embedded fields): computed again, they are cheap.
        if (m.group("gt") or m.group("tt") or TYPES_FORMAT) != TYPES_FORMAT:
            continue
        try:
            mt = os.path.getmtime(os.path.join(d, n))
        except OSError:
            continue
        if kind not in best or mt > best[kind][0]:
            best[kind] = (mt, n)

    def load(kind: str) -> dict | None:
        if kind not in best:
            return None
        try:
            with open(os.path.join(d, best[kind][1]), encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    g = load("g")
    if g is not None and g.get("tv") == job.tables:
        return g
    macros = macros_cached(job.kdir, job.relpath, job.cache_dir)
    if header:
        t = load("t") or types_cached(job.kdir, job.relpath, job.cache_dir, job.version, [])
        return {"types": t, "macros": macros, "tv": job.tables}
    c = load("c")
    if c is None or c.get("tv") != job.tables:
        return None
    t = load("t") or types_cached(job.kdir, job.relpath, job.cache_dir, job.version,
                                  [(f[0], f[1], f[2]) for f in c["functions"]])
    return dict(c, types=t, macros=macros)


def scan_both(job: ScanJob) -> tuple[str, dict, bool]:
    """Compact csource facts plus type facts and macros (headers: no functions).

    One combined cache entry per file content (read once, hashed once); the
    three parts keep their own entries so that a change of one scanner
    recomputes only that part."""
    path = os.path.join(job.kdir, job.relpath)
    with open(path, "rb") as f:
        content = f.read()
    sha = sha256_bytes(content)[:40]
    key = f"{sha}-g{job.version}-t{TYPES_FORMAT}-m1" + ("h" if job.relpath.endswith(".h") else "")
    cpath = os.path.join(job.cache_dir, key[:2], key + ".json")
    cached = read_json(cpath)
    if cached is not None:
        return job.relpath, cached, True
    if job.reuse_stale:
        old = stale_facts(job, sha)
        if old is not None:
            return job.relpath, dict(old, stale=True), True
    macros = macros_cached(job.kdir, job.relpath, job.cache_dir)
    if job.relpath.endswith(".h"):
        t = types_cached(job.kdir, job.relpath, job.cache_dir, job.version, [])
        facts: dict = {"types": t, "macros": macros, "tv": job.tables}
    else:
        _rel, facts, _c = scan_cached(job)
        spans = [(f[0], f[1], f[2]) for f in facts["functions"]]
        facts = dict(facts, types=types_cached(job.kdir, job.relpath, job.cache_dir,
                                               job.version, spans), macros=macros)
    atomic_write(cpath, json.dumps(facts, separators=(",", ":")))
    return job.relpath, facts, False


def rows(flat: tuple, width: int) -> Iterator[tuple]:
    """The rows of a table kept as one flat tuple (Facts)."""
    return zip(*[iter(flat)] * width)


def strs(xs: Iterable[str]) -> tuple[str, ...]:
    """xs as a tuple of interned strings: the facts of 55,000 files name the
    same functions and members millions of times."""
    return tuple(map(sys.intern, xs)) if xs else ()


class Facts:
    """One file's facts as the graph build holds them, from the cached JSON
    (scan_both).  Tuples of interned strings instead of JSON lists, each
    table flattened into one tuple (rows(t, n) gives its rows back), line
    numbers in an array, what the graph does not read (end lines, errptr)
    left out: the whole tree's facts took 480 MiB as decoded JSON.

      names, lines, static    the functions (names is None for a header)
      direct, member          per function, the names it calls directly and
                              through members
      refs                    rows (struct type or "", member, function)
      sys_roots, mnf_roots    rows (function, kind, via)
      fields                  rows (struct, field, field's struct type)
      door_fields             the same through unions and anonymous members,
                              for the member doors' receivers only
      typedefs                rows (typedef name, struct or union tag), for them too
      calls                   {function: ((member, base type, (fields...)), ...)}
      stores                  rows (base type, (fields...), member, function)
      macros                  function-like macros the file defines
    """
    __slots__ = ("names", "lines", "static", "direct", "member", "refs", "sys_roots",
                 "mnf_roots", "fields", "door_fields", "typedefs", "calls", "stores", "macros",
                 "stale")

    def __init__(self, ff: dict) -> None:
        fns = ff.get("functions")
        intern = sys.intern
        self.names = None if fns is None else strs([f[0] for f in fns])
        self.lines = array("i", [f[1] for f in fns or ()])
        self.static = bytes(f[3] for f in fns or ())
        self.direct = tuple(strs(f[4]) for f in fns or ())
        self.member = tuple(strs(f[5]) for f in fns or ())
        self.refs = strs([x for r in ff.get("refs", ()) for x in r])
        self.sys_roots = strs([x for r in ff.get("sys_roots", ()) for x in r[:3]])
        self.mnf_roots = strs([x for r in ff.get("mnf_roots", ()) for x in r[:3]])
        types = ff.get("types", {})
        self.fields = strs([x for r in types.get("fields", ()) for x in r])
        self.door_fields = strs([x for r in types.get("door_fields", ()) for x in r])
        self.typedefs = strs([x for r in types.get("typedefs", ()) for x in r])
        self.calls = {intern(fn): tuple((intern(m), intern(t), strs(fs)) for m, t, fs in cs)
                      for fn, cs in types.get("calls", {}).items()}
        self.stores = tuple(x for t, fs, m, f in types.get("stores", ())
                            for x in (intern(t), strs(fs), intern(m), intern(f)))
        self.macros = strs(ff.get("macros", ()))
        self.stale = bool(ff.get("stale"))


def scan_job(job: ScanJob) -> tuple[str, dict, bool, str]:
    """scan_both, and the facts' graph_digest when the job asks for it:
    computed in the parent, its JSON text fragmented 170 MiB of the heap."""
    rel, facts, cached = scan_both(job)
    return rel, facts, cached, graph_digest(facts) if job.digest else ""


def quiet_worker() -> None:
    """Pool workers leave Ctrl-C to the parent and die quietly on SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def scan_tree(kdir: str, files: list[str], cache: str, jobs: int,
              table: reachability.RootTable, progress: bool = False, reuse_stale: bool = True,
              digests: dict[str, str] | None = None,
              each: Callable[[str, Facts], None] | None = None) -> tuple[dict[str, Facts], int]:
    """Facts for all files; returns (facts by relpath, number of cache hits).
    Each file's decoded JSON is made compact (Facts) as it arrives; with
    digests, each file's graph_digest is put there too; with each, the
    facts go to each(relpath, facts) instead (none are held)."""
    version = scanner_version()
    cache_dir = os.path.join(cache, "audit-cache", "scan")
    interesting = table.interesting()
    tables = tables_version()
    work = [ScanJob(kdir, f, cache_dir, version, interesting, table, reuse_stale,
                    digests is not None, tables) for f in files]
    out: dict[str, Facts] = {}
    hits = 0
    t0 = time.time()
    tty = progress and sys.stderr.isatty()

    def note(done: int) -> None:
        if tty and (done % 200 == 0 or done == len(work)):
            el = time.time() - t0
            eta = el / done * (len(work) - done) if done else 0
            sys.stderr.write(f"\rgraph: scanned {done}/{len(work)} files, ~{eta:.0f}s left   ")
            sys.stderr.flush()

    if jobs <= 1 or len(work) < 50:
        results = map(scan_job, work)
        pool = None
    else:
        pool = Pool(jobs, initializer=quiet_worker)
        results = pool.imap_unordered(scan_job, work, chunksize=16)
    try:
        for i, (rel, facts, cached, digest) in enumerate(results, 1):
            if each:
                each(rel, Facts(facts))
            else:
                out[rel] = Facts(facts)
            if digests is not None:
                digests[rel] = digest
            hits += cached
            note(i)
    finally:
        if pool:
            pool.terminate()
            pool.join()
    if tty:
        sys.stderr.write("\n")
    return out, hits


# ---------------------------------------------------------------- the graph

def unpack_array(typecode: str, data: bytes) -> array:
    a = array(typecode)
    a.frombytes(data)
    return a


class Packed:
    """An array that pickles without a copy (protocol 5).  An array pickles
    as a bytes copy of itself, and pickle's memo keeps every such copy
    until the end: the graph's arrays made a 70 MiB peak of their own."""
    __slots__ = ("a",)

    def __init__(self, a: array) -> None:
        self.a = a

    def __reduce_ex__(self, protocol: int):
        return unpack_array, (self.a.typecode, pickle.PickleBuffer(self.a))


def packed(state: dict) -> dict:
    """state with its arrays Packed (they come back as arrays)."""
    return {k: Packed(v) if isinstance(v, array) else v for k, v in state.items()}


class Adjacency:
    """Each node's targets, sorted, in two arrays (compressed sparse rows):
    as a list of lists the 590,000 nodes and 2.5 million calls of 6.1 took
    70 MiB, and the direct calls as many again."""
    __slots__ = ("start", "targets")

    def __init__(self) -> None:
        self.start = array("i", [0])      # row k is targets[start[k]:start[k + 1]]
        self.targets = array("i")

    def add(self, node: int, targets: Iterable[int]) -> None:
        """The row of node.  Rows come in increasing node order; the rows
        of nodes skipped are empty."""
        if node < len(self.start) - 1:
            raise ValueError(f"row {node} after row {len(self.start) - 2}")
        end = len(self.targets)
        while len(self.start) <= node:
            self.start.append(end)
        self.targets.extend(targets)
        self.start.append(len(self.targets))

    def close(self, n: int) -> None:
        """Empty rows for the nodes up to n that have none."""
        while len(self.start) <= n:
            self.start.append(len(self.targets))

    def __getstate__(self) -> dict:
        return packed({"start": self.start, "targets": self.targets})

    def __setstate__(self, state: dict) -> None:
        self.start, self.targets = state["start"], state["targets"]

    def __len__(self) -> int:
        return len(self.start) - 1

    def __getitem__(self, node: int) -> list[int]:
        return self.targets[self.start[node]:self.start[node + 1]].tolist()

    def get(self, node: int, default: Sequence[int] = ()) -> Sequence[int]:
        if 0 <= node < len(self.start) - 1 and self.start[node] != self.start[node + 1]:
            return self[node]
        return default

    def items(self) -> Iterator[tuple[int, list[int]]]:
        for node in range(len(self.start) - 1):
            yield node, self[node]


@dataclass
class Graph:
    files: list[str] = field(default_factory=list)      # node -> relpath
    funcs: list[str] = field(default_factory=list)      # node -> function name
    lines: array = field(default_factory=lambda: array("i"))
    static: bytearray = field(default_factory=bytearray)  # node -> 1 when static
    edges: Adjacency = field(default_factory=Adjacency)  # direct and member calls
    by_file: dict[str, dict[str, int]] = field(default_factory=dict)
    globals: dict[str, list[int]] = field(default_factory=dict)
    sys_roots: dict[int, set[str]] = field(default_factory=dict)
    mnf_roots: dict[int, set[str]] = field(default_factory=dict)
    root_via: dict[int, str] = field(default_factory=dict)
    n_direct: int = 0
    n_member: int = 0
    n_unresolved: int = 0
    n_typed: int = 0
    n_dropped: int = 0
    n_macro: int = 0
    direct: Adjacency = field(default_factory=Adjacency)   # direct calls only
    # Member calls by what bound them: the receiver's struct type, or only
    # the member's name (an untyped call: any function stored in it).
    typed_calls: Adjacency = field(default_factory=Adjacency)
    untyped_calls: Adjacency = field(default_factory=Adjacency)
    # Functions stored in a member that is not a root: called by a
    # framework whose handling of the result nobody checked.
    stored_in: dict[int, str] = field(default_factory=dict)
    # Every member a function is stored in, as (struct type or "", member),
    # and per member every function that calls through it, by the type of
    # the receiver when its declaration says it ("" when not): a static
    # function stored only in members is called from those call sites.
    stores: dict[int, set[tuple[str, str]]] = field(default_factory=dict)
    member_callers: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    # member_caller_classes: the classes (extra_classes) that name them.
    mcallers: dict[int, list[str]] = field(default_factory=dict)
    # (struct, field) -> the field's struct types, for the receivers of
    # member_caller_classes' open doors; dropped with stores.
    field_types: dict[tuple[str, str], str] = field(default_factory=dict)
    # typedef name -> its struct or union tag ("" when declarations differ),
    # for the same receivers (`snd_wavefront_midi_t *midi`); dropped too.
    typedefs: dict[str, str] = field(default_factory=dict)

    def __getstate__(self) -> dict:
        """The function names as one string, without by_file and globals
        (made again from files, funcs and static): pickle's memo of 590,000
        names and their dicts was the peak of a first audit."""
        state = dict(self.__dict__, funcs="\0".join(self.funcs))
        del state["by_file"], state["globals"]
        # What compute() made of these is in Result.by_file's lines: they
        # took 50 MiB more of the pickle's memo (the graph's memory limit).
        state.update(stores={}, member_callers={}, mcallers={}, field_types={}, typedefs={})
        return packed(state)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.funcs = state["funcs"].split("\0") if self.files else []
        self.by_file, self.globals = {}, {}
        for nid, (rel, name) in enumerate(zip(self.files, self.funcs)):
            self.add_name(nid, rel, name, self.static[nid])

    def add_name(self, nid: int, rel: str, name: str, static: int) -> None:
        """Node nid is function name of rel (nodes in increasing order)."""
        self.by_file.setdefault(rel, {})[name] = nid
        if not static:
            self.globals.setdefault(name, []).append(nid)

    def node(self, relpath: str, func: str) -> int | None:
        return self.by_file.get(relpath, {}).get(func)

    def resolve(self, relpath: str, name: str) -> list[int]:
        """Definitions a call of `name` from relpath reaches."""
        local = self.by_file.get(relpath, {}).get(name)
        if local is not None:
            return [local]
        return self.globals.get(name, [])


BUILD_FORMAT = "a6"     # a1: no call binds to another architecture's code; a4: member and global callers; a5: typed member callers; a6: entry:unknown


def arch_of(rel: str) -> str:
    """The architecture a file belongs to (arch/X/...), or ''.  Code of one
    architecture never calls another's: kvm_mips_vcpu_enter_exit()'s
    vcpu_run member call does not reach powerpc's kvmppc_ops.vcpu_run."""
    return rel.split("/", 2)[1] if rel.startswith("arch/") and rel.count("/") >= 2 else ""


# (struct, field) -> the field's struct type, "" when declarations differ
# (one string, not a set: the whole tree's table, embedded fields included,
# held sets of 250 MiB).
FieldTypes = dict[tuple[str, str], str]


def add_field_type(table: dict, key: object, stype: str) -> None:
    """Record one declaration of key's type; a second, other one makes it ""."""
    old = table.get(key)
    if old is None:
        table[key] = stype
    elif old != stype:
        table[key] = ""


def resolve_type(base: str, fields: Sequence[str], field_t: FieldTypes,
                 field_any: dict[str, str]) -> str:
    """Struct type of `base_var->f1->f2`, given base_var's type (maybe "")."""
    t = base
    for f in fields:
        ts = field_t.get((t, f)) if t else None
        t = field_any.get(f, "") if ts is None else ts
    return t


def declared_type(base: str, fields: Sequence[str], field_t: FieldTypes) -> str:
    """Struct type of `base_var->f1->f2` when declarations say it at every
    step (the variable's own, then each field's in its struct), else "":
    no guess from a field's name alone (resolve_type's fallback)."""
    t = base
    for f in fields:
        t = field_t.get((t, f), "") if t else ""
    return t


def build_graph(facts: dict[str, Facts], max_untyped: int = 8) -> Graph:
    """The global graph.  Member calls bind by struct type where the receiver's
    type is known (local declarations, struct field types); an untyped member
    call binds to every function stored in that member only when there are
    at most max_untyped of them (else it is dropped and counted)."""
    g = Graph()
    for rel in sorted(facts):
        ff = facts[rel]
        if ff.names is None:
            continue
        g.by_file[rel] = {}
        for name, line, static in zip(ff.names, ff.lines, ff.static):
            nid = len(g.files)
            g.files.append(rel)
            g.funcs.append(name)
            g.lines.append(line)
            g.static.append(static)
            g.add_name(nid, rel, name, static)
    dir_macros: dict[str, set[str]] = {}
    for rel, ff in facts.items():
        if rel.endswith(".h") and ff.macros:
            dir_macros.setdefault(os.path.dirname(rel), set()).update(ff.macros)
    field_t: FieldTypes = {}
    field_any: dict[str, str] = {}
    for ff in facts.values():
        for st, f, t in rows(ff.fields, 3):
            add_field_type(field_t, (st, f), t)
            add_field_type(field_any, f, t)
    typed: dict[tuple[str, str], set[int]] = {}
    untyped: dict[str, set[int]] = {}
    for rel, ff in facts.items():
        if ff.names is None:
            continue
        typed_here = set()
        for base, fields, member, func in rows(ff.stores, 4):
            t = resolve_type(base, fields, field_t, field_any)
            for nid in g.resolve(rel, func):
                g.stores.setdefault(nid, set()).add((t, member))
                if t:
                    typed.setdefault((t, member), set()).add(nid)
                    typed_here.add((member, func))
                else:
                    untyped.setdefault(member, set()).add(nid)
        for stype, member, func in rows(ff.refs, 3):
            if not stype and (member, func) in typed_here:
                continue
            for nid in g.resolve(rel, func):
                g.stores.setdefault(nid, set()).add((stype, member))
                if stype:
                    typed.setdefault((stype, member), set()).add(nid)
                else:
                    untyped.setdefault(member, set()).add(nid)
    g.field_types = field_t     # the doors' receivers (member_caller_classes)
    any_member: dict[str, set[int]] = {}
    for (_t, m), ids in typed.items():
        any_member.setdefault(m, set()).update(ids)
    for m, ids in untyped.items():
        any_member.setdefault(m, set()).update(ids)
    g.n_dropped = 0
    g.n_typed = 0
    called_via: dict[str, dict[str, set[int]]] = {}
    for rel, ff in facts.items():
        if ff.names is None:
            continue
        names = g.by_file[rel]
        tcalls = ff.calls
        macros = local_macros(rel, ff, dir_macros)
        arch = arch_of(rel)
        user_space = rel.startswith(USER_SPACE_DIRS)
        foreign = (lambda ids: {i for i in ids if arch_of(g.files[i]) not in ("", arch)}) \
            if arch else (lambda ids: set())
        for name, direct, member in zip(ff.names, ff.direct, ff.member):
            src = names[name]
            out: set[int] = set()
            for callee in direct:
                if callee in macros:
                    g.n_macro += 1
                    continue
                targets = g.resolve(rel, callee)
                if arch:
                    targets = [i for i in targets if i not in foreign((i,))]
                if targets:
                    out.update(targets)
                    g.n_direct += len(targets)
                else:
                    g.n_unresolved += 1
            plain = out - {src}
            g.direct.add(src, sorted(plain))
            types_of: dict[str, set[str]] = {}
            for m, base, fields in tcalls.get(name, ()):
                t = resolve_type(base, fields, field_t, field_any) if (base or fields) else ""
                types_of.setdefault(m, set())
                if t:
                    types_of[m].add(t)
                if not user_space:
                    # A caller is known not to call a type's member only
                    # when its receiver's declaration names another type
                    # (rapl's rd->rp->priv->write_raw is no iio_info's).
                    called_via.setdefault(m, {}).setdefault(
                        declared_type(base, fields, field_t), set()).add(src)
            by_type: set[int] = set()
            by_name: set[int] = set()
            if not user_space:
                for m in member:
                    if m not in types_of:
                        called_via.setdefault(m, {}).setdefault("", set()).add(src)
            for m in member:
                ts = types_of.get(m)
                if ts:
                    t_ids: set[int] = set()
                    for t in ts:
                        t_ids |= typed.get((t, m), set())
                    t_ids -= foreign(t_ids)
                    by_type |= t_ids
                    u = untyped.get(m, set())
                    u = u - foreign(u)
                    if len(u) <= max_untyped:
                        by_name |= u - t_ids
                        t_ids |= u
                    out |= t_ids
                    g.n_member += len(t_ids)
                    g.n_typed += 1
                else:
                    t_ids = any_member.get(m, set())
                    t_ids = t_ids - foreign(t_ids)
                    if len(t_ids) <= max_untyped:
                        out |= t_ids
                        by_name |= t_ids
                        g.n_member += len(t_ids)
                    else:
                        g.n_dropped += 1
            out.discard(src)
            g.edges.add(src, sorted(out))
            if by_type - plain - {src}:
                g.typed_calls.add(src, sorted(by_type - plain - {src}))
            if by_name - by_type - plain - {src}:
                g.untyped_calls.add(src, sorted(by_name - by_type - plain - {src}))
        for func, kind, via in rows(ff.sys_roots, 3):
            for nid in g.resolve(rel, func):
                g.sys_roots.setdefault(nid, set()).add(kind)
                g.root_via.setdefault(nid, via)
        for func, kind, via in rows(ff.mnf_roots, 3):
            for nid in g.resolve(rel, func):
                g.mnf_roots.setdefault(nid, set()).add(kind)
                g.root_via.setdefault(nid, via)
    for adj in (g.edges, g.direct, g.typed_calls, g.untyped_calls):
        adj.close(len(g.files))
    stored_members = {m for ms in g.stores.values() for _t, m in ms}
    g.member_callers = {m: {t: sorted(ids) for t, ids in by_t.items()}
                        for m, by_t in called_via.items() if m in stored_members}
    for (stype, m), ids in typed.items():
        label = sys.intern(f"{stype}.{m}")
        for nid in ids:
            if nid not in g.root_via:
                g.stored_in.setdefault(nid, label)
    for m, ids in untyped.items():
        label = sys.intern(f"?.{m}")
        for nid in ids:
            if nid not in g.root_via:
                g.stored_in.setdefault(nid, label)
    # Only the doors' receivers read these (type_facts), after the graph
    # has bound every member call.
    for ff in facts.values():
        for st, f, t in rows(ff.door_fields, 3):
            add_field_type(field_t, (st, f), t)
        for alias, tag in rows(ff.typedefs, 2):
            add_field_type(g.typedefs, alias, tag)
    return g


@dataclass
class Reach:
    kinds: Sequence[int]             # node -> bitmask of all root kinds reaching it
    parent: Sequence[int]            # node -> BFS parent (-1 root, -2 unreached)
    kind_names: list[str]
    near: Sequence[int] = field(default_factory=list)   # kinds of the nearest roots only
    hops: Sequence[int] = field(default_factory=list)   # pointer_hops, syscall side only

    def __getstate__(self) -> dict:
        return packed(self.__dict__)

    def reached(self, nid: int) -> bool:
        return self.parent[nid] != -2

    def kinds_of(self, nid: int, nearest: bool = False) -> list[str]:
        m = self.near[nid] if nearest and self.near else self.kinds[nid]
        return [k for i, k in enumerate(self.kind_names) if m >> i & 1]

    def chain(self, g: Graph, nid: int) -> list[str]:
        out = []
        while nid >= 0:
            out.append(g.funcs[nid])
            nid = self.parent[nid]
        return out[::-1]


# Weights of a call in pointer_hops: a direct call costs nothing, a call
# through a typed member one, an untyped member call (bound by the member's
# name alone) more than MAX_POINTER_HOPS, so it never counts as proof.
TYPED_HOP = 1
UNTYPED_HOP = 3
MAX_POINTER_HOPS = 2


def pointer_hops(g: Graph, roots: dict[int, set[str]]) -> array:
    """Per node, the fewest calls through function pointers on any path
    from a root (weighted as above), or -1 when none reaches it.

    Dial's algorithm: buckets by distance, weights 0, 1 and 3."""
    n = len(g.files)
    dist = filled(-1, n)
    buckets: list[list[int]] = [sorted(roots)]
    for r in roots:
        dist[r] = 0
    d = 0
    while d < len(buckets):
        for u in buckets[d]:
            if dist[u] != d:
                continue
            for w, vs in ((0, g.direct.get(u, ())), (TYPED_HOP, g.typed_calls.get(u, ())),
                          (UNTYPED_HOP, g.untyped_calls.get(u, ()))):
                for v in vs:
                    dv = d + w
                    if dist[v] == -1 or dv < dist[v]:
                        dist[v] = dv
                        while len(buckets) <= dv:
                            buckets.append([])
                        buckets[dv].append(v)
        buckets[d] = []
        d += 1
    return dist


def propagate(g: Graph, roots: dict[int, set[str]], direct_only: bool = False) -> Reach:
    """Shortest chains (BFS parents) and reachable root kinds (bitmasks), by
    the one walk (reachability.walk) the rules' in-file view also takes.

    direct_only follows direct calls only (used for must-not-fail roots)."""
    names = sorted({k for ks in roots.values() for k in ks})
    bit = {k: 1 << i for i, k in enumerate(names)}
    start = {nid: sum(bit[k] for k in roots[nid]) for nid in sorted(roots)}
    w = reachability.walk(len(g.files), g.direct if direct_only else g.edges, start)
    return Reach(w.kinds, w.parent, names, w.near)


def unknown_entries(g: Graph) -> bytearray:
    """Per node, 1 when a function no call reaches and no root table names
    reaches it: a driver's ->probe the graph did not link (run by modprobe
    or a sysfs bind, in a task that can be killed), an initcall, a member
    call it did not follow.  nhi_probe() reaches tb_switch_add() through
    cm_ops->start, while the graph saw only the hotplug work reach it."""
    n = len(g.files)
    called = bytearray(n)
    for t in g.edges.targets:
        called[t] = 1
    seen = bytearray(n)
    todo = [nid for nid in range(n)
            if not called[nid] and nid not in g.sys_roots and nid not in g.mnf_roots]
    for nid in todo:
        seen[nid] = 1
    start, targets = g.edges.start, g.edges.targets
    while todo:
        u = todo.pop()
        row = targets[start[u]:start[u + 1]] if u + 1 < len(start) else ()
        for v in row:
            if not seen[v]:
                seen[v] = 1
                todo.append(v)
    return seen


@dataclass
class Result:
    graph: Graph
    sys: Reach
    mnf: Reach
    stats: dict
    by_file: dict[str, str] | None = None    # reach_by_file, kept with the graph
    unreadable: list[str] = field(default_factory=list)  # .c/.h files left out (split_readable)
    unknown: bytearray | None = None    # unknown_entries(graph)

    def lookup(self, relpath: str, func: str) -> dict:
        nid = self.graph.node(relpath, func)
        # spatch names SYSCALL_DEFINEn(foo, ...) after foo; the graph, sys_foo.
        for prefix in ("sys_", "compat_sys_"):
            if nid is None:
                nid = self.graph.node(relpath, prefix + func)
        if nid is None:
            return {"root_kinds": [], "mnf_kinds": [], "chain": "", "mnf_chain": "",
                    "known": False}
        # Kinds of the nearest roots (those the chain could start from); every
        # kind that reaches a deep function is in reach.tsv for the rules.
        rec = {"root_kinds": self.sys.kinds_of(nid, nearest=True),
               "mnf_kinds": self.mnf.kinds_of(nid, nearest=True),
               "chain": "", "mnf_chain": "", "known": True}
        if self.sys.reached(nid):
            rec["chain"] = " -> ".join(self.sys.chain(self.graph, nid))
        if self.mnf.reached(nid):
            rec["mnf_chain"] = " -> ".join(self.mnf.chain(self.graph, nid))
        return rec


def list_headers(kdir: str, subdirs: list[str] | None = None,
                 max_bytes: int = 2 << 20) -> list[str]:
    """Headers whose struct fields type member calls: those of the scope, plus
    include/ for a subtree.  Register dumps over max_bytes are left out."""
    scope = [s.strip("/") for s in (subdirs or []) if s.strip("/")]
    if scope:
        scope = sorted(set(scope) | {"include"})
    out = []
    if os.path.exists(os.path.join(kdir, ".git")):
        specs = [f"{s}/*.h" for s in scope] if scope else ["*.h"]
        r = subprocess.run(["git", "-C", kdir, "ls-files", "-z", "--"] + specs,
                           capture_output=True)
        if r.returncode == 0:
            out = [x for x in r.stdout.decode("utf-8", "replace").split("\0") if x]
    else:
        for top in (scope or [""]):
            for d, dirs, fs in os.walk(os.path.join(kdir, top)):
                dirs[:] = sorted(x for x in dirs if not x.startswith("."))
                out += [os.path.relpath(os.path.join(d, f), kdir) for f in fs if f.endswith(".h")]
    keep = []
    for rel in sorted(set(out)):
        try:
            if os.path.getsize(os.path.join(kdir, rel)) > max_bytes:
                continue
        except OSError:
            pass        # unreadable: compute() lists it (split_readable)
        keep.append(rel)
    return keep


def graph_digest(facts: dict) -> str:
    """What of a file's facts the graph depends on: not its line numbers,
    so that an edit which moves functions keeps the cached graph."""
    f = {k: v for k, v in facts.items() if k != "stale"}
    if "functions" in f:
        f["functions"] = [[x[0], *x[3:]] for x in f["functions"]]
    return hashlib.sha256(json.dumps(f, sort_keys=True, separators=(",", ":"))
                          .encode()).hexdigest()[:32]


def load_index(path: str) -> dict[str, tuple[int, int, str]]:
    try:
        with open(path, "rb") as f:
            idx = pickle.load(f)
        return idx if isinstance(idx, dict) else {}
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError):
        return {}


def compute(kdir: str, cache: str, jobs: int, subdirs: list[str] | None = None,
            progress: bool = False, reuse_stale: bool = True,
            with_facts: Callable[[Graph, dict[str, Facts]], None] | None = None) -> Result:
    """The graph and reachability of a tree, cached.

    The whole result is cached under a key over every file's graph digest.
    An index (like git's) maps each file's mtime and size to its digest, so
    a warm run stats the files instead of reading 1.3 GB, and a changed file
    is rescanned alone; the graph is rebuilt only when some file's calls,
    stores or roots changed.  When it is, with_facts(graph, facts) runs
    before the facts are dropped (the risk stage takes its part of them
    there instead of reading every file's facts again).
    """
    table = reachability.load_tables()
    t0 = time.time()
    files, bad_c = split_readable(kdir, list_c_files(kdir, subdirs))
    headers, bad_h = split_readable(kdir, list_headers(kdir, subdirs))
    unreadable = sorted(bad_c + bad_h)
    allf = files + headers
    gdir = os.path.join(cache, "audit-cache", "graph")
    scope = hashlib.sha256(f"{os.path.abspath(kdir)}|{sorted(subdirs or [])}".encode())
    ipath = os.path.join(gdir, f"index-{scope.hexdigest()[:16]}.idx")
    man = hashlib.sha256(f"{scanner_version()}|{TYPES_FORMAT}|m1|{reuse_stale}|".encode())
    # This file and members.py (the member and global callers kept in the
    # reach lines) decide what a cached graph holds.
    for source in (os.path.abspath(__file__), os.path.abspath(members.__file__)):
        with open(source, "rb") as f:
            man.update(f.read())
    vkey = man.hexdigest()
    index = load_index(ipath)
    digest: dict[str, str] = {}
    todo = []
    for rel in allf:
        try:
            st = os.stat(os.path.join(kdir, rel))
        except OSError:
            continue
        e = index.get(rel)
        if e and e[:2] == (st.st_mtime_ns, st.st_size) and e[2].startswith(vkey[:8] + ":"):
            digest[rel] = e[2].split(":", 1)[1]
        else:
            todo.append(rel)
    # Facts of the files the index does not vouch for (all of them, cold).
    new_facts, hits = scan_tree(kdir, todo, cache, jobs, table, progress, reuse_stale, digest)
    if todo:
        for rel in todo:
            try:
                st = os.stat(os.path.join(kdir, rel))
            except OSError:
                continue
            index[rel] = (st.st_mtime_ns, st.st_size, f"{vkey[:8]}:{digest[rel]}")
        for rel in set(index) - set(allf):
            del index[rel]
        atomic_pickle(ipath, index)
    for rel in sorted(digest):
        man.update(rel.encode() + b"\0" + digest[rel].encode())
    # BUILD_FORMAT names how build_graph binds calls: a change there must
    # not reuse a graph built the old way.
    gpath = os.path.join(gdir, man.hexdigest()[:32] + f"-{BUILD_FORMAT}.pickle")
    try:
        with open(gpath, "rb") as f:
            res = pickle.load(f)
        res.stats = dict(res.stats, scan_cache_hits=len(allf) - len(todo) + hits,
                         scan_s=round(time.time() - t0, 2), build_s=0.0, bfs_s=0.0,
                         graph_cached=True, rescanned=len(todo))
        res.unreadable = unreadable
        return res
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError):
        pass
    rest = [rel for rel in allf if rel not in new_facts]
    facts, hits2 = scan_tree(kdir, rest, cache, jobs, table, progress, reuse_stale)
    facts.update(new_facts)
    facts = {rel: facts[rel] for rel in allf if rel in facts}
    hits += hits2
    stale = sum(1 for ff in facts.values() if ff.stale)
    t1 = time.time()
    g = build_graph(facts)
    if with_facts:
        with_facts(g, facts)
    # The facts are done with; their memory goes to the reach sets.
    del facts, new_facts
    t2 = time.time()
    sys_r = propagate(g, g.sys_roots)
    sys_r.hops = pointer_hops(g, g.sys_roots)
    # Must-not-fail spreads along direct calls only: following member calls
    # from teardown code floods the graph (measured on 6.1: 205,812 of the
    # 295,690 syscall-reachable functions, through i2c_transfer, drm atomic
    # commits, regmap and the VFS hubs).  A function stored in a member that
    # is no root is caught instead by its callers' check (stored: below).
    mnf_r = propagate(g, g.mnf_roots, direct_only=True)
    if not subdirs:
        # Only the whole tree's graph has all of a member's call sites.
        g.mcallers = member_caller_classes(g, sys_r, kdir)
        g.mcallers.update(global_caller_classes(g, sys_r, kdir))
    # done with: their memory goes to by_file
    g.stores, g.member_callers, g.field_types, g.typedefs = {}, {}, {}, {}
    t3 = time.time()
    stats = {"files": len(files), "headers": len(headers), "scan_cache_hits": hits, "functions": len(g.files),
             "edges": len(g.edges.targets), "direct_edges": g.n_direct,
             "member_edges": g.n_member, "unresolved_calls": g.n_unresolved,
             "typed_member_calls": g.n_typed, "dropped_member_calls": g.n_dropped,
             "macro_calls_skipped": g.n_macro,
             "syscall_roots": len(g.sys_roots), "mnf_roots": len(g.mnf_roots),
             "syscall_reachable": sum(1 for p in sys_r.parent if p != -2),
             "mnf_reachable": sum(1 for p in mnf_r.parent if p != -2),
             "scan_s": round(t1 - t0, 2), "build_s": round(t2 - t1, 2),
             "bfs_s": round(t3 - t2, 2), "graph_cached": False,
             "stale_scan_entries": stale, "rescanned": len(todo)}
    res = Result(g, sys_r, mnf_r, stats, unknown=unknown_entries(g))
    res.by_file = reach_by_file(res)
    atomic_pickle(gpath, res)
    res.unreadable = unreadable
    prune(gdir, ".pickle", keep=4)
    return res


def prune(d: str, suffix: str, keep: int) -> None:
    """Remove all but the `keep` newest files ending in suffix."""
    try:
        fs = [os.path.join(d, f) for f in os.listdir(d) if f.endswith(suffix)]
        fs.sort(key=os.path.getmtime, reverse=True)
        for f in fs[keep:]:
            os.unlink(f)
    except OSError:
        pass


# Trees of user-space programs the scan reads too: no caller of kernel code.
USER_SPACE_DIRS = ("tools/", "scripts/")


@dataclass
class CrossCallers:
    """Per node, how many functions in other files call it directly, and
    the first of them by (file, function); -1 when none."""
    count: array
    first: array


def cross_file_callers(g: Graph) -> CrossCallers:
    n = len(g.files)
    out = CrossCallers(filled(0, n), filled(-1, n))
    files, funcs = g.files, g.funcs
    for src, targets in g.direct.items():
        fs = files[src]
        if fs.startswith(USER_SPACE_DIRS):
            continue        # a selftest's call of sys_pkey_alloc() is no kernel caller
        for v in targets:
            if files[v] != fs:
                out.count[v] += 1
                c = out.first[v]
                if c < 0 or (fs, funcs[src]) < (files[c], funcs[c]):
                    out.first[v] = src
    return out


def member_caller_classes(g: Graph, sys_r: Reach, kdir: str) -> dict[int, list[str]]:
    """members.caller_classes for each static function that a system call
    reaches, that is no root, and whose address is stored in members."""
    todo = [nid for nid, ms in g.stores.items()
            if g.static[nid] and nid not in g.root_via and sys_r.reached(nid)]
    doors = members.open_doors(kdir, {m for nid in todo for _t, m in g.stores[nid]},
                               g.field_types, g.typedefs)
    return {nid: members.caller_classes(g.stores[nid], member_call_sites(g, g.stores[nid]),
                                        doors)
            for nid in todo}


def member_call_sites(g: Graph, stores: set[tuple[str, str]]
                      ) -> dict[str, list[tuple[str, str]]]:
    """Per member a function is stored in, the functions that may call it
    through that member: those whose receiver is of a type it is stored
    in, or of a type their declarations do not say.  Stored once where the
    type is not known, every caller through the member."""
    out: dict[str, set[int]] = {}
    for t, m in stores:
        by_type = g.member_callers.get(m, {})
        ids = out.setdefault(m, set())
        if t:
            ids.update(by_type.get(t, ()), by_type.get("", ()))
        else:
            for callers in by_type.values():
                ids.update(callers)
    return {m: [(g.files[c], g.funcs[c]) for c in sorted(ids)] for m, ids in out.items()}


def global_caller_classes(g: Graph, sys_r: Reach, kdir: str) -> dict[int, list[str]]:
    """members.direct_caller_classes for each global function in a .c file
    that a system call reaches and that is no root."""
    todo = [nid for nid in range(len(g.files)) if not g.static[nid] and nid not in g.root_via
            and g.files[nid].endswith(".c") and sys_r.reached(nid)]
    doors, exported, calls = members.function_calls(kdir, {g.funcs[nid] for nid in todo})
    twice = {name for name, ids in g.globals.items() if len(ids) > 1}
    out = {}
    for nid in todo:
        name = g.funcs[nid]
        # Two global definitions: a call may bind to either (another
        # architecture's, a module's own): not one function's callers.
        door = doors.get(name, "") or ("two definitions" if name in twice else "")
        out[nid] = members.direct_caller_classes(g.files[nid], calls.get(name, {}), door,
                                                 name in exported)
    return out


def extra_classes(res: Result, nid: int, callers: CrossCallers) -> list[str]:
    """What the rules must know besides the root kinds (verdicts read them):
      ptrhops:N              the fewest calls through pointers from a root
      xcallers:N:FILE:FUNC   callers in other files, and one of them
      stored:TYPE.MEMBER     the address is stored in a member that is no root
      root                   a root itself (its caller is the system call; its
                             direct callers in other files are still named)
      via:TYPE.MEMBER        how it is a root (an ops member, a macro)
      mcallers:..., mcaller:FILE:FUNC:MEMBER
                             the call sites of the members it is stored in
                             (members.caller_classes)
      gcallers:..., gcall:FILE:LINES
                             a global function's calls in other files
                             (members.direct_caller_classes)
    """
    g = res.graph
    out = []
    hops = res.sys.hops[nid] if res.sys.hops else 0
    if hops > 0:
        out.append(f"ptrhops:{hops}")
    if nid in g.root_via:
        out += ["root", f"via:{g.root_via[nid]}"]
    if callers.count[nid]:
        first = callers.first[nid]
        out.append(f"xcallers:{callers.count[nid]}:{g.files[first]}:{g.funcs[first]}")
    if nid in g.stored_in and nid not in g.root_via:
        out.append(f"stored:{g.stored_in[nid]}")
    out += g.mcallers.get(nid, [])
    return out


def reach_line(res: Result, nid: int, callers: CrossCallers) -> str:
    """relpath\tfunction\tclasses, or "" when no root reaches nid."""
    classes = res.sys.kinds_of(nid) + ["mnf:" + k for k in res.mnf.kinds_of(nid)]
    if classes and res.sys.reached(nid):
        classes += extra_classes(res, nid, callers)
    elif classes and res.unknown is not None and res.unknown[nid]:
        classes.append(reachability.UNKNOWN_ENTRY)
    if not classes:
        return ""
    return f"{res.graph.files[nid]}\t{res.graph.funcs[nid]}\t{','.join(classes)}"


def reach_lines(res: Result) -> list[str]:
    """relpath\tfunction\tclasses for every function some root reaches.
    From reach_by_file: a graph loaded from the cache no longer has the
    member and global caller facts (Graph.__getstate__), its lines do."""
    by_file = reach_by_file(res)
    return [ln for rel in sorted(by_file) for ln in by_file[rel].splitlines()]


REACH_LINE = re.compile(r"^[^\t]+\t[A-Za-z_]\w*\t[^\t]+$")


def check_reach_tsv(path: str) -> None:
    """Raise ValueError unless path reads as a reach TSV (reach_lines: what
    make audit keeps as reports/<tree>/reach.tsv)."""
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if line.startswith("#") or not line.strip():
                    continue
                if not REACH_LINE.match(line):
                    raise ValueError(f"{path}: line {n} is not relpath<TAB>function<TAB>kinds "
                                     "(a reach.tsv from make audit)")
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (a reach.tsv from make audit)") from None


SUBSET_MARK = reachability.SUBSET_MARK


def reach_subset(path: str, files: Iterable[str], funcs: Iterable[tuple[str, str]]
                 ) -> list[str]:
    """The lines of a reach.tsv that the verdicts of funcs (file, function)
    in files read: every line of files, and every line of each file one of
    funcs names as a caller (mcaller:FILE:..., gcall:FILE:...).  The first
    line (SUBSET_MARK) lists those files: a walk that leaves them stops
    there (Rules.external_files), as it cannot see further."""
    by_file: dict[str, list[str]] = {}
    with open(path, encoding="utf-8") as f:
        for ln in f:
            if not ln.startswith("#"):
                by_file.setdefault(ln.split("\t", 1)[0], []).append(ln)
    want = set(files)
    lines = {(ln.split("\t", 2)[0], ln.split("\t", 2)[1]): ln
             for rel in want for ln in by_file.get(rel, [])}
    more: set[str] = set()
    for key in sorted(set(funcs)):
        for cls in lines.get(key, "").rstrip("\n").split("\t")[-1].split(","):
            if cls.startswith(("mcaller:", "gcall:")):
                more.add(cls.split(":")[1])
    want |= more
    out = [ln for rel in sorted(want) for ln in by_file.get(rel, [])]
    return [SUBSET_MARK + " ".join(sorted(want)) + "\n"] + sorted(out)


def reach_by_file(res: Result) -> dict[str, str]:
    """relpath -> its lines of the reach TSV (each ending in a newline)."""
    cached = getattr(res, "by_file", None)
    if cached is not None:
        return cached
    # File by file: the lines of the whole tree at once took 100 MiB more.
    # A tab sorts before any character of a name, so sorting each file's
    # lines gives the lines of reach_lines.
    callers = cross_file_callers(res.graph)
    out: dict[str, str] = {}
    for rel in sorted(res.graph.by_file):
        lines = sorted(x for x in (reach_line(res, nid, callers)
                                   for nid in res.graph.by_file[rel].values()) if x)
        if lines:
            out[rel] = "".join(x + "\n" for x in lines)
    return out


def chain_lines(res: Result) -> list[str]:
    g = res.graph
    out = []
    for nid in range(len(g.files)):
        if not (res.sys.reached(nid) or res.mnf.reached(nid)):
            continue
        rec = res.lookup(g.files[nid], g.funcs[nid])
        out.append("\t".join([g.files[nid], g.funcs[nid], ";".join(rec["root_kinds"]),
                              ";".join(rec["mnf_kinds"]), rec["chain"], rec["mnf_chain"]]))
    out.sort()
    return out


def write_outputs(res: Result, reach_path: str, chains_path: str | None = None) -> None:
    atomic_write(reach_path, "".join(x + "\n" for x in reach_lines(res)))
    if chains_path:
        atomic_write(chains_path, "".join(x + "\n" for x in chain_lines(res)))


def load_chains(path: str) -> dict[tuple[str, str], dict]:
    out: dict[tuple[str, str], dict] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 6:
                continue
            out[(cols[0], cols[1])] = {
                "root_kinds": [k for k in cols[2].split(";") if k],
                "mnf_kinds": [k for k in cols[3].split(";") if k],
                "chain": cols[4], "mnf_chain": cols[5], "known": True}
    return out


# ---------------------------------------------------------------- front ends compared

def edges_csource(kdir: str, files: list[str]) -> set[tuple[str, str, str]]:
    out = set()
    for rel in files:
        ff = csource.scan_file(os.path.join(kdir, rel))
        for name, fn in ff.functions.items():
            for c in fn.calls:
                if not c.via_member:
                    out.add((rel, name, c.callee))
    return out


def edges_csource_graph(kdir: str, files: list[str]) -> set[tuple[str, str, str]]:
    """The audit's own scan: csource without call-use classification."""
    out = set()
    for rel in files:
        with open(os.path.join(kdir, rel), encoding="utf-8", errors="replace") as f:
            ff = csource.scan_text(f.read(), rel, frozenset(), uses=False)
        for name, fn in ff.functions.items():
            for c in fn.calls:
                if not c.via_member:
                    out.add((rel, name, c.callee))
    return out


def edges_cscope(kdir: str, files: list[str], workdir: str) -> set[tuple[str, str, str]]:
    """Direct calls from a `cscope -b -k -c` cross reference (uncompressed)."""
    lst = os.path.join(workdir, "cscope.files")
    with open(lst, "w") as f:
        f.write("".join(x + "\n" for x in files))
    subprocess.run(["cscope", "-b", "-k", "-c", "-u", "-i", lst, "-f",
                    os.path.join(workdir, "cscope.out")], cwd=kdir, check=True)
    out = set()
    cur_file = cur_func = None
    with open(os.path.join(workdir, "cscope.out"), encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("\t") or len(line) < 3:
                continue
            mark, name = line[1], line[2:].rstrip("\n")
            if mark == "@":
                cur_file, cur_func = name, None
            elif mark == "$":
                cur_func = name
            elif mark == "}":
                cur_func = None
            elif mark == "`" and cur_func and cur_file:
                out.add((cur_file, cur_func, name))
    return out


SPATCH_CALLS = """\
@r@
identifier g;
position p;
@@
g@p(...)

@script:python@
g << r.g;
p << r.p;
@@
print("CALL\\t%s\\t%s\\t%s" % (p[0].file, p[0].current_element, g))
"""


def edges_spatch(kdir: str, files: list[str], workdir: str, jobs: int) -> set[tuple[str, str, str]]:
    cocci = os.path.join(workdir, "calls.cocci")
    with open(cocci, "w") as f:
        f.write(SPATCH_CALLS)
    groups = os.path.join(workdir, "groups.txt")
    with open(groups, "w") as f:
        f.write("\n\n".join(files) + "\n")
    r = subprocess.run(["spatch", "--very-quiet", "--no-includes", "--include-headers",
                        "--cocci-file", cocci, "--file-groups", groups, "--jobs", str(jobs),
                        "--chunksize", "1", "--timeout", "120",
                        "--tmp-dir", os.path.join(workdir, "spatch")],
                       cwd=kdir, capture_output=True, text=True)
    out = set()
    for line in r.stdout.splitlines():
        cols = line.split("\t")
        if len(cols) == 4 and cols[0] == "CALL":
            out.add((os.path.relpath(os.path.join(kdir, cols[1]), kdir), cols[2], cols[3]))
    return out


def compare_frontends(kdir: str, subdirs: list[str], jobs: int) -> str:
    files = list_c_files(kdir, subdirs)
    results = {}
    with tempfile.TemporaryDirectory() as wd:
        for name, fn in (("csource", lambda: edges_csource(kdir, files)),
                         ("csource-graph", lambda: edges_csource_graph(kdir, files)),
                         ("cscope", lambda: edges_cscope(kdir, files, wd)),
                         ("spatch", lambda: edges_spatch(kdir, files, wd, jobs))):
            t0 = time.time()
            c0 = os.times()
            e = fn()
            c1 = os.times()
            cpu = (c1.user - c0.user) + (c1.system - c0.system) + \
                (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
            results[name] = (e, time.time() - t0, cpu)
    # Only calls of functions defined in the subtree or known kernel-wide
    # identifiers differ in what counts as a call (macros, keywords); compare
    # on all (file, caller, callee) triples.
    lines = [f"Front ends on {' + '.join(subdirs)} ({len(files)} .c files), direct calls "
             "as (file, caller, callee):", "",
             "| front end | wall s | cpu s | edges | shared with csource | only here |",
             "|---|---:|---:|---:|---:|---:|"]
    base = results["csource"][0]
    for name, (e, wall, cpu) in results.items():
        lines.append(f"| {name} | {wall:.1f} | {cpu:.1f} | {len(e)} | {len(e & base)} | "
                     f"{len(e - base)} |")
    lines.append("")
    for a, b in (("csource", "csource-graph"), ("csource", "cscope"), ("csource", "spatch"),
                 ("cscope", "spatch")):
        ea, eb = results[a][0], results[b][0]
        j = len(ea & eb) / max(1, len(ea | eb))
        lines.append(f"- {a} vs {b}: Jaccard {j:.3f}; {len(ea - eb)} only in {a}, "
                     f"{len(eb - ea)} only in {b}")
    for a, b in (("csource", "cscope"), ("csource", "spatch")):
        sample = sorted(results[a][0] - results[b][0])[:5]
        lines.append(f"- sample only in {a} (not {b}): " +
                     "; ".join(f"{x[0]}:{x[1]}->{x[2]}" for x in sample))
        sample = sorted(results[b][0] - results[a][0])[:5]
        lines.append(f"- sample only in {b} (not {a}): " +
                     "; ".join(f"{x[0]}:{x[1]}->{x[2]}" for x in sample))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- command line

def main() -> int:
    ap = cli.parser(__doc__.split("\n\n")[0])
    ap.add_argument("--kdir", required=True)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/killable"))
    ap.add_argument("-j", "--jobs", type=cli.positive_int, default=os.cpu_count() or 1)
    ap.add_argument("--subdir", action="append", default=[],
                    help="restrict the graph to these subtrees (default: whole tree)")
    ap.add_argument("--reach", help="write the rules' reach TSV here")
    ap.add_argument("--chains", help="write the chains TSV here")
    ap.add_argument("--query", action="append", default=[], metavar="RELPATH:FUNC",
                    help="print kinds and chains of one function")
    ap.add_argument("--strict-scan", action="store_true",
                    help="never reuse per-file facts of an older csource/root table version")
    ap.add_argument("--compare-frontends", action="store_true",
                    help="time csource, cscope and spatch call extraction on --subdir")
    args = ap.parse_args()
    if args.compare_frontends:
        sys.stdout.write(compare_frontends(args.kdir, args.subdir or ["drivers/char", "fs/proc"],
                                           args.jobs))
        return 0
    res = compute(args.kdir, args.cache, args.jobs, args.subdir, progress=True,
                  reuse_stale=not args.strict_scan)
    if args.reach:
        write_outputs(res, args.reach, args.chains)
    elif args.chains:
        atomic_write(args.chains, "".join(x + "\n" for x in chain_lines(res)))
    for q in args.query:
        rel, _, func = q.rpartition(":")
        print(q, json.dumps(res.lookup(rel, func)))
    print(json.dumps(res.stats), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
