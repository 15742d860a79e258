#!/usr/bin/env python3
"""Which functions a system call can reach, and which must not fail.

Roots come from cocci/data/syscall-roots.tsv and must-not-fail-roots.tsv.
The graph is built from csource facts of one file (the rules' in-file view)
or of many files (the audit's cross-file view).  Calls through a struct
member resolve to every function stored in a member of that name.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
from collections import deque
from dataclasses import dataclass, field

from killable.scan import csource

from killable import data
from killable.data import RootRule, RootTable  # noqa: F401
from killable.paths import DATA_DIR


# The root tables are read by killable.data; these names stay for the graph.
load_rules = data.load_root_rules
load_tables = data.load_root_tables


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


def bfs(starts: list[Root], edges: dict[str, set[str]],
        chains: dict[str, list[str]], kinds: dict[str, set[str]]) -> None:
    queue: deque[str] = deque()
    for r in starts:
        kinds.setdefault(r.func, set()).add(r.kind)
        if r.func not in chains:
            chains[r.func] = [r.func]
            queue.append(r.func)
    # Kinds spread to everything reachable; chains keep the first (shortest).
    order = []
    while queue:
        f = queue.popleft()
        order.append(f)
        for g in sorted(edges.get(f, ())):
            if g not in chains:
                chains[g] = chains[f] + [g]
                queue.append(g)
    changed = True
    while changed:
        changed = False
        for f in order:
            for g in edges.get(f, ()):
                before = len(kinds.setdefault(g, set()))
                kinds[g] |= kinds.get(f, set())
                changed |= len(kinds[g]) != before


def file_reach(facts: csource.FileFacts, table: RootTable) -> Reach:
    """In-file reachability: the rules' view of one file."""
    known = set(facts.functions)
    member_targets: dict[str, set[str]] = {}
    for ref in facts.refs:
        if ref.func in known:
            member_targets.setdefault(ref.member, set()).add(ref.func)
    edges = {name: callees_of(fn, member_targets, known)
             for name, fn in facts.functions.items()}
    reach = Reach()
    sys_roots = [r for r in roots_in(facts, table.syscall) if r.func in known]
    mnf_roots = [r for r in roots_in(facts, table.mustnotfail) if r.func in known]
    reach.errptr_roots = {r.func for r in sys_roots if r.errptr}
    reach.root_via = {r.func: r.via for r in sys_roots + mnf_roots}
    bfs(sys_roots, edges, reach.syscall, reach.syscall_kinds)
    bfs(mnf_roots, edges, reach.mnf, reach.mnf_kinds)
    return reach


def main() -> int:
    ap = argparse.ArgumentParser(description="Print in-file reachability of C files.")
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
