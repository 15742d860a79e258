#!/usr/bin/env python3
"""Which functions a system call can reach, and which must not fail.

Roots come from cocci/data/syscall-roots.tsv and must-not-fail-roots.tsv.
The graph is built from csource facts of one file (the rules' in-file view)
or of many files (the audit's cross-file view).  Calls through a struct
member resolve to every function stored in a member of that name.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from array import array
from collections import deque
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from killable.scan import csource

from killable import cli, data
from killable.atomic import atomic_open
from killable.data import RootRule, RootTable  # noqa: F401
from killable.paths import DATA_DIR


# The root tables are read by killable.data; these names stay for the graph.
load_rules = data.load_root_rules
load_tables = data.load_root_tables


# The first line of a reach.tsv subset (callgraph.reach_subset): its files.
SUBSET_MARK = "# subset: "

# The whole tree's reach lines, for a caller walk that leaves the files a
# spatch process was given (write_indexed; Rules reads them a file at a time).
TREE_REACH_ENV = "KILLABLE_REACH_TREE"
# The class of a function not on a syscall path that a way in the
# whole-tree graph does not know reaches (callgraph.unknown_entries): its
# must-not-fail kinds are no proof that only kernel threads run it.
UNKNOWN_ENTRY = "entry:unknown"
INDEX_SUFFIX = ".idx"
# Beside it: every global function and the files that define it
# (`NAME<TAB>FILE,...`), for the effect summaries of .c functions.
DEFS_SUFFIX = ".defs"


def write_indexed(path: str, by_file: dict[str, str]) -> None:
    """by_file's lines (file -> its reach.tsv lines) sorted by file, and an
    index beside them: `FILE<TAB>OFFSET<TAB>LENGTH` in bytes.  Both are
    written whole or not at all (the index last: it marks a complete
    pair)."""
    index = []
    with atomic_open(path, "wb") as f:
        for rel in sorted(by_file):
            b = by_file[rel].encode()
            index.append(f"{rel}\t{f.tell()}\t{len(b)}\n")
            f.write(b)
    with atomic_open(path + INDEX_SUFFIX) as f:
        f.writelines(index)


def read_index(path: str) -> dict[str, tuple[int, int]]:
    """The index of a write_indexed() file: file -> (offset, length)."""
    out: dict[str, tuple[int, int]] = {}
    with open(path + INDEX_SUFFIX, encoding="utf-8") as f:
        for line in f:
            rel, off, n = line.rstrip("\n").split("\t")
            out[rel] = (int(off), int(n))
    return out


def read_indexed(path: str, index: dict[str, tuple[int, int]], rel: str) -> list[str]:
    """The reach lines of one file of a write_indexed() file."""
    at = index.get(rel)
    if at is None:
        return []
    with open(path, "rb") as f:
        f.seek(at[0])
        return f.read(at[1]).decode("utf-8", "replace").splitlines()


@dataclass
class Root:
    func: str
    kind: str
    via: str          # e.g. "foo_fops.unlocked_ioctl" or "DEVICE_ATTR_RW(foo)"
    errptr: bool = False


def strip_arg(a: str) -> str:
    a = a.strip().lstrip("&").strip()
    if a.startswith("(") and a.endswith(")"):
        a = a[1:-1].strip()
    return a


def roots_in(facts: csource.FileFacts, rules: list[RootRule]) -> list[Root]:
    """Roots that one file defines, by the rules of one table."""
    out: list[Root] = []
    # Rules by exact member name, plus the few with a pattern for a member,
    # in table order: trying all ~150 rules on each store was most of a scan.
    exact: dict[str, list[tuple[int, RootRule, str, str]]] = {}
    pattern: list[tuple[int, RootRule, str, str]] = []
    for i, r in enumerate(rules):
        if r.kind == "member":
            stype, member = r.pattern.split(".", 1)
            entry = (i, r, stype, member)
            if any(c in member for c in "*?["):
                pattern.append(entry)
            else:
                exact.setdefault(member, []).append(entry)
    for ref in facts.refs:
        key = f"{ref.struct_type or '?'}.{ref.member}"
        cands = sorted(exact.get(ref.member, []) + pattern, key=lambda e: e[0])
        for _i, r, stype, member in cands:
            if not fnmatch.fnmatchcase(ref.member, member):
                continue
            # `x->member = f` has no known type; only a wildcard type matches it
            # unless the member name is distinctive for that type.
            if ref.struct_type and not fnmatch.fnmatchcase(ref.struct_type, stype):
                continue
            if not ref.struct_type and stype != "*" and member == "*":
                continue
            out.append(Root(ref.func, r.root, key, "errptr" in r.extra))
            break
    for fn in facts.functions.values():
        if fn.macro:
            for r in rules:
                if r.kind == "define" and fnmatch.fnmatchcase(fn.macro, r.pattern):
                    out.append(Root(fn.name, r.root, fn.macro))
    for mref in facts.macro_refs:
        for r in rules:
            if r.pattern != mref.macro:
                continue
            if r.kind == "arg":
                for idx in r.extra.split(","):
                    i = int(idx) - 1
                    if i < len(mref.args):
                        out.append(Root(strip_arg(mref.args[i]), r.root,
                                        f"{mref.macro}()"))
            elif r.kind == "name":
                args = [strip_arg(a) for a in mref.args]
                for tmpl in r.extra.split(","):
                    try:
                        name = tmpl.format(*args)
                    except IndexError:
                        continue
                    out.append(Root(name, r.root, f"{mref.macro}({', '.join(args)})"))
    return out


def mustnotfail_roots(facts: csource.FileFacts, table: RootTable) -> list[Root]:
    """The must-not-fail roots of one file.  A root of a signal-free kind
    (a kernel thread) whose own function accepts signals (calls
    allow_signal(), contexts.tsv) is KIND+signals: it can be killed."""
    out = roots_in(facts, table.mustnotfail)
    ctx = table.contexts
    for r in out:
        fn = facts.functions.get(r.func)
        if r.kind in ctx.signal_free and fn is not None and \
                any(c.callee in ctx.accepting for c in fn.calls):
            r.kind += "+signals"
    return out


@dataclass
class Reach:
    """Per function: root kinds it is reachable from, with one shortest chain."""
    syscall: dict[str, list[str]] = field(default_factory=dict)      # func -> chain
    syscall_kinds: dict[str, set[str]] = field(default_factory=dict)
    mnf: dict[str, list[str]] = field(default_factory=dict)
    mnf_kinds: dict[str, set[str]] = field(default_factory=dict)
    errptr_roots: set[str] = field(default_factory=set)
    root_via: dict[str, str] = field(default_factory=dict)


def callees_of(fn: csource.Function, member_targets: dict[str, set[str]],
               known: set[str]) -> set[str]:
    out = set()
    for c in fn.calls:
        if c.via_member:
            out |= member_targets.get(c.callee, set())
        elif c.callee in known:
            out.add(c.callee)
    return out


def filled(value: int, n: int) -> array:
    """An array of n ints, all value (per-node tables: a list of Python ints
    is 8 bytes a node plus the int, an array 4)."""
    return array("i", [value]) * n


def masks(n: int, bits: int) -> Sequence[int]:
    """n zero bitmasks of the given width: an array when they fit in 64 bits."""
    return array("Q", bytes(8 * n)) if bits <= 64 else [0] * n


@dataclass
class Walk:
    """What a breadth-first walk from the roots found, per node."""
    parent: Sequence[int]       # BFS parent: -1 a root, -2 unreached
    kinds: Sequence[int]        # bitmask of the kinds of every root reaching it
    near: Sequence[int]         # bitmask of the kinds of its nearest roots only


def walk(n: int, edges: Sequence[Iterable[int]], roots: dict[int, int]) -> Walk:
    """The one reachability walk: over one file's functions (file_reach, the
    rules' view) and over the whole tree's (callgraph.propagate, the audit's).

    Nodes are 0..n-1, edges[u] the callees of u in the order to try them,
    roots node -> kind bitmask in the order to queue them.  Each node keeps
    the first parent that reaches it (so one shortest chain); its kinds
    spread to everything it reaches, by a worklist until no mask grows
    (each grows at most once a kind)."""
    bits = max(roots.values(), default=0).bit_length()
    kinds = masks(n, max(bits, 1))
    parent = filled(-2, n)
    dist = filled(-1, n)
    queue: deque[int] = deque()
    for nid, m in roots.items():
        kinds[nid] = m
        parent[nid] = -1
        dist[nid] = 0
        queue.append(nid)
    near = kinds[:]
    while queue:
        u = queue.popleft()
        du = dist[u] + 1
        for v in edges[u]:
            if parent[v] == -2:
                parent[v] = u
                dist[v] = du
                near[v] = near[u]
                queue.append(v)
            elif dist[v] == du:
                near[v] |= near[u]
    work: deque[int] = deque(roots)
    queued = bytearray(n)
    for u in work:
        queued[u] = 1
    while work:
        u = work.popleft()
        queued[u] = 0
        mu = kinds[u]
        for v in edges[u]:
            mv = kinds[v]
            if mu | mv != mv:
                kinds[v] = mu | mv
                if not queued[v]:
                    queued[v] = 1
                    work.append(v)
    return Walk(parent, kinds, near)


def reach_from(roots: list[Root], names: list[str], edges: list[list[int]],
               chains: dict[str, list[str]], kinds: dict[str, set[str]]) -> None:
    """Fill chains (one shortest from a root) and kinds for the functions
    the roots reach; names[i] is node i, its callees edges[i]."""
    kind_names = sorted({r.kind for r in roots})
    bit = {k: 1 << i for i, k in enumerate(kind_names)}
    ids = {name: i for i, name in enumerate(names)}
    start: dict[int, int] = {}
    for r in roots:
        start[ids[r.func]] = start.get(ids[r.func], 0) | bit[r.kind]
    w = walk(len(names), edges, start)
    for i, name in enumerate(names):
        if w.parent[i] == -2:
            continue
        chain, j = [], i
        while j >= 0:
            chain.append(names[j])
            j = w.parent[j]
        chains[name] = chain[::-1]
        kinds[name] = {k for b, k in enumerate(kind_names) if w.kinds[i] >> b & 1}


def file_reach(facts: csource.FileFacts, table: RootTable) -> Reach:
    """In-file reachability: the rules' view of one file."""
    known = set(facts.functions)
    member_targets: dict[str, set[str]] = {}
    for ref in facts.refs:
        if ref.func in known:
            member_targets.setdefault(ref.member, set()).add(ref.func)
    # Nodes in name order, so that callees are tried in name order.
    names = sorted(known)
    ids = {name: i for i, name in enumerate(names)}
    edges = [sorted(ids[g] for g in callees_of(facts.functions[name], member_targets, known))
             for name in names]
    reach = Reach()
    sys_roots = [r for r in roots_in(facts, table.syscall) if r.func in known]
    mnf_roots = [r for r in mustnotfail_roots(facts, table) if r.func in known]
    reach.errptr_roots = {r.func for r in sys_roots if r.errptr}
    reach.root_via = {r.func: r.via for r in sys_roots + mnf_roots}
    reach_from(sys_roots, names, edges, reach.syscall, reach.syscall_kinds)
    reach_from(mnf_roots, names, edges, reach.mnf, reach.mnf_kinds)
    return reach


def main() -> int:
    ap = cli.parser("Print in-file reachability of C files.")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    table = load_tables()
    for p in args.files:
        facts = csource.scan_file(p, table.interesting())
        reach = file_reach(facts, table)
        for name in sorted(facts.functions):
            s = reach.syscall.get(name)
            m = reach.mnf.get(name)
            print(f"{p}\t{name}\tsyscall={','.join(sorted(reach.syscall_kinds.get(name, ())))}"
                  f"\tmnf={','.join(sorted(reach.mnf_kinds.get(name, ())))}"
                  f"\tchain={' -> '.join(s or m or [])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
