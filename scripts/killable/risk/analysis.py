"""Hang risk over a whole tree: long sleeps, lock holders, wakers, one risk a site.

  1. long sleeps: a function sleeps long when it calls an operation of
     cocci/data/long-sleeps.tsv that is long there (risk/scan.py judges the
     bounds), or calls such a function directly: a reverse walk of the call
     graph's direct edges from those seeds, keeping one chain per function.
     The lock and scheduler internals (STOP_DIRS) are not walked through:
     a lock's own wait is judged by its holders, not by its slow path.
  2. locks: each lock expression becomes an identity, a global's name or
     `struct.field` from the type the graph's facts give its base
     (`&dev->lock` with `struct foo_dev *dev` -> `foo_dev.lock`); every
     critical section of the tree is filed under its lock's identity.
     A section sleeps long when a call inside it does (member calls bound
     the way the graph bound them), or when it takes a lock that is high.
  3. sites: a lock site is high when some section of its lock sleeps long,
     low when every section found is short, unknown when the holders
     cannot be found; a wait site is high when what wakes it depends on
     hardware, another process, user space or the network (the waker named
     when found), low when a short timeout or only a timer bounds it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import subprocess
import sys
import time
from array import array
from collections import deque
from dataclasses import dataclass, field
from multiprocessing import Pool

from killable import data as tables
from killable.graph import callgraph
from killable.graph import reach as reachability
from killable.paths import DATA_DIR
from killable.risk import scan

# Code the walk does not go through.  The kernel's own lock and scheduler
# code: walking through it would make every lock user a long sleeper
# (mutex_lock's slow path calls schedule()).  Crash and debug reporting:
# kfree() reaches get_user() through kfence's report and show_regs(), and
# memcpy() reaches msleep() through KASAN's report and panic(); none of it
# runs on a working system.  RCU grace periods end by themselves.  User-space
# tools share kernel names.
STOP_DIRS = ("kernel/locking/", "kernel/sched/", "kernel/rcu/", "kernel/printk/", "kernel/debug/",
             "kernel/kcsan/", "mm/kasan/", "mm/kfence/", "mm/kmsan/", "lib/ubsan",
             "tools/", "scripts/", "samples/")
STOP_NAMES = frozenset("""
panic nmi_panic dump_stack dump_stack_lvl show_regs __show_regs show_stack show_trace_log_lvl
show_opcodes __warn warn_slowpath_fmt __warn_printk report_bug die __die oops_begin oops_end
bust_spinlocks emergency_restart machine_restart kernel_restart kernel_halt kernel_power_off
machine_halt machine_power_off print_modules debug_show_all_locks show_state_filter
sysrq_handle_crash handle_sysrq __handle_sysrq kmsg_dump crash_kexec __crash_kexec
synchronize_rcu synchronize_rcu_expedited synchronize_srcu synchronize_srcu_expedited
synchronize_net synchronize_rcu_tasks synchronize_rcu_tasks_trace rcu_barrier srcu_barrier
irq_work_sync
""".split())
LOCK_FAMILIES = ("mutex", "semaphore", "rwsem", "mmap_lock", "rtnl", "inode_lock")
QUIET_WAKERS = ("a timer", "an RCU callback")
MAX_CHAIN = 8
TYPED_MEMBERS = True
MAX_DEPTH = 2          # calls below the holder's own call that still count: a -> b -> op


@dataclass
class Section:
    rel: str
    func: str
    line: int
    end: int
    call: str
    escapes: bool
    trylock: bool
    long: str = ""            # evidence when a holder sleeps long here
    calls: int = 0            # calls made inside
    nested: list = field(default_factory=list)   # (identity, line) of locks taken inside


@dataclass
class Site:
    rel: str
    func: str
    line: int
    prim: str                 # the call as written
    kind: str                 # lock | wait
    identity: str = ""
    risk: str = "unknown"
    evidence: str = ""


@dataclass
class Analysis:
    res: callgraph.Result
    sleeps: dict
    funcs: dict               # (rel, func) -> risk scan record
    long_op: list             # node -> (op, why) of the seed it reaches, or None
    long_next: list           # node -> next node on the chain (-1 at the seed)
    sections: dict            # identity -> [Section]
    lock_risk: dict           # identity -> (risk, evidence)
    sites: dict               # (rel, line, prim) -> Site
    stats: dict

    def site(self, rel: str, line: int, prim: str) -> Site | None:
        return self.sites.get((rel, line, prim))

    def rank(self, rel: str, line: int, prim: str) -> tuple[str, str]:
        s = self.site(rel, line, prim)
        if s is None:
            return "unknown", "the risk scan did not see this call"
        return s.risk, s.evidence


# ---------------------------------------------------------------- inputs

def risk_files(kdir: str, sleeps: dict) -> list[str]:
    """The .c files that call anything the risk scan reads."""
    pat = scan.grep_pattern(sleeps)
    if os.path.exists(os.path.join(kdir, ".git")):
        r = subprocess.run(["git", "-C", kdir, "grep", "-l", "-z", "-P", pat, "--", "*.c"],
                           capture_output=True, text=True)
        if r.returncode in (0, 1):
            return callgraph.split_readable(kdir, sorted(x for x in r.stdout.split("\0") if x))[0]
    rx = re.compile(pat)
    out = []
    for rel in callgraph.split_readable(kdir, callgraph.list_c_files(kdir))[0]:
        with open(os.path.join(kdir, rel), encoding="utf-8", errors="replace") as f:
            if rx.search(f.read()):
                out.append(rel)
    return out


def _scan_one(job: tuple[str, str, str, str, dict]) -> tuple[str, dict]:
    kdir, rel, cache_dir, version, sleeps = job
    return rel, scan.scan_cached(kdir, rel, cache_dir, version, sleeps)


def frozen(x):
    """x with its lists made tuples and its strings interned: the risk facts
    of the tree's files repeat the same keys, calls and locks over and over
    (as decoded, the whole tree's took 87 MiB)."""
    if isinstance(x, str):
        return sys.intern(x)
    if isinstance(x, list):
        return tuple(frozen(y) for y in x)
    if isinstance(x, dict):
        return {sys.intern(k): frozen(v) for k, v in x.items()}
    return x


def scan_files(kdir: str, files: list[str], cache: str, jobs: int, sleeps: dict,
               sleeps_path: str) -> dict[str, dict]:
    cache_dir = os.path.join(cache, "audit-cache", "risk")
    version = scan.scanner_version(sleeps_path)
    work = [(kdir, rel, cache_dir, version, sleeps) for rel in files]
    out: dict[str, dict] = {}
    if jobs <= 1 or len(work) < 50:
        for job in work:
            rel, facts = _scan_one(job)
            out[rel] = frozen(facts)
        return out
    with Pool(jobs, initializer=callgraph.quiet_worker) as pool:
        for rel, facts in pool.imap_unordered(_scan_one, work, chunksize=32):
            out[rel] = frozen(facts)
    return out


@dataclass
class TreeFacts:
    """What the risk stage takes from the graph's per-file facts."""
    field_t: dict             # (struct, field) -> {struct types}
    member_targets: dict      # member name -> {nodes stored in it}
    seeds: dict               # node -> (op, why)


def tree_facts_path(kdir: str, cache: str, nodes: int, sleeps: dict,
                    subdirs: list[str] | None = None) -> str:
    """Where tree_facts are kept beside the graph: keyed on the graph's file
    index (it changes when any file does), the table and this code; "" when
    there is no index."""
    scope = hashlib.sha256(f"{os.path.abspath(kdir)}|{sorted(subdirs or [])}".encode())
    ipath = os.path.join(cache, "audit-cache", "graph", f"index-{scope.hexdigest()[:16]}.idx")
    try:
        with open(ipath, "rb") as f:
            key = hashlib.sha256(f.read())
        with open(__file__, "rb") as f:
            key.update(f.read())
    except OSError:
        return ""
    key.update(repr(sorted((n, s.bound) for n, s in sleeps.items())).encode())
    key.update(str(nodes).encode())
    return os.path.join(cache, "audit-cache", "risk", f"tree-{key.hexdigest()[:32]}.pickle")


def save_tree_facts(path: str, tf: TreeFacts) -> None:
    callgraph.atomic_pickle(path, tf)
    callgraph.prune(os.path.dirname(path), ".pickle", keep=4)


def tree_facts_cached(kdir: str, cache: str, jobs: int, res: callgraph.Result,
                      sleeps: dict, subdirs: list[str] | None = None) -> TreeFacts:
    """tree_facts, kept beside the graph (tree_facts_path).  Reading every
    file's facts again is half of a warm run."""
    path = tree_facts_path(kdir, cache, len(res.graph.files), sleeps, subdirs)
    if not path:
        return tree_facts(kdir, cache, jobs, res, sleeps, subdirs)
    try:
        with open(path, "rb") as f:
            tf = pickle.load(f)
        if isinstance(tf, TreeFacts):
            return tf
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError):
        pass
    tf = tree_facts(kdir, cache, jobs, res, sleeps, subdirs)
    save_tree_facts(path, tf)
    return tf


def tree_facts_hook(kdir: str, cache: str, subdirs: list[str] | None = None,
                    sleeps_path: str = os.path.join(DATA_DIR, "long-sleeps.tsv")):
    """For callgraph.compute(with_facts=...): when the graph is built, its
    facts are in memory; the tree facts are taken from them and kept where
    tree_facts_cached looks, so that the risk stage does not read every
    file's facts a second time (the two copies were the audit's peak)."""
    sleeps = tables.load_long_sleeps(sleeps_path)

    def hook(g: callgraph.Graph, facts: dict[str, callgraph.Facts]) -> None:
        path = tree_facts_path(kdir, cache, len(g.files), sleeps, subdirs)
        if path and not os.path.exists(path):
            save_tree_facts(path, tree_facts_from(g, facts, sleeps))
    return hook


def tree_facts(kdir: str, cache: str, jobs: int, res: callgraph.Result,
               sleeps: dict, subdirs: list[str] | None = None) -> TreeFacts:
    """From every file's facts, one file at a time (the graph is held already)."""
    files, _ = callgraph.split_readable(kdir, callgraph.list_c_files(kdir, subdirs))
    headers, _ = callgraph.split_readable(kdir, callgraph.list_headers(kdir, subdirs))
    tf = TreeFactsBuilder(res.graph, sleeps)
    callgraph.scan_tree(kdir, files + headers, cache, jobs, reachability.load_tables(),
                        each=tf.add)
    return tf.facts


def tree_facts_from(g: callgraph.Graph, facts: dict[str, callgraph.Facts],
                    sleeps: dict) -> TreeFacts:
    tf = TreeFactsBuilder(g, sleeps)
    for rel, ff in facts.items():
        tf.add(rel, ff)
    return tf.facts


class TreeFactsBuilder:
    """TreeFacts, a file at a time, in any order."""

    def __init__(self, g: callgraph.Graph, sleeps: dict) -> None:
        self.g = g
        self.facts = TreeFacts({}, {}, {})
        self.always = {n: s for n, s in sleeps.items() if s.bound_kind() == "none"
                       or (s.bound_kind() == "internal" and scan.long_call(s, [], False, {}))}

    def add(self, rel: str, ff: callgraph.Facts) -> None:
        g, tf, always = self.g, self.facts, self.always
        for st, f, t in callgraph.rows(ff.fields, 3):
            tf.field_t.setdefault((st, f), set()).add(t)
        if ff.names is None:
            return
        for _t, _fs, member, func in callgraph.rows(ff.stores, 4):
            for nid in g.resolve(rel, func):
                tf.member_targets.setdefault(member, set()).add(nid)
        for _st, member, func in callgraph.rows(ff.refs, 3):
            for nid in g.resolve(rel, func):
                tf.member_targets.setdefault(member, set()).add(nid)
        if rel.startswith(STOP_DIRS):
            return
        names = g.by_file.get(rel, {})
        for name, direct in zip(ff.names, ff.direct):
            hit = next((c for c in direct if c in always), None)
            if hit is not None and name in names:
                tf.seeds[names[name]] = (hit, scan.long_call(always[hit], [], False, {}))


# ---------------------------------------------------------------- identities

def identity(ref: list, rel: str, func: str, field_t: dict) -> tuple[str, bool]:
    """(identity, resolved).  Unresolved ones are scoped to the file (member
    chains of an unknown type) or the function (parameters, locals)."""
    kind = ref[0] if ref else "?"
    if kind == "fixed":
        return ref[1], True
    if kind == "name":
        name, scope = ref[1], ref[2]
        if scope == "local":
            return f"{rel}:{func}():{name}", False
        if scope == "static":
            return f"{name} ({rel})", True
        return name, True
    if kind == "chain":
        t, fields, member = ref[1], ref[2], ref[3]
        rest: list[str] = []
        for f in fields:
            nt = field_t.get((t, f)) if not rest else None
            if nt and len(nt) == 1:
                t = next(iter(nt))
            else:
                rest.append(f)
        return ".".join([t] + rest + [member]), True
    return f"{rel}:{ref[1] if len(ref) > 1 else '?'}", False


# ---------------------------------------------------------------- long sleeps

arch_of = callgraph.arch_of


@dataclass
class LongWalk:
    """What propagate_long walks: per node whether the walk stops there, and
    its direct callers (in increasing node order) that it goes up to."""
    stop: bytearray
    callers: callgraph.Adjacency


def long_walk(res: callgraph.Result, table: frozenset[str] = frozenset()) -> LongWalk:
    """The table's own operations are not walked through: a call of one is
    judged by its bound, not by how it is built (msleep() is built on
    schedule())."""
    g = res.graph
    n = len(g.files)
    stop = bytearray(n)
    stop_names = set(scan.LOCKS) | set(scan.UNLOCKS) | STOP_NAMES | set(table)
    for nid in range(n):
        if g.files[nid].startswith(STOP_DIRS) or g.funcs[nid] in stop_names:
            stop[nid] = 1
    arch = [arch_of(f) for f in g.files]
    # Reverse rows by counting: two passes over the calls instead of a list
    # per node (a list of lists for 590,000 nodes took 90 MiB at its peak).
    def followed():
        for src, targets in g.direct.items():
            if stop[src]:
                continue
            a_src = arch[src]
            for v in targets:
                a = arch[v]
                # A call resolves to every architecture's twin; only x86's, or
                # the caller's own architecture's, is followed.
                if a and a != a_src and a != "x86":
                    continue
                yield src, v
    count = callgraph.filled(0, n + 1)
    for _src, v in followed():
        count[v + 1] += 1
    callers = callgraph.Adjacency()
    for i in range(n):
        count[i + 1] += count[i]
    callers.start = count
    callers.targets = callgraph.filled(0, count[n])
    fill = count[:n]
    for src, v in followed():
        callers.targets[fill[v]] = src
        fill[v] += 1
    return LongWalk(stop, callers)


def propagate_long(res: callgraph.Result, seeds: dict[int, tuple[str, str]],
                   extra: dict[int, tuple[str, str]], max_depth: int = MAX_DEPTH,
                   table: frozenset[str] = frozenset(),
                   walk: LongWalk | None = None) -> tuple[list, array]:
    """Reverse BFS over direct calls, at most max_depth calls above a seed:
    per node the seed op and the next hop (long_walk: what is walked)."""
    n = len(res.graph.files)
    if walk is None:
        walk = long_walk(res, table)
    stop, callers = walk.stop, walk.callers
    op: list = [None] * n
    nxt = callgraph.filled(-2, n)
    depth = callgraph.filled(0, n)
    q: deque[int] = deque()
    for nid, why in sorted(list(seeds.items()) + list(extra.items())):
        if stop[nid] or op[nid] is not None:
            continue
        op[nid] = why
        nxt[nid] = -1
        q.append(nid)
    while q:
        u = q.popleft()
        if depth[u] >= max_depth:
            continue
        for c in callers[u]:
            if op[c] is None and not stop[c]:
                op[c] = op[u]
                nxt[c] = u
                depth[c] = depth[u] + 1
                q.append(c)
    return op, nxt


def chain_text(g: callgraph.Graph, op: list, nxt: list, nid: int) -> str:
    names = []
    while nid >= 0 and len(names) < MAX_CHAIN:
        names.append(g.funcs[nid] + "()")
        last = nid
        nid = nxt[nid]
    if nid >= 0:
        names.append("...")
    names.append(op[last][0] + "()")
    return " -> ".join(names)


# The evidence a reviewer finds most telling first: a device or a network
# that does not answer, then waits on others, then user memory.
EVIDENCE_ORDER = ("usb", "firmware", "network", "io", "user-space", "wait", "flush",
                  "poll-loop", "user-memory")


def evidence_rank(ev: str) -> int:
    for i, k in enumerate(EVIDENCE_ORDER):
        if f"({k}" in ev:
            return i
    return len(EVIDENCE_ORDER)


# ---------------------------------------------------------------- waker kinds

def waker_kind(res: callgraph.Result, rec: dict | None, rel: str, func: str) -> str:
    g = res.graph
    nid = g.node(rel, func)
    kinds = set(res.mnf.kinds_of(nid)) if nid is not None else set()
    if rec and rec.get("rtype") == "irqreturn_t" or kinds & {"irq", "tasklet"}:
        return "hardware (interrupt)"
    if rec and rec.get("urb"):
        return "hardware (USB completion)"
    if nid is not None and res.sys.reached(nid):
        rk = res.sys.kinds_of(nid, nearest=True)
        return f"another process (system call{', ' + rk[0] if rk else ''})"
    if "work" in kinds:
        return "a work item"
    if "kthread" in kinds:
        return "a kernel thread"
    if rel.startswith(("net/", "drivers/net/")):
        return "the network stack"
    if "timer" in kinds:
        return "a timer"
    if "rcu" in kinds:
        return "an RCU callback"
    if kinds & {"release", "remove", "shutdown", "module_exit", "suspend/resume"}:
        return "another process (teardown)"
    return "another context"


# ---------------------------------------------------------------- the whole stage

def analyze(kdir: str, cache: str, jobs: int, res: callgraph.Result | None = None,
            sleeps_path: str = os.path.join(DATA_DIR, "long-sleeps.tsv"),
            subdirs: list[str] | None = None, progress=None,
            ignore: frozenset[str] = frozenset(), max_depth: int = 0) -> Analysis:
    """The whole stage.  ignore: classes of long sleeps not to count;
    max_depth: calls above a long sleep that still count (0: MAX_DEPTH)."""
    t0 = time.time()
    say = progress or (lambda _m: None)
    all_sleeps = tables.load_long_sleeps(sleeps_path)
    sleeps = {n: op for n, op in all_sleeps.items() if op.klass not in ignore}
    if res is None:
        res = callgraph.compute(kdir, cache, jobs, subdirs)
    g = res.graph
    t1 = time.time()
    say(f"risk: graph {t1 - t0:.1f}s")
    tf = tree_facts_cached(kdir, cache, jobs, res, sleeps, subdirs)
    t2 = time.time()
    say(f"risk: graph facts {t2 - t1:.1f}s")
    files = risk_files(kdir, all_sleeps)
    if subdirs:
        files = [f for f in files if any(f.startswith(s.strip("/") + "/") for s in subdirs)]
    # In file order: which holder or waker an evidence names must not
    # depend on which worker finished first.
    per_file = dict(sorted(scan_files(kdir, files, cache, jobs, all_sleeps, sleeps_path).items()))
    t3 = time.time()
    say(f"risk: scanned {len(files)} files {t3 - t2:.1f}s")
    funcs: dict[tuple[str, str], dict] = {}
    extra: dict[int, tuple[str, str]] = {}
    for rel, ff in per_file.items():
        for fn, rec in ff["funcs"].items():
            funcs[(rel, fn)] = rec
            longs = [x for x in rec["long"] if x[0] in sleeps]
            if longs and not rel.startswith(STOP_DIRS):
                nid = g.node(rel, fn)
                if nid is not None:
                    extra.setdefault(nid, (longs[0][0], longs[0][2]))
    # Work items and kernel threads by identity, for the flushes.
    binds: dict[str, list[tuple[str, str]]] = {}
    for rel, ff in per_file.items():
        for ref, fn in ff.get("binds", []):
            ident, _r = identity(ref, rel, "", tf.field_t)
            binds.setdefault(ident, []).append((rel, fn))

    def flush_long(ref: list, rel: str, fn: str) -> str:
        """Why a flush of this work item or thread waits long, or ""."""
        ident, _r = identity(ref, rel, fn, tf.field_t)
        for brel, bfn in binds.get(ident, []):
            for t in g.resolve(brel, bfn):
                if op[t] is not None:
                    return f"flush, waits for {bfn}(): {chain_text(g, op, nxt, t)}"
        return ""

    depth = max_depth or MAX_DEPTH
    walk = long_walk(res, frozenset(all_sleeps))
    op, nxt = propagate_long(res, tf.seeds, extra, depth, walk=walk)
    # A flush sleeps long when the work it waits for does: new seeds, again.
    for _round in range(3):
        new: dict[int, tuple[str, str]] = {}
        for (rel, fn), rec in funcs.items():
            if not rec.get("flush") or rel.startswith(STOP_DIRS):
                continue
            nid = g.node(rel, fn)
            if nid is None or nid in extra:
                continue
            for call, _line, ref in rec["flush"]:
                why = flush_long(ref, rel, fn) if call in sleeps else ""
                if why:
                    new[nid] = (call, why)
                    break
        if not new:
            break
        extra.update(new)
        op, nxt = propagate_long(res, tf.seeds, extra, depth, walk=walk)
    t4 = time.time()
    say(f"risk: long sleeps propagated {t4 - t3:.1f}s")

    def call_long(rel: str, fn: str, nid: int | None, rec: dict, name: str, member: int,
                  line: int, lo: int, hi: int) -> str:
        """Evidence that this call in [lo, hi] sleeps long, or ""."""
        if name in sleeps:
            if sleeps[name].bound_kind() == "work":
                for n2, l2, ref in rec.get("flush", []):
                    why = flush_long(ref, rel, fn) if n2 == name and lo <= l2 <= hi else ""
                    if why:
                        return f"{name}() ({why})"
                return ""
            for n2, l2, why in rec["long"]:
                if n2 == name and lo <= l2 <= hi:
                    return f"{name}() ({why})"
            return ""
        if name in scan.LOCKS or name in scan.UNLOCKS:
            return ""
        if not member:
            for t in g.resolve(rel, name):
                if op[t] is not None:
                    return f"{name}() ({op[t][1]}: {chain_text(g, op, nxt, t)})"
            return ""
        if nid is None:
            return ""
        # Only what the graph bound by the receiver's struct type: a member
        # bound by its name alone names a function of some other driver.
        bound = set(g.typed_calls.get(nid, ())) if TYPED_MEMBERS else set(g.edges[nid])
        for t in sorted(tf.member_targets.get(name, ())):
            if t in bound and op[t] is not None:
                return f"->{name}() = {g.funcs[t]}() ({op[t][1]}: {chain_text(g, op, nxt, t)})"
        return ""

    # Critical sections by lock identity.
    sections: dict[str, list[Section]] = {}
    site_sections: dict[tuple[str, int, str], tuple[str, bool, Section]] = {}
    for (rel, fn), rec in funcs.items():
        nid = g.node(rel, fn)
        own = []
        for call, line, ref, end, escapes, inner in rec["sections"]:
            ident, resolved = identity(ref, rel, fn, tf.field_t)
            sec = Section(rel, fn, line, end, call, bool(escapes),
                          scan.LOCKS[call][2], calls=len(inner))
            best = None
            for name, l2, member in inner:
                ev = call_long(rel, fn, nid, rec, name, member, l2, line, end)
                if ev:
                    rank = evidence_rank(ev)
                    if best is None or rank < best[0]:
                        best = (rank, f"held across {ev} in {fn}(), {rel}:{l2}")
                    if rank == 0:
                        break
            if best:
                sec.long = best[1]
            own.append((sec, ident, resolved))
            sections.setdefault(ident, []).append(sec)
            site_sections[(rel, line, call)] = (ident, resolved, sec)
        # Locks taken inside a section: for the nested pass.
        for sec, _ident, _r in own:
            for sec2, ident2, _r2 in own:
                if sec2 is not sec and sec.line < sec2.line <= sec.end:
                    sec.nested.append((ident2, sec2.line))

    def verdict(ident: str) -> tuple[str, str]:
        secs = sections.get(ident, [])
        longs = [s for s in secs if s.long]
        if longs:
            return "high", longs[0].long
        return "", ""

    lock_risk: dict[str, tuple[str, str]] = {}
    for ident in sections:
        lock_risk[ident] = verdict(ident)
    # A section that takes a high lock waits as long as that lock's holders.
    for _round in range(3):
        changed = False
        for ident, secs in sections.items():
            for s in secs:
                if s.long:
                    continue
                for ident2, l2 in s.nested:
                    if ident2 != ident and lock_risk.get(ident2, ("", ""))[0] == "high":
                        s.long = (f"takes {ident2} in {s.func}(), {s.rel}:{l2}, which is "
                                  f"{lock_risk[ident2][1]}")
                        changed = True
                        break
        for ident in sections:
            if not lock_risk[ident][0]:
                lock_risk[ident] = verdict(ident)
        if not changed:
            break

    # Wakers by identity, and by member name for the fallback.
    wakers: dict[str, list[tuple[str, str, int, str]]] = {}
    wakers_by_member: dict[tuple[str, str], list[tuple[str, str, int, str]]] = {}
    wakers_by_file: dict[tuple[str, str], list[tuple[str, str, int, str]]] = {}
    for (rel, fn), rec in funcs.items():
        for call, line, ref in rec["wakes"]:
            kind = scan.WAKES[call]
            ident, _r = identity(ref, rel, fn, tf.field_t)
            w = (rel, fn, line, call)
            wakers.setdefault(kind + ":" + ident, []).append(w)
            if ref and ref[0] == "chain":
                wakers_by_member.setdefault((kind, ref[3]), []).append(w)
            wakers_by_file.setdefault((kind, rel), []).append(w)

    prims = tables.load_primitives()
    site_prims = set(prims)
    twins = {p.twin: p.name for p in prims.values()}
    sites: dict[tuple[str, int, str], Site] = {}
    for (rel, line, call), (ident, resolved, sec) in site_sections.items():
        if call not in site_prims and call not in twins:
            continue
        s = Site(rel, sec.func, line, call, "lock", ident)
        if not resolved:
            if sec.long:
                s.risk, s.evidence = "high", sec.long
            else:
                s.evidence = (f"holders not found: the lock `{ident.rsplit(':', 1)[-1]}` "
                              "is not a global or a member of a typed variable")
        else:
            r, ev = lock_risk.get(ident, ("", ""))
            if r == "high":
                # The holder a reviewer of this site would look at first:
                # its own section, then one in its file, directory, tree part.
                d = os.path.dirname(rel)
                best = min((x for x in sections[ident] if x.long),
                           key=lambda x: (x is not sec, x.rel != rel, os.path.dirname(x.rel) != d,
                                          x.rel.split("/")[:2] != rel.split("/")[:2],
                                          evidence_rank(x.long), x.rel, x.line))
                s.risk, s.evidence = "high", f"{ident}: {best.long}"
            else:
                secs = sections[ident]
                open_ = [x for x in secs if x.escapes and not x.trylock]
                funcs_n = len({(x.rel, x.func) for x in secs})
                if open_:
                    x = open_[0]
                    s.evidence = (f"{ident}: {len(secs)} critical sections in {funcs_n} functions "
                                  f"sleep short, but {x.func}() ({x.rel}:{x.line}) returns "
                                  "with it held and its callers were not followed")
                else:
                    big = max(secs, key=lambda x: (x.calls, x.rel == rel, -x.line))
                    s.risk = "low"
                    s.evidence = (f"{ident}: {len(secs)} critical section"
                                  f"{'s' if len(secs) > 1 else ''} in {funcs_n} function"
                                  f"{'s' if funcs_n > 1 else ''}, none sleeps long (the "
                                  f"busiest: {big.func}(), {big.rel}:{big.line}-{big.end}, "
                                  f"{big.calls} calls)")
        sites[(rel, line, call)] = s
    for (rel, fn), rec in funcs.items():
        for call, line, ref, timeout, secs_, in_loop in rec["waits"]:
            if call not in site_prims and call not in twins:
                continue
            kind = scan.WAITS[call]
            ident, _r = identity(ref, rel, fn, tf.field_t)
            s = Site(rel, fn, line, call, "wait", ident)
            sites[(rel, line, call)] = s
            if kind == "page":
                s.risk = "high"
                s.evidence = ("waits for page I/O: the page lock is held across read I/O, "
                              "and the I/O completion unlocks it (the device, or a network "
                              "file system)")
                continue
            bounded = secs_ is not None and secs_ >= 0
            if kind == "time":
                if in_loop:
                    s.risk, s.evidence = "high", (f"{call}() in a loop: a poll that ends when "
                                                  "hardware or another context is ready")
                elif bounded and secs_ < scan.LONG_S:
                    s.risk, s.evidence = "low", f"sleeps {timeout} ({secs_:g} s), not in a loop"
                else:
                    s.risk, s.evidence = "high", f"sleeps {timeout or '?'}" + (
                        f" ({scan.duration(secs_)})" if bounded else " (not a constant)")
                continue
            if call.endswith("_timeout") and bounded and secs_ < scan.LONG_S:
                s.risk, s.evidence = "low", f"bounded by a {secs_:g} s timeout ({timeout})"
                continue
            found = wakers.get(kind + ":" + ident, [])
            how = ""
            if not found and ref and ref[0] == "chain":
                found = wakers_by_member.get((kind, ref[3]), [])
                found = [w for w in found if os.path.dirname(w[0]) == os.path.dirname(rel)] \
                    or found[:0]
                how = "probably "
            if not found:
                found = [w for w in wakers_by_file.get((kind, rel), [])
                         if w[1] != fn]
                how = "probably "
            if not found:
                s.evidence = f"no waker found for {ident}"
                continue
            classes = []
            for w in found:
                k = waker_kind(res, funcs.get((w[0], w[1])), w[0], w[1])
                classes.append((k in QUIET_WAKERS, k, w))
            classes.sort(key=lambda x: (x[0], x[2][0] != rel, x[2]))
            quiet, k, w = classes[0]
            bound = f"; bounded by {timeout}" if call.endswith("_timeout") else ""
            s.evidence = (f"{how}woken by {w[3]}() in {w[1]}(), {w[0]}:{w[2]}: {k}"
                          + (f" (+{len(found) - 1} more wakers)" if len(found) > 1 else "")
                          + bound)
            s.risk = "low" if quiet else "high"
    t5 = time.time()
    say(f"risk: sections and sites {t5 - t4:.1f}s")
    stats = {"files": len(files), "functions_read": len(funcs),
             "long_functions": sum(1 for x in op if x is not None),
             "locks": len(sections), "sites": len(sites),
             "seconds": round(t5 - t0, 1)}
    return Analysis(res, sleeps, funcs, op, nxt, sections, lock_risk, sites, stats)


# ---------------------------------------------------------------- for the audit and batches

# lock: the lock's identity (`vt8231_data.update_lock`, a global's name), or
# for a wait the queue's or the completion's: the unit a batch converts.
RISK_COLUMNS = ("risk", "risk_evidence", "lock")


def annotate(sites: list[dict], a: Analysis | None) -> None:
    """Add risk, risk_evidence and lock to audit site records (file, line,
    primitive), last; all "" when no analysis ran (--no-risk)."""
    for s in sites:
        risk, ev, lock = "", "", ""
        if a is not None:
            risk, ev = a.rank(s["file"], s["line"], s["primitive"])
            site = a.site(s["file"], s["line"], s["primitive"])
            lock = site.identity if site is not None else ""
        for k in RISK_COLUMNS:
            s.pop(k, None)
        s["risk"] = risk
        s["risk_evidence"] = ev
        s["lock"] = lock
