"""Callers of functions whose address sits in a struct member.

A static function whose file only stores its address in members
(`.read_raw = adxl313_read_raw`) is called from nowhere but the call sites
of those members.  The graph knows each member's call sites by name
(Graph.member_callers).  They are all of its callers only if the member
never leaves through another door, so every mention of the member's name
in the tree is read once (one grep for all of them).  After `->` or `.`
it must be one of:

  a call        ops->read_raw(...)        the graph has it
  a store       .read_raw = f, x->read_raw = f
  a read        if (!info->read_raw), info->read_raw && ..., cp->enable != 1

and a plain identifier (a declaration, a function or a variable of that
name) must not be an argument of a macro that calls a member named by a
parameter (v4l2_subdev_call(sd, video, s_stream, 1) calls ->s_stream).
The value must not leave: a copy (`fn = ops->read_raw`, `&ops->m`, an
argument, a return) is an open door, and so is
a call inside a macro's body (the macro's users call the member, and the
graph sees none of them), and a macro argument.  Then the member's callers
are not known and the function stays manual, naming where the door is.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from typing import Iterable, Iterator, Sequence

from killable import data
from killable.scan import csource

# More call sites than this and the check is not tried (reason names the count).
MAX_CALLERS = 24
# Directories of user-space code (callgraph.USER_SPACE_DIRS).
USER_SPACE = ("tools/", "scripts/")

RECEIVER_END = re.compile(r"[A-Za-z_][\w]*(?:\s*\[[^\]]*\])?(?:\s*(?:->|\.)\s*[A-Za-z_]\w*"
                          r"(?:\s*\[[^\]]*\])?)*\s*(?:->|\.)\s*$")
# Where a member's value leaves as a value: assigned whole, passed whole,
# returned, its address taken, chosen by ?: (the text before the receiver,
# then the text after the member).
LEAVES_BEFORE = re.compile(r"(?:(?<![=!<>])=|(?<!&)&|\breturn|\?|:|\(|,)\s*\(?\s*$")
LEAVES_AFTER = re.compile(r"\)?\s*(?:[;,):]|$)")
COND_OPEN = re.compile(r"\b(?:if|while|switch|likely|unlikely|WARN_ON\w*|BUG_ON)\s*\(\s*$")


def classify(line: str, start: int, end: int, prev: str = "",
             readers: NameTable = (frozenset(), [])) -> str:
    """What one mention of a member's name at line[start:end] is: call,
    store, read (a test, a comparison: the value stays; an argument of a
    function in readers, which only reads or prints it), open (the value
    leaves: assigned, passed, returned, its address taken), or name (a
    plain identifier: open_doors decides).  prev is the line before, for
    a receiver that starts a line."""
    before = line[:start]
    after = line[end:].lstrip()
    if not before.rstrip().endswith(("->", ".")):
        return "name"
    if after.startswith("("):
        return "call"
    if after.startswith("=") and not after.startswith("=="):
        return "store"
    recv = RECEIVER_END.search(before)
    pre = (before[:recv.start()] if recv else before).rstrip()
    context = prev.rstrip() + "\n" + pre
    if not pre.strip():
        pre = context = prev.rstrip()
    if re.match(r"\)\s*\(", after):
        return "open"       # (*ops->m)(...): a call the graph does not see
    if COND_OPEN.search(pre) or not LEAVES_BEFORE.search(pre) or not LEAVES_AFTER.match(after):
        return "read"
    if pre.endswith((",", "(")) and is_reader(enclosing_call(context), readers):
        return "read"
    return "open"


NameTable = tuple[frozenset[str], list[re.Pattern]]


def enclosing_call(text: str) -> str:
    """The name of the call whose parenthesis is open at the end of text
    (`pr_err("%ps", ` -> pr_err), or ""."""
    depth = 0
    for j in range(len(text) - 1, -1, -1):
        c = text[j]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                m = re.search(r"([A-Za-z_]\w*)\s*$", text[:j])
                return m.group(1) if m else ""
            depth -= 1
    return ""


def is_reader(name: str, readers: NameTable) -> bool:
    names, patterns = readers
    return bool(name) and (name in names or any(p.search(name) for p in patterns))


STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def code_part(line: str) -> str:
    """The line without a comment or string literal (a line inside a
    block comment starts with *, as kernel style wants; one that does not
    is read as code)."""
    s = line.lstrip()
    if s.startswith(("*", "/*", "//")):
        return ""
    line = STRING.sub('""', line)
    for mark in ("//", "/*"):
        i = line.find(mark)
        if i >= 0:
            line = line[:i]
    return line


def grep_tree(kdir: str, args: list[str], patterns: Iterable[str],
              suffixes: Sequence[str] = ("c", "h")) -> Iterator[tuple[str, str, str, bool, str]]:
    """grep -r over the tree's .c and .h files with args and patterns (one
    per line): (path, line number, text, whether it matched, the
    text of the line before in the same file or "").  The caller asks for
    context with -A/-B in args; -Z ends each file name with a NUL, as
    names hold "-"."""
    # grep's output over the whole tree runs to hundreds of megabytes:
    # read it a line at a time, never whole (the graph build's memory
    # limit, tests/audit test_graph_memory_whole_tree).
    with tempfile.NamedTemporaryFile("w", prefix="killable-grep-", suffix=".txt") as pat, \
            tempfile.TemporaryFile("w+") as errors:
        pat.write("\n".join(patterns) + "\n")
        pat.flush()
        with subprocess.Popen(
                ["grep", "-rnZ", *args, *(f"--include=*.{x}" for x in suffixes), "-f", pat.name,
                 "."], cwd=kdir, stdout=subprocess.PIPE, stderr=errors, text=True,
                errors="replace") as proc:
            assert proc.stdout is not None
            prev = ("", "")
            for out in proc.stdout:
                path, nul, rest = out.rstrip("\n").partition("\0")
                m = LINE_NUMBER.match(rest)
                if not nul or not m:
                    continue        # "--" between groups
                path = path[2:] if path.startswith("./") else path
                text = rest[m.end():]
                before, prev = prev, (path, text)
                if not path.startswith(USER_SPACE):
                    yield path, m.group(1), text, m.group(2) == ":", \
                        before[1] if before[0] == path else ""
        if proc.returncode not in (0, 1):
            errors.seek(0)
            raise OSError(f"grep over {kdir} failed: {errors.read(400).strip()[:200]}")


LINE_NUMBER = re.compile(r"(\d+)([:-])")


DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)\(([^)]*)\)(.*)$")


def in_macro_body(code: str, before: str) -> bool:
    """A line of a #define (its first, or one after a backslash): calls
    there are the macro's users', which the graph does not see."""
    return code.lstrip().startswith("#") or code.rstrip().endswith("\\") or \
        before.rstrip().endswith("\\")


def member_call_macros(kdir: str) -> set[str]:
    """Function-like macros that call a member a parameter names
    (`#define v4l2_subdev_call(sd, o, f, args...) ... ->o->f(...)`), and
    macros that pass a parameter on to one of those."""
    bodies: dict[str, tuple[list[str], str]] = {}
    cur = ""
    for _path, _n, text, matched, _before in grep_tree(kdir, ["-E", "-A12"],
                                                       [r"^\s*#\s*define\s+\w+\("]):
        m = DEFINE.match(text) if matched else None
        if m:
            cur = m.group(1)
            params = [p.strip().rstrip(".").strip() for p in m.group(2).split(",")]
            bodies[cur] = ([p if p else "__VA_ARGS__" for p in params], m.group(3))
        elif cur:
            bodies[cur] = (bodies[cur][0], bodies[cur][1] + "\n" + text)
        if not text.rstrip().endswith("\\"):
            cur = ""
    found: set[str] = set()
    for name, (params, body) in bodies.items():
        for p in params:
            if p and re.search(r"(?:->|\.)\s*(?:\w*\s*##\s*)?%s\b(?:\s*##\s*\w*)?\s*\("
                               % re.escape(p), body):
                found.add(name)
                break
    while True:
        if not found:
            return found
        calls = re.compile(r"\b(?:%s)\s*\(" % "|".join(sorted(map(re.escape, found))))
        more = {name for name, (params, body) in bodies.items() if name not in found and
                calls.search(body) and any(re.search(r"\b%s\b" % re.escape(p), body)
                                           for p in params if p)}
        if not more:
            return found
        found |= more


Doors = dict[str, list[tuple[str, str]]]


def add_door(doors: Doors, member: str, stype: str, where: str) -> None:
    """Keep the first door of each receiver type ("" unknown) per member."""
    found = doors.setdefault(member, [])
    if all(t != stype for t, _w in found):
        found.append((stype, where))


def open_doors(kdir: str, members: Iterable[str],
               field_types: dict[tuple[str, str], str] | None = None,
               typedefs: dict[str, str] | None = None) -> Doors:
    """member -> [(receiver's struct type or "", "FILE:LINE")], the first
    mention per receiver type that is an open door, for every member that
    has one: a member read classify() calls open, a call in a macro's
    body, an argument of a member_call_macros() macro.  The receiver's type
    is what the door's file declares (receiver_type() with field_types);
    a door typed so closes nothing for a function stored in another
    type's member of that name (gss_rpc_xdr.c's ctx->open is a flag of
    struct gssx_ctx, no file_operations' .open).  A variable declared with
    a typedef name has the struct that typedefs says (wavefront_midi.c's
    `snd_wavefront_midi_t *midi`)."""
    members = sorted(set(members))
    if not members:
        return {}
    wanted = set(members)
    word = re.compile(r"[A-Za-z_]\w*")
    doors: Doors = {}
    # grep gives one file's lines together: only that file's declarations
    # are kept (all door files' lines at once took 250 MiB on 6.1).
    declared: dict[str, Declarations] = {}
    readers = data.load_value_readers()
    for path, lineno, text, matched, before in grep_tree(kdir, ["-wF", "-B1"], members):
        if not matched:
            continue
        code = code_part(text)
        in_macro = in_macro_body(code, before)
        for m in word.finditer(code):
            name = m.group(0)
            if name not in wanted or any(t == "" for t, _w in doors.get(name, ())):
                continue
            kind = classify(code, m.start(), m.end(), code_part(before), readers)
            if kind == "open" or (in_macro and kind == "call"):
                stype = ""
                if path not in declared:
                    declared = {path: Declarations(os.path.join(kdir, path), typedefs)}
                if declared[path].in_comment(int(lineno)):
                    continue
                if field_types is not None and (not in_macro or path.endswith(".c")):
                    typer = macro_receiver_type if in_macro else receiver_type
                    stype = typer(code[:m.start()], declared[path], int(lineno), field_types)
                add_door(doors, name, stype, f"{path}:{lineno}")
    macros = member_call_macros(kdir)
    if not macros:
        return doors
    call = re.compile(r"\b(?:%s)\s*\(" % "|".join(sorted(map(re.escape, macros))))
    lines: list[tuple[str, str, str]] = []
    for path, lineno, text, matched, _b in grep_tree(kdir, ["-wF", "-A2"], sorted(macros)):
        lines.append((path, lineno, code_part(text)))
    for i, (path, lineno, text) in enumerate(lines):
        # An invocation's arguments may run on for a line or two.
        more = "\n".join(t for p, _n, t in lines[i + 1:i + 3] if p == path)
        joined = text + "\n" + more
        for c in call.finditer(text):
            close = matching(joined, c.end() - 1)
            for m in word.finditer(joined[c.end():close if close > 0 else len(joined)]):
                if m.group(0) in wanted:
                    add_door(doors, m.group(0), "", f"{path}:{lineno}")
    return doors


# A declaration of a name: `struct T *name`, `struct T name[`, or any other
# type's (`foo_t *name`, `int name`), which makes the name's type unknown.
DECLARED = re.compile(r"(?:\b(?:struct|union)\s+([A-Za-z_]\w*)|\b([A-Za-z_]\w*))\s*(?:\*\s*)*"
                      r"(?:\bconst\s+)?(?<=[\s*])([A-Za-z_]\w*)\s*(?=[,;=)\[])")
MORE_DECLARED = re.compile(r"\s*(?:\[[^\]]*\]\s*)?,\s*(?:\*\s*)*([A-Za-z_]\w*)(?=\s*([,;=\[]))")
NOT_A_TYPE = frozenset(("return", "else", "case", "goto", "sizeof", "typeof", "do", "struct",
                        "union", "enum", "const", "volatile", "static", "extern", "inline"))


class Declarations:
    """The declarations of one file, to give a name the types they say: a
    struct's or union's name, the tag a known typedef names, or "?" for any
    other type (a scalar, a typedef not known)."""

    def __init__(self, path: str, typedefs: dict[str, str] | None = None) -> None:
        self.typedefs = typedefs or {}
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                self.text = f.read()
        except OSError:
            self.text = ""
        self.lines = [code_part(ln) for ln in self.text.splitlines()]
        self.whole = self.found("\n".join(self.lines))
        self._commented: set[int] | None = None

    def in_comment(self, lineno: int) -> bool:
        """Whether line lineno (1-based) lies wholly in a block comment (a
        comment's line that does not start with `*`: code_part reads it
        as code, traps.c's `handlers could not have their side-effect
        (e.g. probe`)."""
        if self._commented is None:
            self._commented = set()
            for m in re.finditer(r"/\*.*?\*/", self.text, re.S):
                first = self.text.count("\n", 0, m.start()) + 1
                last = first + m.group(0).count("\n")
                self._commented.update(range(first + 1, last))
        return lineno in self._commented

    def found(self, text: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for d in DECLARED.finditer(text):
            if d.group(2) not in NOT_A_TYPE:
                t = d.group(1) or self.typedefs.get(d.group(2) or "", "") or "?"
                out.setdefault(d.group(3), set()).add(t)
                # `struct snd_soc_pcm_runtime *fe, *be;`: the names after it.
                at = d.end()
                while (more := MORE_DECLARED.match(text, at)):
                    out.setdefault(more.group(1), set()).add(t)
                    if more.group(2) == "=":
                        break       # an initializer's commas are not the list's
                    at = more.end()
        return out

    def function_start(self, lineno: int) -> int:
        """The 0-based index of the first line of the function around line
        lineno (1-based): the line after the last `}` in column 0."""
        start = lineno - 1
        while start > 0 and not self.lines[start - 1].startswith("}"):
            start -= 1
        return start

    def in_function(self, lineno: int) -> bool:
        """Whether line lineno is inside a function's body (an opening `{`
        in column 0 since the last closing one)."""
        return any(ln.startswith("{") for ln in self.lines[self.function_start(lineno):lineno - 1])

    def local_types(self, name: str, lineno: int) -> set[str]:
        """What the function around line lineno itself declares name as."""
        return self.found("\n".join(self.lines[self.function_start(lineno):lineno])).get(name, set())

    def types(self, name: str, lineno: int) -> set[str]:
        """What the function around line lineno (1-based) declares name
        as, from its header to that line (kernel style closes a function
        with `}` in column 0); else what the whole file does."""
        return self.local_types(name, lineno) or self.whole.get(name, set())


RECEIVER_PARTS = re.compile(r"\s*(?:->|\.)\s*")


def receiver_parts(before: str) -> list[str]:
    """The variable and fields of the receiver that ends `before`
    (`rtd->dpcm[stream].` -> rtd, dpcm), or [] when there is none."""
    recv = RECEIVER_END.search(before)
    if not recv:
        return []
    # Indexes first: `[substream->stream]` holds an arrow of its own.
    return [p for p in RECEIVER_PARTS.split(re.sub(r"\s*\[[^\]]*\]", "", recv.group(0))) if p]


# The record of a trace event in TRACE_EVENT()'s TP_fast_assign and
# TP_printk: its fields are the event's own (__field(), __array()), never
# an ops table's members, so a mention there is a door of that type only.
TRACE_ENTRY = "__entry"


def receiver_type(before: str, declared: Declarations, lineno: int,
                  field_types: dict[tuple[str, str], str]) -> str:
    """The struct type of the receiver that ends `before` (`ctx->`,
    `rtd->dpcm[stream].`) on line lineno: its base variable declared with
    one struct type (Declarations.types), then each field's one type in
    its struct; else ""."""
    parts = receiver_parts(before)
    if not parts:
        return ""
    if parts[0] == TRACE_ENTRY:
        return TRACE_ENTRY
    types = declared.types(parts[0], lineno)
    return field_walk(next(iter(types)) if len(types) == 1 else "", parts[1:], field_types)


def field_walk(stype: str, fields: Sequence[str],
               field_types: dict[tuple[str, str], str]) -> str:
    """The struct type of stype's field chain, when each field has one."""
    for f in fields:
        if stype in ("", "?"):
            return ""
        stype = field_types.get((stype, f), "")
    return "" if stype == "?" else stype


SIMPLE_ARG = re.compile(r"^[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*$")


def macro_receiver_type(before: str, declared: Declarations, lineno: int,
                        field_types: dict[tuple[str, str], str]) -> str:
    """The receiver's struct type of a member call in the body of a macro
    its .c file defines, whose receiver is one of the macro's parameters
    (`#define ca_midi_write_data(midi, data) midi->write(midi, data, 0)`
    in sound/pci/ca0106/ca_midi.c): the one type the argument has at every
    use of the macro in the file; or a name every function that uses the
    macro declares, with one type; else ""."""
    parts = receiver_parts(before)
    lines = declared.lines
    first = lineno - 1
    while first > 0 and lines[first - 1].rstrip().endswith("\\"):
        first -= 1
    last = lineno - 1
    while last < len(lines) - 1 and lines[last].rstrip().endswith("\\"):
        last += 1
    d = DEFINE.match(lines[first]) if lines else None
    if not d:
        return ""
    params = [x.strip() for x in d.group(2).split(",")]
    if not parts:
        return ""
    index = params.index(parts[0]) if parts[0] in params else -1
    use = re.compile(r"\b%s\s*\(" % re.escape(d.group(1)))
    found: set[str] = set()
    for n, line in enumerate(lines):
        if first <= n <= last:
            continue
        for u in use.finditer(line):
            if index < 0:
                # A name the macro takes from where it is used (ath's
                # REG_WRITE and `common->ops->write`): each user must
                # declare it itself, in a function, with one struct type.
                if line.rstrip().endswith("\\") or not declared.in_function(n + 1):
                    return ""
                types = declared.local_types(parts[0], n + 1)
                if len(types) != 1:
                    return ""
                found.add(next(iter(types)))
                continue
            text = "\n".join(lines[n:n + 3])
            close = matching(text, u.end() - 1)
            args = csource.split_args(text[u.end():close]) if close > 0 else []
            arg = args[index].strip() if index < len(args) else ""
            if not SIMPLE_ARG.match(arg):
                return ""
            found.add(receiver_type(arg + "->", declared, n + 1, field_types))
    if len(found) != 1:
        return ""
    return field_walk(found.pop(), parts[1:], field_types)


def matching(text: str, i: int) -> int:
    """The index of the parenthesis closing the one at text[i], or -1."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


def door_for(stype: str, member: str, doors: Doors) -> str:
    """Where a store in stype's member (stype "" unknown) leaves by an open
    door: a door of that receiver type or of one not known; else ""."""
    for dtype, where in doors.get(member, ()):
        if not stype or not dtype or dtype == stype:
            return where
    return ""


def caller_classes(stores: Iterable[tuple[str, str]],
                   callers: dict[str, Sequence[tuple[str, str]]], doors: Doors) -> list[str]:
    """The reach.tsv classes for one function stored in these members
    (struct type or "", member):
      mcallers:N                  every call site, N of them; then
      mcaller:FILE:FUNC:MEMBER    one per calling function and member
      mcallers:open:MEMBER:WHERE  a member with an open door
      mcallers:many:N             more than MAX_CALLERS"""
    stores = sorted(stores)
    for t, m in stores:
        where = door_for(t, m, doors)
        if where:
            return [f"mcallers:open:{m}:{where}"]
    found = sorted({(f, fn, m) for _t, m in stores for f, fn in callers.get(m, ())})
    if len(found) > MAX_CALLERS:
        return [f"mcallers:many:{len(found)}"]
    return [f"mcallers:{len(found)}"] + [f"mcaller:{f}:{fn}:{m}" for f, fn, m in found]


EXPORT = re.compile(r"\bEXPORT_\w*SYMBOL\w*\s*\(\s*$")


DECL_PREFIX = re.compile(r"^(?!(?:return|else|case|goto|do|sizeof|typeof)\b)"
                         r"(?:(?:extern|static|inline|const|volatile|unsigned|signed|struct|"
                         r"enum|union|__\w+)\s+)*[A-Za-z_]\w*(?:\s+|\s*\*+\s*)$")


def function_calls(kdir: str, names: Iterable[str]
                   ) -> tuple[dict[str, str], set[str], dict[str, dict[str, list[int]]]]:
    """For global functions, from one grep of the tree (.S files too):
      doors     name -> "FILE:LINE" of a mention that hides callers: its
                address taken or aliased, a call in a macro's body, in a
                header's inline function or in assembly;
      exported  the names some EXPORT_SYMBOL exports (callers out of tree);
      calls     name -> FILE -> the lines of its calls in that .c file
                (declarations and definitions are not calls).
    A mention after -> or . is a member of that name, not the function."""
    names = sorted(set(names))
    doors: dict[str, str] = {}
    exported: set[str] = set()
    calls: dict[str, dict[str, list[int]]] = {}
    if not names:
        return doors, exported, calls
    wanted = set(names)
    word = re.compile(r"[A-Za-z_]\w*")
    for path, lineno, text, matched, before in grep_tree(kdir, ["-wF", "-B1"], names,
                                                         ("c", "h", "S")):
        if not matched:
            continue
        code = text if path.endswith(".S") else code_part(text)
        in_macro = in_macro_body(code, before)
        for m in word.finditer(code):
            name = m.group(0)
            if name not in wanted or name in doors:
                continue
            pre = code[:m.start()]
            if pre.rstrip().endswith(("->", ".")):
                continue
            if EXPORT.search(pre):
                exported.add(name)
                continue
            paren = code[m.end():].lstrip().startswith("(")
            if paren and (pre == "" or DECL_PREFIX.match(pre.strip() + " ")) and not in_macro:
                continue        # a declaration or the definition
            if path.endswith((".S", ".h")) or in_macro or not paren:
                doors[name] = f"{path}:{lineno}"
                continue
            calls.setdefault(name, {}).setdefault(path, []).append(int(lineno))
    return doors, exported, calls


def direct_caller_classes(home: str, calls: dict[str, list[int]], door: str,
                          exported: bool) -> list[str]:
    """The reach.tsv classes for one global function defined in home:
      gcallers:N                  calls in N other files; then
      gcall:FILE:LINE;LINE...     the lines of its calls in one file
      gcallers:open:WHERE         a mention that hides callers
      gcallers:exported           exported: callers outside the tree too
                                  (the others still name those inside)
      gcallers:many:N             calls in more than MAX_CALLERS files"""
    if door:
        return [f"gcallers:open:{door}"]
    # Exported: the callers in the tree are checked like any others, and
    # the class says that modules outside it may call it too.
    mark = ["gcallers:exported"] if exported else []
    files = sorted(f for f in calls if f != home)
    if len(files) > MAX_CALLERS:
        return mark + [f"gcallers:many:{len(files)}"]
    return mark + [f"gcallers:{len(files)}"] + [
        f"gcall:{f}:{';'.join(map(str, sorted(calls[f])))}" for f in files]
