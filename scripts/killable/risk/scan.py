"""Per-file facts for the hang-risk stage: locks, waits, wake-ups, long sleeps.

The call graph's cached scan keeps, per function, only the names it calls.
Risk needs more, and only in the functions that take a lock, wait, wake a
waiter or call a conditional long sleep: the argument of each lock, wait
and wake call, the calls between a lock and its unlock, which calls sit in
a loop, and the struct types of the variables a lock expression starts
from.  This module reads those functions (csource's blanking and brace
tracking) and caches one small JSON record per file content under
CACHE/audit-cache/risk/.

A critical section runs from a lock call to the last unlock of the same
expression before that expression is locked again (so an early-exit unlock
does not end it); a lock with no unlock in the function "escapes" (it is
returned held, and its holders are the callers).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
from dataclasses import dataclass

from killable.scan import csource
from killable.data import LongSleep

SCAN_VERSION = "1"

# rtnl_lock() takes this static mutex: the same identity as its own name there.
RTNL = "rtnl_mutex (net/core/rtnetlink.c)"
# lock call -> (pairing key, fixed identity or "", trylock)
LOCKS: dict[str, tuple[str, str, bool]] = {}
for _n in ("mutex_lock mutex_lock_nested mutex_lock_killable mutex_lock_killable_nested "
           "mutex_lock_interruptible mutex_lock_interruptible_nested mutex_lock_io").split():
    LOCKS[_n] = ("mutex", "", False)
LOCKS["mutex_trylock"] = ("mutex", "", True)
for _n in "down down_killable down_interruptible down_timeout".split():
    LOCKS[_n] = ("sem", "", False)
LOCKS["down_trylock"] = ("sem", "", True)
for _n in ("down_read down_read_killable down_read_interruptible down_read_nested "
           "down_read_killable_nested down_read_non_owner down_write down_write_killable "
           "down_write_nested down_write_killable_nested").split():
    LOCKS[_n] = ("rwsem", "", False)
LOCKS["down_read_trylock"] = ("rwsem", "", True)
LOCKS["down_write_trylock"] = ("rwsem", "", True)
for _n in ("mmap_read_lock mmap_read_lock_killable mmap_write_lock mmap_write_lock_killable "
           "mmap_write_lock_nested").split():
    LOCKS[_n] = ("mmap", "mm_struct.mmap_lock", False)
LOCKS["mmap_read_trylock"] = ("mmap", "mm_struct.mmap_lock", True)
LOCKS["mmap_write_trylock"] = ("mmap", "mm_struct.mmap_lock", True)
for _n in "rtnl_lock rtnl_lock_killable".split():
    LOCKS[_n] = ("rtnl", RTNL, False)
LOCKS["rtnl_trylock"] = ("rtnl", RTNL, True)
for _n in ("inode_lock inode_lock_shared inode_lock_nested inode_lock_shared_nested "
           "inode_lock_killable inode_lock_shared_killable").split():
    LOCKS[_n] = ("inode", "inode.i_rwsem", False)
LOCKS["inode_trylock"] = ("inode", "inode.i_rwsem", True)
LOCKS["inode_trylock_shared"] = ("inode", "inode.i_rwsem", True)
LOCKS["device_lock"] = ("device", "device.mutex", False)
LOCKS["device_trylock"] = ("device", "device.mutex", True)

UNLOCKS: dict[str, str] = {
    "mutex_unlock": "mutex", "up": "sem", "up_read": "rwsem", "up_write": "rwsem",
    "up_read_non_owner": "rwsem", "mmap_read_unlock": "mmap", "mmap_write_unlock": "mmap",
    "rtnl_unlock": "rtnl", "__rtnl_unlock": "rtnl", "inode_unlock": "inode",
    "inode_unlock_shared": "inode", "device_unlock": "device"}

# Calls whose first argument is a waiter's queue, completion or variable:
# wait call -> what wakes it ("wq", "completion", "var", "page", "time").
WAITS: dict[str, str] = {}
for _n in ("wait_event wait_event_timeout wait_event_killable wait_event_killable_timeout "
           "wait_event_killable_exclusive wait_event_interruptible "
           "wait_event_interruptible_timeout wait_event_lock_irq wait_event_lock_irq_killable "
           "wait_event_idle wait_event_idle_timeout wait_event_freezable "
           "wait_event_interruptible_exclusive wait_event_idle_exclusive").split():
    WAITS[_n] = "wq"
for _n in ("wait_for_completion wait_for_completion_timeout wait_for_completion_killable "
           "wait_for_completion_killable_timeout wait_for_completion_interruptible "
           "wait_for_completion_interruptible_timeout wait_for_completion_io "
           "wait_for_completion_io_timeout").split():
    WAITS[_n] = "completion"
for _n in "wait_var_event wait_var_event_killable wait_var_event_timeout".split():
    WAITS[_n] = "var"
for _n in ("lock_page lock_page_killable folio_lock folio_lock_killable "
           "__folio_lock_killable").split():
    WAITS[_n] = "page"
for _n in ("schedule_timeout_uninterruptible schedule_timeout_killable "
           "schedule_timeout_interruptible").split():
    WAITS[_n] = "time"

# wake-up call -> what it wakes
WAKES: dict[str, str] = {}
for _n in ("wake_up wake_up_all wake_up_interruptible wake_up_interruptible_all "
           "wake_up_interruptible_sync wake_up_interruptible_poll wake_up_poll "
           "wake_up_interruptible_sync_poll wake_up_locked wake_up_locked_poll wake_up_nr "
           "wake_up_all_locked __wake_up").split():
    WAKES[_n] = "wq"
for _n in "complete complete_all kthread_complete_and_exit complete_and_exit".split():
    WAKES[_n] = "completion"
WAKES["wake_up_var"] = "var"

# Calls that bind a work item or kernel thread to its function:
# call -> (argument of the item, argument of the function); -1 for the
# item: the call's value is stored (`x->task = kthread_run(fn, ...)`).
WORK_BINDS: dict[str, tuple[int, int]] = {
    "INIT_WORK": (0, 1), "INIT_WORK_ONSTACK": (0, 1), "INIT_DELAYED_WORK": (0, 1),
    "INIT_DEFERRABLE_WORK": (0, 1), "INIT_DELAYED_WORK_ONSTACK": (0, 1),
    "DECLARE_WORK": (0, 1), "DECLARE_DELAYED_WORK": (0, 1), "DECLARE_DEFERRABLE_WORK": (0, 1),
    "kthread_init_work": (0, 1), "kthread_init_delayed_work": (0, 1),
    "kthread_run": (-1, 0), "kthread_create": (-1, 0), "kthread_create_on_node": (-1, 0),
    "kthread_run_on_cpu": (-1, 0), "kthread_create_on_cpu": (-1, 0)}
STORED_TO = re.compile(r"([A-Za-z_][\w\s>.\-\[\]]*?)\s*=\s*$")

LOOP_HEAD = re.compile(r"\b(?:for|while)\s*\(|\bdo\s*\{")
GLOBAL_LOCK_DEF = re.compile(
    r"\b(?:DEFINE_MUTEX|DEFINE_SEMAPHORE|DECLARE_RWSEM|DECLARE_COMPLETION|"
    r"DECLARE_WAIT_QUEUE_HEAD|DEFINE_WAIT_QUEUE_HEAD|DECLARE_(?:DELAYED_|DEFERRABLE_)?WORK)"
    r"\s*\(\s*([A-Za-z_]\w*)")
GLOBAL_PLAIN = re.compile(
    r"(?:\bstruct\s+(?:mutex|semaphore|rw_semaphore|completion)|\bwait_queue_head_t)\s+"
    r"([A-Za-z_]\w*)\s*[;=\[]")
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(.+?)\s*$", re.M)
CHAIN_EXPR = re.compile(r"^[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*)*$")
HZ = 250.0
LONG_S = 1.0


def interesting_names(sleeps: dict[str, LongSleep]) -> frozenset[str]:
    """Calls that make a function worth reading."""
    cond = {n for n, s in sleeps.items() if s.bound_kind() in ("arg", "sleep", "work")}
    return (frozenset(LOCKS) | frozenset(UNLOCKS) | frozenset(WAITS) | frozenset(WAKES) | cond
            | frozenset(WORK_BINDS))


def grep_pattern(sleeps: dict[str, LongSleep]) -> str:
    """A PCRE for git grep -l: the files this scan has anything to say about."""
    return r"\b(?:" + "|".join(sorted(interesting_names(sleeps))) + r")\s*\("


# ---------------------------------------------------------------- time

_CALLS = {"msecs_to_jiffies": lambda x: x * HZ / 1e3, "usecs_to_jiffies": lambda x: x * HZ / 1e6,
          "round_jiffies": lambda x: x, "round_jiffies_relative": lambda x: x,
          "max": max, "min": min, "max_t": lambda _t, a, b: max(a, b),
          "min_t": lambda _t, a, b: min(a, b)}
_NAMES = {"HZ": HZ, "MSEC_PER_SEC": 1e3, "USEC_PER_SEC": 1e6, "USEC_PER_MSEC": 1e3,
          "NSEC_PER_SEC": 1e9, "NSEC_PER_MSEC": 1e6,
          "USB_CTRL_GET_TIMEOUT": 5000, "USB_CTRL_SET_TIMEOUT": 5000}
_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b if b else None,
        ast.FloorDiv: lambda a, b: a / b if b else None, ast.Mod: lambda a, b: a % b if b else None,
        ast.LShift: lambda a, b: a * 2 ** b, ast.RShift: lambda a, b: a / 2 ** b}


def _value(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.Name):
        return _NAMES.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _value(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        a, b = _value(node.left), _value(node.right)
        return None if a is None or b is None else _OPS[type(node.op)](a, b)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS:
        args = [a.id if isinstance(a, ast.Name) and a.id not in _NAMES else _value(a)
                for a in node.args]
        if any(a is None for a in args):
            return None
        try:
            return float(_CALLS[node.func.id](*args))
        except (TypeError, ValueError):
            return None
    return None


def seconds(expr: str, unit: str, defines: dict[str, str]) -> float | None:
    """The duration an argument stands for, in seconds (HZ taken as 250):
    None when it is not a constant, inf for MAX_SCHEDULE_TIMEOUT."""
    e = " ".join(expr.split())
    for _ in range(4):     # the file's own #defines
        new = re.sub(r"\b[A-Z_][A-Z0-9_]*\b",
                     lambda m: "(" + defines[m.group(0)] + ")" if m.group(0) in defines
                     else m.group(0), e)
        if new == e:
            break
        e = new
    if re.search(r"\bMAX_(?:SCHEDULE_TIMEOUT|JIFFY_OFFSET)\b", e):
        return float("inf")
    e = re.sub(r"\(\s*(?:unsigned\s+)?(?:long|int|u32|u64|s64|unsigned)\s*\)", "", e)
    e = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", e)
    try:
        v = _value(ast.parse(e, mode="eval").body)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if v is None:
        return None
    return v / HZ if unit == "jiffies" else v * {"ms": 1e-3, "us": 1e-6, "s": 1.0}.get(unit, 1.0)


def duration(s: float) -> str:
    return "no timeout" if s == float("inf") else f"{s:g} s"


def long_call(op: LongSleep, args: list[str], in_loop: bool,
              defines: dict[str, str]) -> str:
    """Why this call of a long-sleep op sleeps long here, or "".  in_loop:
    inside a loop with no counter or deadline in sight (a sleep: bound is long
    there)."""
    kind = op.bound_kind()
    if kind == "none":
        return op.klass
    if kind == "work":
        return ""          # judged by the work's function (risk/analysis.py)
    if kind == "internal":
        dur = op.bound.split(":", 1)[1]
        s = float(dur[:-2]) / 1000 if dur.endswith("ms") else float(dur[:-1])
        return f"{op.klass}, up to {dur}" if s >= LONG_S else ""
    idx, unit = op.bound_arg()
    arg = args[idx - 1] if 0 < idx <= len(args) else ""
    s = seconds(arg, unit, defines) if arg else None
    if kind == "arg":
        if s is None:
            return f"{op.klass}, timeout {' '.join(arg.split()) or '?'}"
        if s == 0 and unit != "jiffies":
            return f"{op.klass}, no timeout"        # USB and poll helpers: 0 waits forever
        return f"{op.klass}, timeout {duration(s)}" if s >= LONG_S else ""
    if s is not None and s >= LONG_S:
        return f"{op.klass}, sleeps {duration(s)}"
    if in_loop:
        return f"{op.klass}, {op.name}() in a loop with no bound"
    return ""


# ---------------------------------------------------------------- expressions

def norm(expr: str) -> str:
    return re.sub(r"\s+", "", expr)


def parse_lvalue(expr: str) -> list[str] | None:
    """`&dev->lock` -> ["dev", "lock"]; `&a.b[i]->c` -> ["a", "b[]", "c"];
    None for anything that is not a plain member chain."""
    e = norm(expr)
    while True:
        e0 = e
        e = e.lstrip("&*")
        if e.startswith("(") and csource.matching(e, 0, "(", ")") == len(e) - 1:
            e = e[1:-1]
        e = re.sub(r"^\((?:const)?struct\w+\*\)", "", e)
        if e == e0:
            break
    e = re.sub(r"\[[^\[\]]*\]", "", e)
    if not CHAIN_EXPR.match(e):
        return None
    return re.split(r"->|\.", e)


def var_types(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in _VAR_DECL.finditer(text):
        out.setdefault(v.group(2), v.group(1))
    return out


_VAR_DECL = re.compile(r"\bstruct\s+([A-Za-z_]\w*)\s*\**\s*(?:const\s+)?([A-Za-z_]\w*)"
                       r"(?:\s+__\w+)*\s*(?=[,;=)\[])")


@dataclass
class Ctx:
    """What an expression in one function resolves against."""
    local: dict[str, str]            # variable -> struct type (params and locals)
    glob: dict[str, str]             # file-level variable -> struct type
    defs: dict[str, bool]            # lock/queue/completion defined here -> static


def expr_ref(expr: str, ctx: Ctx) -> list:
    """The parts of a lock, queue or completion expression the identity needs:
      ["chain", base type, [fields...], member]   a member of a typed variable
      ["name", name, scope]                        scope: local | static | global
      ["?", normalized text]                       anything else
    """
    parts = parse_lvalue(expr)
    if not parts:
        return ["?", norm(expr)]
    base = parts[0]
    if len(parts) == 1:
        if base in ctx.local:
            return ["name", base, "local"]
        if base in ctx.defs:
            return ["name", base, "static" if ctx.defs[base] else "global"]
        return ["name", base, "global"]
    t = ctx.local.get(base) or ctx.glob.get(base, "")
    if not t:
        return ["?", norm(expr)]
    return ["chain", t, parts[1:-1], parts[-1]]


# ---------------------------------------------------------------- one file

def work_bind(call: str, args: list[str], before: str, ctx: Ctx) -> list[list]:
    """[[item ref, function name]] for one INIT_WORK-like or kthread_run-like call."""
    item, fn = WORK_BINDS[call]
    if fn >= len(args) or not re.fullmatch(r"\s*&?\s*[A-Za-z_]\w*\s*", args[fn]):
        return []
    func = args[fn].strip().lstrip("&").strip()
    if item >= 0:
        return [[expr_ref(args[item], ctx), func]] if item < len(args) else []
    m = STORED_TO.search(before)
    return [[expr_ref(m.group(1), ctx), func]] if m else []


# A sign that a loop ends by itself: a counter, a deadline, a comparison.
BOUND_SIGN = re.compile(r"time_(?:after|before)|time_is_|ktime_|jiffies|timeout|tmo|retr|tries|"
                        r"count|cnt|--|\+\+|[<>]")


def loop_ranges(clean: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """(start, end, bounded) of each for/while/do loop in clean[start:end]."""
    out = []

    def bounded(*texts: str) -> bool:
        t = re.sub(r"->|<<|>>", " ", " ".join(texts))
        return bool(BOUND_SIGN.search(t))

    for m in LOOP_HEAD.finditer(clean, start, end):
        if m.group(0).startswith("do"):
            close = csource.matching(clean, m.end() - 1, "{", "}")
            tail = re.match(r"\s*while\s*\(", clean[close + 1:close + 200])
            cond = ""
            if tail:
                p = close + 1 + tail.end() - 1
                cond = clean[p:csource.matching(clean, p, "(", ")")]
            out.append((m.end() - 1, close, bounded(cond, clean[m.end():close])))
            continue
        close = csource.matching(clean, m.end() - 1, "(", ")")
        head = clean[m.end():close]
        j = close + 1
        while j < end and clean[j] in " \t\n":
            j += 1
        if j >= end:
            continue
        if clean[j] == "{":
            body_end = csource.matching(clean, j, "{", "}")
        elif clean[j] == ";":
            if clean[max(start, m.start() - 40):m.start()].rstrip().endswith("}"):
                continue       # the tail of a do-while: its body was taken above
            body_end = close
        else:
            semi = clean.find(";", j)
            body_end = semi if semi >= 0 else end
        out.append((m.end() - 1, body_end, bounded(head, clean[close:body_end])))
    return out


def file_globals(clean: str, bodies: list[tuple[int, int, object]]) -> tuple[dict, dict]:
    """(variable -> struct type, lock/queue name -> static) outside functions."""
    gaps, prev = [], 0
    for s, e, _fn in bodies:
        gaps.append(clean[prev:s])
        prev = e + 1
    gaps.append(clean[prev:])
    outside = "\n;".join(gaps)      # a body removed ends a statement
    glob = var_types(outside)
    defs: dict[str, bool] = {}
    for rx in (GLOBAL_LOCK_DEF, GLOBAL_PLAIN):
        for m in rx.finditer(outside):
            stmt_start = max(outside.rfind(";", 0, m.start()), outside.rfind("}", 0, m.start()))
            defs[m.group(1)] = "static" in outside[stmt_start + 1:m.start()].split()
    return glob, defs


def defines_of(text: str) -> dict[str, str]:
    """Object-like #defines of a file: NAME -> its text."""
    return {m.group(1): m.group(2) for m in DEFINE.finditer(text)}


def scan_text(text: str, sleeps: dict[str, LongSleep],
              interesting: frozenset[str] | None = None,
              header_defines: dict[str, str] | None = None) -> dict:
    """The risk facts of one C file (see the module doc).  header_defines:
    the #defines of the headers it includes from its own directory (the
    driver's timeouts live there)."""
    interesting = interesting_names(sleeps) if interesting is None else interesting
    clean = csource.blank_noise(text)
    lines = csource.LineIndex(clean)
    bodies = csource.function_bodies(clean, lines)
    defines = dict(header_defines or {})
    defines.update(defines_of(text))
    glob, defs = file_globals(clean, bodies)
    funcs: dict[str, dict] = {}
    binds: list[list] = []
    file_ctx = Ctx({}, glob, defs)
    for m in re.finditer(r"\b(DECLARE_(?:DELAYED_|DEFERRABLE_)?WORK)\s*\(", clean):
        if not any(a <= m.start() <= b for a, b, _fn in bodies):
            binds.extend(work_bind(m.group(1), csource.split_args(
                clean[m.end():csource.matching(clean, m.end() - 1, "(", ")")]), "", file_ctx))
    for start, end, fn in bodies:
        calls = [(m.group(1), m.start(), m.end()) for m in csource.CALL.finditer(clean, start, end)
                 if m.group(1) not in csource.KEYWORDS]
        if not any(c[0] in interesting for c in calls):
            continue
        head = lines.starts[fn.line - 1]
        ctx = Ctx(var_types(clean[head:end]), glob, defs)
        loops = loop_ranges(clean, start, end)

        def in_loop(off: int) -> int:
            """0 not in a loop, 1 in loops that all end by themselves, 2 in one
            with no bound in sight."""
            inside = [bd for a, b, bd in loops if a < off < b]
            return 0 if not inside else 1 if all(inside) else 2

        def resolve_arg(arg: str) -> str:
            """A plain variable's value where the function sets it."""
            if not re.fullmatch(r"\s*[A-Za-z_]\w*\s*", arg) or arg.strip() in defines:
                return arg
            m = re.search(r"\b" + arg.strip() + r"\s*=(?!=)\s*([^;,]+)[;,]", clean[head:end])
            return m.group(1) if m else arg

        def args_of(c_end: int) -> list[str]:
            close = csource.matching(clean, c_end - 1, "(", ")")
            return csource.split_args(clean[c_end:close])

        rec: dict = {"line": fn.line, "end": fn.end_line, "rtype": fn.return_type,
                     "urb": bool(re.search(r"\bstruct\s+urb\s*\*", clean[head:start])),
                     "sections": [], "waits": [], "wakes": [], "long": [], "flush": []}
        events = []      # (offset, kind, key, norm expr, index into calls)
        for i, (name, off, c_end) in enumerate(calls):
            pre = clean[max(0, off - 2):off]
            member = pre.endswith("->") or pre.endswith(".")
            if member:
                continue
            if name in LOCKS or name in UNLOCKS:
                a = args_of(c_end)
                key = LOCKS[name][0] if name in LOCKS else UNLOCKS[name]
                e = norm(a[0]) if a else ""
                if key in ("mmap", "rtnl", "inode", "device"):
                    e = ""       # one lock class: pair by kind alone
                events.append((off, "lock" if name in LOCKS else "unlock", key, e, i))
            if name in WAITS:
                a = args_of(c_end)
                kind = WAITS[name]
                timeout = ""
                if name.endswith("_timeout") or kind == "time":
                    timeout = a[-1] if a else ""
                s = seconds(resolve_arg(timeout), "jiffies", defines) if timeout else None
                s = -1.0 if s is None else min(s, 1e9)
                rec["waits"].append([name, lines.line(off), expr_ref(a[0], ctx) if a else ["?", ""],
                                     " ".join(timeout.split()), s, int(in_loop(off))])
            if name in WAKES:
                a = args_of(c_end)
                rec["wakes"].append([name, lines.line(off),
                                     expr_ref(a[0], ctx) if a else ["?", ""]])
            if name in sleeps and sleeps[name].bound_kind() == "work":
                a = args_of(c_end)
                idx = sleeps[name].bound_arg()[0]
                if 0 < idx <= len(a):
                    rec["flush"].append([name, lines.line(off), expr_ref(a[idx - 1], ctx)])
            if name in WORK_BINDS:
                binds.extend(work_bind(name, args_of(c_end), clean[max(head, off - 120):off], ctx))
            if name in sleeps:
                why = long_call(sleeps[name], [resolve_arg(x) for x in args_of(c_end)],
                                in_loop(off) == 2, defines)
                if why:
                    rec["long"].append([name, lines.line(off), why])
        # A lock's section ends at the last unlock of its expression before
        # the expression is locked again; a lock followed by another with no
        # unlock between is an alternative branch (`if (x) mutex_lock(l);
        # else if (mutex_lock_killable(l)) ...`) and ends where that one does.
        stops: dict[int, tuple[int, bool]] = {}
        for j in range(len(events) - 1, -1, -1):
            off, kind, key, e, i = events[j]
            if kind != "lock":
                continue
            nj = next((jj for jj in range(j + 1, len(events)) if events[jj][1] == "lock"
                       and events[jj][2] == key and events[jj][3] == e), None)
            nxt = events[nj][0] if nj is not None else end
            unl = [o for o, k, kk, ee, _i in events[j + 1:]
                   if k == "unlock" and kk == key and ee == e and o < nxt]
            if unl:
                stops[j] = (unl[-1], False)
            elif nj is not None:
                stops[j] = stops[nj]
            else:
                stops[j] = (end, True)
        for j, (off, kind, key, e, i) in enumerate(events):
            if kind != "lock":
                continue
            name = calls[i][0]
            stop, escapes = stops[j]
            fixed = LOCKS[name][1]
            ref = ["fixed", fixed] if fixed else \
                expr_ref(args_of(calls[i][2])[0], ctx) if e else ["?", ""]
            inner, seen = [], set()
            for name2, off2, _e2 in calls:
                if not (calls[i][1] < off2 < stop) or name2 in UNLOCKS:
                    continue
                pre = clean[max(0, off2 - 2):off2]
                member = int(pre.endswith("->") or pre.endswith("."))
                if (name2, member) in seen:
                    continue
                seen.add((name2, member))
                inner.append([name2, lines.line(off2), member])
            rec["sections"].append([name, lines.line(calls[i][1]), ref,
                                    lines.line(stop), int(escapes), inner])
        funcs[fn.name] = rec
    return {"funcs": funcs, "binds": binds}


def cache_key(content: bytes, sleeps_version: str) -> str:
    return hashlib.sha256(content).hexdigest()[:40] + "-r" + SCAN_VERSION + sleeps_version


def scanner_version(sleeps_path: str) -> str:
    h = hashlib.sha256()
    for p in (__file__, csource.__file__, sleeps_path):
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


LOCAL_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)


def local_headers(kdir: str, rel: str, content: bytes) -> list[bytes]:
    """The text of each header the file includes with quotes, found beside it."""
    out = []
    d = os.path.dirname(os.path.abspath(os.path.join(kdir, rel)))
    for m in LOCAL_INCLUDE.finditer(content):
        p = os.path.normpath(os.path.join(d, m.group(1).decode("utf-8", "replace")))
        if p.startswith(os.path.abspath(kdir)) and os.path.isfile(p):
            try:
                with open(p, "rb") as f:
                    out.append(f.read())
            except OSError:
                pass
    return out


def scan_cached(kdir: str, rel: str, cache_dir: str, version: str,
                sleeps: dict[str, LongSleep]) -> dict:
    with open(os.path.join(kdir, rel), "rb") as f:
        content = f.read()
    headers = local_headers(kdir, rel, content)

    def compute() -> dict:
        hdefs: dict[str, str] = {}
        for h in headers:
            hdefs.update(defines_of(h.decode("utf-8", "replace")))
        return scan_text(content.decode("utf-8", "replace"), sleeps, header_defines=hdefs)
    from killable.graph.callgraph import cached_json
    return cached_json(cache_dir, cache_key(b"\0".join([content] + headers), version), compute)
