"""Questions about one function's text: where a call stands, loops, macros.

These read the C text with comments and strings blanked (csource.blank_noise)
and answer by offsets, so they are cheap and need no parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from killable.scan import csource


def function_text(lines: list[str], fn: csource.Function) -> str:
    """The function's lines, joined, as written."""
    return "\n".join(lines[fn.line - 1:fn.end_line])


def call_offsets(lines: list[str], fn: csource.Function, prim: str,
                 args: str) -> tuple[str, list[int]]:
    """The function's blanked text and where in it the calls prim(args) stand."""
    body = csource.blank_noise(function_text(lines, fn))
    offs = []
    want = "".join(args.split())
    for m in re.finditer(r"\b%s\s*\(" % re.escape(prim), body):
        close = csource.matching(body, m.end() - 1, "(", ")")
        if "".join(body[m.end():close].split()) == want or not want:
            offs.append(m.start())
    return body, offs


def loop_at(body: str, off: int) -> bool:
    """Whether offset off of a function body sits inside a loop body."""
    stack: list[bool] = []
    pending = False
    for m in re.finditer(r"\b(?:while|for|do)\b|[{};]", body[:off]):
        tok = m.group(0)
        if tok == "{":
            stack.append(pending or (bool(stack) and stack[-1]))
            pending = False
        elif tok == "}":
            if stack:
                stack.pop()
        elif tok == ";":
            if not body[m.start():m.start() + 1].strip() == ";":
                pending = False
        else:
            pending = True
    return pending or (bool(stack) and stack[-1])


def macro_at(lines: list[str], line: int) -> str:
    """The macro whose #define holds a line, if any."""
    i = line - 1
    while i > 0 and lines[i - 1].rstrip().endswith("\\"):
        i -= 1
    m = re.match(r"\s*#\s*define\s+(\w+)", lines[i]) if i < len(lines) else None
    return m.group(1) if m and (i == line - 1 or lines[line - 2].rstrip().endswith("\\")) \
        else ""


# ---- what happens before a sleep ------------------------------------------

# Words before a `(` that are no call: statements, operators, and the type
# names of a declarator in parentheses (`const int (*port_count)[N] = ...`
# declares a pointer to an array; it calls nothing).
STATEMENT_WORDS = frozenset(("if", "while", "for", "switch", "return", "do", "else", "case",
                             "goto"))
KEYWORDS = STATEMENT_WORDS | frozenset((
    "sizeof", "typeof", "__typeof__", "_Generic", "defined", "__builtin_expect", "alignof",
    "offsetof", "void", "char", "short", "int", "long", "signed", "unsigned", "float", "double",
    "bool", "_Bool", "const", "volatile"))
EXIT_RE = re.compile(r"\breturn\b[^;]*;|\bgoto\s+(\w+)\s*;")
CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
# An assignment operator (not ==, <=, >=, !=) or an increment.
ASSIGN_RE = re.compile(r"(?<![=!<>])(?:<<|>>|[-+*/%&|^])?=(?!=)|\+\+|--")


@dataclass
class Exit:
    offset: int        # where what follows the exit begins (see nearest_exit)
    label: str         # the goto's label, or "" for a return
    text: str
    tested: str = ""   # a call the exit's guard tests the result of: what it
                       # got is held after the exit, but not at the label
    at: int = -1       # where the exit statement itself begins


def body_start(text: str) -> int:
    """The offset just inside the function's opening brace."""
    i = text.find("{")
    return i + 1 if i >= 0 else 0


def matching_back(text: str, j: int, open_c: str = "(", close_c: str = ")") -> int:
    """Index of the `(` (open_c) that the `)` (close_c) at j closes, or -1."""
    depth = 0
    for k in range(j, -1, -1):
        if text[k] == close_c:
            depth += 1
        elif text[k] == open_c:
            depth -= 1
            if depth == 0:
                return k
    return -1


def open_brace_before(text: str, pos: int) -> int:
    """Index of the `{` of the block that holds pos (the first unmatched
    one before it), or -1."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        if text[i] == "}":
            depth += 1
        elif text[i] == "{":
            if depth == 0:
                return i
            depth -= 1
    return -1


def guard_of(text: str, start: int) -> tuple[int, str]:
    """The `if (...)` that guards the statement at start, as (offset of the
    `if`, its condition), or (-1, "").  Both `if (c) stmt;` and
    `if (c) { ...; stmt; }` count."""
    before = text[:start].rstrip()
    if before.endswith(")"):
        j = len(before) - 1
    else:
        i = open_brace_before(text, start)
        if i < 0:
            return -1, ""
        j = len(text[:i].rstrip()) - 1
        if j < 0 or text[j] != ")":
            return -1, ""
    k = matching_back(text, j)
    m = re.search(r"\bif\s*$", text[:max(k, 0)])
    if k < 0 or not m:
        return -1, ""
    return m.start(), text[k + 1:j]


def is_error_exit(text: str, m: re.Match) -> bool:
    """A goto, or a return of an error: a -E constant, ERR_PTR/PTR_ERR, or
    a variable that its guard tests (`if (ret) return ret;`).  Other
    returns (`return 0;`, `if (ret || same) return ret;`) end the request
    with success, so they say nothing about what is held."""
    if m.group(1):
        # `goto out;` where `out: return 0;` ends the request with success
        # (nilfs_remount: what it set before stays set on that path).
        return re.search(r"^\s*%s\s*:\s*return\s+0\s*;" % re.escape(m.group(1)), text,
                         re.M) is None
    value = m.group(0)[len("return"):].rstrip(";").strip()
    if re.match(r"^\(?-\s*E[A-Z0-9]+\)?$", value) or re.search(r"\b(?:ERR_PTR|PTR_ERR)\b", value):
        return True
    if re.match(r"^\w+$", value):
        _, cond = guard_of(text, m.start())
        cond = "".join(cond.split())
        return cond in (value, f"{value}<0", f"{value}!=0", f"IS_ERR({value})",
                        f"unlikely({value})", f"unlikely({value}<0)")
    return False


def tests_value(cond: str, var: str) -> bool:
    """cond tests var itself (`!fd`, `fd < 0`, `IS_ERR(fd)`), not merely
    passes it on (`copy_from_user(req, ...)`)."""
    c = re.sub(r"^unlikely\((.*)\)$", r"\1", cond.strip()).strip()
    v = re.escape(var)
    return re.match(r"^(?:!\s*%s|%s|%s\s*(?:[<>]=?|[!=]=)\s*[-\w]+|"
                    r"!?\s*IS_ERR(?:_OR_NULL)?\(\s*%s\s*\))$" % (v, v, v, v), c) is not None


# How many statements before an exit's guard may lie between it and the
# call whose result the guard tests.
TESTED_LOOKBACK = 4


def nearest_exit(text: str, off: int) -> Exit | None:
    """The last error exit (see is_error_exit) before offset off, in text
    order.  Its offset is where its guard begins: a guard that takes
    something (`if (!refcount_inc_not_zero(...)) return -EINVAL;`) holds
    it after the exit, so the guard is part of what comes after."""
    last = None
    for m in EXIT_RE.finditer(text, body_start(text), off):
        if is_error_exit(text, m):
            last = m
    if last is None:
        return None
    guard, cond = guard_of(text, last.start())
    if guard < 0:
        return Exit(last.end(), last.group(1) or "", last.group(0), at=last.start())
    # `v = take(...); if (v) return v;`: what take() got on success is held
    # after the exit, so its statement belongs to what comes after too; so
    # do the statements between (`fd = open_file(...); __putname(name);
    # if (fd < 0) return fd;` in hostfs_open()).
    tested = ""
    prev_end = text.rfind(";", 0, guard)
    for step in range(TESTED_LOOKBACK):
        if prev_end <= 0:
            break
        prev_start = max(text.rfind(";", 0, prev_end), text.rfind("{", 0, prev_end),
                         text.rfind("}", 0, prev_end)) + 1
        # `case X:` and labels before the statement are not part of it.
        # A declaration (`int ret = take(...);`) counts like an assignment.
        m = re.match(r"\s*(?:(?:case\b[^:;]*|default|\w+)\s*:(?!:)\s*)*"
                     r"(?:(?:const|struct|union|unsigned|signed|\w+)\s+\**\s*)*(\w+)\s*=[^=]",
                     text[prev_start:prev_end])
        call = CALL_RE.search(text, prev_start, prev_end)
        # Next to the guard, a mention in the condition will do; further
        # back, the condition must test the variable itself.
        if m and call and (tests_value(cond, m.group(1)) if step else
                           re.search(r"\b%s\b" % re.escape(m.group(1)), cond)):
            guard = prev_start
            tested = call.group(1)
            break
        if text[prev_start - 1:prev_start] in "{}":
            break       # the start of the guard's block: no take() to find
        prev_end = prev_start - 1
    return Exit(guard, last.group(1) or "", last.group(0), tested, last.start())


def exit_block(text: str, at: int) -> str:
    """What an exit's own branch does before it: for the exit statement at
    offset at in `if (c) { kfree(kbuf); return -EINVAL; }`, `kfree(kbuf);`.
    '' when the exit is not the last statement of a braced branch."""
    if text[:at].rstrip().endswith((")", "else")):
        return ""       # `if (c) return x;`: the branch is the exit alone
    depth = 0
    for i in range(at - 1, -1, -1):
        if text[i] == "}":
            depth += 1
        elif text[i] == "{":
            if depth == 0:
                head = text[:i].rstrip()
                if head.endswith("else"):
                    return text[i + 1:at]
                k = matching_back(text, len(head) - 1) if head.endswith(")") else -1
                return text[i + 1:at] if k >= 0 and re.search(r"\bif\s*$", text[:k]) else ""
            depth -= 1
    return ""


def loop_exits_after(text: str, off: int) -> list[str]:
    """The branches of the innermost loop around offset off that leave it
    after off (`{ ...; goto out; }`, `break`, `return`), as exit_block
    gives them: each undoes what one round of the loop holds."""
    head = loop_header(text, off, macros=True)
    if head < 0:
        return []
    open_ = text.find("{", head)
    end = csource.matching(text, open_, "{", "}") if open_ >= 0 else -1
    if end < off:
        return []
    return [exit_block(text, m.start())
            for m in re.finditer(r"\breturn\b[^;]*;|\bgoto\s+\w+\s*;|\bbreak\s*;", text[:end])
            if m.start() > off]


def calls_in(text: str) -> list[tuple[str, int]]:
    """Names called in a stretch of code, with their offsets."""
    return [(m.group(1), m.start()) for m in CALL_RE.finditer(text)
            if m.group(1) not in KEYWORDS]


def first_arg(text: str, call_off: int) -> str:
    """The first argument of the call at call_off, without blanks and `&`."""
    open_ = text.find("(", call_off)
    close = csource.matching(text, open_, "(", ")") if open_ >= 0 else -1
    args = csource.split_args(text[open_ + 1:close]) if close > 0 else []
    return "".join(args[0].split()).lstrip("&") if args else ""


LOCAL_DECLARATION = re.compile(r"^(?:(?:const|static|struct|union|enum|unsigned|signed|volatile)\s+)*"
                               r"\w+[\s*]+\w+(?:\s*\[[^\]]*\])*$")

# `{ .len = 2 }`, `[3] = x`: an initializer's member or element, not a store.
DESIGNATOR = re.compile(r"^(?:\.\s*\w+|\[[^\]]*\])(?:\s*\.\s*\w+|\s*\[[^\]]*\])*$")


def stores_in(text: str) -> list[str]:
    """Left-hand sides that are not plain locals: members, derefs, elements.

    A plain identifier is taken for a local (a global assigned before a
    sleep is rare and is not seen here).
    """
    out = []
    for m in ASSIGN_RE.finditer(text):
        start = max(text.rfind(";", 0, m.start()), text.rfind("{", 0, m.start()),
                    text.rfind("}", 0, m.start()), text.rfind("(", 0, m.start())) + 1
        lhs = text[start:m.start()].strip()
        # `if (!gdev->disconnected) ret = ...`: a condition's `)` ends it too,
        # but `(*p) = v` and `(p)->x = v` keep their parenthesis.
        tail = lhs[lhs.rfind(")") + 1:].strip() if ")" in lhs else ""
        if re.match(r"^[A-Za-z_]", tail):
            lhs = tail
        if m.group(0) in ("++", "--") and not lhs:
            # ++x: the operand follows.
            end = min([i for i in (text.find(";", m.end()), text.find(")", m.end())) if i >= 0]
                      or [len(text)])
            lhs = text[m.end():end].strip()
        # `else buf[i] = c;`: the statement word is not part of the place.
        lhs = re.sub(r"^(?:else|do)\b\s*", "", lhs)
        if not lhs or "," in lhs or DESIGNATOR.match(lhs):
            continue
        call = re.search(r"(\w+)\s*$", text[:start - 1]) if text[start - 1:start] == "(" else None
        if call and call.group(1) not in STATEMENT_WORDS and \
                re.match(r"^\*+\s*\w+\s*\)\s*\[", lhs):
            continue    # `const int (*rows)[N] = ...` declares a pointer to an array
        if call and lhs.endswith(")") and lhs.count(")") == 1 and \
                call.group(1) not in KEYWORDS:
            # A macro that names a place (f2fs's `MAIN_SECS(sbi) -= secs;`,
            # which is sbi->sm_info->main_secs): a store to what it reaches.
            out.append(" ".join((call.group(1) + "(" + lhs).split()))
            continue
        if re.search(r"->|\.\s*\w+\s*$|\]\s*$", lhs) or lhs.startswith("*"):
            # A declaration such as `struct foo *f = ...` ends in a plain name,
            # or in its array's bounds: `u8 reg[2] = { ... }` (dt9812's
            # commands), `struct spi_transfer t[] = { ... }` initialize the
            # function's own array.
            if LOCAL_DECLARATION.match(lhs):
                continue
            out.append(" ".join(lhs.split()))
    return out


def locals_assigned(text: str) -> set[str]:
    """Plain names assigned in text (`aux_mutex = &rb->aux_mutex;`): the
    locals, which stores_in leaves out."""
    out = set()
    for m in ASSIGN_RE.finditer(text):
        if m.group(0) in ("++", "--"):
            continue
        start = max(text.rfind(";", 0, m.start()), text.rfind("{", 0, m.start()),
                    text.rfind("}", 0, m.start()), text.rfind("(", 0, m.start())) + 1
        name = re.search(r"(\w+)\s*$", text[start:m.start()])
        if name and not re.search(r"->|\.|\]", text[start:m.start()]):
            out.add(name.group(1))
    return out


def test_branch(text: str, call_off: int) -> tuple[str, str]:
    """For a call at call_off that an `if` tests, (the condition, the
    branch taken when it holds), or ("", "") when the call is not the
    condition of an if."""
    depth = 0
    for i in range(call_off - 1, -1, -1):
        ch = text[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                if not re.search(r"\bif\s*$", text[:i]):
                    # unlikely(f()) / likely(...): look one level further out
                    if re.search(r"\b(?:un)?likely\s*$", text[:i]):
                        depth = 0
                        continue
                    return "", ""
                close = csource.matching(text, i, "(", ")")
                cond = text[i + 1:close]
                rest = text[close + 1:]
                lead = len(rest) - len(rest.lstrip())
                if rest.lstrip().startswith("{"):
                    start = close + 1 + lead
                    branch = text[start + 1:csource.matching(text, start, "{", "}")]
                else:
                    end = text.find(";", close + 1)
                    branch = text[close + 1:end + 1 if end >= 0 else len(text)]
                return cond, branch
            depth -= 1
        elif ch in ";{}" and depth == 0:
            return "", ""
    return "", ""


def line_offset(text: str, lines: int) -> int:
    """The offset where line `lines` (0 = the first) of text begins."""
    return sum(len(x) + 1 for x in text.split("\n")[:max(lines, 0)])


def label_code(text: str, label: str) -> str:
    """The code from `label:` to the end of the first return after it."""
    m = re.search(r"(?m)^\s*%s\s*:(?!:)" % re.escape(label), text)
    if not m:
        return ""
    r = re.compile(r"\breturn\b[^;]*;").search(text, m.end())
    return text[m.end():r.end()] if r else text[m.end():]


def loop_header(text: str, off: int, macros: bool = False) -> int:
    """Where the innermost while/for loop holding offset off begins, or -1;
    with macros, iterator macros (`list_for_each_entry(...) {`) count too.
    A polling loop repeats its condition and body every round, so what it
    does is part of the wait, not something done before it."""
    best = -1
    loops = r"\b(?:while|for|\w*for_each\w*)\s*\(|\bdo\s*\{" if macros else \
        r"\b(?:while|for)\s*\(|\bdo\s*\{"
    for m in re.finditer(loops, text[:off]):
        if m.group(0).startswith("do"):
            if csource.matching(text, m.end() - 1, "{", "}") >= off:
                best = m.start()
            continue
        close = csource.matching(text, m.end() - 1, "(", ")")
        if close >= off:
            continue
        rest = text[close + 1:].lstrip()
        if rest.startswith("{"):
            open_ = text.index("{", close)
            end = csource.matching(text, open_, "{", "}")
        else:
            end = text.find(";", close)
        if end >= off:
            best = m.start()
    return best


def local_objects(text: str) -> set[str]:
    """Names declared in the function as structs or arrays (not pointers):
    writing into them changes nothing shared."""
    return set(re.findall(r"(?m)^\s*(?:const\s+)?(?:struct\s+|union\s+)?\w+\s+(\w+)\s*"
                          r"(?:\[[^\]]*\])?\s*(?:=[^;]*)?;", text))


def stack_objects(text: str) -> set[str]:
    """The function's local structs, unions and arrays (`struct tx_cmd
    cmd;`, `u8 buf[4];`): memory of its stack frame that a call may be
    handed."""
    return set(re.findall(r"(?m)^\s*(?:const\s+)?(?:struct|union)\s+\w+\s+(\w+)\s*"
                          r"(?:\[[^\]]*\])?\s*(?:=[^;]*)?;", text)) | \
        set(re.findall(r"(?m)^\s*(?:const\s+)?(?:struct\s+|union\s+)?\w+\s+(\w+)\s*"
                       r"\[[^\]]*\]\s*(?:=[^;]*)?;", text))


def without_exit_branches(text: str) -> str:
    """The code with every branch that ends in a return or goto blanked:
    `if (c) return f();` runs f() only on a path that never reaches what
    follows, so only the condition stays."""
    out = list(text)
    for m in EXIT_RE.finditer(text):
        guard, cond = guard_of(text, m.start())
        if guard < 0:
            continue
        # Keep the condition's `)` and the statement's `;`: they still end
        # statements for stores_in().
        start = text.index(cond, guard) + len(cond) + 1 if cond else guard
        for i in range(start, m.end() - 1):
            if out[i] != "\n":
                out[i] = " "
    return "".join(out)


def in_scope(text: str, name: str, off: int) -> bool:
    """Whether a local name declared in text is visible at offset off: some
    declaration of it comes before off in a block still open there.  True
    when text declares no such local (a parameter or a global)."""
    decls = [m.start() for m in re.finditer(
        r"\b(?:int|long|ssize_t|loff_t|s32|s64|size_t|unsigned)\b[^;(){}]*?\b%s\s*[;=,\[]"
        % re.escape(name), text)]
    if not decls:
        return True
    return any(d < off and block_still_open(text, d, off) for d in decls)


def block_still_open(text: str, start: int, off: int) -> bool:
    """Whether the block that holds offset start is still open at off: no
    `}` between them closes it."""
    depth = 0
    for ch in text[start:off]:
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            return False
    return True


def loop_span(text: str, off: int) -> tuple[int, int]:
    """(start, end) of the innermost loop (iterator macros included) around
    offset off, or (-1, -1)."""
    head = loop_header(text, off, macros=True)
    if head < 0:
        return -1, -1
    open_ = text.find("{", head)
    end = csource.matching(text, open_, "{", "}") if open_ >= 0 else -1
    return (head, end) if end > off else (-1, -1)


CASE_LABEL = re.compile(r"\bcase\b[^;:]*:(?!:)|\bdefault\s*:(?!:)")
JUMP_AT_END = re.compile(r"(?:\bbreak\s*;|\breturn\b[^;{}]*;|\bgoto\s+\w+\s*;|\bcontinue\s*;)$")


def other_cases(text: str, off: int) -> tuple[int, int]:
    """(start, end) of the code of the other cases of the switch before the
    case that holds offset off, when none of it can run before off: the
    code before our label ends in a jump (break, return, goto), so no case
    falls through into ours.  (-1, -1) otherwise.  Code before the switch
    statement still runs, and stays outside the span."""
    labels = [m for m in CASE_LABEL.finditer(text, 0, off)
              if block_still_open(text, m.end(), off)]
    if not labels:
        return (-1, -1)
    kw = labels[-1].start()
    i = open_brace_before(text, kw)     # the switch's `{`
    if i < 0 or not re.search(r"\bswitch\s*\([^;{}]*\)\s*$", text[max(0, i - 400):i]):
        return (-1, -1)
    prev = text[i + 1:kw].rstrip()
    # Labels stacked on ours (`case A:\ncase B:`) are our entry too.
    while True:
        stacked = [m for m in CASE_LABEL.finditer(prev) if m.end() == len(prev)]
        if not stacked:
            break
        prev = prev[:stacked[-1].start()].rstrip()
    kw = i + 1 + len(prev)
    if not prev.strip():
        return (-1, -1)
    code = prev
    # `case A: { ...; break; }`: a block right after a label.
    while code.endswith("}"):
        j = matching_back(code, len(code) - 1, "{", "}")
        if j < 0 or not code[:j].rstrip().endswith(":"):
            return (-1, -1)
        code = code[:-1].rstrip()
    if not JUMP_AT_END.search(code):
        return (-1, -1)
    return (i + 1, kw)


def statement_end(text: str, i: int) -> int:
    """The offset just past the statement that starts at text[i] (after
    blanks): a block, an if with its else chain, or up to its `;`."""
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    if i >= n:
        return n
    if text[i] == "{":
        close = csource.matching(text, i, "{", "}")
        return close + 1 if close > 0 else n
    m = re.match(r"(?:if|while|for|switch)\s*\(", text[i:])
    if m:
        close = csource.matching(text, i + m.end() - 1, "(", ")")
        if close < 0:
            return n
        end = statement_end(text, close + 1)
        e = re.match(r"\s*else\b", text[end:])
        if text[i:i + 2] == "if" and e:
            end = statement_end(text, end + e.end())
        return end
    depth = 0
    for j in range(i, n):
        ch = text[j]
        depth += ch in "({["
        depth -= ch in ")}]"
        if depth < 0:
            return j
        if ch == ";" and depth == 0:
            return j + 1
    return n


def then_branches(text: str, off: int) -> list[tuple[int, int]]:
    """(start, end) of each if's then-branch whose else-branch holds offset
    off: that code ran on another path (iio_read_channel_info() calls
    ->read_raw_multi() if the driver has one, else ->read_raw())."""
    out = []
    for m in re.finditer(r"\belse\b", text[:off]):
        if statement_end(text, m.end()) <= off:
            continue        # our code is past this else's branch
        before = text[:m.start()].rstrip()
        for cand in reversed(list(re.finditer(r"\bif\s*\(", text[:m.start()]))):
            close = csource.matching(text, cand.end() - 1, "(", ")")
            if close < 0:
                continue
            body_end = statement_end(text, close + 1)
            if text[:body_end].rstrip() == before:
                out.append((close + 1, body_end))
                break
    return out


def blank_span(text: str, start: int, end: int) -> str:
    """text with [start, end) blanked, newlines kept (offsets stay)."""
    if start < 0:
        return text
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def case_label_before(text: str, off: int) -> int:
    """Where the code after the `case X:` or `default:` label of the switch
    branch holding offset off begins, or -1: the last such label before off
    whose block is still open at off.  The label itself may call a macro
    (`case KILLDEMO_BLOCK(KILLDEMO_MUTEX):`), which runs no code."""
    best = -1
    for m in re.finditer(r"\bcase\b[^;:]*:(?!:)|\bdefault\s*:(?!:)", text[:off]):
        if block_still_open(text, m.end(), off):
            best = m.end()
    return best


def case_segments(text: str, open_: int, close: int) -> list[tuple[int, int]]:
    """(start, end) of the code after each `case X:`/`default:` label of the
    switch whose body is text[open_:close] (`{` to `}`); labels of nested
    switches are not ours."""
    labels = []
    depth = 0
    i = open_ + 1
    while i < close:
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and ch in "cd":
            m = CASE_LABEL.match(text, i)
            if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                labels.append((m.start(), m.end()))
                i = m.end()
                continue
        i += 1
    return [(end, labels[n + 1][0] if n + 1 < len(labels) else close)
            for n, (_, end) in enumerate(labels)]


def without_returning_cases(text: str, off: int) -> str:
    """text with the code blanked of each case of a switch (closed before
    offset off) that leaves the function instead of reaching off: its last
    statement is a return, or a goto to a label after off, and nothing in
    it breaks or continues.  A case that falls through into such a case
    leaves too.  blkdev_ioctl()'s `case BLKBSZSET: return blkdev_bszset();`
    never runs before its blkdev_common_ioctl() call after the switch."""
    out = text
    for m in re.finditer(r"\bswitch\s*\(", text[:off]):
        cond_end = csource.matching(text, m.end() - 1, "(", ")")
        if cond_end < 0:
            continue
        open_ = cond_end + 1
        while open_ < len(text) and text[open_].isspace():
            open_ += 1
        if open_ >= len(text) or text[open_] != "{":
            continue
        close = csource.matching(text, open_, "{", "}")
        if close < 0 or close >= off:
            continue
        leaves_after = False     # whether the next segment leaves
        for start, end in reversed(case_segments(text, open_, close)):
            code = text[start:end].strip()
            while code.endswith("}") and code.startswith("{"):
                code = code[1:-1].strip()
            if re.search(r"\b(?:break|continue)\b", code):
                leaves = False
            elif re.search(r"\breturn\b[^;{}]*;$", code):
                leaves = True
            elif (g := re.search(r"\bgoto\s+(\w+)\s*;$", code)):
                target = re.search(r"(?m)^\s*%s\s*:(?!:)" % re.escape(g.group(1)), text)
                leaves = bool(target) and target.start() > off
            elif not code or not JUMP_AT_END.search(code):
                leaves = leaves_after           # falls through
            else:
                leaves = False
            leaves = leaves and not any(
                (t := re.search(r"(?m)^\s*%s\s*:(?!:)" % re.escape(g2), text)) is None or
                t.start() < off for g2 in re.findall(r"\bgoto\s+(\w+)\s*;", code))
            if leaves:
                out = blank_span(out, start, end)
            leaves_after = leaves
    return out
