"""Whether a new error gets back to a root: the callers' side of a verdict.

A converted sleep makes its function fail where it did not before.  These
functions follow the in-file callers (and, with the audit's cross-file data,
the classes it records) and say why the error would be lost, or plan the
callers that must now check it (`ret = helper(); if (ret) return ret;`, made
by the callers sections of the rule files).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from killable.graph import reach as reachability
from killable.scan import csource, effects
from killable.verdicts import body
from killable.verdicts.tables import RET_NAMES

if TYPE_CHECKING:
    from killable.verdicts.rules import Rules

# Callers that ignore a helper's result are plumbed this many levels up.
PLUMB_DEPTH = 2

IS_ERR_TESTS = ("IS_ERR", "IS_ERR_OR_NULL", "PTR_ERR_OR_ZERO")


def callers(ff: csource.FileFacts, name: str) -> list[tuple[csource.Function, csource.Call]]:
    """In-file direct calls of name, with the function that makes each."""
    out = []
    for fn in ff.functions.values():
        for c in fn.calls:
            if c.callee == name and not c.via_member:
                out.append((fn, c))
    return out


def tests_is_err(caller: csource.Function, line: int) -> bool:
    """The caller tests IS_ERR within three lines of a call at line."""
    return any(c.callee in IS_ERR_TESTS and line <= c.line <= line + 3 for c in caller.calls)


def pointer_checked(k: "Rules", ff: csource.FileFacts, fn: csource.Function,
                    reach: reachability.Reach, depth: int = 0) -> bool:
    """Every caller of a pointer-returning fn tests IS_ERR (or a root's
    caller does).  A bare truth test is none: hci_sock_bind()'s
    `if (!hci_mgmt_chan_find(...))` would take an ERR_PTR for a channel
    found.  A caller that returns the pointer hands the test on to its own
    callers."""
    if fn.name in reach.errptr_roots:
        return True
    found = callers(ff, fn.name)
    if not found or depth > PLUMB_DEPTH:
        return False
    for caller, call in found:
        if call.use == "tested" and is_err_test(k, ff, caller, call):
            continue
        if call.use == "returned" and caller.is_static and \
                caller.return_type.endswith("*") and \
                pointer_checked(k, ff, caller, reach, depth + 1):
            continue
        if call.use.startswith("assigned:") and (tests_is_err(caller, call.line) or
                                                 first_use_tests_is_err(k, ff, caller, call)):
            continue
        return False
    return True


def first_use_tests_is_err(k: "Rules", ff: csource.FileFacts, caller: csource.Function,
                           call: csource.Call) -> bool:
    """`v = f(...);` whose next use of v is `IS_ERR(v)` (or IS_ERR_OR_NULL,
    PTR_ERR_OR_ZERO): the test may sit below declarations or other work
    that does not touch v (adc128d818's shows declare two locals between
    the update call and its test), three lines being no rule."""
    var = call.use.split(":", 1)[1]
    if not re.match(r"^\w+$", var):
        return False
    text, off = call_offset(k, ff, caller, call)
    if off < 0:
        return False
    end = text.find(";", off)
    if end < 0:
        return False
    use = re.compile(r"\b%s\b" % re.escape(var)).search(text, end)
    return use is not None and \
        re.search(r"\b(?:%s)\s*\(\s*$" % "|".join(IS_ERR_TESTS), text[:use.start()]) is not None


def null_checked(k: "Rules", ff: csource.FileFacts, fn: csource.Function,
                 reach: reachability.Reach, depth: int = 0) -> bool:
    """Every caller of a pointer-returning fn takes NULL for a failure: it
    tests the result for NULL first thing and that branch leaves with an
    error (`acm = acm_get_by_minor(tty->index); if (!acm) return -ENODEV;`),
    or a static pointer returner hands the result on to callers that do.
    A NULL that means "none yet" (`if (!p) p = create(...);`) is no
    failure."""
    found = callers(ff, fn.name)
    if not found or depth > PLUMB_DEPTH or fn.name in reach.errptr_roots:
        return False
    for caller, call in found:
        text, off = call_offset(k, ff, caller, call)
        if off < 0:
            return False
        if call.use == "returned" and caller.is_static and caller.return_type.endswith("*"):
            if null_checked(k, ff, caller, reach, depth + 1):
                continue
            return False
        if call.use == "tested":
            cond, branch = body.test_branch(text, off)
            close = csource.matching(text, text.find("(", off), "(", ")")
            mine = "".join(text[off:close + 1].split())
            if "".join(cond.split()) in ("!" + mine, mine + "==NULL") and \
                    branch_passes_on(k, ff, branch):
                continue
            return False
        if not call.use.startswith("assigned:"):
            return False
        var = call.use.split(":", 1)[1]
        open_, test = test_after(text, csource.matching(text, text.find("(", off), "(", ")"))
        if not re.match(r"^\w+$", var) or \
                test not in ("!" + var, var + "==NULL", f"IS_ERR_OR_NULL({var})"):
            return False
        if not branch_passes_on(k, ff, body.test_branch(text, open_ + 1)[1]):
            return False
    return True


def call_offset(k: "Rules", ff: csource.FileFacts, caller: csource.Function,
                call: csource.Call) -> tuple[str, int]:
    """The caller's blanked text and the offset of call in it (-1: not found)."""
    text = csource.blank_noise(body.function_text(k.source_lines(ff.path), caller))
    start = body.line_offset(text, call.line - caller.line)
    m = re.compile(r"\b%s\s*\(" % re.escape(call.callee)).search(text, start)
    return text, (m.start() if m else -1)


def is_err_test(k: "Rules", ff: csource.FileFacts, caller: csource.Function,
                call: csource.Call) -> bool:
    """The test of the call's value is IS_ERR(f(...)) (or IS_ERR_OR_NULL)."""
    text, off = call_offset(k, ff, caller, call)
    return off >= 0 and re.search(r"\bIS_ERR(?:_OR_NULL)?\s*\(\s*$", text[:off]) is not None


def tested_passes_on(k: "Rules", ff: csource.FileFacts, caller: csource.Function,
                     call: csource.Call) -> bool:
    """`if (f(...)) { ...; return -EIO; }` or `goto`: the test is true on
    an error and its branch ends the request with one.  A test that only
    logs (bnx2i_init_one's caller frees and returns void) or reads the
    value as data (snd_ali_codec_peek) does not."""
    text, off = call_offset(k, ff, caller, call)
    if off < 0:
        return False
    cond, branch = body.test_branch(text, off)
    return holds_on_failure(cond, call.callee) and branch_passes_on(k, ff, branch)


def holds_on_failure(cond: str, callee: str) -> bool:
    """cond holds when the call of callee in it fails: `f(...)`,
    `f(...) < 0`, `ops->f(...) != 0`, or such a test and-ed with others
    (`info->fbops->fb_open && info->fbops->fb_open(info, 0)`)."""
    whole = "".join(cond.split())
    wrapped = re.match(r"^unlikely\((.*)\)$", whole)
    whole = wrapped.group(1) if wrapped else whole
    if "||" in whole:
        return False
    for part in whole.split("&&"):
        part = unparen(part)
        m = re.match(r"^(?:[\w.>-]*(?:->|\.))?%s\(" % re.escape(callee), part)
        if m and part[csource.matching(part, m.end() - 1, "(", ")") + 1:] in ("", "<0", "!=0"):
            return True
    return False


def branch_passes_on(k: "Rules", ff: csource.FileFacts, branch: str) -> bool:
    """The branch an error takes ends the request with one (a goto, or a
    return of something that is no success value) and on the way only
    releases, logs or reads: a call that undoes what the callee is taken
    to have done (state_store(): adf_dev_down() after any error of
    adf_dev_up(), also the one a killed lock wait returns before doing
    anything) is not an error exit for an error that changed nothing."""
    for name, _ in body.calls_in(branch):
        if not call_leaves_nothing(k, ff, name):
            return False
    if re.search(r"\bgoto\s+\w+\s*;", branch):
        return True
    ret = re.search(r"\breturn\b\s*([^;]*);", branch)
    return bool(ret) and bool(ret.group(1).strip()) and \
        not re.match(r"^\(?(?:0|true|false|NULL|count|len|size)\)?$", ret.group(1).strip())


def result_checked(k: "Rules", ff: csource.FileFacts, caller: csource.Function,
                   call: csource.Call) -> bool:
    """`v = f(...);` is followed by a test or a return of v, and its first
    test is no test of one code or of the success side alone:
    `if (ret == -EALREADY) ...; else if (ret) { adf_dev_down(); ... }`
    (state_store()) treats the other errors as a start that half
    happened; `if (carrier > 0) ...` with no `return carrier` after it
    (lirc_transmit()) reads the error as "none" and goes on."""
    var = call.use.split(":", 1)[1]
    if not re.match(r"^\w+$", var):
        return False
    lines = k.source_lines(ff.path)[call.line - 1:caller.end_line]
    text = "\n".join(lines)
    v = re.escape(var)
    # `return v;`, `return v ? v : count;`, `return v ?: n;` all hand v on.
    if re.search(r"(?:\bif\s*\(\s*!?\s*%s\b|\breturn\s+\(?\s*%s\b|\b%s\s*[<!=]=?\s*0|"
                 r"IS_ERR\w*\(\s*%s\s*\))" % ((v,) * 4), text) is None:
        return False
    first = re.search(r"\bif\s*\(\s*(?:(?:un)?likely\s*\(\s*)?%s\b([^)]*)\)" % v, text)
    if first:
        rest = "".join(first.group(1).split())
        if re.match(r"^==-?[A-Za-z_]", rest):
            return False
        if rest in (">0", ">=0") and \
                not re.search(r"\breturn\s+\(?\s*%s\b" % v, text[first.end():]):
            return False
    return True


def truth_valued(fn: csource.Function) -> bool:
    vals = {v for _, v in fn.returns}
    return bool(vals) and vals <= {"0", "1", "true", "false"} and "1" in vals | {"true"} \
        and ("1" in vals or "true" in vals)


def held_before_call(k: "Rules", caller: csource.Function, callee: str) -> str:
    """What the caller still holds where it drops callee's result.

    Read in text order, not along paths: an acquisition with no release
    of its kind before the call counts as held.  A textual approximation
    errs towards "held" (then the helper stays manual), and it is far
    cheaper than a path search over every acquisition in the file.
    """
    calls = sorted(caller.calls, key=lambda c: c.line)
    for target in (c for c in calls if c.callee == callee and c.use == "discarded"):
        held: list[str] = []
        for c in calls:
            if c.line >= target.line:
                break
            if c.via_member:
                continue
            if k.is_acquire(c.callee):
                held.append(c.callee)
            elif k.tables.is_release(c.callee) and held:
                mine = [a for a in held if k.tables.release_of(a) == c.callee]
                held.remove(mine[-1] if mine else held[-1])
        if held:
            return held[-1] + "()"
    return ""


# Side-effect-free parsers that store their result through a pointer.
PARSER = re.compile(r"^(?:kstrto\w+|sscanf|simple_strto\w+|strtobool)$")


ZERO_TEST = r"\bif\s*\(\s*(?:unlikely\s*\(\s*)?(?:!\s*%(v)s|%(v)s\s*==\s*0)\s*\)?\s*\)"


# Statements that may stand between `t = wait(...);` and its `if (!t)`:
# plain calls and stores, which the timeout path runs too (i2c-bcm-kona's
# `writel(0, dev->base + IER_OFFSET);` masks the interrupts first).
GAP_STATEMENT = re.compile(r"\s*(?!(?:if|for|while|do|switch|return|goto|break|continue|case|"
                           r"default)\b)[A-Za-z_*(][^;{}]*;")
MAX_GAP = 6


def gap_before_test(text: str, pos: int, var: str) -> int:
    """Where the test of var may start after pos: pos itself, or after up
    to MAX_GAP plain statements that do not mention var (nor are labels);
    -1 when something else stands there."""
    for _ in range(MAX_GAP + 1):
        if re.compile(r"\s*" + ZERO_TEST % {"v": re.escape(var)}).match(text, pos):
            return pos
        m = GAP_STATEMENT.match(text, pos)
        if not m or re.search(r"\b%s\b" % re.escape(var), m.group(0)) or \
                re.match(r"\s*\w+\s*:(?!:)", m.group(0)):
            return -1
        pos = m.end()
    return -1


def timeout_branch(text: str, off: int, gap: bool = True) -> tuple[int, int]:
    """(start, end) of the branch that handles a timeout of the `_timeout`
    wait called at offset off, when that test comes right with the wait:
    `if (!wait(...)) BRANCH`, `if (wait(...) == 0) BRANCH`, or `t =
    wait(...);` followed by `if (!t) BRANCH` (or `t == 0`), with gap, also
    after plain statements that leave t alone (gap_before_test).  (-1, -1)
    otherwise."""
    open_ = text.find("(", off)
    close = csource.matching(text, open_, "(", ")") if open_ >= 0 else -1
    if close < 0:
        return (-1, -1)
    before = text[:off]
    if re.search(r"\bif\s*\(\s*(?:unlikely\s*\(\s*)?!\s*$", before):
        m = re.match(r"\s*\)?\s*\)", text[close + 1:])
    elif re.search(r"\bif\s*\(\s*(?:unlikely\s*\(\s*)?$", before):
        m = re.match(r"\s*==\s*0\s*\)?\s*\)", text[close + 1:])
    else:
        var = timeout_result_var(text, off)
        after = re.compile(r"\s*;").match(text, close + 1)
        if not var or not after:
            return (-1, -1)
        test = gap_before_test(text, after.end(), var) if gap else after.end()
        m = re.compile(r"\s*" + ZERO_TEST % {"v": re.escape(var)}).match(text, test) \
            if test >= 0 else None
        if m:
            return (m.end(), body.statement_end(text, m.end()))
        return (-1, -1)
    if not m:
        return (-1, -1)
    start = close + 1 + m.end()
    return (start, body.statement_end(text, start))


def shared_wait_object(k: "Rules", ff: csource.FileFacts, text: str, off: int) -> bool:
    """Whether another function of the file waits on the object the wait at
    off waits on (its last member: `&fmdev->maintask_comp`): a complete()
    still due from the abandoned operation would then wake that other
    wait early (fm_rx_seek() and the commands ->release sends)."""
    open_ = text.find("(", off)
    close = csource.matching(text, open_, "(", ")") if open_ >= 0 else -1
    args = csource.split_args(text[open_ + 1:close]) if close > 0 else []
    m = re.search(r"(\w+)\s*$", args[0]) if args else None
    if not m:
        return True
    member = m.group(1)
    whole = csource.blank_noise("\n".join(k.source_lines(ff.path)))
    waits = re.compile(r"\bwait_\w*\(\s*&?\s*[\w.>()-]*?\b%s\s*[,)]" % re.escape(member))
    return len(waits.findall(whole)) > len(waits.findall(text))


def unshared_timeout_branch(k: "Rules", ff: csource.FileFacts, text: str,
                            off: int, gap: bool = True) -> str | None:
    """The code of the timeout branch of the wait at off, without its
    braces; None when there is none or another wait of the file shares
    the object (shared_wait_object)."""
    start, end = timeout_branch(text, off, gap)
    if start < 0 or shared_wait_object(k, ff, text, off):
        return None
    code = text[start:end].strip()
    if code.startswith("{") and code.endswith("}"):
        code = code[1:-1].strip()
    return code


def timeout_exit_leaves(k: "Rules", ff: csource.FileFacts, text: str, off: int) -> bool:
    """Whether the timeout branch of the wait at off already gives up and
    returns an error, doing nothing on the way but diagnostics, setting
    the error and releasing what the function took before the wait
    (ad74413r's `if (!ret) { ret = -ETIMEDOUT; return ret; }`,
    ath11k_wait_for_peer_delete_done's warning and -ETIMEDOUT).  What the
    function started before the wait is then left behind by that exit
    already: the killable twin's error leaving at the wait leaves the same.
    A branch that cancels or recovers (uniphier_fi2c_recover()) or jumps to
    a label does more than the new exit would."""
    # Not after a gap (gap_before_test): the new exit at the wait would skip
    # the statements the timeout path runs before its test.
    code = unshared_timeout_branch(k, ff, text, off, gap=False)
    if code is None:
        return False
    if re.search(r"\b(?:goto|for|while|do|switch|break|continue)\b", code):
        return False
    ret = re.search(r"\breturn\s+([^;]*);$", code)
    if not ret:
        return False
    value = ret.group(1).strip("() \t")
    if not re.match(r"^-\s*E[A-Z0-9]+$", value):
        set_ = re.findall(r"\b%s\s*=\s*([^;]+);" % re.escape(value), code) \
            if re.match(r"^\w+$", value) else []
        if not set_ or not all(re.match(r"^\(?\s*-\s*E[A-Z0-9]+\s*\)?$", v.strip())
                               for v in set_):
            return False
    t = k.tables
    taken = {t.release_of(name) for name, _ in body.calls_in(text[:off]) if k.is_acquire(name)}
    for name, _ in body.calls_in(code):
        if not (k.is_pure_call(ff, name) or name in taken):
            return False
    for lhs in body.stores_in(code):
        if lhs.strip() not in RET_NAMES and lhs.strip() != value:
            return False
    return True


def timeout_branch_leaves(k: "Rules", ff: csource.FileFacts, text: str, off: int) -> bool:
    """Whether the timeout branch of the wait at off gives up the operation
    and leaves (it ends in a return or a goto), whatever it undoes on the
    way (ceph_osdc_wait_request's `if (left <= 0) { ...
    ceph_osdc_cancel_request(req); }`): the killable twin's error can take
    that same branch (`if (t <= 0)`), and the kill is then an early
    timeout, which the function and its callers handle already.  Not when
    the branch loops back (a retry would run again, failing at once), nor
    when the abandoned operation could still touch this stack frame or
    wake a later wait early: an on-stack completion or buffer handed on, a
    completion that is not re-armed before it is used again in this
    function (init_completion or reinit_completion before the wait), or an
    object another wait of the file shares."""
    code = unshared_timeout_branch(k, ff, text, off)
    if code is None:
        return False
    if re.search(r"\b(?:for|while|do|switch|break|continue)\b", code) or \
            not (re.search(r"(?:\breturn\b[^;]*|\bgoto\s+\w+\s*);$", code) or
                 branch_sets_error_and_gives_up(k, ff, text, off, code)):
        return False
    whole = text[body.body_start(text):off]
    objects = body.stack_objects(text)
    if stack_handoff(k, ff, whole, objects):
        return False
    open_ = text.find("(", off)
    close = csource.matching(text, open_, "(", ")")
    args = csource.split_args(text[open_ + 1:close]) if close > 0 else []
    obj = "".join(args[0].split()).lstrip("&") if args else ""
    # `*wait` (afe_apr_send_pkt's queue through a local pointer): where it
    # points is not read here.
    base = re.match(r"^(\w+)", obj)
    if not base or base.group(1) in objects or \
            re.search(r"\bDECLARE_COMPLETION_ONSTACK\s*\(\s*%s\s*\)" % re.escape(obj), whole):
        return False
    path = r"\s*".join(re.escape(part) for part in re.split(r"(->|\.)", obj))
    if "completion" in text[off:open_] and not re.search(
            r"\b(?:re)?init_completion\s*\(\s*&?\s*%s\s*\)" % path, whole):
        return False
    return True


def branch_sets_error_and_gives_up(k: "Rules", ff: csource.FileFacts, text: str, off: int,
                                   code: str) -> bool:
    """A timeout branch that sets an error and falls through to the
    function's common end (ocores_xfer_core's `ret = -ETIMEDOUT;` then `if
    (ret) { ocores_process_timeout(i2c); return ret; }`, sunxi_nfc_wait_events'
    `if (!ret) ret = -ETIMEDOUT; else ret = 0;`): the kill takes it as
    an early timeout when nothing after it starts new work or loses the
    error.  After the whole `if` (and its else): no sleep primitive and no
    call of a function of the file that sleeps (spi-zynq-qspi's exec_op
    goes on to the next phase and waits again), the error returned and
    never overwritten, and the wait's own result not read again, unless
    the branch overwrote it with the error.  Not in a loop, which would
    go round again."""
    last = re.search(r"(?<![\w>.])\s*(\w+)\s*=\s*\(?\s*-\s*E[A-Z0-9]+\s*\)?\s*;$", code)
    if not last or re.search(r"\b(?:return|goto)\b", code) or body.loop_at(text, off):
        return False
    err = last.group(1)
    start, end = timeout_branch(text, off)
    after = re.compile(r"\s*else\b").match(text, end)
    if after:
        end = body.statement_end(text, after.end())
    rest = text[end:]
    var = timeout_result_var(text, off)
    if var and var != err and re.search(r"\b%s\b" % re.escape(var), rest):
        return False
    e = re.escape(err)
    if re.search(r"\b%s\s*(?:[-+*/%%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*%s\b|\b%s\s*(?:\+\+|--)"
                 % (e, e, e), rest) or \
            not re.search(r"\breturn\s*\(?\s*%s\s*\)?\s*;" % e, rest):
        return False
    sleeps = set(k.prims) | {p.twin for p in k.prims.values()}
    for name, _ in body.calls_in(rest):
        fn = ff.functions.get(name)
        if name in sleeps or fn is not None and any(c.callee in sleeps for c in fn.calls):
            return False
    return True


# Where a path from the sleep stops within its block: the next case of a
# switch, or a statement that leaves.
PATH_ENDS = re.compile(r"\b(?:case\b|default\s*:|return\b|break\s*;|continue\s*;|goto\b)")
ERROR_VALUE = re.compile(r"^(?:-\s*E[A-Z0-9]+|ERR_PTR\s*\(.*\)|ERR_CAST\s*\(.*\))$")


# The verbs of names that take something to be given back: a reference, a
# count, a lock, memory, a registration (refcount_inc_not_zero, kref_get,
# pm_runtime_get_sync, try_module_get, clk_prepare_enable).
TAKES = re.compile(r"(?:^|_)(?:get|hold|grab|pin|ref|inc|lock|trylock|acquire|claim|reserve|"
                   r"alloc|kmalloc|kzalloc|kcalloc|vmalloc|dup|new|create|open|register|attach|"
                   r"map|enable|prepare|start|begin|add|insert|link|subscribe|request)(?:_|$|\d)")


def taken_in(k: "Rules", ff: csource.FileFacts, code: str, mine: set[str]) -> str:
    """The first call in the sleeping function's code that takes something
    by its name (TAKES), or ''.  Known acquisitions are not: the shapes
    give them back themselves; nor is what effects_before() would let pass
    anyway, a call that only reads (macsec's validate_add_txsa()) or writes
    only the function's own objects."""
    for name, at in body.calls_in(code):
        if TAKES.search(name) and not k.is_acquire(name) and not k.is_pure_call(ff, name) \
                and not writes_only_mine(k, ff, code, name, at, mine):
            return f"{name}()"
    return ""


def failure_exit_leaves(k: "Rules", ff: csource.FileFacts, text: str, off: int) -> bool:
    """Whether, after the sleep at off and on its path, the function already
    fails at run time: a call there whose failure it tests
    (`ret = regmap_write(...); if (ret) goto err_unlock;`), whose failure
    branch returns that error and does nothing on the way but diagnostics,
    setting the error and releasing what the function took before the
    sleep.  What was started before the sleep is then left behind by an
    existing error exit already, as it would be by the killable twin's
    (adxl355_set_odr()'s `ret = adxl355_set_op_mode(...); if (ret) goto
    err_unlock;`).  Only the function's own state: a caller's handling of
    a rare failure may be a latent bug (nilfs_rename()).  A parser's
    failure is none: its input may have been checked already
    (adp8860_store() parses what its caller parsed)."""
    close = csource.matching(text, text.find("(", off), "(", ")")
    if close < 0:
        return False
    t = k.tables
    # The sleep's own lock included.
    taken = {t.release_of(name) for name, _ in body.calls_in(text[:close + 1])
             if k.is_acquire(name)}
    depth, i = 0, close + 1
    stops = [m.start() for m in PATH_ENDS.finditer(text, close + 1)]
    for name, at in body.calls_in(text[close + 1:]):
        at += close + 1
        for j in range(i, at):
            depth += text[j] == "{"
            depth -= text[j] == "}"
            if depth < 0:
                return False        # out of the sleep's block: another path
            if depth == 0 and stops and stops[0] == j and unconditional(text, j):
                return False        # the path ends before the call
            while stops and stops[0] <= j:
                stops.pop(0)
        i = at
        if PARSER.match(name) or k.is_pure_call(ff, name) or name in taken or \
                t.is_lock_release(name):
            continue
        code = failure_branch(text, at)
        if not code:
            continue
        # Nothing on the way may change anything (the branches that leave
        # are other paths): an exit after more work leaves more done than
        # the new exit would (igb_sriov_reinit's -ENOMEM after teardown).
        between = body.without_exit_branches(text[close + 1:at])
        if body.stores_in(between) or any(not k.is_pure_call(ff, n)
                                           for n, _ in body.calls_in(between)):
            return False
        return failure_code_leaves(k, ff, text, at, code, taken)
    return False


def unconditional(text: str, at: int) -> bool:
    """The statement at offset at is no branch of an unbraced `if` or `else`
    (`if (data->odr == odr) goto out;` ends only one path)."""
    start = max(text.rfind(";", 0, at), text.rfind("{", 0, at), text.rfind("}", 0, at)) + 1
    return re.match(r"\s*(?:if\s*\(|else\b)", text[start:at]) is None


def failure_code_leaves(k: "Rules", ff: csource.FileFacts, text: str, at: int, code: str,
                        taken: set[str]) -> bool:
    """The failure branch code of the call at at returns an error, doing
    nothing but pure calls, releases of what was taken (taken) and setting
    the error on the way."""
    rets = re.findall(r"\breturn\s+([^;]*);", code)
    if not rets:
        return False
    value = unparen(rets[-1].strip())
    assigned = re.search(r"\b(\w+)\s*=\s*(?:\([^()]*\)\s*)?[\w.>-]*$", text[:at])
    if not ERROR_VALUE.match(value):
        if not re.match(r"^\w+$", value):
            return False
        sets = re.findall(r"\b%s\s*=\s*([^;]+);" % re.escape(value), code)
        if not (assigned and assigned.group(1) == value and not sets) and \
                not (sets and all(ERROR_VALUE.match(unparen(v.strip())) or
                                  re.match(r"^PTR_ERR\s*\(", v.strip()) for v in sets)):
            return False
    for name, _ in body.calls_in(code):
        if not (k.is_pure_call(ff, name) or name in taken or name in ("PTR_ERR", "ERR_PTR")):
            return False
    # A store to shared state puts something back or records the failure.
    return not body.stores_in(code)


def stack_handoff(k: "Rules", ff: csource.FileFacts, window: str, objects: set[str]) -> str:
    """The first of the function's local structs and arrays (objects) that
    the code in window hands to a call that may keep it (`&msg` to
    mbox_send_message()), as "on-stack NAME is handed to CALL()", or ''.
    After an early exit the stack frame is gone while what was started
    may still read or write there.  A call the summaries know to finish
    with it (a parser, a memcpy) keeps nothing."""
    for name, at in body.calls_in(window):
        if k.param_writes(ff, name) is not None:
            continue
        open_ = window.find("(", at)
        close = csource.matching(window, open_, "(", ")")
        if close < 0:
            continue
        for arg in csource.split_args(window[open_ + 1:close]):
            # `&op`, `&op.hdr` or an array `buf` hands the frame on; a
            # member's value (`op.count` to kcalloc()) is a copy.
            m = re.match(r"^\s*(&?)\s*(\w+)\s*((?:\.\s*\w+\s*)*)$", arg)
            if m and m.group(2) in objects and (m.group(1) or not m.group(3)):
                return f"on-stack {m.group(2)} is handed to {name}()"
    return ""


def effects_before(k: "Rules", ff: csource.FileFacts, text: str, off: int,
                   poll: bool = False, floor: int = -1, timeout: bool = False,
                   on_failure: str = "") -> str:
    """What the code between the nearest earlier exit and offset off does
    that an early return there would leave undone: a call that is neither
    side-effect-free nor a known acquisition or release, or a write to
    something that is neither a plain local, a local struct nor an object
    the function allocated.  '' when it only reads.  With poll, the
    enclosing loop (condition and body) counts as part of the wait.  At a
    caller, on_failure is its code for a failure of the call at off
    (failure_branch): what that undoes is not left."""
    if poll and body.loop_header(text, off) >= 0:
        off = body.loop_header(text, off)
    exit_ = body.nearest_exit(text, off)
    if exit_ is not None and exit_.at < floor:
        exit_ = None
    start = max(exit_.offset if exit_ else body.body_start(text), floor)
    # In a switch, the other cases' code is on other paths (cec_ioctl's
    # `case A:` queues work; the lock in `case B:` never ran after it).
    scope = body.blank_span(text, *body.other_cases(text, off))
    # Nor do the cases of an earlier switch that return.
    scope = body.without_returning_cases(scope, off)
    # Nor does the then-branch of an if whose else we are in.
    for span in body.then_branches(text, off):
        scope = body.blank_span(scope, *span)
    window = body.without_exit_branches(scope[start:off])
    t = k.tables
    # Its own objects: locals that are no pointers (`int integer, fract;`
    # too), and what it allocated.
    own = effects.body_locals("", "", text[body.body_start(text):])
    mine = body.local_objects(text) | (own.scalars - own.statics) | {
        m.group(1) for m in re.finditer(r"\b(\w+)\s*=\s*(\w+)\s*\(", text[:off])
        if t.style_of(m.group(2)) == "alloc"} | opened_file(ff, text)
    if timeout and (timeout_exit_leaves(k, ff, text, off) or
                    timeout_branch_leaves(k, ff, text, off)):
        # The timeout exit already leaves what was started (or the kill
        # takes the timeout branch itself); only a buffer of this stack
        # frame handed on must not be left behind.
        handed = stack_handoff(k, ff, text[body.body_start(text):off],
                               body.stack_objects(text))
        return handed or undone_by_exits(k, ff, text, off, exit_)
    if not on_failure and failure_exit_leaves(k, ff, text, off):
        # So does a failure exit after the sleep, of what was started since
        # the nearest earlier exit (which shows what came before it
        # undone), but for what was taken: an existing exit that leaks a
        # reference is a bug a kill must not reach more often (nbd_open's
        # refcount_inc_not_zero(&nbd->refs)).
        taken = taken_in(k, ff, window, mine)
        if taken:
            return f"{taken} is called"
        handed = stack_handoff(k, ff, window, body.stack_objects(text))
        return handed or undone_by_exits(k, ff, text, off, exit_)
    for name, at in body.calls_in(window):
        if writes_only_mine(k, ff, window, name, at, mine):
            continue
        if on_failure and undone_on_failure(k, window, name, at, on_failure):
            continue
        if PARSER.match(name):
            # A parser's out-parameter in shared memory is a store
            # (kstrtoul(buf, 10, &data->cached_daylight_max)).
            for arg in re.findall(r"[(,]\s*&\s*([\w.>-]+)", window[at:window.find(";", at)]):
                base = re.match(r"(\w+)", arg)
                if ("->" in arg or "." in arg) and base and base.group(1) not in mine:
                    return f"{arg} is written by {name}()"
        if not call_leaves_nothing(k, ff, name) or \
                unpaired_toggle(k, name, scope[:start + at]):
            return f"{name}() is called"
        rel = t.release_of(name)
        if k.is_acquire(name) and body.guard_of(window, at)[0] >= 0 and \
                not (rel and re.search(r"\b%s\s*\(" % re.escape(rel), window[at:])):
            # uart_ioctl: `if (cmd == TIOCSRS485) down_write(...)`: held on
            # some paths only, so neither an inline undo nor a label fits all.
            return f"{name}() is taken on some paths only"
    why = undone_by_exits(k, ff, text, off, exit_)
    if not why and not poll:
        why = loop_rounds_before(k, ff, text, off, mine)
    if why:
        return why
    lhs = shared_store(window, mine, on_failure)
    return f"{lhs} is written" if lhs else ""


def opened_file(ff: csource.FileFacts, text: str) -> set[str]:
    """The struct file parameter of a file_operations .open, the file being
    opened: when ->open fails, do_dentry_open() drops that file without
    ->release, so what the open wrote into it (fb_open()'s
    `file->private_data = info;`) is seen by nobody."""
    head = text[:body.body_start(text)]
    name = re.search(r"(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*\{?\s*$", head)
    if not name or not any(r.func == name.group(1) and r.member == "open" and
                           r.struct_type == "file_operations" for r in ff.refs):
        return set()
    return {m.group(1) for m in re.finditer(r"\bstruct\s+file\s*\*\s*(\w+)\s*[,)]", head)}


def writes_only_mine(k: "Rules", ff: csource.FileFacts, code: str, name: str, at: int,
                     mine: set[str]) -> bool:
    """A call that writes only into the function's own objects, or declares
    a new local: memset(&cmd, ...) on a local struct, INIT_LIST_HEAD(&list)
    on a local list, DECLARE_WAITQUEUE(wait, current) (local-writers.tsv),
    or a parser that writes only through its pointer parameters
    (Rules.param_writes) handed `&integer, &fract` of the caller's own."""
    writes = k.param_writes(ff, name)
    if not writes:
        return writes is not None and name in k.tables.local_writers
    open_ = code.find("(", at)
    args = csource.split_args(code[open_ + 1:csource.matching(code, open_, "(", ")")])
    for argn in writes:
        if len(args) < argn:
            return False
        target = re.match(r"^[&(\s]*(?:\([^()]*\)\s*)?(\w+)\s*\)?\s*(?:\[[^\]]*\])?$",
                          args[argn - 1].strip())
        if not (target and target.group(1) in mine):
            return False
    return True


# Names the release pattern takes for an undo that often start a state
# instead (lru_cache_disable() raises a count that lru_cache_enable() drops
# after the sleep), with the calls that would have started it before.
TOGGLES = (("_disable", ("_enable",)), ("_stop", ("_start",)), ("_end", ("_begin", "_start")))


def unpaired_toggle(k: "Rules", name: str, before: str) -> bool:
    """A call the release pattern alone takes for an undo, whose starting
    half the function did not call before it: it changes state itself."""
    if name in k.tables.releases:
        return False
    for suffix, starts in TOGGLES:
        if name.endswith(suffix):
            stem = re.escape(name[:-len(suffix)])
            return not any(re.search(r"\b%s%s\s*\(" % (stem, s), before) for s in starts)
    return False


def call_leaves_nothing(k: "Rules", ff: csource.FileFacts, name: str) -> bool:
    """A call an early return need not undo: side-effect-free, or one the
    tables know (an acquisition, a release, a primitive)."""
    t = k.tables
    if name in ff.functions and name not in t.releases and not t.is_lock_release(name):
        # The file's own function is judged by its body, not by its name:
        # snd_mixer_oss_put_volume1_vol() sets a mixer control.
        return k.is_pure_call(ff, name) or name in t.prims
    return k.is_pure_call(ff, name) or k.is_acquire(name) or t.is_release(name) or \
        name in t.prims


def shared_store(code: str, mine: set[str], on_failure: str = "") -> str:
    """The first store in code to something that is not one of the
    function's own objects (mine), nor set again by the caller's code for
    a failure (on_failure), or ''."""
    restored = {re.sub(r"\s+", "", lhs) for lhs in body.stores_in(on_failure)}
    for lhs in body.stores_in(code):
        base = re.match(r"^[*(\s]*(\w+)", lhs)
        if (not base or base.group(1) not in mine) and re.sub(r"\s+", "", lhs) not in restored:
            return lhs
    return ""


def loop_rounds_before(k: "Rules", ff: csource.FileFacts, text: str, off: int,
                       mine: set[str]) -> str:
    """In a loop, what the loop body does after the sleep ran before it in
    the earlier rounds: a failure in a later round leaves those rounds'
    work done (greybus eject_store(): interfaces already marked ejected and
    disabled, the eject never sent).  Fine only where the loop already has
    an error exit that leaves the same half-done state."""
    start, end = body.loop_span(text, off)
    if start < 0:
        return ""
    if any(body.is_error_exit(text, m) for m in body.EXIT_RE.finditer(text, start, end)):
        return ""
    stmt_end = text.find(";", off)
    rest = body.without_exit_branches(text[stmt_end + 1:end])
    for name, _ in body.calls_in(rest):
        if not call_leaves_nothing(k, ff, name):
            return f"{name}() is called in the loop around it (an earlier round ran it)"
    lhs = shared_store(rest, mine)
    return f"{lhs} is written in the loop around it (an earlier round wrote it)" if lhs else ""


def effects_before_call(k: "Rules", ff: csource.FileFacts, caller: csource.Function,
                        call: csource.Call) -> str:
    """effects_before() at a caller's call of the function on the walk: the
    new error reaches the caller there, so what the caller changed since
    its own nearest earlier exit would stay changed
    (adp8860_bl_l1_daylight_max_store() parses into data->cached_daylight_max,
    then calls adp8860_store(), whose lock would fail).  What the caller's
    own branch for a failure of that call undoes is not left: fbcon_open()
    takes lock_fb_info() before ->fb_open() and unlocks when it fails."""
    text = csource.blank_noise(body.function_text(k.source_lines(ff.path), caller))
    start = body.line_offset(text, call.line - caller.line)
    m = re.compile(r"\b%s\s*\(" % re.escape(call.callee)).search(text, start)
    if not m:
        return ""
    # In a switch dispatcher (kd_ioctl, cec_ioctl), only the call's own
    # case runs before it: the other cases' code is on other paths.
    return effects_before(k, ff, text, m.start(), floor=body.case_label_before(text, m.start()),
                          on_failure=failure_branch(text, m.start()))


def test_after(text: str, close: int) -> tuple[int, str]:
    """The `if` right after the statement whose call closes at offset
    close (`v = f(...); if (TEST)`): the offset of its `(` and TEST without
    blanks or unlikely(); (-1, "") when no `if` follows."""
    m = re.match(r"\s*;\s*if\s*\(", text[close + 1:]) if close > 0 else None
    if not m:
        return -1, ""
    open_ = close + m.end()
    end = csource.matching(text, open_, "(", ")")
    if end < 0:
        return -1, ""
    test = "".join(text[open_ + 1:end].split())
    return open_, re.sub(r"^unlikely\((.*)\)$", r"\1", test)


def failure_branch(text: str, off: int) -> str:
    """The code the caller runs when the call at off fails, up to its exit:
    the branch of `if (call(...))`, `if (a && call(...) < 0)` or of
    `ret = call(...); if (ret) ...`, with the code of the label it jumps
    to.  '' when no such test follows or the branch does not leave."""
    close = csource.matching(text, text.find("(", off), "(", ")")
    if close < 0:
        return ""
    cond, branch = body.test_branch(text, off)
    if cond:
        callee = re.match(r"\w+", text[off:])
        if not callee or not holds_on_failure(cond, callee.group(0)):
            return ""
    else:
        assigned = re.search(r"\b(\w+)\s*=\s*(?:\([^()]*\)\s*)?[\w.>-]*$", text[:off])
        open_, test = test_after(text, close)
        var = assigned.group(1) if assigned else ""
        if not var or test not in (var, var + "<0", var + "!=0", f"IS_ERR({var})"):
            return ""
        branch = body.test_branch(text, open_ + 1)[1]
    leave = re.search(r"\breturn\b[^;]*;|\bgoto\s+(\w+)\s*;", branch)
    if not leave:
        return ""
    code = branch[:leave.end()]
    if leave.group(1):
        code += body.label_code(text, leave.group(1))
    return code


def unparen(expr: str) -> str:
    """expr without the parentheses around all of it."""
    while expr.startswith("(") and csource.matching(expr, 0, "(", ")") == len(expr) - 1:
        expr = expr[1:-1]
    return expr


# Verb pairs of a name and the name of its undo (lock_fb_info and
# unlock_fb_info, iio_channel_start_all_cb and iio_channel_stop_all_cb).
UNDO_VERBS = (("lock", "unlock"), ("get", "put"), ("start", "stop"), ("enable", "disable"),
              ("begin", "end"), ("inc", "dec"), ("add", "del"), ("add", "remove"),
              ("register", "unregister"), ("hold", "release"), ("attach", "detach"),
              ("open", "close"), ("prepare", "unprepare"), ("map", "unmap"), ("pin", "unpin"),
              ("acquire", "release"), ("alloc", "free"), ("create", "destroy"), ("set", "clear"))


def undo_names(k: "Rules", name: str) -> set[str]:
    """The names that undo a call of name: its release in the tables, and
    the name with one verb swapped for its opposite."""
    names = {k.tables.release_of(name)} - {""}
    words = name.split("_")
    for i, w in enumerate(words):
        for do, undo in UNDO_VERBS:
            if w == do:
                names.add("_".join(words[:i] + [undo] + words[i + 1:]))
    return names


def undone_on_failure(k: "Rules", code: str, name: str, at: int, on_failure: str) -> bool:
    """The call of name at offset at in code is undone, on the same first
    argument, by the caller's code for a failure (on_failure)."""
    first = body.first_arg(code, at)
    for undo in undo_names(k, name):
        for m in re.finditer(r"\b%s\s*\(" % re.escape(undo), on_failure):
            if body.first_arg(on_failure, m.start()) == first:
                return True
    return False


def lock_taken_by(release: str) -> str:
    """The name a lock release's acquisitions start with: mutex_unlock ->
    mutex_lock, up_read -> down_read, up -> down, spin_unlock_irq ->
    spin_lock."""
    if release == "up" or release.startswith("up_"):
        return "down" + release[2:]
    return re.sub(r"_irq\w*$|_bh$", "", release).replace("unlock", "lock")


def undone_by_exits(k: "Rules", ff: csource.FileFacts, text: str, off: int,
                    exit_: body.Exit | None) -> str:
    """What the exits next to the sleep undo that the tables cannot see
    taken: the nearest earlier error exit's own branch (`{ kfree(kbuf);
    return -EINVAL; }` after `kbuf = user_input_str(...)`), and the later
    exits of the loop around it (`devlink_put()` of what the iterator
    macro took).  A call there that only reads, or that releases something
    a known acquisition before the sleep took (the sleep's own lock
    included), is what the rules already undo; any other means a bare
    return at the sleep would leave something held."""
    t = k.tables
    line_end = text.find("\n", off)
    before = text[:line_end if line_end >= 0 else len(text)]
    taken = [name for name, _ in body.calls_in(before)]
    undone = {t.release_of(name) for name in taken if k.is_acquire(name)}
    branches = []
    if exit_ is not None and not exit_.label and exit_.at >= 0:
        branches.append(("an earlier error exit", body.exit_block(text, exit_.at)))
    if exit_ is not None and exit_.label:
        # A label that puts state back (nilfs_remount's restore_opts: sets
        # sb->s_flags and the mount options back): a goto to it cannot carry
        # the new error (Rules.label_returns_error), and a bare return would
        # skip what it restores.
        stores = body.stores_in(body.label_code(text, exit_.label) or "")
        if stores:
            return (f"the earlier error exit's label {exit_.label}: puts {stores[0]} back, "
                    "so something is changed")
    branches += [("a later exit of the loop around it", b)
                 for b in body.loop_exits_after(text, off)]
    for where, code in branches:
        for name, at in body.calls_in(code):
            if name in undone and not released_is_taken(k, code, name, at, before):
                # kfree(h2c) where only early_h2c = kmalloc(...) is known
                # (rtw89_debug_priv_early_h2c_set: h2c came from a helper)
                return f"{name}() in {where} undoes something held"
            if k.is_pure_call(ff, name) or name in undone or name in t.prims:
                continue
            if t.is_lock_release(name) and any(a.startswith(lock_taken_by(name)) for a in taken):
                continue        # mutex_unlock() after mutex_lock_interruptible()
            return f"{name}() in {where} undoes something held"
    return ""


def released_is_taken(k: "Rules", code: str, name: str, at: int, before: str) -> bool:
    """The object release name() gets at code[at] is one a known
    acquisition before the sleep returned (`x = kmalloc(...)` for
    kfree(x)), or its argument is not a plain name (not decided here)."""
    open_ = code.find("(", at)
    close = csource.matching(code, open_, "(", ")")
    args = csource.split_args(code[open_ + 1:close]) if close > open_ else []
    arg = args[0].strip() if args else ""
    if not re.match(r"^\w+$", arg):
        return True
    for m in re.finditer(r"\b%s\s*=\s*(\w+)\s*\(" % re.escape(arg), before):
        if k.tables.release_of(m.group(1)) == name:
            return True
    return False


def unchecked_outside(classes: set[str], name: str) -> str:
    """Callers the audit saw outside this file, whose use of the result no
    one checked: direct callers in other files, or a framework that calls
    through a member that is not a root (mmd_phy_indirect ignores MDIO
    write errors; rtnetlink ignores ndo_get_vf_stats)."""
    for cls in sorted(classes):
        if cls.startswith("ignored-by:"):
            return f"{cls[len('ignored-by:'):]}() in another file ignores the result of {name}()"
        if cls.startswith("xcallers:"):
            _, n, path, func = (cls.split(":", 3) + ["", "", ""])[:4]
            return (f"{name}() has {n} caller(s) in other files ({func}() in {path}); "
                    "their handling of the result is not checked")
        if cls.startswith("stored:"):
            return (f"{name}() is stored in {cls[len('stored:'):]}, which is no root; "
                    "the framework's handling of its result is not checked")
    return ""


def void_to_int_problem(k: "Rules", ff: csource.FileFacts, f: csource.Function,
                        reach: reachability.Reach) -> str:
    """Why void f() cannot become int in the same patch, or ''.

    The patch changes its definition, any prototype before it, every
    `return;` and its end, and its callers: so all of them must be in
    this file.  A static function whose address is not taken has no
    other callers (ops members keep their void type)."""
    if not ff.path.endswith(".c"):
        return f"{f.name}() is defined in a header"
    if f.macro:
        return f"{f.name}() is defined by the macro {f.macro}"
    if not f.is_static:
        return f"{f.name}() is not static; callers in other files would have to change too"
    if f.name in ff.address_taken or f.name in reach.root_via:
        return f"the address of {f.name}() is taken; its type is a pointer's type elsewhere"
    # Another configuration's definition stays void: profile.c's
    # `#define profile_flip_buffers() do { } while (0)` without CONFIG_SMP.
    text = "\n".join(k.source_lines(ff.path))
    name = re.escape(f.name)
    if re.search(r"(?m)^\s*#\s*define\s+%s\b" % name, text) or \
            len(re.findall(r"(?m)^[^\n;=]*\b%s\s*\([^;{]*\)\s*\{" % name, text)) > 1:
        return f"{f.name}() has another definition in the file (another configuration's)"
    return ""


def plumb_problem(k: "Rules", ff: csource.FileFacts, caller: csource.Function,
                  callee: csource.Function, depth: int, reach: reachability.Reach,
                  to_int: set[str] | None = None) -> str:
    """Why a caller that drops callee's result cannot be made to check it.
    A void caller may become int in turn (added to to_int)."""
    if depth + 1 > PLUMB_DEPTH:
        return f"{caller.name}() ignores the result of {callee.name}(), too far up to plumb"
    if caller.return_type == "void" and to_int is not None:
        why = void_to_int_problem(k, ff, caller, reach)
        if why:
            return f"{caller.name}() ignores the result of {callee.name}() and returns void: {why}"
        to_int.add(caller.name)
    elif not k.tables.return_types.carries_errno(caller.return_type):
        return (f"{caller.name}() ignores the result of {callee.name}() and returns "
                f"{caller.return_type or 'nothing'}")
    if caller.name in reach.mnf_kinds:
        return f"{caller.name}() ignores the result of {callee.name}() on a must-not-fail path"
    held = held_before_call(k, caller, callee.name)
    if held:
        return (f"{caller.name}() ignores the result of {callee.name}() while holding "
                f"{held}")
    text, offs = body.call_offsets(k.source_lines(ff.path), caller,
                                   callee.name, "")
    why = next((w for w in (effects_before(k, ff, text, off) for off in offs) if w), "")
    if why:
        return (f"{caller.name}() ignores the result of {callee.name}() and before it "
                f"{why}, which a new early return would not undo")
    return ""


def root_member_problem(k: "Rules", path: str, name: str,
                        reach: reachability.Reach) -> str:
    """Why the member that makes name a root (in its file or, from the
    whole-tree audit, in another) is no proof that the error reaches a
    system call, or ''.

    - A store whose struct type is unknown (`x.set = f` on a local struct)
      matched a root rule by the member's name alone, which for a generic
      name is no proof (pi3usb30532_mux_set sits in typec_mux_desc.set, not
      kernel_param_ops.set); the other ways the whole-tree graph finds in
      are calls through that member (mdio_mux_read: __mdiobus_read()'s
      bus->read(), whose callers take a failure as register data).
    - A member the kernel also calls itself, dropping a failure
      (unchecked-members.tsv: virtblk_getgeo, ocfs2_flock at close).
    """
    vias = {reach.root_via.get(name, "")} | {
        c[len("via:"):] for c in k.external_classes(path, name) if c.startswith("via:")}
    vias.discard("")
    typed = sorted(v for v in vias if not v.startswith("?."))
    for via in typed:
        member = k.tables.unchecked_members.get(via)
        if member is not None and member.applies(
                path, lambda: "\n".join(k.source_lines(path))):
            return f"{name}() is {via}, which the kernel also calls itself ({member.reason})"
    if typed:
        return ""
    for via in sorted(vias):
        member = via[2:]
        if not k.tables.untyped_root_ok(member):
            return (f"{name}() is a root only through a store to .{member} whose struct "
                    "type is unknown; not proof of a system-call path, and callers through "
                    "the member are not checked")
    return ""


def root_called_outside(classes: set[str], name: str) -> str:
    """A root that other files also call directly: those callers must
    handle the error too, and no one checked them (ubifs_getattr is
    inode_operations.getattr, and ubifs_symlink_getattr() in file.c calls
    it and drops the result)."""
    for cls in sorted(classes):
        if cls.startswith("xcallers:"):
            _, n, path, func = (cls.split(":", 3) + ["", "", ""])[:4]
            return (f"the root {name}() is also called directly by {n} function(s) in other "
                    f"files ({func}() in {path}); their handling of the result is not checked")
    return ""


def signal_free_caller(k: "Rules", ff: csource.FileFacts, caller: csource.Function,
                       reach: reachability.Reach) -> bool:
    """A caller that runs only in kernel threads, work items, timers, ...
    (Rules.signal_free_only): the callee's killable sleep never fails
    there, so it may drop the result.  Its callers must all be known: the
    whole-tree graph saw them, or (in one file's view) it is a static
    kernel thread, work or timer function itself, which only its framework
    calls; and its address is taken only where that makes it a root."""
    if caller.name in ff.address_taken and caller.name not in reach.root_via:
        return False
    if k.external is None and not (caller.is_static and
                                   reach.mnf.get(caller.name) == [caller.name]):
        return False
    return k.signal_free_only(ff.path, caller.name, reach)


def root_callers_problem(k: "Rules", ff: csource.FileFacts, f: csource.Function,
                         reach: reachability.Reach) -> str:
    """A root that its own file also calls directly: those callers must
    handle the error too (gpio_mockup_get is gpio_chip.get, and
    gpio_mockup_debugfs_read() prints its result as the line's value).
    Nothing is plumbed here: a caller that does not pass the error on or
    check it makes the site manual."""
    for caller, call in callers(ff, f.name):
        if call.use == "returned" or signal_free_caller(k, ff, caller, reach):
            continue
        if call.use.startswith("assigned:") and result_checked(k, ff, caller, call):
            continue
        return (f"{caller.name}() calls the root {f.name}() directly and does not check "
                "its result")
    return ""


# The walk up the callers stops, manual, beyond this many functions.
MAX_WALK = 40

Caller = tuple[csource.FileFacts, csource.Function, csource.Call]


def member_callers(k: "Rules", ff: csource.FileFacts, f: csource.Function,
                   outside: set[str]) -> tuple[list[Caller], str]:
    """The call sites of the members f's address is stored in, from the
    audit's whole-tree graph (graph/members.py), each with its file's
    facts; or why they are not known.  Only a static function whose file
    does nothing with its address but store it has no other callers."""
    taken = f"address of {f.name}() is taken; indirect callers are not checked"
    if f.name not in ff.stored_only:
        return [], taken + "; it is passed on, not only stored in a member"
    count, entries = -1, []
    for cls in sorted(outside):
        if cls.startswith("mcallers:open:"):
            _, _, member, where = cls.split(":", 3)
            return [], (f"address of {f.name}() is stored in .{member}, which is also used "
                        f"where its calls cannot be followed ({where})")
        if cls.startswith("mcallers:many:"):
            return [], (f"address of {f.name}() is stored in members called from "
                        f"{cls.rsplit(':', 1)[1]} functions; not checked")
        if cls.startswith("mcallers:"):
            count = int(cls.split(":")[1])
        elif cls.startswith("mcaller:"):
            entries.append(cls.split(":")[1:4])
    if count < 0:
        return [], taken + ("" if k.external is not None else " (run make audit)")
    if not entries:
        return [], f"address of {f.name}() is stored in members that nothing in the tree calls"
    out: list[Caller] = []
    for path, func, member in entries:
        ffc, why = caller_file(k, path, f"{func}() in {path} calls .{member} and could not be read")
        if ffc is None:
            return [], why
        caller = ffc.functions.get(func)
        calls = [c for c in caller.calls if c.via_member and c.callee == member] if caller else []
        if not calls:
            return [], f"{func}() in {path} calls .{member}, and the call was not found"
        out += [(ffc, caller, c) for c in calls]
    return out, ""


def caller_file(k: "Rules", path: str, unread: str) -> tuple[csource.FileFacts | None, str]:
    """The facts of a caller's file, or None and why not: a file a reach.tsv
    subset does not hold (the precision and boot-fi subsets keep one step
    of callers; the walk cannot see its callers' facts, so it stops there),
    or one that cannot be read (unread)."""
    if k.external_files is not None and path not in k.external_files:
        return None, f"callers in {path} are outside the reach facts given (a subset)"
    try:
        return k.file_facts(path), ""
    except OSError:
        return None, unread


def global_callers(k: "Rules", ff: csource.FileFacts, f: csource.Function,
                   outside: set[str]) -> tuple[list[Caller], str]:
    """The calls of a global function in other files, from the audit's one
    grep of the tree (graph/members.py), each in its file's facts; or why
    they are not known."""
    count, entries = -1, []
    for cls in sorted(outside):
        if cls.startswith("gcallers:open:"):
            return [], (f"{f.name}() is not static, and a mention at {cls[len('gcallers:open:'):]} "
                        "hides callers the tool cannot follow")
        if cls == "gcallers:exported":
            continue    # its callers in the tree decide; batches say the rest were not seen
        if cls.startswith("gcallers:many:"):
            return [], f"{f.name}() is called from {cls.rsplit(':', 1)[1]} other files; not checked"
        if cls.startswith("gcallers:"):
            count = int(cls.split(":")[1])
        elif cls.startswith("gcall:"):
            _, path, lines = cls.split(":", 2)
            entries.append((path, [int(x) for x in lines.split(";")]))
    if count < 0:
        return [], (f"{f.name}() is not static; callers in other files are not checked" +
                    ("" if k.external is not None else " (run make audit)"))
    out: list[Caller] = []
    for path, lines in entries:
        ffc, why = caller_file(k, path, f"{f.name}() is called in {path}, which could not be read")
        if ffc is None:
            return [], why
        own = ffc.functions.get(f.name)
        if own is not None and own.is_static:
            continue        # that file's calls bind to its own static function
        calls = [(fn, c) for fn in ffc.functions.values() for c in fn.calls
                 if c.callee == f.name and not c.via_member]
        seen = {c.line for _, c in calls}
        lost = [n for n in lines if n not in seen]
        if lost:
            return [], (f"a call of {f.name}() at {path}:{lost[0]} is outside any function "
                        "the tool reads")
        out += [(ffc, fn, c) for fn, c in calls]
    return out, ""


def killable_mnf(k: "Rules", ff: csource.FileFacts, f: csource.Function) -> str:
    """A caller in another file on a must-not-fail path that can be killed:
    the global graph spreads must-not-fail along direct calls only, so the
    member call that leads here from it was not followed."""
    _, mnf_kinds, _, _ = k.classes(ff.path, f.name, k.reach[ff.path])
    kinds = sorted(x for x in mnf_kinds if k.tables.roots.contexts.can_be_killed(x))
    if kinds:
        return (f"{f.name}() in {ff.path}, which calls it on the way, is reachable from "
                f"must-not-fail root {', '.join(kinds)}")
    return ""


def callers_problem(k: "Rules", ff: csource.FileFacts, fn: csource.Function,
                    reach: reachability.Reach, like_timeout: bool = False) -> str:
    """A reason the new error would be lost on the way back, or ''.

    With like_timeout, the new error leaves fn where its timeout error
    already does: what a caller did before the call already stays behind
    on that error, so only a caller that treats -ETIMEDOUT apart (a reset,
    a retry) stops the walk.

    The walk goes up through callers in this file and, with the audit's
    whole-tree data, through the call sites of the members a function is
    stored in, wherever they are.  Callers in other files are not plumbed:
    each must already check the result and pass an error on.

    When there is none, the callers to plumb are added to k.plan.
    """
    plan: set[tuple[str, str]] = set()
    # The void functions of this file that become int: fn, and callers
    # that drop its result and must pass the error on in turn.
    to_int: set[str] = {fn.name} if fn.return_type == "void" else set()
    seen: set[tuple[str, str]] = set()
    todo: list[tuple[csource.FileFacts, csource.Function, int]] = [(ff, fn, 0)]
    while todo:
        fff, f, depth = todo.pop()
        if (fff.path, f.name) in seen:
            continue
        seen.add((fff.path, f.name))
        if len(seen) > MAX_WALK:
            return (f"the error of {fn.name}() would pass through more than {MAX_WALK} "
                    "functions; not all checked")
        freach = reach if fff is ff else k.reach[fff.path]
        if fff is not ff:
            why = killable_mnf(k, fff, f)
            if why:
                return why
        outside = k.external_classes(fff.path, f.name)
        found: list[Caller] = [(fff, c, call) for c, call in callers(fff, f.name)]
        stored = f.name in fff.address_taken and f.name not in freach.root_via
        checked: set[str] = set()       # classes of callers found and read here
        if stored:
            more, why = member_callers(k, fff, f, outside)
            if why:
                return why
            found += more
            checked |= {c for c in outside if c.startswith("stored:")}
        if f.name in freach.root_via or "root" in outside:
            # A root here or one the audit found in another file (an ops
            # table there): what makes it one must hold, and its direct
            # callers here still count.
            why = root_member_problem(k, fff.path, f.name, freach) or \
                root_callers_problem(k, fff, f, freach) or root_called_outside(outside, f.name)
            if why:
                return why
            continue
        if not f.is_static:
            # Its calls in other files, from the audit's grep of the tree:
            # one in a header's inline function (iwl_mvm_mei_get_ownership
            # in mvm.h), in assembly or in a macro leaves them unknown.
            more, why = global_callers(k, fff, f, outside)
            if why:
                return why
            found += more
            checked |= {c for c in outside if c.startswith("xcallers:")}
        if f is not fn and not k.tables.return_types.carries_errno(f.return_type) and \
                not (fff is ff and f.name in to_int):
            return f"{f.name}() returns {f.return_type}; the error cannot pass through"
        why = unchecked_outside(outside - checked, f.name)
        if why:
            return why
        if not found and k.external is not None:
            continue
        for ffc, caller, call in found:
            why = caller_problem(k, ff, (ffc, caller, call), reach if ffc is ff else k.reach[ffc.path],
                                 f, depth, plan, todo, like_timeout, to_int)
            if why:
                return why
    if truth_valued(fn):
        return f"{fn.name}() returns a truth value; callers would read -EINTR as true"
    k.plan.setdefault(ff.path, set()).update(plan)
    k.to_int.setdefault(ff.path, set()).update(to_int)
    return ""


def caller_problem(k: "Rules", ff: csource.FileFacts, at: Caller, creach: reachability.Reach,
                   f: csource.Function, depth: int, plan: set[tuple[str, str]],
                   todo: list[tuple[csource.FileFacts, csource.Function, int]],
                   like_timeout: bool = False, to_int: set[str] | None = None) -> str:
    """One call of f on the walk: why the error is lost there, or '' with
    the caller queued (todo) or planned (plan: this file's callers that
    must now check the result; to_int: those of them that become int)."""
    ffc, caller, call = at
    if signal_free_caller(k, ffc, caller, creach):
        return ""       # the twin never fails there
    name = f.name if not call.via_member else f"->{call.callee}"
    if like_timeout:
        text = csource.blank_noise(body.function_text(k.source_lines(ffc.path), caller))
        if re.search(r"\bETIMEDOUT\b", text):
            return (f"{caller.name}() treats -ETIMEDOUT apart (a reset, a retry), which the "
                    f"new error of {name}() would skip")
        why = ""
    else:
        why = effects_before_call(k, ffc, caller, call)
    if why:
        return f"{caller.name}(): {why} before it calls {name}(); the new error would not undo it"
    if call.use == "discarded":
        if ffc is not ff or call.via_member:
            return (f"{caller.name}() in {ffc.path} ignores the result of {name}(); "
                    "calls through members and callers in other files are not plumbed")
        why = plumb_problem(k, ffc, caller, f, depth, creach, to_int)
        if why:
            return why
        plan.add((caller.name, f.name))
        todo.append((ffc, caller, depth + 1))
    elif call.use == "other":
        return f"{caller.name}() uses the result of {name}() in a way not checked"
    elif call.use == "tested" and not f.return_type.endswith("*"):
        if not tested_passes_on(k, ffc, caller, call):
            return (f"{caller.name}() tests the result of {name}() but does not "
                    "end with an error")
        # Its own callers must take the error on in turn.
        todo.append((ffc, caller, depth))
    elif call.use == "returned":
        todo.append((ffc, caller, depth))
    elif call.use.startswith("assigned:"):
        if not result_checked(k, ffc, caller, call):
            return f"{caller.name}() does not check the result of {name}()"
        # A caller that checks passes the error on: its callers count
        # too (mlxbf2_gpio_direction_input sits in gpio_chip).
        todo.append((ffc, caller, depth))
    return ""


# Locals the twin's result may go into: signed, or unsigned in a declaration
# of its own that the tsigned rule makes `long`.
SIGNED_DECL = r"(?:long(?:\s+int)?|int|s32|s64|ssize_t|signed\s+long|signed\s+int)"
UNSIGNED_ALONE = r"unsigned(?:\s+long|\s+int)"


def timeout_result_var(text: str, off: int) -> str:
    """The local the `_timeout` wait at off is assigned to, or ''."""
    m = re.search(r"(?:^|[;{}]\s*)(\w+)\s*=\s*$", text[:off])
    return m.group(1) if m else ""


def result_type_problem(text: str, var: str, off: int) -> str:
    """The twin's negative result must survive in var: a signed local, or an
    unsigned one declared alone (the tsigned rule makes it `long`).  An int
    cannot hold the time left of an endless wait."""
    v = re.escape(var)
    decl = re.search(r"(?m)^\s*(%s)\s+(?:\w+\s*(?:=[^,;]*)?,\s*)*%s\s*(?:=[^,;]*)?[,;]"
                     % (SIGNED_DECL, v), text)
    alone = re.search(r"(?m)^\s*(%s)\s+%s\s*(?:=[^,;]*)?;" % (UNSIGNED_ALONE, v), text)
    if not decl and not alone:
        return f"{var} is not a signed local the kill's negative result could stay in"
    if decl and decl.group(1).startswith(("int", "s32")) and \
            re.search(r"MAX_SCHEDULE_TIMEOUT|LONG_MAX", text[off:text.find(";", off)]):
        return f"int {var} cannot hold the time left of an endless wait"
    return ""
