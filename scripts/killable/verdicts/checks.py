"""The verdict of a sleep site: an ordered list of small checks.

Each check looks at one concern and returns a verdict (`refused: why`,
`manual: why`, `not on a syscall path`) or "" to pass the site on.  The
first verdict wins; a site that passes every check is `converted`, as long
as a plumbing shape in the rule file fits it.  A new refusal is one function
here and one line in CHECKS.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from killable.data import Primitive
from killable.graph import reach as reachability
from killable.scan import csource, effects
from killable.verdicts import body, plumbing

if TYPE_CHECKING:
    from killable.verdicts.rules import Rules, Site


@dataclass
class Context:
    """What the checks know about one site."""
    k: "Rules"
    site: "Site"
    prim: Primitive
    fn: csource.Function | None

    @functools.cached_property
    def lines(self) -> list[str]:
        return self.k.source_lines(self.site.file)

    @functools.cached_property
    def ff(self) -> csource.FileFacts:
        return self.k.file_facts(self.site.file)

    @functools.cached_property
    def reach(self) -> reachability.Reach:
        self.k.file_facts(self.site.file)
        return self.k.reach[self.site.file]

    @functools.cached_property
    def classes(self) -> tuple[set[str], set[str], list[str], list[str]]:
        """Syscall kinds, must-not-fail kinds, and one chain of each."""
        assert self.fn is not None
        return self.k.classes(self.site.file, self.fn.name, self.reach)

    def where(self, off: int) -> str:
        """'' for the site's own call, else which call with the same text
        in the function a position-dependent verdict comes from."""
        line = self.fn.line + self.calls[0].count("\n", 0, off)
        return "" if line == self.site.line else f"at the same call on line {line}, "

    @functools.cached_property
    def calls(self) -> tuple[str, list[int]]:
        """The blanked body and the offsets of the site's call in it."""
        assert self.fn is not None
        return body.call_offsets(self.lines, self.fn, self.site.prim, self.site.args)


Check = Callable[[Context], str]


def in_macro(c: Context) -> str:
    macro = body.macro_at(c.lines, c.site.line)
    return f"manual: in macro {macro}(); convert the macro and its users by hand" if macro else ""


def user_space(c: Context) -> str:
    """tools/ and scripts/ of a kernel tree are user-space programs (perf's
    own mutex_lock() in tools/perf/util/mutex.h has no killable twin)."""
    return "not on a syscall path" if c.k.in_user_space(c.site.file) else ""


def no_function(c: Context) -> str:
    return "manual: enclosing function not found" if c.fn is None else ""


def must_not_fail(c: Context) -> str:
    """Reached from a root that cannot take an error, in a task that can
    have a fatal signal pending (contexts.tsv): a kernel thread, a work
    item or a timer never has one, and there the killable twin never fails."""
    sys_kinds, mnf_kinds, _, mnf_chain = c.classes
    mnf_kinds = {k for k in mnf_kinds if c.k.tables.roots.contexts.can_be_killed(k)}
    if not mnf_kinds:
        return ""
    how = " -> ".join(mnf_chain) if mnf_chain else c.fn.name
    kinds = ", ".join(sorted(mnf_kinds))
    if sys_kinds:
        return f"refused: also reachable from must-not-fail root {kinds} ({how})"
    return f"refused: reachable from must-not-fail root {kinds} ({how})"


def off_syscall_path(c: Context) -> str:
    return "" if c.classes[0] else "not on a syscall path"


# More calls through function pointers than this between a root and the
# function is no proof that a system call reaches it (an untyped call, bound
# by the member's name alone, counts 3; graph/callgraph.py pointer_hops).
MAX_POINTER_HOPS = 2


def weak_syscall_proof(c: Context) -> str:
    """The audit's chain must not rest on guesses about function pointers
    (tc_setup_cb_add was "reached" from an ethtool op through 20 calls)."""
    for cls in c.k.external_classes(c.site.file, c.fn.name):
        if cls.startswith("ptrhops:") and int(cls.split(":")[1]) > MAX_POINTER_HOPS:
            chain = " -> ".join(c.classes[2]) or c.fn.name
            return (f"manual: a system call reaches {c.fn.name}() only through calls via "
                    f"function pointers whose targets are guessed ({chain})")
    return ""


def root_member(c: Context) -> str:
    """The root the chain starts from is one only by a guess, or through a
    member the kernel also calls itself and drops a failure of
    (plumbing.root_member_problem)."""
    chain = c.classes[2]
    root = chain[0] if chain else c.fn.name
    why = plumbing.root_member_problem(c.k, c.site.file, root, c.reach)
    return f"manual: {why}" if why else ""


def return_type(c: Context) -> str:
    """The function's return type must be able to carry the error."""
    rtype = c.fn.return_type
    types = c.k.tables.return_types
    why = types.reason(rtype)
    if rtype == "void" and why:
        # It becomes int in the same patch when it and its callers allow
        # (callers_lose_error walks them): upstream's usual fix.
        cannot = plumbing.void_to_int_problem(c.k, c.ff, c.fn, c.reach)
        return f"{why}; {cannot}" if cannot else ""
    if why:
        return why
    if rtype.endswith("*"):
        if plumbing.pointer_checked(c.k, c.ff, c.fn, c.reach):
            return ""
        if returns_null(c) and plumbing.null_checked(c.k, c.ff, c.fn, c.reach):
            # Its callers already take NULL for a failure and leave with an
            # error (acm_tty_install(): `if (!acm) return -ENODEV;`).
            c.k.null_failing.add((c.ff.path, c.fn.name))
            return ""
        return "manual: pointer return; a caller does not test IS_ERR"
    elif not types.carries_errno(rtype):
        return f"manual: return type {rtype} cannot carry an error"
    return ""


def returns_null(c: Context) -> bool:
    """The function already returns NULL on some path: `return NULL;`, or
    a local it sets to NULL (acm_get_by_minor()'s `acm = NULL;` for a
    disconnected device)."""
    text = body.function_text(c.lines, c.fn)
    for _, value in c.fn.returns:
        for v in value_branches(value):
            v = v.strip("() \t")
            if v == "NULL":
                return True
            if re.match(r"^\w+$", v) and re.search(r"\b%s\s*=\s*NULL\s*;" % re.escape(v), text):
                return True
    return False


def handoff(c: Context) -> str:
    """Exclusive handoffs: the waiter owns what it waits for once woken
    (families marked handoff in cocci/data/families.tsv)."""
    fam = c.k.tables.families.get(c.prim.family)
    if fam is None or not fam.handoff:
        return ""
    text, offs = c.calls
    m = re.match(r"&?\s*(\w+)", c.site.args)
    if not m:
        return ""
    obj = m.group(1)
    if re.search(r"DECLARE_COMPLETION_ONSTACK\s*\(\s*%s\s*\)" % obj, text) or \
            re.search(r"\bstruct\s+completion\s+%s\s*[;=]" % obj, text) or \
            re.search(r"DECLARE_WAIT_QUEUE_HEAD_ONSTACK\s*\(\s*%s\s*\)" % obj, text):
        return (f"refused: on-stack {obj} is handed to another context; "
                "bailing out would let the waker write a dead stack frame")
    base = re.match(r"&?\s*(\w+)\s*(?:->|\.)", c.site.args)
    after = text[offs[0]:] if offs else ""
    if base and re.search(r"\bk(?:v)?free\s*\(\s*%s\s*\)" % base.group(1), after):
        return (f"refused: {base.group(1)} is freed after the wait; "
                "the waker may still signal it after an early exit")
    if base:
        # The waker left something in the shared object that the waiter
        # now owns (call_usermodehelper_exec's shape).
        owned = re.search(r"\b(\w+)\s*\(\s*(%s\s*->\s*\w+)\s*\)" % base.group(1), after)
        if owned and c.k.tables.is_release(owned.group(1)):
            what = "".join(owned.group(2).split())
            return f"refused: handoff: the waiter owns {what} once woken; bailing out would leak it"
    return ""


def seq_stop_releases(c: Context) -> str:
    """seq_read() calls ->stop after a failed ->start: an unconditional
    unlock there would release a lock the killable ->start never took."""
    # The ->start itself, or a helper whose result a ->start returns
    # (p_start() { return __start(...); } in kernel/trace/trace_events.c).
    names, todo = {c.fn.name}, [c.fn.name]
    while todo:
        for caller, call in plumbing.callers(c.ff, todo.pop()):
            if call.use == "returned" and caller.name not in names:
                names.add(caller.name)
                todo.append(caller.name)
    # qat_dev_cfg_start: the root is DEFINE_SEQ_ATTRIBUTE(qat_dev_cfg), and
    # the file's own seq_operations table names it .start.
    starts = {ref.func for ref in c.ff.refs
              if ref.member == "start" and ref.struct_type == "seq_operations"}
    if not any(c.reach.root_via.get(n, "").split(".")[-1] == "start" or n in starts
               for n in names):
        return ""
    rel = c.k.tables.release_of(c.site.prim)
    for ref in c.ff.refs:
        if ref.member == "stop" and ref.func in c.ff.functions:
            stop = c.ff.functions[ref.func]
            text = body.function_text(c.lines, stop)
            if rel and re.search(r"\b%s\s*\(" % rel, text) and "IS_ERR" not in text:
                return (f"manual: ->stop {stop.name}() calls {rel}() even after a failed "
                        f"->start; make it test IS_ERR first")
    return ""


def caller_lock_dropped(c: Context) -> str:
    """A function that releases a lock it never took runs with its caller's
    lock held and must return with it held: bailing out of the sleep (or of
    the relock) would hand the caller an unlocked lock to unlock."""
    text, offs = c.calls
    if not offs:
        return ""
    start = body.body_start(text)
    calls = body.calls_in(text[start:offs[-1]])
    taken: set[str] = set()
    for name, off in calls:
        off += start
        if c.k.tables.is_lock_release(name):
            lock = body.first_arg(text, off)
            if lock not in taken:
                return (f"refused: {c.fn.name}() releases {lock or name + '()'}, which it did not "
                        "take (its caller or a callee did); a failed sleep would return "
                        "without it")
        elif (c.k.is_acquire(name) or "lock" in name) and not c.k.tables.is_pure(name):
            taken.add(body.first_arg(text, off))
    return ""


ERRNO_VALUE = re.compile(r"-\s*E[A-Z0-9]+\b|\bPTR_ERR\b|\bERR_PTR\b|\b[A-Za-z_]\w*\s*\(")


def no_errno(c: Context) -> str:
    """An int that never carries a negative errno is a value, not an error:
    a timeout, a count, a SCSI disposition.  Its callers would take -EINTR
    for data.  Roots are exempt (their caller is the system call)."""
    if c.fn.name in c.reach.root_via or "root" in c.k.external_classes(c.site.file, c.fn.name) or \
            c.fn.return_type.endswith("*") or \
            c.fn.return_type == "void" or \
            plumbing.truth_valued(c.fn):
        return ""
    values = [v.strip("() \t") for _, v in c.fn.returns]
    if values and all(v == "0" for v in values):
        return ""    # a status: 0 for success, so a non-zero result is an error
    if returns_errno(c, c.fn):
        return ""
    return (f"manual: {c.fn.name}() never returns a negative errno; its callers would take "
            "-EINTR for a value")


def returns_errno(c: Context, fn: csource.Function, depth: int = 0) -> bool:
    """Whether fn returns a negative errno on some path: a -E constant, an
    ERR_PTR/PTR_ERR, or what a callee returns.  A static callee of this
    file is asked in turn (kvmppc_svm_page_out returns what
    __kvmppc_svm_page_out does: U_SUCCESS, an ultravisor code or -1); a
    bare -1 is the "failed" of another convention, not an errno."""
    text = body.function_text(c.lines, fn)
    clean = csource.blank_noise(text)
    values = [b for _, v in fn.returns for b in value_branches(v)]
    if "-1" in values:
        return False
    for value in values:
        call = re.match(r"^([A-Za-z_]\w*)\s*\(", value)
        if call:
            if static_callee_without_errno(c, call.group(1), depth):
                continue
            return True
        if ERRNO_VALUE.search(value):
            return True
        if not re.match(r"^\w+$", value):
            continue
        for m in re.finditer(r"\b%s\s*=\s*(?:-\s*E[A-Z0-9]+\b|PTR_ERR\b|"
                             r"((?:[\w\]\[]+\s*(?:->|\.)\s*)*)([A-Za-z_]\w*)\s*\()"
                             % re.escape(value), text):
            if m.group(1) and whole_value(clean, m.end() - 1):
                # `ret = st->convert_and_read(...)` (tsys01_read_temperature):
                # what an operation returns is its contract's, errors too.
                return True
            if m.group(2) and not whole_value(clean, m.end() - 1):
                # `ret = IS_ERR_OR_NULL(q) || ... ? NO_CONSTRAINT : prio;`
                # (dev_pm_qos_get_user_latency_tolerance): the call is
                # part of a condition, not the value.
                continue
            if not m.group(2) or not static_callee_without_errno(c, m.group(2), depth):
                return True
    return False


def whole_value(text: str, open_: int) -> bool:
    """The call whose parenthesis opens at text[open_] is all of the
    expression: only `;` follows its closing parenthesis."""
    close = csource.matching(text, open_, "(", ")")
    return close > 0 and text[close + 1:close + 40].lstrip().startswith(";")


def value_branches(value: str) -> list[str]:
    """The values a return expression may take: both arms of a
    conditional (qib_user_sdma_writev()'s `return (ret < 0) ? ret :
    npkts;`), else the value itself, parentheses stripped."""
    value = value.strip()
    m = re.match(r"^\(?([^?:]+?)\)?\s*\?\s*([^?:]+?)\s*:\s*([^?:]+)$", value)
    if m and "(" not in m.group(2) + m.group(3):
        return [m.group(2).strip("() \t"), m.group(3).strip("() \t")]
    return [value.strip("() \t")]


def static_callee_without_errno(c: Context, name: str, depth: int) -> bool:
    callee = c.ff.functions.get(name)
    if callee is None or not callee.is_static or depth >= 2 or callee is c.fn or \
            callee.return_type.endswith("*"):
        return False
    return not returns_errno(c, callee, depth + 1)


# Calls whose names read as releases but move data (put_user).
NOT_RELEASES = re.compile(r"^(?:__)?(?:put_user|put_unaligned\w*)$")
# Calls that take a reference or a hold on their first argument.
TAKES = re.compile(r"(?:get|take|hold|grab|lock|ref)")


def released_later(c: Context) -> str:
    """Something a call the tables do not know took before the sleep, and
    that the function releases after it, is held at the sleep: the
    function's own later exits are the oracle (raw_setsockopt():
    `filter = memdup_sockptr(...)` before rtnl_lock(), `kfree(filter)` on
    the exits after it; a bare return at the lock would leak it)."""
    text, offs = c.calls
    start = body.body_start(text)
    t = c.k.tables
    for off in offs:
        before = text[start:off]
        taken: dict[str, tuple[str, int]] = {}
        for m in re.finditer(r"\b(\w+)\s*=\s*([A-Za-z_]\w*)\s*\(", before):
            if m.group(2) not in body.KEYWORDS:
                taken[m.group(1)] = (m.group(2), m.end())
        after = text[off:]
        for name, at in body.calls_in(after):
            if not t.is_release(name) or NOT_RELEASES.match(name):
                continue
            arg = body.first_arg(after, at)
            if arg not in taken:
                continue
            src, end = taken[arg]
            if c.k.is_acquire(src) or c.k.is_pure_call(c.ff, src) or src in t.prims:
                continue        # the shapes undo a known acquisition; a getter takes nothing
            between = before[end:]
            if re.search(r"\bgoto\s+\w+\s*;", between) or \
                    any(t.is_release(n) and body.first_arg(between, a) == arg
                        for n, a in body.calls_in(between)):
                continue        # an exit after it already unwinds to a label; or released
            if any(body.first_arg(after, a) == arg and (c.k.is_acquire(n) or TAKES.search(n))
                   for n, a in body.calls_in(after[:at])):
                continue        # what is released was taken after the sleep
            return (f"manual: {c.where(off)}{arg} from {src}() is released after the sleep "
                    f"({name}()), so it is held there; an early return would leak it")
    return ""


def later_exits_undo(c: Context) -> str:
    """What the function gives back after the sleep that it had before it,
    though no earlier exit shows it: a parameter its caller handed over,
    or a count it raised.  A bare return at the sleep would skip that (the
    nearest earlier exit may run where nothing was taken: spufs's `if
    (!gang) return -EINVAL;`)."""
    text, offs = c.calls
    start = body.body_start(text)
    for off in offs:
        why = consumed_param(c, text, start, off) or undone_count(text[start:off], text[off:])
        if why:
            return f"manual: {c.where(off)}{why}; an early return would skip that"
    return ""


def consumed_param(c: Context, text: str, start: int, off: int) -> str:
    """A pointer parameter the function releases on its way out, on every
    path, without having taken it: its caller hands the reference over,
    and every exit must give it back (ocfs2_info_freefrag_scan_bitmap()'s
    `bail:` ends in iput(gb_inode), the caller's reference;
    dlm_user_adopt_orphan()'s `out:` frees ua_tmp).  Only a release in the
    common exit counts: between the last label and the final return, not
    under a condition other than a test of the parameter itself.  A
    release on some paths only (pn_sock_unbind_res()'s sock_put() when the
    table held the socket, v4l2_fh_release() when its own open failed) is
    no handover."""
    t = c.k.tables
    head, before = text[:start], text[start:off]
    params = {p for p, ptr in effects.function_params(head, c.fn.name) if p and ptr}
    exit_ = common_exit(text, start)
    if exit_ is None:
        return ""
    for name, at in body.calls_in(text[exit_[0]:exit_[1]]):
        at += exit_[0]
        if not t.is_release(name) or NOT_RELEASES.match(name) or t.is_lock_release(name):
            continue
        arg = body.first_arg(text, at)
        if arg not in params or at < off or not unguarded(text, exit_[0], at, arg):
            continue
        if re.search(r"(?<![=!<>])\b%s\s*=(?!=)" % re.escape(arg), text[start:]):
            continue        # the name is reused for something the function got itself
        if any(body.first_arg(before, a) == arg and (t.is_release(n) or c.k.is_acquire(n))
               for n, a in body.calls_in(before)) or \
                any(a > off and body.first_arg(text, a) == arg and not t.is_release(n) and
                    (c.k.is_acquire(n) or TAKES.search(n))
                    for n, a in body.calls_in(text[:at])):
            continue        # released or taken here, not handed over
        return f"the parameter {arg} is released on the way out ({name}()), not taken here"
    return ""


def common_exit(text: str, start: int) -> tuple[int, int] | None:
    """(start, end) of the code every path leaves through: from the last
    label at the function's own level to the final return after it."""
    depth, level = 0, []
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
        level.append(depth)
    def top(pos: int) -> bool:
        return 0 <= pos - start < len(level) and level[pos - start] == 0
    finals = [m for m in re.finditer(r"\breturn\b[^;]*;", text) if m.start() > start and top(m.start())]
    if not finals:
        return None
    final = finals[-1]
    labels = [m for m in re.compile(r"(?m)^\s*(\w+)\s*:(?!:)").finditer(text, start, final.start())
              if m.group(1) not in ("default", "case") and top(m.start(1))]
    if not labels:
        return None
    return labels[-1].end(), final.start()


def unguarded(text: str, exit_start: int, at: int, arg: str) -> bool:
    """The call at at runs whenever the exit does: it is a statement of its
    own, or the body of `if (arg)`."""
    prev = max(text.rfind(";", exit_start, at), text.rfind("}", exit_start, at),
               text.rfind("{", exit_start, at), exit_start)
    lead = text[prev + 1:at].strip()
    if not lead:
        return True
    m = re.fullmatch(r"if\s*\(\s*(?:%s|%s\s*!=\s*NULL|!IS_ERR_OR_NULL\(\s*%s\s*\))\s*\)"
                     % ((re.escape(arg),) * 3), lead)
    return m is not None


COUNT_UP = re.compile(r"(?:\b(?:atomic|atomic_long|refcount|local)_inc\s*\(\s*&?\s*([\w.>-]+)\s*\)"
                      r"|([\w.>-]*[\w])\s*\+\+|\+\+\s*([\w.>-]*[\w]))")


def undone_count(before: str, after: str) -> str:
    """A count raised before the sleep that the function lowers after it
    (spufs_create_context(): `gang->alive++` before the affinity lock,
    `gang->alive--` at out_aff_unlock when it fails)."""
    for m in COUNT_UP.finditer(before):
        target = "".join((m.group(1) or m.group(2) or m.group(3)).split())
        if "->" not in target and "." not in target:
            continue        # a local counter: nobody else sees it
        t = "".join(r"\s*%s\s*" % re.escape(p) if p in ("->", ".") else re.escape(p)
                    for p in re.split(r"(->|\.)", target))
        down = re.compile(r"(?:\b(?:atomic|atomic_long|refcount|local)_dec\w*\s*\(\s*&?\s*%s\s*\)"
                          r"|%s\s*--|--\s*%s\b)" % (t, t, t))
        if down.search(after):
            return f"{target} is raised before the sleep and lowered after it"
    return ""


def effects_before_sleep(c: Context) -> str:
    """Between the nearest earlier exit and the sleep, the function may only
    read: a call that might take something, or a write to shared state,
    would stay behind on the new error path (the earlier exit shows what the
    author undoes; nothing after it is undone)."""
    text, offs = c.calls
    for off in offs:
        why = plumbing.effects_before(c.k, c.ff, text, off, c.prim.shape == "poll",
                                      timeout=c.prim.shape == "timeout")
        if why:
            return "manual: " + c.where(off) + \
                f"{why} before the sleep; the new error path would not undo it"
    return ""


# Labels that only error paths jump to (err2:, fail_irq:, out_err:).
UNWIND_LABEL = re.compile(r"^(?:err|error|fail|failed|bad|unwind|abort|undo)\w*$|_(?:err|fail)\w*$")
ERROR_TEST = re.compile(r"^(?:unlikely\()?\s*(?:!?\s*IS_ERR(?:_OR_NULL)?\(\s*\w+\s*\)|"
                        r"(?:ret|err|error|rc|retval|status|res)\s*(?:<\s*0|!=\s*0)?)\s*\)?$")


def on_error_path(c: Context) -> str:
    """A sleep on an error-unwind path, after the error was decided: failing
    there would lose the cleanup and replace the error (ip6mr_rules_init
    takes rtnl_lock under its err2: label)."""
    text, offs = c.calls
    for off in offs:
        why = error_path_at(text, off)
        if why:
            return "manual: " + c.where(off) + why
    return ""


def error_path_at(text: str, off: int) -> str:
    before = text[body.body_start(text):off]
    labels = list(re.finditer(r"(?m)^\s*(\w+)\s*:(?!:)", before))
    if labels:
        last = labels[-1]
        if last.group(1) not in ("default",) and UNWIND_LABEL.search(last.group(1)) and \
                not re.search(r"\breturn\b", before[last.end():]):
            return (f"on the error-unwind path after {last.group(1)}:; a failure "
                    "there would skip the cleanup and replace the error")
    _, cond = body.guard_of(text, off)
    if cond and ERROR_TEST.match(" ".join(cond.split())):
        return (f"on an error path (under `if ({' '.join(cond.split())})`); a failure "
                "there would skip the cleanup and replace the error")
    return ""


def callers_lose_error(c: Context) -> str:
    text, offs = c.calls
    # A wait whose timeout exit already returns an error from the same
    # point: its callers already take an error after what they started.
    like_timeout = c.prim.shape == "timeout" and bool(offs) and all(
        plumbing.timeout_exit_leaves(c.k, c.ff, text, off) or
        plumbing.timeout_branch_leaves(c.k, c.ff, text, off) for off in offs)
    why = plumbing.callers_problem(c.k, c.ff, c.fn, c.reach, like_timeout)
    return "manual: " + why if why else ""


def time_left_type(c: Context) -> str:
    """A `_timeout` wait's result kept in a local must stay negative there
    for the twin's `< 0` to see a kill: a u32 or a parameter would not."""
    if c.prim.shape != "timeout":
        return ""
    text, offs = c.calls
    for off in offs:
        var = plumbing.timeout_result_var(text, off)
        why = var and plumbing.result_type_problem(text, var, off)
        if why:
            return "manual: " + c.where(off) + why
    return ""


def not_polling(c: Context) -> str:
    if c.prim.shape != "poll":
        return ""
    text, offs = c.calls
    if offs and all(body.loop_at(text, off) for off in offs):
        return ""
    return "manual: not a polling loop; a fixed delay is left as it is"


# Verdicts are kept per function and call text (what survives spatch's
# rewrites), so a check that depends on where the call stands looks at every
# call with the same text in the function, and the worst one decides.

# In order: the first that speaks decides.
CHECKS: list[Check] = [
    user_space,
    in_macro,
    no_function,
    must_not_fail,
    off_syscall_path,
    weak_syscall_proof,
    root_member,
    time_left_type,
    caller_lock_dropped,
    on_error_path,
    return_type,
    no_errno,
    handoff,
    seq_stop_releases,
    not_polling,
    released_later,
    effects_before_sleep,
    later_exits_undo,
    callers_lose_error,
]


def judge(c: Context) -> str:
    for check in CHECKS:
        verdict = check(c)
        if verdict:
            return verdict
    return "converted"
